"""One token's KV bytes built up factor by factor, then compared across attention designs.

Draws a ``KvFactorsState`` (``widgets.kv_factors_state``). Top: the product as
tiles, each factor's value large and its name under it, "×" between them and
the result at the end; tiles not yet revealed keep their place as dotted
outlines, so the row never shifts. Below: one bar per design on one linear
scale, each with its name on the left and its value after the bar; the
scenario's own row is outlined and marked. Each row has its own pattern and
its name beside it, so colour never carries the meaning alone.
"""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QWidget

from widgets.kv_factors_state import KvFactorsState, bar_share
from widgets.kv_labels import StaticLayer
from widgets.state_widget import StateWidget
from widgets.text_fit import LabelPlacer, TextMeasure
from widgets.theme import Theme, pattern_brush

TILES_SHARE = 0.40           # of the height: title and tiles (all of it before the comparison appears)
ROW_PATTERNS = {
    "mha": Qt.BrushStyle.BDiagPattern,
    "this": Qt.BrushStyle.SolidPattern,
    "fp8": Qt.BrushStyle.Dense4Pattern,
    "mla": Qt.BrushStyle.CrossPattern,
}
LEFT, V_CENTRE = Qt.AlignmentFlag.AlignLeft, Qt.AlignmentFlag.AlignVCenter


class KvFactors(StateWidget):
    """Draws a ``KvFactorsState``."""

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(theme, parent)
        self.measure = TextMeasure()
        self._layer = StaticLayer()

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.NonCosmeticBrushPatterns, True)   # patterns scale (pattern_brush)
        state = self.state
        if state is None or not state.factors:
            painter.fillRect(self.rect(), self.theme.color("background"))
            self._drawn = []
            return
        w, h = float(self.width()), float(self.height())
        margin = max(4.0, 0.02 * min(w, h))
        comparing = bool(state.comparisons) and state.compare_reveal > 0
        top_height = (TILES_SHARE * h if comparing else 0.6 * h) - margin
        top = QRectF(margin, margin, w - 2 * margin, top_height)
        rows = QRectF(margin, top.bottom() + 2 * margin, w - 2 * margin, h - top.bottom() - 3 * margin)
        # The tiles and the rows' names stay while the bars grow: painted once, then only bars and values.
        key = (self.width(), self.height(), self.theme, replace(state, compare_reveal=float(comparing)))

        def paint_static(static_painter: QPainter, static_placer: LabelPlacer) -> None:
            static_painter.fillRect(self.rect(), self.theme.color("background"))
            self._paint_tiles(static_painter, static_placer, top, state)
            if comparing:
                self._paint_rows(static_painter, static_placer, rows, state, names=True)
            static_placer.paint(static_painter, self.theme)

        pixmap, placer = self._layer.pixmap_for(key, self, self.measure, self.theme.floor_px, paint_static)
        painter.drawPixmap(0, 0, pixmap)
        if comparing:
            self._paint_rows(painter, placer, rows, state, names=False)
        placer.paint(painter, self.theme)
        self._drawn = placer.drawn_texts()

    def _paint_tiles(self, painter: QPainter, placer: LabelPlacer, area: QRectF, state: KvFactorsState) -> None:
        title_px = placer.px(0.05, self.height())
        title_h = self.measure.line_height(title_px, False) * 2
        placer.place("title", state.labels.get("title", ""), QRectF(area.left(), area.top(), area.width(), title_h),
                     title_px, False, LEFT | V_CENTRE, "muted")
        row = QRectF(area.left(), area.top() + title_h + 4, area.width(), area.height() - title_h - 4)
        count = len(state.factors)
        op_width = 0.5 * row.height() if row.height() < row.width() / (count + 2) else row.width() / (count + 2) / 2
        op_width = min(op_width, row.width() * 0.06)
        result_units = 3.0
        lw = self.theme.scaled_line_width
        widths = self._tile_widths(state, (row.width() - count * op_width) / (count + result_units), 3 * lw)
        x = row.left()
        value_h, name_h = 0.55 * row.height(), 0.45 * row.height()
        for n, factor in enumerate(state.factors):
            tile_width = widths[n]
            if n > 0:
                op_box = QRectF(x, row.top(), op_width, value_h)
                if state.revealed > n:
                    placer.place("operator", factor.operator, op_box, 0.5 * value_h, True)
                x += op_width
            tile = QRectF(x, row.top(), tile_width, row.height())
            shown = state.revealed > n
            painter.setBrush(self.theme.color("surface") if shown else Qt.BrushStyle.NoBrush)
            painter.setPen(QPen(self.theme.color("accent" if shown else "muted"), lw,
                                Qt.PenStyle.SolidLine if shown else Qt.PenStyle.DotLine))
            painter.drawRect(tile.adjusted(lw, lw, -lw, -lw))
            if shown:
                inner = tile.adjusted(3 * lw, 2 * lw, -3 * lw, -2 * lw)
                placer.place("factor_value", factor.value_text, QRectF(inner.left(), inner.top(), inner.width(),
                             value_h - 2 * lw), 0.6 * value_h, True, role="accent")
                placer.place("factor_name", factor.name, QRectF(inner.left(), tile.top() + value_h, inner.width(),
                             name_h - 2 * lw), 0.4 * name_h, False, role="muted")
            x += tile_width
        result_box = QRectF(x + op_width / 2, row.top(), row.right() - x - op_width / 2, row.height())
        if state.revealed > count:
            placer.place("result", state.result_text, result_box, 0.45 * value_h, True,
                         LEFT | V_CENTRE, "text")

    def _tile_widths(self, state: KvFactorsState, even_width: float, padding: float) -> list[float]:
        """Each tile as wide as an even share, or as its name needs at the text floor on two lines ("values per
        head", "bytes per value"): a name that makes the figure mean something is never dropped for want of
        room; the result beside the tiles gives up what the names take."""
        floor = self.theme.floor_px
        widths = []
        for factor in state.factors:
            one = self.measure.width(factor.name, floor, False)
            split = self.measure.narrowest_two_lines(factor.name, floor, False) if factor.name else None
            need = min(one, split[1]) if split is not None else one
            widths.append(max(even_width, need + 2 * padding + 2))
        return widths

    def _paint_rows(self, painter: QPainter, placer: LabelPlacer, area: QRectF, state: KvFactorsState,
                    names: bool) -> None:
        """``names``: the title and each row's name (static); else each row's bar and value (they grow)."""
        title_px = placer.px(0.045, self.height())
        title_h = self.measure.line_height(title_px, False) * 1.2
        if names:
            placer.place("compare_title", state.labels.get("compare_title", ""),
                         QRectF(area.left(), area.top(), area.width(), title_h), title_px, False, LEFT | V_CENTRE,
                         "muted")
        rows = state.comparisons
        top = area.top() + title_h
        row_h = (area.bottom() - top) / max(1, len(rows))
        name_w = 0.36 * area.width()
        value_w = 0.16 * area.width()
        bar_left = area.left() + name_w
        bar_full = area.width() - name_w - value_w
        lw = self.theme.scaled_line_width
        px = placer.px(0.42, row_h) if row_h < 0.1 * self.height() else placer.px(0.042, self.height())
        for n, row in enumerate(rows):
            y = top + n * row_h
            if names:
                placer.place("row_name", row.name, QRectF(area.left(), y, name_w - 2 * lw, row_h), px,
                             row.current, LEFT | V_CENTRE)
                continue
            bar_h = 0.6 * row_h
            bar = QRectF(bar_left, y + (row_h - bar_h) / 2, max(lw, bar_full * bar_share(state, row)), bar_h)
            role = "accent" if row.current else "memory"
            colour = self.theme.color(role)
            tint = QColor(colour)
            tint.setAlpha(40)
            painter.fillRect(bar, tint)
            pattern = ROW_PATTERNS.get(row.key, Qt.BrushStyle.SolidPattern)
            painter.fillRect(bar, pattern_brush(colour, pattern, self.theme))
            painter.setPen(QPen(colour, 2 * lw if row.current else lw))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(bar)
            placer.block(bar)
            value_box = QRectF(bar.right() + 3 * lw, y, area.right() - bar.right() - 3 * lw, row_h)
            value = row.value_text
            if row.current and state.labels.get("current_mark"):
                marked = f"{value}  {state.labels['current_mark']}"
                if placer.place("row_value", marked, value_box, px, True, LEFT | V_CENTRE, one_line=True):
                    continue
            placer.place("row_value", value, value_box, px, row.current, LEFT | V_CENTRE, one_line=True)
