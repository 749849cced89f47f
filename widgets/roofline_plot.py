"""The roofline plot: attainable FLOPS against arithmetic intensity, log-log.

It draws the ``RooflineState`` it is handed: the bandwidth slope and the flat
compute roof (the scene takes their corners from the engine), the ridge point
with its label, named points (prefill, decode, the intensity control, another
machine's point) and, where the state has one, a second machine's roof, dashed,
with its own ridge point and label (``widgets.roofline_signs``: the points' looks).
Every plot item is created once; a new state only moves them (``setData``),
and a state equal to the one shown changes nothing (no repaint).

Where every text goes is worked out by ``widgets.roofline_layout``; this
module holds the pyqtgraph items and paints the texts exactly where the layout
measured them, so ``label_rects`` is what is on screen. Layout happens on
resize and when the texts or the roof change; a moving point (the intensity
control's tween) only moves its marker and repaints the legend's line, whose
room is kept for any number up to six digits. No antialiasing.

Intensities are in FLOP/byte and rates in FLOP/s, plotted as they come; the
tick numbers are written by the formatters the state carries (the scene hands
over ``engine.units``'s), so no number is formatted here.
"""
from __future__ import annotations

import math
from dataclasses import replace

import pyqtgraph as pg
from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QWidget

from widgets.roofline_layout import (
    RooflineLayout, lay_out, lay_out_legend, legend_top, preferred_px,
)
from widgets.plot_view import ResetViewButton
from widgets.roofline_signs import HOLLOW_POINTS, HOLLOW_SIZE, POINT_STYLES, marker_size, paint_sign, style_marker
from widgets.roofline_texts import PlotTexts
from widgets.roofline_state import POINT_KEYS, RooflineState, number_template
from widgets.state_widget import StateWidget
from widgets.text_fit import DrawnText, TextMeasure
from widgets.theme import Theme

__all__ = ["RooflinePlot", "POINT_STYLES", "HOLLOW_POINTS", "HOLLOW_SIZE"]


class RooflinePlot(StateWidget):
    """A pyqtgraph log-log plot that shows a ``RooflineState``, with every text laid out around it.

    A ``StateWidget`` (theme and state kept, nothing repainted for an equal one, ``drawn_texts()``), with its
    own layout (``_relayout``: the state's texts and roof, not its points) and its own repaint of a new
    state: the base's ``set_state`` would repaint the whole widget, and with it the pyqtgraph plot inside,
    on every frame of a moving point; here only the moved marker and the legend's line are repainted.

    In the window it zooms and pans (``set_interactive``, ``widgets.plot_view``); while the view is moved the
    texts placed inside the plot (ridge, memory-bound, compute-bound), laid out for the scene's view, are not
    drawn, and the reset button puts the view and them back."""

    clicked = Signal(QPoint)       # a click without a drag, in this widget's pixels (interactive only)

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(theme, parent)
        self.measure = TextMeasure()
        self._layout: RooflineLayout | None = None
        self.plot_widget = pg.PlotWidget(self)
        # A picture, never a control: no mouse event reaches it, so no pan, zoom or context menu. (Not
        # setMenuEnabled(False): that hands the view box's parentless menu to Python's cycle collector, which
        # would delete it at an arbitrary moment, possibly in the middle of Qt's event dispatch: a crash.)
        self.plot_widget.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.plot_widget.setMouseEnabled(x=False, y=False)
        self.plot_widget.hideButtons()
        item = self.plot_widget.getPlotItem()
        # pyqtgraph makes its two context menus without a Qt parent: as this widget's children Qt deletes them
        # with it, at a moment Qt chooses.
        for menu in (item.ctrlMenu, item.getViewBox().menu):
            menu.setParent(self, menu.windowFlags())
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
        # A second machine's roof (``RooflineState.other``): dashed, with its ridge's dot; empty when there is none.
        self._other_slope = self.plot_widget.plot([], [], antialias=False)
        self._other_roof = self.plot_widget.plot([], [], antialias=False)
        self._other_ridge = self.plot_widget.plot([], [], pen=None, symbol="o", symbolSize=16)
        self._markers: dict[str, pg.PlotDataItem] = {}
        for order, key in enumerate(POINT_KEYS):
            self._markers[key] = self.plot_widget.plot([], [], pen=None, symbol=POINT_STYLES[key][1],
                                                       symbolSize=24, antialias=False)
            self._markers[key].setZValue(10 + order)
        self._plot_texts = PlotTexts(self)
        self.plot_widget.scene().addItem(self._plot_texts)
        self._interactive = False
        self._zoomed = False
        self.reset_button = ResetViewButton(self, self.reset_view)
        view_box = item.getViewBox()
        view_box.sigRangeChangedManually.connect(self._on_moved_by_hand)
        # No pyqtgraph context menu: its words are English only and its entries would undo the scene's view. (A
        # right-drag still zooms.) setMenuEnabled(False) would drop the menu to Python's collector: see above.
        view_box.raiseContextMenu = lambda event: event.accept()
        self.plot_widget.scene().sigMouseClicked.connect(self._on_plot_clicked)
        self._text_px = preferred_px(self.width(), self.height(), self.floor_px())
        self._apply_theme()

    # -- what is shown ------------------------------------------------------------------
    def point_position(self, key: str) -> tuple[float, float] | None:
        """Where the point ``key`` is drawn, as (FLOP/byte, FLOP/s); None when hidden."""
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

    def floor_px(self) -> int:
        """The smallest text this plot draws: the theme's floor (the slide sets it from the screen)."""
        return self.theme.floor_px

    def drawn_texts(self) -> list[DrawnText]:
        """Every text the plot draws, with its pixel size and rectangle (the tick numbers as their bands)."""
        self._relayout()
        if self._layout is None:
            return []
        texts = {**self.label_texts(), "x_ticks": " ".join(self.tick_texts()["x"]),
                 "y_ticks": " ".join(self.tick_texts()["y"])}
        rects = self.label_rects()
        sizes = {name: text.px for name, text in self._layout.texts.items()}
        return [DrawnText(name, text, sizes.get(name, self._layout.px), rects[name])
                for name, text in texts.items() if text and name in rects]

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
        centres = {p.key: (p.flops_per_byte, p.attainable_flops_per_second) for p in self._state.points}
        centres["ridge"] = (self._state.ridge_flops_per_byte, self._state.roof[1][1])
        if self._state.other is not None:
            centres["other_ridge"] = self._state.other.roof[1]
        rects = {}
        for key, (x, flops) in centres.items():
            size = marker_size(key, self._layout.marker_px) + 4   # and its outline
            centre = self._layout.to_pixels(x, flops)
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

    # -- zoom and pan (the window only) -----------------------------------------------------
    def set_interactive(self, interactive: bool, reset_label: str = "") -> None:
        """Let the mouse zoom (wheel) and pan (drag) the plot, or keep it a fixed picture (the view put back)."""
        self.reset_button.set_label(reset_label)
        if interactive == self._interactive:
            return
        self._interactive = interactive
        self.plot_widget.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, not interactive)
        self.plot_widget.setMouseEnabled(x=interactive, y=interactive)
        if not interactive:
            self.reset_view()

    def interactive(self) -> bool:
        return self._interactive

    def zoomed(self) -> bool:
        """Whether the view was moved by hand (the reset button shows)."""
        return self._zoomed

    def view_range(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """The plot's view now, as (log10 FLOP/byte, log10 FLOP/s) ranges."""
        (x0, x1), (y0, y1) = self.plot_widget.getPlotItem().getViewBox().viewRange()
        return (x0, x1), (y0, y1)

    def reset_view(self) -> None:
        """The view the scene set, with the texts inside the plot."""
        if self._zoomed:
            self._zoomed = False
            self.reset_button.hide()
            self._plot_texts.show()
            if self._layout is not None:
                self._apply(self._layout)

    def _on_moved_by_hand(self, *_args) -> None:
        self._zoomed = True
        self._plot_texts.hide()           # placed for the scene's view: beside nothing in this one
        self.reset_button.place()
        self.reset_button.show()

    def _on_plot_clicked(self, event) -> None:
        if not self._interactive or event.button() != Qt.MouseButton.LeftButton:
            return
        if event.double():
            self.reset_view()
            return
        point = self.plot_widget.mapTo(self, self.plot_widget.mapFromScene(event.scenePos()))
        self.clicked.emit(point)

    # -- changes ------------------------------------------------------------------------
    def set_theme(self, theme: Theme) -> None:
        if theme != self._theme:
            self._theme = theme
            self._apply_theme()

    def _apply_theme(self) -> None:
        theme = self._theme
        width = theme.scaled_line_width           # the stage's size: no hairlines at 4K
        self.plot_widget.setBackground(theme.color("background"))
        for side in ("left", "bottom"):
            axis = self.plot_widget.getAxis(side)
            axis.setPen(pg.mkPen(theme.color("muted"), width=max(1.0, width / 2)))
            axis.setTextPen(pg.mkPen(theme.color("text")))
        self._slope.setPen(pg.mkPen(theme.color("memory"), width=width * 1.6))
        self._roof.setPen(pg.mkPen(theme.color("compute"), width=width * 1.6))
        self._other_slope.setPen(pg.mkPen(theme.color("memory"), width=width * 1.6, style=Qt.PenStyle.DashLine))
        self._other_roof.setPen(pg.mkPen(theme.color("compute"), width=width * 1.6, style=Qt.PenStyle.DashLine))
        self._ridge_line.setPen(pg.mkPen(theme.color("muted"), width=max(1.0, width / 2),
                                         style=Qt.PenStyle.DashLine))
        for ridge in (self._ridge_marker, self._other_ridge):
            ridge.setSymbolBrush(pg.mkBrush(theme.color("text")))
            ridge.setSymbolPen(pg.mkPen(theme.color("background"), width=2 * theme.size_scale))
        for key, marker in self._markers.items():
            style_marker(marker, key, theme)
        self._relayout(force=True)
        self.update()

    def resizeEvent(self, event) -> None:
        self._relayout()
        self.reset_button.place()
        super().resizeEvent(event)

    def set_state(self, state: RooflineState) -> None:
        """Moves the plot's items to ``state`` (an equal one changes nothing) and repaints what moved."""
        if state == self._state:
            return
        self._state = state
        (x0, y0), (x1, y1), (x2, y2) = state.roof
        self._slope.setData([x0, x1], [y0, y1])
        self._roof.setData([x1, x2], [y1, y2])
        self._ridge_line.setValue(math.log10(state.ridge_flops_per_byte))
        self._ridge_marker.setData([state.ridge_flops_per_byte], [y1])
        if state.other is None:
            for item in (self._other_slope, self._other_roof, self._other_ridge):
                item.setData([], [])
        else:
            (u0, v0), (u1, v1), (u2, v2) = state.other.roof
            self._other_slope.setData([u0, u1], [v0, v1])
            self._other_roof.setData([u1, u2], [v1, v2])
            self._other_ridge.setData([u1], [v1])
        shown = {point.key: point for point in state.points}
        for key, marker in self._markers.items():
            point = shown.get(key)
            if point is None:
                marker.setData([], [])
            else:
                marker.setData([point.flops_per_byte], [point.attainable_flops_per_second])
        if not self._relayout() and self._layout is not None:
            # Only the numbers moved: the legend keeps its place (room was kept for them).
            old = self._layout.legend
            self._layout.legend = lay_out_legend(self.measure, state.points, self._layout.px,
                                                 self._layout.legend_form, legend_top(self._layout.px))[0]
            if old != self._layout.legend:
                self.update(self._legend_bounds())

    # -- layout -----------------------------------------------------------------------------
    def _relayout(self, force: bool = False) -> bool:
        """Lays everything out again when what it depends on changed; True when it did. The accessors
        call it too: a hidden widget gets its resize event only when shown, but its size is set before."""
        state = self._state
        key = None if state is None else (
            self.width(), self.height(), state.roof, state.ridge_flops_per_byte, state.ridge_label, state.x_label,
            state.y_label, state.memory_bound_label, state.compute_bound_label, state.x_tick_text, state.y_tick_text,
            state.other,
            tuple((p.key, p.label.removesuffix(p.value), number_template(p.value), p.in_legend) for p in state.points),
            self.theme.scaled_line_width)
        if key == self._layout_key and not force:
            return False
        self._layout_key = key
        floor = self.floor_px()
        preferred = preferred_px(self.width(), self.height(), floor)
        if state is None:
            self._text_px = preferred
            self.plot_widget.setGeometry(self.rect())
            return True
        for px in range(preferred, floor - 1, -1):
            layout = lay_out(self.measure, state, self.width(), self.height(), self.theme.scaled_line_width, px,
                             last_try=px == floor, floor_px=floor)
            if layout is not None:
                break
        self._apply(layout)
        return True

    def _legend_bounds(self) -> QRect:
        rect = QRectF()
        for sign, text in self._layout.legend.values():
            rect = rect.united(sign).united(text.rect)
        return QRect(0, 0, self.width(), math.ceil(rect.bottom()) + 2)

    def _apply(self, layout: RooflineLayout) -> None:
        self._layout, self._text_px = layout, layout.px
        px, font = layout.px, self.measure.font(layout.px, False)
        self.plot_widget.setGeometry(layout.plot_widget)
        for side, ticks in (("left", layout.y_ticks), ("bottom", layout.x_ticks)):
            axis = self.plot_widget.getAxis(side)
            axis.setStyle(tickFont=font, tickTextOffset=max(4, px // 3))
            axis.setTicks([list(ticks[0]), list(ticks[1])])
        self.plot_widget.getAxis("left").setWidth(layout.axis_width)
        self.plot_widget.getAxis("bottom").setHeight(layout.axis_height)
        if not self._zoomed:                 # a view moved by hand stays until it is reset
            self.plot_widget.setXRange(*layout.x_range, padding=0)
            self.plot_widget.setYRange(*layout.y_range, padding=0)
        for key, marker in self._markers.items():      # symbols as large as the words beside them
            marker.setSymbolSize(round(marker_size(key, layout.marker_px)))
        self._ridge_marker.setSymbolSize(round(px * 0.8))
        self._other_ridge.setSymbolSize(round(px * 0.8))
        offset = QPointF(layout.plot_widget.topLeft())
        roles = {"ridge": "text", "other_ridge": "text", "memory_bound": "memory", "compute_bound": "compute"}
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
            paint_sign(painter, key, sign, self.theme)
            painter.setPen(self.theme.color("text"))
            text.paint(painter, self.measure.font(text.px, False))
