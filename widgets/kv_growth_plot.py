"""KV-cache bytes against context length, log-log, with the seed's marks and where the memory runs out.

Draws a ``KvGrowthState`` (``widgets.kv_growth_plot_state``) with QPainter: a
straight line on log-log axes (bytes grow in proportion to the context), a dot
and its text at each mark (2K, 32K, 128K), the level of KV cache that fits as a
dashed line, and past the engine's longest context a hatched "does not fit"
region where the curve turns dashed. The current context is a large dot on the
curve, its value a readout in the plot's top left corner (always in the same
place). Other texts take the first of a few places clear of the others, in
``LABEL_PRIORITY`` order, or are left out. Everything but the moving dot is
painted once per state of the rest (``StaticLayer``).

In the window it zooms (wheel, about the pointer) and pans (drag) on its log
axes (``set_interactive``, ``widgets.plot_view``); a view moved by hand draws
its curve, marks and limits clipped to the plot, and the reset button or a
double-click puts the scene's view back. A click without a drag is ``clicked``.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QWidget

from widgets.kv_growth_plot_state import KvGrowthState, overflows, static_part, x_range, y_range
from widgets.kv_labels import StaticLayer
from widgets.plot_view import ResetViewButton
from widgets.state_widget import StateWidget
from widgets.text_fit import LabelPlacer, TextMeasure
from widgets.theme import Theme, pattern_brush

LEFT, RIGHT, V_CENTRE = Qt.AlignmentFlag.AlignLeft, Qt.AlignmentFlag.AlignRight, Qt.AlignmentFlag.AlignVCenter
TOP, BOTTOM = Qt.AlignmentFlag.AlignTop, Qt.AlignmentFlag.AlignBottom
OVERFLOW_PATTERN = Qt.BrushStyle.BDiagPattern
ZOOM_PER_NOTCH = 0.8          # one wheel notch shows this share of the view's decades
CLICK_SLOP_PX = 6             # a press and release this close are a click, not a drag


class KvGrowthPlot(StateWidget):
    """Draws a ``KvGrowthState``."""

    clicked = Signal(QPoint)       # a click without a drag, in this widget's pixels (interactive only)

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(theme, parent)
        self.measure = TextMeasure()
        self.plot_rect = QRectF()
        self._layer = StaticLayer()
        self._interactive = False
        self._view: tuple[tuple[float, float], tuple[float, float]] | None = None   # log10 ranges moved by hand
        self._drag: tuple[QPointF, tuple] | None = None       # where a press began and the view then
        self.reset_button = ResetViewButton(self, self.reset_view)

    # -- zoom and pan (the window only) -----------------------------------------------------
    def set_interactive(self, interactive: bool, reset_label: str = "") -> None:
        """Let the mouse zoom and pan the plot, or keep it a fixed picture (the view put back)."""
        self.reset_button.set_label(reset_label)
        self._interactive = interactive
        if not interactive:
            self.reset_view()

    def zoomed(self) -> bool:
        return self._view is not None

    def view_range(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """The view now, as (log10 tokens, log10 bytes) ranges."""
        return self._view if self._view is not None else (x_range(self.state), y_range(self.state))

    def reset_view(self) -> None:
        if self._view is not None:
            self._view = None
            self.reset_button.hide()
            self.update()

    def _move_view(self, view) -> None:
        self._view = view
        self.reset_button.place()
        self.reset_button.show()
        self.update()

    def wheelEvent(self, event) -> None:
        if not self._interactive or self.state is None or self.plot_rect.isEmpty():
            event.ignore()
            return
        factor = ZOOM_PER_NOTCH ** (event.angleDelta().y() / 120)
        (x0, x1), (y0, y1) = self.view_range()
        at, plot = event.position(), self.plot_rect
        fx = min(1.0, max(0.0, (at.x() - plot.left()) / plot.width()))
        fy = min(1.0, max(0.0, (plot.bottom() - at.y()) / plot.height()))
        cx, cy = x0 + fx * (x1 - x0), y0 + fy * (y1 - y0)
        self._move_view(((cx - fx * (x1 - x0) * factor, cx + (1 - fx) * (x1 - x0) * factor),
                         (cy - fy * (y1 - y0) * factor, cy + (1 - fy) * (y1 - y0) * factor)))
        event.accept()

    def mousePressEvent(self, event) -> None:
        if not self._interactive or event.button() != Qt.MouseButton.LeftButton or self.state is None:
            event.ignore()
            return
        self._drag = (event.position(), self.view_range())
        event.accept()

    def mouseMoveEvent(self, event) -> None:
        if self._drag is None or self.plot_rect.isEmpty():
            event.ignore()
            return
        start, ((x0, x1), (y0, y1)) = self._drag
        moved = event.position() - start
        if moved.manhattanLength() <= CLICK_SLOP_PX and self._view is None:
            return
        dx = -moved.x() / self.plot_rect.width() * (x1 - x0)
        dy = moved.y() / self.plot_rect.height() * (y1 - y0)
        self._move_view(((x0 + dx, x1 + dx), (y0 + dy, y1 + dy)))

    def mouseReleaseEvent(self, event) -> None:
        if self._drag is None:
            event.ignore()
            return
        start, self._drag = self._drag[0], None
        if (event.position() - start).manhattanLength() <= CLICK_SLOP_PX:
            self.clicked.emit(event.position().toPoint())
        event.accept()

    def mouseDoubleClickEvent(self, event) -> None:
        if not self._interactive:
            event.ignore()
            return
        self.reset_view()
        event.accept()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.reset_button.place()

    def to_pixels(self, tokens: float, n_bytes: float) -> QPointF:
        """Where (``tokens``, ``n_bytes``) is drawn, in widget pixels (after a paint has laid out the plot)."""
        (x0, x1), (y0, y1) = self.view_range()
        plot = self.plot_rect
        x = plot.left() + plot.width() * (math.log10(max(tokens, 1e-9)) - x0) / (x1 - x0)
        y = plot.bottom() - plot.height() * (math.log10(max(n_bytes, 1e-300)) - y0) / (y1 - y0)
        return QPointF(x, y)

    def _lay_out(self, state: KvGrowthState) -> tuple[int, int, float, float, float] | None:
        """Sets ``plot_rect``; returns (text px, tick px, line, tick line, margin), or None when too small."""
        w, h = float(self.width()), float(self.height())
        floor = self.theme.floor_px
        px = max(floor, int(0.042 * h))
        tick_px = floor
        line = self.measure.line_height(px, False)
        tick_line = self.measure.line_height(tick_px, False)
        margin = max(4.0, 0.015 * min(w, h))
        tick_width = max((self.measure.width(text, tick_px, False) for _, text in state.y_ticks), default=0.0)
        plot = QRectF(margin + tick_width + 6, margin + line * 1.2, 0, 0)
        plot.setRight(w - margin - 0.5 * tick_width)
        plot.setBottom(h - margin - line * 1.2 - tick_line)
        self.plot_rect = plot
        if plot.width() < 4 * tick_px or plot.height() < 4 * tick_px:
            return None
        return px, tick_px, line, tick_line, margin

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.NonCosmeticBrushPatterns, True)   # patterns scale (pattern_brush)
        state = self.state
        if state is None or len(state.curve) < 2 or (sizes := self._lay_out(state)) is None:
            painter.fillRect(self.rect(), self.theme.color("background"))
            self._drawn = []
            return
        px, _, line, _, _ = sizes
        # Everything but the moving point is drawn once per state of the rest (a playback moves only the point).
        key = (self.width(), self.height(), self.theme, static_part(state), self._view)
        pixmap, placer = self._layer.pixmap_for(key, self, self.measure, self.theme.floor_px,
                                                lambda p, pl: self._paint_static(p, pl, state, sizes))
        painter.drawPixmap(0, 0, pixmap)
        plot = self.plot_rect
        lw = self.theme.scaled_line_width
        dot = max(4.0, 2.5 * lw)
        current = self.to_pixels(max(state.context_tokens, state.curve[0][0]), max(state.context_bytes,
                                                                                    state.curve[0][1]))
        current_role = "warning" if overflows(state) else "accent"
        if self._view is not None:
            painter.setClipRect(plot)             # a view moved by hand: the point may lie outside it
        painter.setPen(QPen(self.theme.color(current_role), lw, Qt.PenStyle.DotLine))
        painter.drawLine(QPointF(current.x(), plot.bottom()), current)
        painter.setPen(QPen(self.theme.color("text"), lw))
        painter.setBrush(self.theme.color(current_role))
        big = 1.8 * dot
        painter.drawEllipse(current, big, big)
        painter.setClipping(False)
        # Its value as a readout in the plot's top left corner, kept free of every other text: a presenter
        # always finds it in the same place, and it never loses its place to a mark.
        readout = self._readout_box(line)
        fitted = placer.place("current", state.labels.get("current", ""), readout.adjusted(big * 3, 0, 0, 0), px,
                              True, LEFT | V_CENTRE, current_role)
        if fitted is not None:
            swatch = QPointF(readout.left() + big * 1.5, fitted.rect.center().y())
            painter.setPen(QPen(self.theme.color("text"), lw))
            painter.drawEllipse(swatch, big, big)
        placer.paint(painter, self.theme)
        self._drawn = placer.drawn_texts()

    def _readout_box(self, line: float) -> QRectF:
        plot = self.plot_rect
        return QRectF(plot.left() + 3 * self.theme.scaled_line_width, plot.top() + 2, plot.width() * 0.6, line)

    def _paint_static(self, painter: QPainter, placer: LabelPlacer, state: KvGrowthState, sizes) -> None:
        px, tick_px, line, tick_line, margin = sizes
        placer.reserve(self._readout_box(line))
        w, h = float(self.width()), float(self.height())
        painter.fillRect(self.rect(), self.theme.color("background"))
        plot = self.plot_rect
        lw = self.theme.scaled_line_width
        muted = self.theme.color("muted")
        painter.setPen(QPen(muted, lw))
        painter.drawLine(plot.bottomLeft(), plot.bottomRight())
        painter.drawLine(plot.bottomLeft(), plot.topLeft())
        if self._view is not None:
            painter.setClipRect(plot)             # a view moved by hand: the curve and marks stay inside the plot
        # Past the longest context that fits: hatched.
        limit_x = self.to_pixels(max(state.limit_tokens, 1e-9), 1).x()
        limit_in_view = limit_x <= plot.right()          # a view moved by hand may end before the limit
        limit_x = max(plot.left(), min(plot.right(), limit_x))
        if state.limit_tokens < state.curve[-1][0] and limit_in_view:
            region = QRectF(limit_x, plot.top(), plot.right() - limit_x, plot.height())
            colour = self.theme.color("warning")
            tint = QColor(colour)
            tint.setAlpha(25)
            painter.fillRect(region, tint)
            hatch = QColor(colour)
            hatch.setAlpha(90)
            painter.fillRect(region, pattern_brush(hatch, OVERFLOW_PATTERN, self.theme))
            painter.setPen(QPen(colour, lw, Qt.PenStyle.SolidLine))
            painter.drawLine(QPointF(limit_x, plot.top()), QPointF(limit_x, plot.bottom()))
        # The curve: solid where it fits, dashed beyond.
        points = [self.to_pixels(t, b) for t, b in state.curve]
        fitting = [p for p in points if p.x() <= limit_x + 0.5]
        beyond = [p for p in points if p.x() >= limit_x - 0.5]
        limit_point = self._at_x(points, limit_x)
        if limit_point is not None:
            fitting, beyond = fitting + [limit_point], [limit_point] + beyond
        painter.setPen(QPen(self.theme.color("memory"), 2 * lw))
        if len(fitting) >= 2:
            painter.drawPolyline(QPolygonF(fitting))
        painter.setPen(QPen(self.theme.color("warning"), 2 * lw, Qt.PenStyle.DashLine))
        if len(beyond) >= 2:
            painter.drawPolyline(QPolygonF(beyond))
        # The KV cache that fits: a level line.
        room_y = None
        if state.room_bytes > 0 and plot.top() <= self.to_pixels(1, state.room_bytes).y() <= plot.bottom():
            room_y = self.to_pixels(1, state.room_bytes).y()
            painter.setPen(QPen(muted, lw, Qt.PenStyle.DashLine))
            painter.drawLine(QPointF(plot.left(), room_y), QPointF(plot.right(), room_y))
        # Marks and the current point.
        dot = max(4.0, 2.5 * lw)
        painter.setPen(QPen(self.theme.color("text"), lw))
        painter.setBrush(self.theme.color("surface"))
        mark_points = [self.to_pixels(m.tokens, m.bytes) for m in state.marks]
        for p in mark_points:
            painter.drawEllipse(p, dot, dot)
        painter.setClipping(False)
        for p in mark_points:
            placer.block(QRectF(p.x() - dot, p.y() - dot, 2 * dot, 2 * dot))
        # Texts, most important first.
        beyond = state.limit_tokens < state.curve[-1][0]
        if beyond:
            # Right of the limit line when the hatched region has room, else left of it, low in the plot
            # (below and right of the curve, which rises to the right, the plot is empty).
            inside = QRectF(limit_x + 3 * lw, plot.top() + 2 * line, plot.right() - limit_x - 3 * lw,
                            plot.height() - 2 * line)
            left_of = QRectF(plot.left() + 0.3 * plot.width(), plot.top(), limit_x - plot.left() - 0.3 * plot.width()
                             - 3 * lw, plot.height() - 2)
            for key, align in (("limit", BOTTOM), ("overflow", TOP)):
                text = state.labels.get(key, "")
                role = "warning"
                if not (placer.place(key, text, inside, px, key == "limit", LEFT | align, role)
                        or placer.place(key, text, self._below(placer, left_of, key, align), px, key == "limit",
                                        RIGHT | BOTTOM, role)):
                    continue
        for mark, p in zip(state.marks, mark_points):
            if plot.contains(p):                  # a mark outside a view moved by hand has no text
                self._place_near(placer, "mark", mark.label, p, px, line, False, "text", plot)
        if room_y is not None:
            candidates = [(QRectF(plot.left() + 3 * lw, room_y + offset, plot.width() * 0.6, line), LEFT)
                          for offset in (-line - lw, lw, 0.6 * line, 1.2 * line, 2.2 * line)]
            for box, align in candidates:
                if placer.place("room", state.labels.get("room", ""), box, px, False, align | V_CENTRE, "muted"):
                    break
        placer.place("y_axis", state.labels.get("y_axis", ""), QRectF(margin, margin, w - 2 * margin, line),
                     px, False, LEFT | V_CENTRE, "muted")
        placer.place("x_axis", state.labels.get("x_axis", ""),
                     QRectF(plot.left(), h - margin - line, plot.width(), line), px, False,
                     Qt.AlignmentFlag.AlignHCenter | V_CENTRE, "muted")
        painter.setPen(QPen(muted, lw))
        for tokens, text in state.x_ticks:
            x = self.to_pixels(tokens, 1).x()
            if plot.left() - 1 <= x <= plot.right() + 1:
                painter.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4))
                width = self.measure.width(text, tick_px, False) + 2
                placer.place("tick", text, QRectF(x - width / 2, plot.bottom() + 4, width, tick_line), tick_px,
                             False, role="muted")
        for n_bytes, text in state.y_ticks:
            y = self.to_pixels(1, n_bytes).y()
            if plot.top() - 1 <= y <= plot.bottom() + 1:
                painter.drawLine(QPointF(plot.left() - 4, y), QPointF(plot.left(), y))
                placer.place("tick", text, QRectF(margin, y - tick_line / 2, plot.left() - 6 - margin, tick_line),
                             tick_px, False, RIGHT | V_CENTRE, "muted")
        placer.paint(painter, self.theme)

    @staticmethod
    def _below(placer: LabelPlacer, area: QRectF, key: str, align) -> QRectF:
        """``area`` ending above the limit text when the overflow text goes there too (it stacks on it)."""
        limit = next((f for k, _, f, _, _ in placer.placed if k == "limit"), None)
        if key == "overflow" and limit is not None and area.contains(limit.rect.center()):
            return QRectF(area.left(), area.top(), area.width(), limit.rect.top() - area.top() - 2)
        return area

    @staticmethod
    def _at_x(points: list[QPointF], x: float) -> QPointF | None:
        for a, b in zip(points, points[1:]):
            if a.x() <= x <= b.x() and b.x() > a.x():
                t = (x - a.x()) / (b.x() - a.x())
                return QPointF(x, a.y() + t * (b.y() - a.y()))
        return None

    def _place_near(self, placer: LabelPlacer, key: str, text: str, at: QPointF, px: int, line: float,
                    bold: bool, role: str, plot: QRectF, backdrop: bool = False) -> None:
        """``text`` beside the point ``at``: above left, below right, above right, below left; else left out."""
        if not text:
            return
        gap = 2.5 * self.theme.scaled_line_width + 6
        width = max(plot.width() * 0.5, 1.0)
        height = 2 * line
        candidates = (
            (QRectF(at.x() - width - gap, at.y() - height - gap / 2, width, height), RIGHT | BOTTOM),
            (QRectF(at.x() + gap, at.y() + gap / 2, width, height), LEFT | TOP),
            (QRectF(at.x() - width - gap, at.y() + gap / 2, width, height), RIGHT | TOP),
            (QRectF(at.x() + gap, at.y() - height - gap / 2, width, height), LEFT | BOTTOM),
        ) + ((
            (QRectF(at.x() - width - gap, at.y() - height / 2, width, height), RIGHT | V_CENTRE),
            (QRectF(at.x() - width - gap, at.y() + gap / 2 + line, width, height), RIGHT | TOP),
            (QRectF(at.x() - width - gap, at.y() + gap / 2 + 2 * line, width, height), RIGHT | TOP),
        ) if backdrop else ())   # the moving point's text has a few more places to try than the marks'
        for box, align in candidates:
            box = box.intersected(plot)
            if box.width() > 0 and placer.place(key, text, box, px, bold, align, role, backdrop):
                return
