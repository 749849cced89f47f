"""Labelled horizontal bars on one scale (``widgets.ratio_bars_state``): ratios, prices, costs.

Draws the ``RatioBarsState`` it is handed. The layout is computed once per
state, size and floor (``StateWidget.layout_now``): labels start at
``max_label_scale`` times the floor and step down to it until every label fits
its row; texts are placed by a ``LabelPlacer`` (never below the floor, never
over one another: a label that does not fit is left out). Each bar's kind has
its own pattern (``widgets.bar_paint``), repeated in the legend, so colour
never carries the meaning alone; a bar of a tiny value still shows as a sliver.
Each bar's texts are keyed by its place ("label.0", "value.0", ...), so a formula card
finds the value it explains (``label_rects()``).
"""
from __future__ import annotations

import math

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter, QPen
from PySide6.QtWidgets import QWidget

from widgets.bar_paint import fill_bar, line_scale, pen_px
from widgets.ratio_bars_state import RatioBarsState, bar_share
from widgets.state_widget import StateWidget
from widgets.text_fit import LabelPlacer, TextMeasure
from widgets.theme import Theme

GAP_PX = 6
GROUP_GAP_PX = 14
MIN_BAR_PX = 4.0        # at 1024x768 (scaled with the screen): a bar of a tiny value is still seen
LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
TOP_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
BOTTOM_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom


class RatioBars(StateWidget):
    stage_sizes = ((160, 120), (700, 400))

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(theme, parent)
        self._measure = TextMeasure()

    def bar_rects(self) -> list[QRectF]:
        """Where each bar of the state was laid out (widget coordinates), in order."""
        placed = self.placed()
        return [rect for rect, _bar in placed["bars"]] if placed else []

    # -- layout ------------------------------------------------------------------------------------
    def placed(self):
        return self.layout_now()

    def _lay_out(self) -> dict:
        state: RatioBarsState = self.state
        m = self._measure
        floor = self.theme.floor_px
        area = QRectF(0, 0, self.width(), self.height()).adjusted(2, 2, -2, -2)
        texts = LabelPlacer(m, floor, QRectF(0, 0, self.width(), self.height()), gap_px=2, max_px=None)
        placed = {"bars": [], "texts": texts, "swatches": [], "reference": None}
        if state.title:
            px = round(floor * 1.15)
            got = texts.place("title", state.title, QRectF(area.left(), area.top(), area.width(),
                                                           2 * m.line_height(px, True)), px, True, TOP_LEFT)
            if got:
                area.setTop(got.rect.bottom() + GAP_PX)
        if state.footer:
            h = 2 * m.line_height(floor, False)
            got = texts.place("footer", state.footer, QRectF(area.left(), area.bottom() - h, area.width(), h), floor,
                              align=BOTTOM_LEFT, role=state.footer_role)
            if got:
                area.setBottom(got.rect.top() - GAP_PX)
        if state.legend:
            line = m.line_height(floor, False)
            x = area.left()
            for kind, text, role in state.legend:
                swatch = QRectF(x, area.top() + 3, line * 1.4, line - 6)
                got = texts.place("legend", text, QRectF(swatch.right() + GAP_PX, area.top(),
                                                         area.right() - swatch.right() - GAP_PX, line), floor,
                                  align=LEFT)
                if got is None:
                    break
                placed["swatches"].append((swatch, kind, role))
                x = got.rect.right() + 3 * GAP_PX
            area.setTop(area.top() + line + GAP_PX)
        if state.reference is not None and state.reference_label:
            area.setTop(area.top() + m.line_height(floor, False) + 2)
        bars = state.bars
        if not bars or area.height() <= 0:
            return placed
        groups = math.ceil(len(bars) / max(1, state.group_size))
        gaps = (len(bars) - groups) * 2 + (groups - 1) * GROUP_GAP_PX
        row_h = (area.height() - gaps) / len(bars)
        px = max(floor, min(round(floor * state.max_label_scale), int(row_h * 0.7)))
        while True:
            label_w = max(m.width(bar.label, px, False) for bar in bars) + GAP_PX
            value_w = max((m.width(bar.value_label, px, True) for bar in bars), default=0) + GAP_PX
            if (label_w <= area.width() * 0.4 and m.line_height(px, False) <= row_h) or px <= floor:
                break
            px = max(floor, int(px * 0.9))
        label_w = min(label_w, area.width() * 0.4)
        bar_left = area.left() + label_w
        bar_span = max(10.0, area.right() - bar_left - value_w)
        reference_x = (bar_left + bar_span * min(1.0, state.reference / state.drawn_max())
                       if state.reference is not None else None)
        sliver = MIN_BAR_PX * line_scale(self.theme)
        y = area.top()
        for n, bar in enumerate(bars):
            if n and n % max(1, state.group_size) == 0:
                y += GROUP_GAP_PX
            elif n:
                y += 2
            row = QRectF(area.left(), y, area.width(), row_h)
            texts.place(f"label.{n}", bar.label, QRectF(row.left(), row.top(), label_w - GAP_PX, row_h), px, align=RIGHT)
            share = bar_share(state, bar)
            width = max(bar_span * share, sliver if share > 0 else 0.0)
            thickness = min(row_h, max(m.line_height(px, False), min(row_h * 0.8, m.line_height(px, False) * 1.6)))
            rect = QRectF(bar_left, row.center().y() - thickness / 2, width, thickness)
            placed["bars"].append((rect, bar))
            value_box = QRectF(rect.right() + GAP_PX, row.top(), area.right() - rect.right() - GAP_PX, row_h)
            over_line = reference_x is not None and value_box.left() - GAP_PX <= reference_x
            texts.place(f"value.{n}", bar.value_label, value_box, px, True, LEFT, backdrop=over_line)
            y += row_h
        if reference_x is not None:
            top = placed["bars"][0][0].top() - 2
            placed["reference"] = (reference_x, top, placed["bars"][-1][0].bottom() + 2)
            if state.reference_label:
                h = m.line_height(floor, False)
                w = m.width(state.reference_label, floor, False)
                left = min(max(area.left(), reference_x - w / 2), area.right() - w)
                texts.place("reference", state.reference_label, QRectF(left, top - h - 2, w + 1, h), floor,
                            role="muted")
        return placed

    # -- painting ------------------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        theme = self.theme
        painter.fillRect(self.rect(), theme.color("background"))
        self._drawn = []
        placed = self.placed()
        if placed is None:
            return
        for rect, bar in placed["bars"]:
            fill_bar(painter, rect, theme, bar.role, bar.kind)
        for swatch, kind, role in placed["swatches"]:
            fill_bar(painter, swatch, theme, role, kind)
        if placed["reference"] is not None:
            x, top, bottom = placed["reference"]
            painter.setPen(QPen(theme.color("text"), pen_px(theme, theme.line_width), Qt.PenStyle.DashLine))
            painter.drawLine(int(x), int(top), int(x), int(bottom))
        texts: LabelPlacer = placed["texts"]
        texts.paint(painter, theme, from_start=True)      # the layout is kept between paints
        painter.end()
        self._drawn = texts.drawn_texts()
