"""Share bars: a hero figure over labelled horizontal bars, each split into parts (``ShareBarsState``).

Top: the headline (the one figure a room should read, in its colour role).
Then one row per bar: its title, the bar (its full length outlined, each part
filled in its colour and pattern: solid, hatched or dotted, so colour never
carries the meaning alone) and each part's label under it, centred under the
part as far as the bar allows. Texts are fitted at or above the theme's floor;
when the widget is too small, part labels go first, then titles, then the
headline (``LABEL_PRIORITY``); a label that would cover another is left out
(``LabelPlacer``). A row's title is keyed by the row ("title.naive"), so a formula card finds the
figure it explains (``label_rects()``). Parts are filled by ``widgets.bar_paint``, as the ratio bars'
are: one look per pattern in every picture.
Painting is a handful of rectangles and texts, and each bar's dotted outline laid from a picture
(``widgets.dashed_outline``: stroked, it cost a millisecond a bar): cheap enough for every frame of a reveal
(``grow`` moving from 0 to 1).
"""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter, QPen
from PySide6.QtWidgets import QWidget

from widgets.bar_paint import fill_bar, pen_px
from widgets.dashed_outline import DashedOutline
from widgets.share_bars_state import ShareBarsState, drawn_shares
from widgets.state_widget import StateWidget
from widgets.text_fit import LabelPlacer, TextMeasure
from widgets.theme import Theme

MAX_TEXT_PX = 64            # larger glyphs are drawn as paths by the raster engine: far slower per frame
LABEL_PER_HEIGHT = 0.06     # titles and part labels, before fitting
HEADLINE_PER_HEIGHT = 0.16
MIN_SLIVER_PX = 3.0         # a part of a tiny share still shows as a line
GAP_PX = 2.0
LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
CENTRE = Qt.AlignmentFlag.AlignCenter


class ShareBars(StateWidget):
    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(theme, parent)
        # Not opaque, as before it was a StateWidget: with the attribute the summary's cards crashed Qt
        # (offscreen) when a scene was torn down while the next one was shown.
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, False)
        self.measure = TextMeasure()
        self._outlines: list[DashedOutline] = []          # each bar's dotted full length, from its picture

    # -- layout ------------------------------------------------------------------------------
    def _plan(self, state: ShareBarsState):
        """(headline px or 0, label px, with titles, with part labels, row height) that fits the height."""
        w, h = float(self.width()), float(self.height())
        floor = self.theme.floor_px
        margin = max(4.0, 0.03 * min(w, h))
        px = max(floor, min(40, round(LABEL_PER_HEIGHT * h)))
        line = self.measure.line_height(px, False)
        head_px = max(floor, min(MAX_TEXT_PX, round(HEADLINE_PER_HEIGHT * h)))
        rows = max(1, len(state.rows))
        min_bar = max(8.0, 0.5 * line)
        for headline, titles, parts in ((True, True, True), (True, True, False), (True, False, False),
                                        (False, False, False)):
            head_h = self.measure.line_height(head_px, True) + 3 * GAP_PX if headline and state.headline else 0.0
            per_row = (h - 2 * margin - head_h) / rows
            text_h = (line + GAP_PX) * (int(titles) + int(parts))
            if per_row - text_h - GAP_PX >= min_bar:
                bar_h = min(1.6 * line, per_row - text_h - GAP_PX)
                return margin, (head_px if head_h else 0), px, titles, parts, per_row, bar_h, head_h
        return margin, 0, px, False, False, (h - 2 * margin) / rows, max(1.0, (h - 2 * margin) / rows - 2), 0.0

    def _lay_out(self):
        """(bars: [(outline rect, [(part rect, role, pattern)])], texts: LabelPlacer); None when too small."""
        state: ShareBarsState = self.state
        if self.width() < 8 or self.height() < 8:
            return None
        margin, head_px, px, titles, parts, per_row, bar_h, head_h = self._plan(state)
        texts = LabelPlacer(self.measure, self.theme.floor_px, QRectF(0, 0, self.width(), self.height()),
                            gap_px=GAP_PX, max_px=MAX_TEXT_PX)
        bars = []
        width = self.width() - 2 * margin
        if head_px:
            box = QRectF(margin, margin, width, head_h - 3 * GAP_PX)
            texts.place("headline", state.headline, box, head_px, True, LEFT, state.headline_role)
        line = self.measure.line_height(px, False)
        top = margin + head_h
        for row in state.rows:
            y = top
            if titles:
                texts.place(f"title.{row.key}", row.title, QRectF(margin, y, width, line), px, False, LEFT)
                y += line + GAP_PX
            bar = QRectF(margin, y, width, bar_h)
            rects, spans = self._parts(bar, row, state.grow)
            bars.append((bar, rects))
            if parts:
                below = QRectF(margin, bar.bottom() + GAP_PX, width, line)
                # The largest part's label first: a sliver's label gives way to it, never the other way round.
                for part, (left, right) in sorted(zip(row.parts, spans), key=lambda ps: -ps[0].share):
                    texts.place(f"part.{row.key}.{part.key}", part.label, below, px, False, LEFT,
                                centre_x=(left + right) / 2)
            top += per_row
        return bars, texts

    @staticmethod
    def _parts(bar: QRectF, row, grow: float):
        rects, spans, x = [], [], bar.left()
        for part, share in zip(row.parts, drawn_shares(row, grow)):
            width = bar.width() * share
            if share > 0:
                width = max(width, MIN_SLIVER_PX)
            rect = QRectF(x, bar.top(), min(width, bar.right() - x), bar.height())
            if rect.width() > 0:
                rects.append((rect, part.role, part.pattern))
            spans.append((x, x + max(rect.width(), 0.0)))
            x += max(rect.width(), 0.0)
        return rects, spans

    # -- painting ----------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        theme = self.theme
        painter.fillRect(self.rect(), theme.color("background"))
        self._drawn = []
        laid = self.layout_now()
        if laid is None:
            return
        bars, texts = laid
        dotted = QPen(theme.color("muted"), pen_px(theme, theme.line_width / 2), Qt.PenStyle.DotLine)
        while len(self._outlines) < len(bars):
            self._outlines.append(DashedOutline())
        for (bar, rects), outline in zip(bars, self._outlines):
            outline.paint(painter, self, bar, dotted)   # the full length stays put while the parts grow in
            for rect, role, pattern in rects:
                fill_bar(painter, rect, theme, role, pattern)
        texts.paint(painter, theme, from_start=True)
        painter.end()
        self._drawn = texts.drawn_texts()
