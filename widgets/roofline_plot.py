"""The roofline plot: attainable FLOPS against arithmetic intensity, log-log.

It draws the ``RooflineState`` it is handed: the bandwidth slope and the flat
compute roof (the scene takes their corners from the engine), the ridge point
with its label, and named points (prefill, decode, the intensity control).
Every plot item is created once; a new state only moves them (``setData``),
and a state equal to the one shown changes nothing (no repaint).

Every text is laid out here, in widget pixels, measured with ``QFontMetricsF``
(``widgets.text_fit``) and painted line by line exactly where it was measured,
so ``label_rects`` is what is on screen. From the top: the legend (one entry a
line, each after its point's sign), the y-axis title (written level, so a
narrow plot keeps its width for the data), the plot, the x ticks and the
x-axis title. The axes get fixed sizes from the measured tick texts, so the
plot's area is known before pyqtgraph lays it out. Inside the plot the ridge,
"memory-bound" and "compute-bound" labels take the first of a few places that
is clear of each other and of the roofline; every point lies on the roofline,
so a label clear of it is clear of every marker wherever the points move.

When room runs short, text gives way in this order: a legend entry puts its
value on a line of its own under its name; the region labels drop their second
line (the explanation); the legend drops the names (sign and value remain, the
caption names the points); a region label that still finds no place is left
out; then everything shrinks a pixel at a time, never under 12 px. A number
never leaves its unit, and no text is ever wrapped by Qt.

Text is sized from the widget (its height, and its width when narrow), so it
reads from the back of a room at 1024 x 768 and at 4K alike. Layout happens on
resize and when the texts or the roof change; a moving point (the intensity
control's tween) only moves its marker and repaints the legend's line, whose
room is kept for any number up to six digits. No antialiasing.
Intensities are in FLOP/byte; rates arrive in FLOP/s and are shown in TFLOPS.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QPainter, QPolygonF
from PySide6.QtWidgets import QGraphicsObject, QWidget

from widgets.conveyor_layout import number_template
from widgets.text_fit import FLOOR_PX, FittedText, TextMeasure
from widgets.theme import Theme

TERA = 1e12
# Text size follows the widget: one line per this many pixels of height, and never wider than
# this many text heights across the widget (a narrow, tall plot), never under the readable floor.
TEXT_LINES_PER_HEIGHT = 28
TEXT_HEIGHTS_PER_WIDTH = 18
TEXT_PX_MIN = FLOOR_PX
LEGEND_MAX_SHARE = 0.36       # of the height: a legend on two lines an entry, above it, drops the names
PLOT_MIN_LINES = 4            # the plot's height, in text lines, before text shrinks to make room

# Colour role and symbol of each named point; the legend draws the same symbol as its sign.
POINT_STYLES = {
    "decode": ("warning", "o"),
    "prefill": ("compute", "s"),
    "control": ("accent", "d"),
}
LEFT_OF_RIDGE, RIGHT_OF_RIDGE = -1, 1


@dataclass(frozen=True)
class RooflinePoint:
    key: str                             # "decode", "prefill" or "control"
    label: str                           # already translated, may hold the numbers
    flops_per_byte: float
    attainable_flops_per_second: float
    value: str = ""                      # the number and unit ``label`` ends with: kept whole, shown alone when narrow


@dataclass(frozen=True)
class RooflineState:
    roof: tuple[tuple[float, float], ...]   # (FLOP/byte, FLOP/s): start, ridge, end of the roofline
    ridge_flops_per_byte: float
    ridge_label: str
    x_label: str
    y_label: str
    points: tuple[RooflinePoint, ...] = ()
    # Written left and right of the ridge; a first line alone is the short form, used when room is short.
    memory_bound_label: str = ""
    compute_bound_label: str = ""


@dataclass
class _Layout:
    """Where everything goes, in widget pixels; computed by ``_lay_out`` from the size, texts and roof."""
    px: int
    legend_form: str                        # "one_line", "two_lines" or "value"
    legend: dict[str, tuple[QRectF, FittedText]] = field(default_factory=dict)   # key: (sign, text)
    texts: dict[str, FittedText] = field(default_factory=dict)   # titles and in-plot labels
    plot_widget: QRect = field(default_factory=QRect)
    axis_width: int = 0
    axis_height: int = 0
    view: QRectF = field(default_factory=QRectF)   # the data area
    x_range: tuple[float, float] = (0.0, 1.0)      # log10 FLOP/byte
    y_range: tuple[float, float] = (0.0, 1.0)      # log10 TFLOPS
    x_ticks: tuple = ()
    y_ticks: tuple = ()
    marker_px: int = 12

    def to_pixels(self, flops_per_byte: float, tflops: float) -> QPointF:
        (x0, x1), (y0, y1) = self.x_range, self.y_range
        return QPointF(self.view.left() + (math.log10(flops_per_byte) - x0) / (x1 - x0) * self.view.width(),
                       self.view.bottom() - (math.log10(tflops) - y0) / (y1 - y0) * self.view.height())


def _short_form(text: str) -> str:
    return text.split("\n")[0].rstrip(":：")


def _split_before_unit(measure: TextMeasure, text: str, px: int, max_width: float) -> tuple[str, ...] | None:
    """An axis title on one line, or two with its bracketed unit on the second; None if neither fits."""
    if measure.width(text, px, False) <= max_width:
        return (text,)
    cut = max(text.rfind("("), text.rfind("（"))
    if cut > 0:
        lines = (text[:cut].rstrip(), text[cut:])
        if max(measure.width(line, px, False) for line in lines) <= max_width:
            return lines
    return None


def _crosses(rect: QRectF, a: QPointF, b: QPointF) -> bool:
    """Whether the segment a-b passes through ``rect`` (Liang-Barsky clipping)."""
    t0, t1 = 0.0, 1.0
    dx, dy = b.x() - a.x(), b.y() - a.y()
    for p, q in ((-dx, a.x() - rect.left()), (dx, rect.right() - a.x()),
                 (-dy, a.y() - rect.top()), (dy, rect.bottom() - a.y())):
        if p == 0:
            if q < 0:
                return False
        else:
            t = q / p
            if p < 0:
                t0 = max(t0, t)
            else:
                t1 = min(t1, t)
            if t0 > t1:
                return False
    return True


class _PlotTexts(QGraphicsObject):
    """The labels inside the plot, painted in the view's pixels (no zoom, no data coordinates)."""

    def __init__(self, owner: "RooflinePlot"):
        super().__init__()
        self._owner = owner
        self._texts: list[tuple[FittedText, str]] = []      # (text, colour role), in scene pixels
        self._bounds = QRectF()
        self.setZValue(1000)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def set_texts(self, texts: list[tuple[FittedText, str]]) -> None:
        self.prepareGeometryChange()
        self._texts = texts
        self._bounds = QRectF()
        for text, _ in texts:
            self._bounds = self._bounds.united(text.rect)
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter: QPainter, option, widget=None) -> None:
        for text, role in self._texts:
            painter.setPen(self._owner.theme.color(role))
            text.paint(painter, self._owner.measure.font(text.px, text.bold))


class RooflinePlot(QWidget):
    """A pyqtgraph log-log plot that shows a ``RooflineState``, with every text laid out around it."""

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.theme = theme
        self.measure = TextMeasure()
        self._state: RooflineState | None = None
        self._layout: _Layout | None = None
        self._layout_key: tuple | None = None
        self.plot_widget = pg.PlotWidget(self)
        self.plot_widget.setMenuEnabled(False)
        self.plot_widget.setMouseEnabled(x=False, y=False)
        self.plot_widget.hideButtons()
        item = self.plot_widget.getPlotItem()
        item.setLogMode(x=True, y=True)
        item.showGrid(x=True, y=True, alpha=0.15)
        for side in ("left", "bottom"):       # tick texts never leave their axis (the titles are beside it)
            item.getAxis(side).setStyle(hideOverlappingLabels=True, autoExpandTextSpace=False)
        self._slope = self.plot_widget.plot([], [], antialias=False)
        self._roof = self.plot_widget.plot([], [], antialias=False)
        self._ridge_line = pg.InfiniteLine(angle=90, movable=False)
        item.addItem(self._ridge_line)
        # PlotDataItems (not bare ScatterPlotItems) so that the log mode applies to them.
        self._ridge_marker = self.plot_widget.plot([], [], pen=None, symbol="o", symbolSize=16)
        self._markers: dict[str, pg.PlotDataItem] = {}
        for key, (_, symbol) in POINT_STYLES.items():
            self._markers[key] = self.plot_widget.plot([], [], pen=None, symbol=symbol, symbolSize=24,
                                                       antialias=False)
        self._plot_texts = _PlotTexts(self)
        self.plot_widget.scene().addItem(self._plot_texts)
        self._text_px = self._preferred_px()
        self.set_theme(theme)

    # -- what is shown ------------------------------------------------------------------
    @property
    def state(self) -> RooflineState | None:
        return self._state

    def point_position(self, key: str) -> tuple[float, float] | None:
        """Where the point ``key`` is drawn, as (FLOP/byte, TFLOPS); None when hidden."""
        xs, ys = self._markers[key].getOriginalDataset()
        if xs is None or len(xs) == 0:
            return None
        return float(xs[0]), float(ys[0])

    def ridge_text(self) -> str:
        self._relayout()
        text = self._layout.texts.get("ridge") if self._layout else None
        return "\n".join(text.lines) if text else ""

    def legend_texts(self) -> list[str]:
        return [point.label for point in self._state.points] if self._state else []

    def text_px(self) -> int:
        """The pixel size of every text in the plot now."""
        self._relayout()
        return self._text_px

    def label_texts(self) -> dict[str, str]:
        """Every text shown, by name ("legend.<key>", "x_title", "y_title", "ridge", ...), lines joined by newlines."""
        self._relayout()
        if self._layout is None:
            return {}
        shown = {f"legend.{key}": "\n".join(text.lines) for key, (_, text) in self._layout.legend.items()}
        shown.update({name: "\n".join(text.lines) for name, text in self._layout.texts.items()})
        return shown

    def label_rects(self) -> dict[str, QRectF]:
        """The rectangle each text covers, in widget pixels, as laid out and painted; the tick numbers
        as their axes' bands ("x_ticks", "y_ticks"): pyqtgraph draws them only inside those."""
        self._relayout()
        if self._layout is None:
            return {}
        rects = {f"legend.{key}": sign.united(text.rect) for key, (sign, text) in self._layout.legend.items()}
        rects.update({name: QRectF(text.rect) for name, text in self._layout.texts.items()})
        view, widget = self._layout.view, self._layout.plot_widget
        rects["y_ticks"] = QRectF(widget.left() + 1, view.top(), self._layout.axis_width, view.height())
        rects["x_ticks"] = QRectF(view.left(), view.bottom(), view.width(), self._layout.axis_height)
        return rects

    def marker_rects(self) -> dict[str, QRectF]:
        """The square each shown point's marker (and the ridge's) covers, in widget pixels."""
        self._relayout()
        if self._layout is None or self._state is None:
            return {}
        size = self._layout.marker_px + 4          # the symbol and its outline
        centres = {p.key: (p.flops_per_byte, p.attainable_flops_per_second) for p in self._state.points}
        centres["ridge"] = (self._state.ridge_flops_per_byte, self._state.roof[1][1])
        rects = {}
        for key, (x, flops) in centres.items():
            centre = self._layout.to_pixels(x, flops / TERA)
            rects[key] = QRectF(centre.x() - size / 2, centre.y() - size / 2, size, size)
        return rects

    def tick_texts(self) -> dict[str, list[str]]:
        """The tick numbers written on each axis ("x", "y"), low to high."""
        self._relayout()
        if self._layout is None:
            return {"x": [], "y": []}
        return {"x": [t for _, t in self._layout.x_ticks[0]], "y": [t for _, t in self._layout.y_ticks[0]]}

    def plot_rect(self) -> QRectF:
        """The data area, in widget pixels, as this layout computed it."""
        self._relayout()
        return QRectF(self._layout.view) if self._layout else QRectF()

    # -- changes ------------------------------------------------------------------------
    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        width = theme.line_width
        self.plot_widget.setBackground(theme.color("background"))
        for side in ("left", "bottom"):
            axis = self.plot_widget.getAxis(side)
            axis.setPen(pg.mkPen(theme.color("muted"), width=max(1.0, width / 2)))
            axis.setTextPen(pg.mkPen(theme.color("text")))
        self._slope.setPen(pg.mkPen(theme.color("memory"), width=width * 1.6))
        self._roof.setPen(pg.mkPen(theme.color("compute"), width=width * 1.6))
        self._ridge_line.setPen(pg.mkPen(theme.color("muted"), width=max(1.0, width / 2),
                                         style=Qt.PenStyle.DashLine))
        self._ridge_marker.setSymbolBrush(pg.mkBrush(theme.color("text")))
        self._ridge_marker.setSymbolPen(pg.mkPen(theme.color("background"), width=2))
        for key, (role, _) in POINT_STYLES.items():
            self._markers[key].setSymbolBrush(pg.mkBrush(theme.color(role)))
            self._markers[key].setSymbolPen(pg.mkPen(theme.color("background"), width=2))
        self._relayout(force=True)
        self.update()

    def resizeEvent(self, event) -> None:
        self._relayout()
        super().resizeEvent(event)

    def set_state(self, state: RooflineState) -> None:
        if state == self._state:
            return
        self._state = state
        (x0, y0), (x1, y1), (x2, y2) = state.roof
        self._slope.setData([x0, x1], [y0 / TERA, y1 / TERA])
        self._roof.setData([x1, x2], [y1 / TERA, y2 / TERA])
        self._ridge_line.setValue(math.log10(state.ridge_flops_per_byte))
        self._ridge_marker.setData([state.ridge_flops_per_byte], [y1 / TERA])
        shown = {point.key: point for point in state.points}
        for key, marker in self._markers.items():
            point = shown.get(key)
            if point is None:
                marker.setData([], [])
            else:
                marker.setData([point.flops_per_byte], [point.attainable_flops_per_second / TERA])
        if not self._relayout() and self._layout is not None:
            # Only the numbers moved: the legend keeps its place (room was kept for them).
            old = self._layout.legend
            self._layout.legend = self._lay_out_legend(self._layout.px, self._layout.legend_form,
                                                       self._legend_top())[0]
            if old != self._layout.legend:
                self.update(self._legend_bounds())

    # -- layout -----------------------------------------------------------------------------
    def _preferred_px(self) -> int:
        return max(TEXT_PX_MIN, round(min(self.height() / TEXT_LINES_PER_HEIGHT,
                                          self.width() / TEXT_HEIGHTS_PER_WIDTH)))

    def _relayout(self, force: bool = False) -> bool:
        """Lays everything out again when what it depends on changed; True when it did. The accessors
        call it too: a hidden widget gets its resize event only when shown, but its size is set before."""
        state = self._state
        key = None if state is None else (
            self.width(), self.height(), state.roof, state.ridge_flops_per_byte, state.ridge_label, state.x_label,
            state.y_label, state.memory_bound_label, state.compute_bound_label,
            tuple((p.key, p.label.removesuffix(p.value), number_template(p.value)) for p in state.points))
        if key == self._layout_key and not force:
            return False
        self._layout_key = key
        preferred = self._preferred_px()
        if state is None:
            self._text_px = preferred
            self.plot_widget.setGeometry(self.rect())
            return True
        for px in range(preferred, TEXT_PX_MIN - 1, -1):
            layout = self._lay_out(state, px, last_try=px == TEXT_PX_MIN)
            if layout is not None:
                break
        self._apply(layout)
        return True

    def _legend_top(self) -> float:
        return round(self._text_px * 0.3)

    def _legend_bounds(self) -> QRect:
        rect = QRectF()
        for sign, text in self._layout.legend.values():
            rect = rect.united(sign).united(text.rect)
        return QRect(0, 0, self.width(), math.ceil(rect.bottom()) + 2)

    def _lay_out_legend(self, px: int, form: str, top: float):
        """The legend's entries, one under another from ``top``: (entries, bottom, widest line's right edge)."""
        measure, line = self.measure, self.measure.line_height(px, False)
        sign_size = round(px * 0.8)
        text_left = round(px * 0.4) + sign_size + round(px * 0.4)
        entries, y, right = {}, top, 0.0
        for point in self._state.points:
            if form == "one_line" or not point.value:
                lines = (point.label,)
            elif form == "two_lines":
                lines = (point.label.removesuffix(point.value).rstrip(), point.value)
            else:
                lines = (point.value,)
            # Room for any number up to six digits, so a moving point never changes the layout.
            wide = max(max(measure.width(t, px, False), measure.width(number_template(t), px, False))
                       for t in lines)
            rect = QRectF(text_left, y, wide, len(lines) * line)
            sign = QRectF(round(px * 0.4), y + (line - sign_size) / 2, sign_size, sign_size)
            entries[point.key] = (sign, FittedText(lines, px, False, rect, Qt.AlignmentFlag.AlignLeft, line))
            y, right = rect.bottom(), max(right, rect.right())
        return entries, y, right

    def _lay_out(self, state: RooflineState, px: int, last_try: bool) -> _Layout | None:
        measure, width, height = self.measure, self.width(), self.height()
        line = measure.line_height(px, False)
        pad, gap = round(px * 0.4), round(px * 0.3)
        right_edge = width - pad
        # The legend, from the fullest form that fits.
        top = round(px * 0.3)
        for form in ("one_line", "two_lines", "value"):
            legend, legend_bottom, legend_right = self._lay_out_legend(px, form, top)
            if legend_right <= right_edge and (form == "one_line" or legend_bottom <= height * LEGEND_MAX_SHARE):
                break
        else:
            if not last_try:
                return None
        layout = _Layout(px=px, legend_form=form, legend=legend, marker_px=round(px * 1.2))
        # Axis titles: y above the plot, x at the bottom.
        y_lines = _split_before_unit(measure, state.y_label, px, width - 2 * pad)
        x_lines = _split_before_unit(measure, state.x_label, px, width - 2 * pad)
        if (y_lines is None or x_lines is None) and not last_try:
            return None
        y_lines, x_lines = y_lines or (state.y_label,), x_lines or (state.x_label,)
        y_top = (legend_bottom + gap) if legend else top
        y_title = QRectF(pad, y_top, max(measure.width(t, px, False) for t in y_lines), len(y_lines) * line)
        x_width = max(measure.width(t, px, False) for t in x_lines)
        x_title = QRectF(0, height - pad // 2 - len(x_lines) * line, x_width, len(x_lines) * line)
        # The plot widget between them; its axes sized from their tick texts.
        plot_top, plot_bottom = math.ceil(y_title.bottom() + gap), math.floor(x_title.top() - gap // 2)
        axis_offset = max(4, px // 3)
        layout.axis_height = line + axis_offset + 2
        view_height = plot_bottom - plot_top - 2 - layout.axis_height
        if view_height < PLOT_MIN_LINES * line and not last_try:
            return None
        view_height = max(view_height, 2 * line)
        clear = layout.marker_px / 2 + 2 + max(gap, self.theme.line_width)   # from the roofline's centre
        (x0, y0), _, (x2, y2) = state.roof
        bottom_log, roof_log = math.log10(y0 / TERA), math.log10(y2 / TERA)
        headroom = min(clear + 2 * measure.line_height(px, True) + gap, 0.6 * view_height)
        per_decade = (view_height - headroom - clear) / max(roof_log - bottom_log, 1e-6)
        layout.y_range = (bottom_log - clear / per_decade, roof_log + headroom / per_decade)
        layout.y_ticks = self._ticks(layout.y_range, per_decade, lambda t: 1.2 * line)
        layout.axis_width = math.ceil(max((measure.width(t, px, False) for _, t in layout.y_ticks[0]),
                                          default=0)) + axis_offset + 4
        layout.plot_widget = QRect(pad, plot_top, right_edge - pad, plot_bottom - plot_top)
        view_left = pad + 1 + layout.axis_width
        layout.view = QRectF(view_left, plot_top + 1, right_edge - 1 - view_left, view_height)
        per_decade_x = (layout.view.width() - 2 * clear) / (math.log10(x2) - math.log10(x0))
        layout.x_range = (math.log10(x0) - clear / per_decade_x, math.log10(x2) + clear / per_decade_x)
        layout.x_ticks = self._ticks(layout.x_range, per_decade_x,
                                     lambda t: measure.width(t, px, False) + 0.6 * px)
        x_title.moveLeft(min(max(pad, layout.view.center().x() - x_width / 2), width - pad - x_width))
        layout.texts["y_title"] = FittedText(y_lines, px, False, y_title, Qt.AlignmentFlag.AlignLeft, line)
        layout.texts["x_title"] = FittedText(x_lines, px, False, x_title, Qt.AlignmentFlag.AlignHCenter, line)
        if not self._place_in_plot(layout, state, clear, gap) and not last_try:
            return None
        return layout

    @staticmethod
    def _ticks(log_range: tuple[float, float], px_per_decade: float, room) -> tuple:
        """Decade ticks, as plain numbers (1, 10, 100, 1,000), each labelled where its text has room
        inside the axis; every n-th (the most of them) when they would crowd. ``room(text)``: its
        length along the axis, with a gap."""
        low, high = log_range
        decades = [k for k in range(math.floor(low), math.ceil(high) + 1) if low <= k <= high]
        texts = {k: f"{10.0 ** k:,.0f}" if k >= 0 else f"{10.0 ** k:g}" for k in decades}
        fits = [k for k in decades if min(k - low, high - k) * px_per_decade >= room(texts[k]) / 2]
        step = max(1, math.ceil(max((room(texts[k]) for k in fits), default=0) / max(px_per_decade, 1e-6)))
        phase = max(range(step), key=lambda n: (sum(1 for k in fits if k % step == n), n == 0))
        labelled = [k for k in fits if k % step == phase]
        return [(k, texts[k]) for k in labelled], [(k, "") for k in decades if k not in labelled]

    def _place_in_plot(self, layout: _Layout, state: RooflineState, clear: float, gap: float) -> bool:
        """The ridge and region labels, each at its first free place; False when the ridge label finds none."""
        px, measure = layout.px, self.measure
        corners = [layout.to_pixels(x, y / TERA) for x, y in state.roof]
        ridge = corners[1]
        inner = layout.view.adjusted(gap, gap, -gap, -gap)
        touch = clear - gap / 2            # a label's distance from the roofline's centre, at least
        placed: list[QRectF] = []

        def free(rect: QRectF, side: int | None) -> bool:
            if not inner.contains(rect) or any(rect.intersects(other.adjusted(-gap, -gap, gap, gap))
                                                for other in placed):
                return False
            if side is not None and (rect.center().x() - ridge.x()) * side <= 0:
                return False
            grown = rect.adjusted(-touch, -touch, touch, touch)
            return not (_crosses(grown, corners[0], corners[1]) or _crosses(grown, corners[1], corners[2]))

        # The last resort (a tiny plot): clear of the markers where they are now, across a line.
        markers = [layout.to_pixels(p.flops_per_byte, p.attainable_flops_per_second / TERA)
                   for p in state.points] + [ridge]

        def clear_of_markers(rect: QRectF) -> bool:
            grown = rect.adjusted(-touch, -touch, touch, touch)
            return inner.contains(rect) and not any(grown.contains(m) for m in markers)

        def place(name, forms, bold, role, spots, side, anywhere=False) -> bool:
            for lines in forms:
                line = measure.line_height(px, bold)
                w, h = max(measure.width(t, px, bold) for t in lines), len(lines) * line
                for left, top in spots(w, h):
                    rect = QRectF(left, top, w, h)
                    if free(rect, side) or (anywhere and clear_of_markers(rect)):
                        placed.append(rect)
                        layout.texts[name] = FittedText(tuple(lines), px, bold, rect, Qt.AlignmentFlag.AlignLeft,
                                                        line)
                        return True
            return False

        rx, ry = ridge.x(), ridge.y()
        ridge_spots = lambda w, h: [                                          # noqa: E731
            (rx - clear - w, ry - clear - h), (rx + clear, ry - clear - h),
            (min(max(inner.left(), rx - w / 2), inner.right() - w), ry - clear - h),
            (rx + clear, ry + clear), (inner.left(), inner.top())]
        ridge_forms = [state.ridge_label.split("\n"), [state.ridge_label.replace("\n", " ")]]
        if not place("ridge", ridge_forms, True, "text", ridge_spots, None):
            if not place("ridge", ridge_forms, True, "text", ridge_spots, None, anywhere=True):
                return False
        for name, text, role, side, spots in (
                ("compute_bound", state.compute_bound_label, "compute", RIGHT_OF_RIDGE, lambda w, h: [
                    (inner.right() - w, ry - clear - h), (rx + gap, ry + clear), (inner.right() - w, inner.top()),
                    (inner.right() - w, ry + clear), (inner.right() - w, inner.bottom() - h)]),
                ("memory_bound", state.memory_bound_label, "memory", LEFT_OF_RIDGE, lambda w, h: [
                    (rx - gap - w, inner.bottom() - h), (inner.left(), inner.top()),
                    (rx - clear - w, ry - clear - h)])):
            if text:
                forms = [text.split("\n")] + ([[_short_form(text)]] if "\n" in text else [])
                place(name, forms, False, role, spots, side)
        return True

    def _apply(self, layout: _Layout) -> None:
        self._layout, self._text_px = layout, layout.px
        px, font = layout.px, self.measure.font(layout.px, False)
        self.plot_widget.setGeometry(layout.plot_widget)
        for side, ticks in (("left", layout.y_ticks), ("bottom", layout.x_ticks)):
            axis = self.plot_widget.getAxis(side)
            axis.setStyle(tickFont=font, tickTextOffset=max(4, px // 3))
            axis.setTicks([list(ticks[0]), list(ticks[1])])
        self.plot_widget.getAxis("left").setWidth(layout.axis_width)
        self.plot_widget.getAxis("bottom").setHeight(layout.axis_height)
        self.plot_widget.setXRange(*layout.x_range, padding=0)
        self.plot_widget.setYRange(*layout.y_range, padding=0)
        for marker in self._markers.values():          # symbols as large as the words beside them
            marker.setSymbolSize(layout.marker_px)
        self._ridge_marker.setSymbolSize(round(px * 0.8))
        offset = QPointF(layout.plot_widget.topLeft())
        roles = {"ridge": "text", "memory_bound": "memory", "compute_bound": "compute"}
        self._plot_texts.set_texts([(replace(text, rect=text.rect.translated(-offset)), roles[name])
                                    for name, text in layout.texts.items() if name in roles])
        self.update()

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.fillRect(event.rect(), self.theme.color("background"))
        if self._layout is None:
            return
        for name in ("y_title", "x_title"):
            painter.setPen(self.theme.color("text"))
            self._layout.texts[name].paint(painter, self.measure.font(self._layout.px, False))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        for key, (sign, text) in self._layout.legend.items():
            role, symbol = POINT_STYLES[key]
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(self.theme.color(role))
            if symbol == "o":
                painter.drawEllipse(sign)
            elif symbol == "s":
                painter.drawRect(sign)
            else:
                c = sign.center()
                painter.drawPolygon(QPolygonF([QPointF(c.x(), sign.top()), QPointF(sign.right(), c.y()),
                                               QPointF(c.x(), sign.bottom()), QPointF(sign.left(), c.y())]))
            painter.setPen(self.theme.color("text"))
            text.paint(painter, self.measure.font(text.px, False))
