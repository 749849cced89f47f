"""Labelled horizontal bars on one scale (``widgets.ratio_bars_state``): ratios, prices, costs.

Draws the ``RatioBarsState`` it is handed. The layout is computed once per
state and size: labels start at 1.3 times the floor and step down to it until
every label fits its row; a label that does not fit at the floor is left out.
Each bar's kind has its own pattern (solid, hatched), repeated in the legend,
so colour never carries the meaning alone.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from widgets.ratio_bars_state import RatioBarsState, bar_share
from widgets.text_fit import DrawnText, TextMeasure
from widgets.theme import Theme

GAP_PX = 6
GROUP_GAP_PX = 14
PATTERNS = {"solid": Qt.BrushStyle.SolidPattern, "hatched": Qt.BrushStyle.BDiagPattern}
LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def _alpha(color: QColor, alpha: float) -> QColor:
    c = QColor(color)
    c.setAlphaF(alpha)
    return c


class RatioBars(QWidget):
    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self._theme = theme
        self._state: RatioBarsState | None = None
        self._measure = TextMeasure()
        self._placed = None
        self._placed_for: tuple | None = None
        self._drawn: list[DrawnText] = []
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(160, 120)

    @property
    def state(self) -> RatioBarsState | None:
        return self._state

    def set_state(self, state: RatioBarsState) -> None:
        if state != self._state:
            self._state = state
            self.update()

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self._placed_for = None
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(700, 400)

    def drawn_texts(self) -> list[DrawnText]:
        return list(self._drawn)

    def bar_rects(self) -> list[QRectF]:
        """Where each bar of the state was laid out (widget coordinates), in order."""
        placed = self.placed()
        return [rect for rect, _bar in placed["bars"]] if placed else []

    # -- layout ------------------------------------------------------------------------------------
    def placed(self):
        if self._state is None:
            return None
        key = (self._state, self.width(), self.height(), self._theme.text_floor_px)
        if key != self._placed_for:
            self._placed, self._placed_for = self._layout(self._state), key
        return self._placed

    def _layout(self, state: RatioBarsState) -> dict:
        m = self._measure
        floor = int(math.ceil(self._theme.text_floor_px))
        area = QRectF(0, 0, self.width(), self.height()).adjusted(2, 2, -2, -2)
        placed = {"bars": [], "texts": [], "swatches": [], "reference": None}

        def fit(key, text, box, px, role="text", bold=False, align=LEFT):
            fitted = m.fit(text, box, px, bold, align, floor_px=floor) if text else None
            if fitted is not None:
                placed["texts"].append((key, fitted, role))
            return fitted

        if state.title:
            px = round(floor * 1.15)
            got = fit("title", state.title, QRectF(area.left(), area.top(), area.width(), 2 * m.line_height(px, True)),
                      px, bold=True, align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
            if got:
                area.setTop(got.rect.bottom() + GAP_PX)
        if state.footer:
            h = 2 * m.line_height(floor, False)
            got = fit("footer", state.footer, QRectF(area.left(), area.bottom() - h, area.width(), h), floor,
                      state.footer_role, align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom)
            if got:
                area.setBottom(got.rect.top() - GAP_PX)
        if state.legend:
            line = m.line_height(floor, False)
            x = area.left()
            for kind, text, role in state.legend:
                swatch = QRectF(x, area.top() + 3, line * 1.4, line - 6)
                got = fit("legend", text, QRectF(swatch.right() + GAP_PX, area.top(), area.right() - swatch.right()
                                                - GAP_PX, line), floor)
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
        px = max(floor, min(round(floor * 1.3), int(row_h * 0.7)))
        while True:
            label_w = max(m.width(bar.label, px, False) for bar in bars) + GAP_PX
            value_w = max((m.width(bar.value_label, px, True) for bar in bars), default=0) + GAP_PX
            if (label_w <= area.width() * 0.4 and m.line_height(px, False) <= row_h) or px <= floor:
                break
            px = max(floor, int(px * 0.9))
        label_w = min(label_w, area.width() * 0.4)
        bar_left = area.left() + label_w
        bar_span = max(10.0, area.right() - bar_left - value_w)
        y = area.top()
        for n, bar in enumerate(bars):
            if n and n % max(1, state.group_size) == 0:
                y += GROUP_GAP_PX
            elif n:
                y += 2
            row = QRectF(area.left(), y, area.width(), row_h)
            fit("label", bar.label, QRectF(row.left(), row.top(), label_w - GAP_PX, row_h), px, align=RIGHT)
            width = bar_span * bar_share(state, bar)
            thickness = min(row_h, max(m.line_height(px, False), min(row_h * 0.8, m.line_height(px, False) * 1.6)))
            rect = QRectF(bar_left, row.center().y() - thickness / 2, width, thickness)
            placed["bars"].append((rect, bar))
            fit("value", bar.value_label, QRectF(rect.right() + GAP_PX, row.top(), area.right() - rect.right() - GAP_PX,
                                                  row_h), px, bold=True)
            y += row_h
        if state.reference is not None:
            x = bar_left + bar_span * min(1.0, state.reference / state.drawn_max())
            top = placed["bars"][0][0].top() - 2
            placed["reference"] = (x, top, placed["bars"][-1][0].bottom() + 2)
            if state.reference_label:
                h = m.line_height(floor, False)
                w = m.width(state.reference_label, floor, False)
                left = min(max(area.left(), x - w / 2), area.right() - w)
                fit("reference", state.reference_label, QRectF(left, top - h - 2, w + 1, h), floor, "muted",
                    align=Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter)
        return placed

    # -- painting ------------------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        theme = self._theme
        painter.fillRect(self.rect(), theme.color("background"))
        self._drawn = []
        placed = self.placed()
        if placed is None:
            return
        outline = QPen(theme.color("text"), max(1.0, theme.line_width / 2))
        for rect, bar in placed["bars"]:
            self._fill(painter, rect, bar.kind, bar.role, outline)
        for swatch, kind, role in placed["swatches"]:
            self._fill(painter, swatch, kind, role, outline)
        if placed["reference"] is not None:
            x, top, bottom = placed["reference"]
            painter.setPen(QPen(theme.color("text"), theme.line_width, Qt.PenStyle.DashLine))
            painter.drawLine(int(x), int(top), int(x), int(bottom))
        for key, fitted, role in placed["texts"]:
            if key in ("value", "reference"):          # over the reference line: readable on its own ground
                painter.fillRect(fitted.rect, theme.color("background"))
            painter.setPen(theme.color(role))
            fitted.paint(painter, self._measure.font(fitted.px, fitted.bold))
            self._drawn.append(DrawnText(key, "\n".join(fitted.lines), fitted.px, QRectF(fitted.rect)))

    def _fill(self, painter: QPainter, rect: QRectF, kind: str, role: str, outline: QPen) -> None:
        color = self._theme.color(role)
        painter.fillRect(rect, _alpha(color, 0.5 if kind == "solid" else 0.15))
        if kind != "solid":
            painter.fillRect(rect, QBrush(color, PATTERNS.get(kind, Qt.BrushStyle.BDiagPattern)))
        painter.setPen(outline)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(rect)
