"""The roofline plot: attainable FLOPS against arithmetic intensity, log-log.

It draws the ``RooflineState`` it is handed: the bandwidth slope and the flat
compute roof (the scene takes their corners from the engine), the ridge point
with its label, and named points (prefill, decode, the intensity control).
Every plot item is created once; a new state only moves them (``setData``),
and a state equal to the one shown changes nothing (no repaint). The legend is
a line of text above the plot, so it never covers a line or a point; the
region labels sit where the roofline leaves room: "memory-bound" at the
bottom, left of the ridge (right of the slope), "compute-bound" above the
roof at the right. Text is sized from the widget's height, so it reads from
the back of a room at 1024 x 768 and at 4K alike. No antialiasing (cheap to
paint; the lines are straight anyway).
Intensities are in FLOP/byte; rates arrive in FLOP/s and are shown in TFLOPS.
"""
from __future__ import annotations

import math
from html import escape
from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from widgets.theme import Theme

TERA = 1e12
# Text size follows the widget's height (one line per this many pixels, never under
# the minimum): ~16 px beside the belt on a 1024 x 768 projector, ~50 px at 4K.
TEXT_LINES_PER_HEIGHT = 28
TEXT_PX_MIN = 12
HEADROOM_DECADES = 1.1        # above the roof, for the ridge and "compute-bound" labels

# Colour role, symbol and the legend's sign of each named point. Their texts go in
# the legend above the plot, so they never collide however close the points come.
POINT_STYLES = {
    "decode": ("warning", "o", "●"),
    "prefill": ("compute", "s", "■"),
    "control": ("accent", "d", "◆"),
}


@dataclass(frozen=True)
class RooflinePoint:
    key: str                             # "decode", "prefill" or "control"
    label: str                           # already translated, may hold the numbers
    flops_per_byte: float
    attainable_flops_per_second: float


@dataclass(frozen=True)
class RooflineState:
    roof: tuple[tuple[float, float], ...]   # (FLOP/byte, FLOP/s): start, ridge, end of the roofline
    ridge_flops_per_byte: float
    ridge_label: str
    x_label: str
    y_label: str
    points: tuple[RooflinePoint, ...] = ()
    memory_bound_label: str = ""            # written along the slope's side
    compute_bound_label: str = ""           # written under the roof


def _font(pixel_size: int, bold: bool = False) -> QFont:
    font = QFont()
    font.setPixelSize(pixel_size)
    font.setBold(bold)
    return font


class RooflinePlot(QWidget):
    """A pyqtgraph log-log plot that shows a ``RooflineState``."""

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self._theme = theme
        self._state: RooflineState | None = None
        self.plot_widget = pg.PlotWidget()
        self.plot_widget.setMenuEnabled(False)
        self.plot_widget.setMouseEnabled(x=False, y=False)
        self.plot_widget.hideButtons()
        item = self.plot_widget.getPlotItem()
        item.setLogMode(x=True, y=True)
        item.showGrid(x=True, y=True, alpha=0.15)
        self._slope = self.plot_widget.plot([], [], antialias=False)
        self._roof = self.plot_widget.plot([], [], antialias=False)
        self._ridge_line = pg.InfiniteLine(angle=90, movable=False)
        item.addItem(self._ridge_line)
        # PlotDataItems (not bare ScatterPlotItems) so that the log mode applies to them.
        self._ridge_marker = self.plot_widget.plot([], [], pen=None, symbol="o", symbolSize=16)
        self._ridge_text = pg.TextItem(anchor=(1.03, 1.15))     # above-left: empty, unattainable space
        self._memory_text = pg.TextItem(anchor=(1.04, 1.0))     # bottom, left of the ridge line
        self._compute_text = pg.TextItem(anchor=(1.0, 0.0))     # top-right corner, above the roof
        item.addItem(self._memory_text)
        item.addItem(self._compute_text)
        item.addItem(self._ridge_text)
        self._text_px = TEXT_PX_MIN
        self._markers: dict[str, pg.PlotDataItem] = {}
        for key, (_, symbol, _) in POINT_STYLES.items():
            self._markers[key] = self.plot_widget.plot([], [], pen=None, symbol=symbol, symbolSize=24,
                                                       antialias=False)
        self._legend = QLabel(self)
        self._legend.setTextFormat(Qt.TextFormat.RichText)
        self._legend.setWordWrap(True)
        self._legend_entries: tuple[tuple[str, str], ...] = ()    # (point key, text)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self._legend)
        layout.addWidget(self.plot_widget, stretch=1)
        self.set_theme(theme)

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
        return self._ridge_text.toPlainText()

    def legend_texts(self) -> list[str]:
        return [text for _, text in self._legend_entries]

    def text_px(self) -> int:
        """The pixel size of every text in the plot now."""
        return self._text_px

    # -- changes ------------------------------------------------------------------------
    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
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
        self._ridge_text.setColor(theme.color("text"))
        for text, role in ((self._memory_text, "memory"), (self._compute_text, "compute")):
            text.setColor(theme.color(role))
        for key, (role, _, _) in POINT_STYLES.items():
            self._markers[key].setSymbolBrush(pg.mkBrush(theme.color(role)))
            self._markers[key].setSymbolPen(pg.mkPen(theme.color("background"), width=2))
        self._legend.setStyleSheet(f"background: {theme.color('background').name()};")
        self._show_legend()
        self._apply_fonts()

    def resizeEvent(self, event) -> None:
        text_px = max(TEXT_PX_MIN, round(self.height() / TEXT_LINES_PER_HEIGHT))
        if text_px != self._text_px:
            self._text_px = text_px
            self._apply_fonts()
        super().resizeEvent(event)

    def _apply_fonts(self) -> None:
        px = self._text_px
        for side in ("left", "bottom"):
            self.plot_widget.getAxis(side).setStyle(tickFont=_font(px), tickTextOffset=max(4, px // 3))
        self._ridge_text.setFont(_font(px, bold=True))
        self._memory_text.setFont(_font(px))
        self._compute_text.setFont(_font(px))
        self._legend.setFont(_font(px))
        for marker in self._markers.values():          # symbols as large as the words beside them
            marker.setSymbolSize(round(px * 1.2))
        self._ridge_marker.setSymbolSize(round(px * 0.8))
        self._legend.setContentsMargins(px // 2, px // 3, px // 2, px // 3)
        if self._state is not None:
            self._apply_labels(self._state)

    def set_state(self, state: RooflineState) -> None:
        if state == self._state:
            return
        previous, self._state = self._state, state
        (x0, y0), (x1, y1), (x2, y2) = state.roof
        self._slope.setData([x0, x1], [y0 / TERA, y1 / TERA])
        self._roof.setData([x1, x2], [y1 / TERA, y2 / TERA])
        ridge_log_x = math.log10(state.ridge_flops_per_byte)
        ridge_log_y = math.log10(y1 / TERA)
        self._ridge_line.setValue(ridge_log_x)
        self._ridge_marker.setData([state.ridge_flops_per_byte], [y1 / TERA])
        self._ridge_text.setText(state.ridge_label)
        self._ridge_text.setPos(ridge_log_x, ridge_log_y)
        top_log_y = math.log10(y2 / TERA) + HEADROOM_DECADES
        self._memory_text.setText(state.memory_bound_label)
        self._memory_text.setPos(ridge_log_x, math.log10(y0 / TERA))
        self._compute_text.setText(state.compute_bound_label)
        self._compute_text.setPos(math.log10(x2) + 0.12, top_log_y)
        shown = {point.key: point for point in state.points}
        for key, marker in self._markers.items():
            point = shown.get(key)
            if point is None:
                marker.setData([], [])
            else:
                marker.setData([point.flops_per_byte], [point.attainable_flops_per_second / TERA])
        self._legend_entries = tuple((p.key, p.label) for p in state.points)
        self._show_legend()
        if previous is None or (previous.roof[0][0], previous.roof[2][0], previous.roof[2][1]) != (x0, x2, y2) \
                or (previous.x_label, previous.y_label) != (state.x_label, state.y_label):
            self._apply_labels(state)
            self._apply_ticks(state)
            # Room above the roof for the labels, and a little either side.
            self.plot_widget.setXRange(math.log10(x0), math.log10(x2) + 0.12, padding=0.02)
            self.plot_widget.setYRange(math.log10(y0 / TERA), top_log_y, padding=0.04)

    def _show_legend(self) -> None:
        """The points' texts above the plot, each after its sign in its colour (one line each)."""
        lines = []
        for key, text in self._legend_entries:
            role, _, sign = POINT_STYLES[key]
            lines.append(f'<span style="color:{self._theme.color(role).name()}">{sign}</span>&nbsp;'
                         f'<span style="color:{self._theme.color("text").name()}">{escape(text)}</span>')
        self._legend.setText("<br>".join(lines))
        self._legend.setVisible(bool(lines))

    def _apply_ticks(self, state: RooflineState) -> None:
        """Decades only, written as plain numbers (1, 10, 100, 1,000): read from the back of a room."""
        (x0, y0), _, (x2, y2) = state.roof
        for side, low, high in (("bottom", x0, x2), ("left", y0 / TERA, y2 / TERA * 10 ** HEADROOM_DECADES)):
            decades = range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
            major = [(k, f"{10.0 ** k:,.0f}" if k >= 0 else f"{10.0 ** k:g}") for k in decades]
            self.plot_widget.getAxis(side).setTicks([major, []])

    def _apply_labels(self, state: RooflineState) -> None:
        style = {"color": self._theme.text, "font-size": f"{self._text_px}px"}
        self.plot_widget.setLabel("bottom", state.x_label, **style)
        self.plot_widget.setLabel("left", state.y_label, **style)
