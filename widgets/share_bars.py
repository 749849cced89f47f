"""Share bars: a hero figure over labelled horizontal bars, each split into parts (``ShareBarsState``).

Top: the headline (the one figure a room should read, in its colour role).
Then one row per bar: its title, the bar (its full length outlined, each part
filled in its colour and pattern: solid, hatched or dotted, so colour never
carries the meaning alone) and each part's label under it, centred under the
part as far as the bar allows. Texts are fitted at or above the theme's floor;
when the widget is too small, part labels go first, then titles, then the
headline (``LABEL_PRIORITY``); a label that would cover another is left out.
Painting is a handful of rectangles and texts: cheap enough for every frame
of a reveal (``grow`` moving from 0 to 1).
"""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import QWidget

from widgets.share_bars_state import ShareBarsState, drawn_shares
from widgets.text_fit import DrawnText, FittedText, TextMeasure
from widgets.theme import Theme

MAX_TEXT_PX = 64            # larger glyphs are drawn as paths by the raster engine: far slower per frame
LABEL_PER_HEIGHT = 0.06     # titles and part labels, before fitting
HEADLINE_PER_HEIGHT = 0.16
MIN_SLIVER_PX = 3.0         # a part of a tiny share still shows as a line
GAP_PX = 2.0
PATTERNS = {"hatched": Qt.BrushStyle.BDiagPattern, "dotted": Qt.BrushStyle.Dense5Pattern}
LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
CENTRE = Qt.AlignmentFlag.AlignCenter


class ShareBars(QWidget):
    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.theme = theme
        self.state: ShareBarsState | None = None
        self.measure = TextMeasure()
        self._drawn: list[DrawnText] = []

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def set_state(self, state: ShareBarsState) -> None:
        if state != self.state:
            self.state = state
            self.update()

    def drawn_texts(self) -> list[DrawnText]:
        return list(self._drawn)

    # -- layout ------------------------------------------------------------------------------
    def _floor(self) -> int:
        return max(1, int(round(self.theme.text_floor_px)))

    def _plan(self, state: ShareBarsState):
        """(headline px or 0, label px, with titles, with part labels, row height) that fits the height."""
        w, h = float(self.width()), float(self.height())
        floor = self._floor()
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

    # -- painting ----------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), self.theme.color("background"))
        self._drawn = []
        state = self.state
        if state is None or self.width() < 8 or self.height() < 8:
            return
        margin, head_px, px, titles, parts, per_row, bar_h, head_h = self._plan(state)
        placed: list[QRectF] = []
        width = self.width() - 2 * margin
        if head_px:
            box = QRectF(margin, margin, width, head_h - 3 * GAP_PX)
            self._text(painter, placed, "headline", state.headline, box, head_px, True, LEFT, state.headline_role)
        line = self.measure.line_height(px, False)
        top = margin + head_h
        for row in state.rows:
            y = top
            if titles:
                self._text(painter, placed, "title", row.title, QRectF(margin, y, width, line), px, False, LEFT)
                y += line + GAP_PX
            bar = QRectF(margin, y, width, bar_h)
            spans = self._paint_bar(painter, bar, row, state.grow)
            if parts:
                below = QRectF(margin, bar.bottom() + GAP_PX, width, line)
                # The largest part's label first: a sliver's label gives way to it, never the other way round.
                for part, (left, right) in sorted(zip(row.parts, spans), key=lambda ps: -ps[0].share):
                    self._text(painter, placed, "part", part.label, below, px, False, LEFT,
                               centre_x=(left + right) / 2)
            top += per_row

    def _paint_bar(self, painter: QPainter, bar: QRectF, row, grow: float) -> list[tuple[float, float]]:
        lw = self.theme.line_width
        painter.setPen(QPen(self.theme.color("muted"), max(1.0, lw / 2), Qt.PenStyle.DotLine))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(bar)
        spans, x = [], bar.left()
        for part, share in zip(row.parts, drawn_shares(row, grow)):
            width = bar.width() * share
            if share > 0:
                width = max(width, MIN_SLIVER_PX)
            rect = QRectF(x, bar.top(), min(width, bar.right() - x), bar.height())
            if rect.width() > 0:
                self._fill(painter, rect, part.role, part.pattern)
            spans.append((x, x + max(rect.width(), 0.0)))
            x += max(rect.width(), 0.0)
        return spans

    def _fill(self, painter: QPainter, rect: QRectF, role: str, pattern: str) -> None:
        colour = self.theme.color(role)
        if pattern in PATTERNS:
            tint = QColor(colour)
            tint.setAlpha(50)
            painter.fillRect(rect, tint)
            painter.fillRect(rect, QBrush(colour, PATTERNS[pattern]))
            painter.setPen(QPen(colour, self.theme.line_width))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(rect)
        else:
            painter.fillRect(rect, colour)

    def _text(self, painter: QPainter, placed: list[QRectF], key: str, text: str, box: QRectF, px: int,
              bold: bool, align, role: str = "text", centre_x: float | None = None) -> FittedText | None:
        if not text:
            return None
        fitted = self.measure.fit(text, box, min(px, MAX_TEXT_PX), bold, align, floor_px=self._floor(),
                                  centre_x=centre_x)
        if fitted is None:
            return None
        grown = fitted.rect.adjusted(-GAP_PX, -GAP_PX / 2, GAP_PX, GAP_PX / 2)
        if any(grown.intersects(other) for other in placed):
            return None
        placed.append(QRectF(fitted.rect))
        painter.setPen(self.theme.color(role))
        fitted.paint(painter, self.measure.font(fitted.px, fitted.bold))
        self._drawn.append(DrawnText(key, text, float(fitted.px), QRectF(fitted.rect)))
        return fitted
