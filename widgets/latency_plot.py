"""P90 latencies against the request rate, one panel per latency, with the targets, the knee and the traffic.

Draws a ``LatencyPlotState`` (``widgets.latency_plot_state``) with QPainter:
panels stacked over one shared rate axis, each a curve on linear axes with its
target as a dashed level line; the knee a dot and a dashed drop line on the
first panel; the planned traffic a dotted line through every panel. A curve
that climbs past its panel's top is clipped there and the panel says how high
it goes. Texts are placed most important first (``LABEL_PRIORITY``) by a
``LabelPlacer``: never under the floor, never over each other; a text that
does not fit is left out. Everything is static: painted once per state and size.
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QWidget

from widgets.latency_plot_state import LatencyPanel, LatencyPlotState, x_share, y_share
from widgets.state_widget import StateWidget
from widgets.text_fit import LabelPlacer, TextMeasure
from widgets.theme import Theme

LEFT, RIGHT, H_CENTRE = Qt.AlignmentFlag.AlignLeft, Qt.AlignmentFlag.AlignRight, Qt.AlignmentFlag.AlignHCenter
TOP, BOTTOM, V_CENTRE = Qt.AlignmentFlag.AlignTop, Qt.AlignmentFlag.AlignBottom, Qt.AlignmentFlag.AlignVCenter
CURVE_ROLES = {"ttft": "accent", "tpot": "compute"}
TITLE_SHARE = 0.05            # of the widget's height: a panel's title (never under the floor)
PANEL_GAP_LINES = 0.6         # between two panels, in title lines


class LatencyPlot(StateWidget):
    """Draws a ``LatencyPlotState``."""

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(theme, parent)
        self.measure = TextMeasure()
        self.panel_rects: dict[str, QRectF] = {}

    def to_pixels(self, panel: LatencyPanel, rate: float, seconds: float) -> QPointF:
        """Where (``rate``, ``seconds``) is drawn in ``panel`` (after a paint has laid the panels out)."""
        rect = self.panel_rects[panel.key]
        return QPointF(rect.left() + rect.width() * x_share(self.state, rate),
                       rect.bottom() - rect.height() * y_share(panel, seconds))

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), self.theme.color("background"))
        state = self.state
        self._drawn = []
        if state is None or self.width() <= 0 or self.height() <= 0:
            return
        floor = self.theme.floor_px
        placer = LabelPlacer(self.measure, floor, QRectF(0, 0, self.width(), self.height()))
        title_px = max(floor, int(TITLE_SHARE * self.height()))
        if state.message or not state.panels:
            placer.place("message", state.message, QRectF(self.rect()).adjusted(8, 8, -8, -8), round(title_px * 1.2),
                         False, H_CENTRE | V_CENTRE, state.message_role)
        else:
            self._paint_panels(painter, placer, state, title_px)
        placer.paint(painter, self.theme)
        self._drawn = placer.drawn_texts()

    def _lay_out_panels(self, state: LatencyPlotState, title_px: int) -> float:
        """Set ``panel_rects``; returns the height of one title line."""
        floor = self.theme.floor_px
        w, h = float(self.width()), float(self.height())
        margin = max(4.0, 0.015 * min(w, h))
        title_line = self.measure.line_height(title_px, True)
        tick_line = self.measure.line_height(floor, False)
        ticks = [text for panel in state.panels for _, text in panel.y_ticks]
        tick_width = max((self.measure.width(text, floor, False) for text in ticks), default=0.0)
        left = margin + tick_width + 8
        right = w - margin - 0.5 * max((self.measure.width(t, floor, False) for _, t in state.x_ticks), default=0.0)
        bottom = h - margin - tick_line - (tick_line if state.x_label else 0) - 6
        n = len(state.panels)
        gap = PANEL_GAP_LINES * title_line
        each = (bottom - margin - n * title_line - (n - 1) * gap) / n
        self.panel_rects = {}
        top = margin
        for panel in state.panels:
            top += title_line
            self.panel_rects[panel.key] = QRectF(left, top, max(1.0, right - left), max(1.0, each))
            top += each + gap
        return title_line

    def _paint_panels(self, painter: QPainter, placer: LabelPlacer, state: LatencyPlotState, title_px: int) -> None:
        title_line = self._lay_out_panels(state, title_px)
        theme, floor = self.theme, self.theme.floor_px
        lw = theme.scaled_line_width
        muted = theme.color("muted")
        label_px = max(floor, int(title_px * 0.85))
        first = state.panels[0]
        # Titles first: they name what each panel is.
        for panel in state.panels:
            rect = self.panel_rects[panel.key]
            placer.place("title", panel.title, QRectF(rect.left(), rect.top() - title_line, rect.width(), title_line),
                         title_px, True, LEFT | V_CENTRE, CURVE_ROLES.get(panel.key, "text"))
        for panel in state.panels:
            rect = self.panel_rects[panel.key]
            painter.setPen(QPen(muted, lw))
            painter.drawLine(rect.bottomLeft(), rect.bottomRight())
            painter.drawLine(rect.bottomLeft(), rect.topLeft())
            # The target: a dashed level line, its text above its right end (below when the top is near).
            target_y = self.to_pixels(panel, 0, panel.target_seconds).y()
            if rect.top() <= target_y <= rect.bottom():
                painter.setPen(QPen(theme.color("warning"), lw, Qt.PenStyle.DashLine))
                painter.drawLine(QPointF(rect.left(), target_y), QPointF(rect.right(), target_y))
            painter.save()
            painter.setClipRect(rect.adjusted(0, -lw, lw, 0))
            painter.setPen(QPen(theme.color(CURVE_ROLES.get(panel.key, "accent")), 2 * lw))
            painter.drawPolyline(QPolygonF([self.to_pixels(panel, r, s) for r, s in panel.points]))
            painter.restore()
            if rect.top() <= target_y <= rect.bottom():
                line = self.measure.line_height(label_px, False)
                for box in (QRectF(rect.left() + rect.width() * 0.4, target_y - line - lw, rect.width() * 0.6, line),
                            QRectF(rect.left() + rect.width() * 0.4, target_y + lw, rect.width() * 0.6, line)):
                    if placer.place("target", panel.target_label, box, label_px, False, RIGHT | V_CENTRE, "warning",
                                    backdrop=True):
                        break
        self._paint_knee(painter, placer, state, first, label_px)
        self._paint_rate(painter, placer, state, label_px)
        for panel in state.panels:
            if panel.off_chart_label:
                rect = self.panel_rects[panel.key]
                line = self.measure.line_height(label_px, False)
                placer.place("off_chart", panel.off_chart_label,
                             QRectF(rect.left() + rect.width() * 0.3, rect.top() + lw, rect.width() * 0.7 - 2 * lw, line),
                             label_px, False, RIGHT | V_CENTRE, CURVE_ROLES.get(panel.key, "text"), backdrop=True)
        self._paint_axes(painter, placer, state)

    def _paint_knee(self, painter: QPainter, placer: LabelPlacer, state: LatencyPlotState, panel: LatencyPanel,
                    px: int) -> None:
        if state.knee_rate is None or not 0 < x_share(state, state.knee_rate) <= 1:
            return
        rect, lw = self.panel_rects[panel.key], self.theme.scaled_line_width
        point = self.to_pixels(panel, state.knee_rate, state.knee_seconds)
        point.setY(max(rect.top(), point.y()))
        colour = self.theme.color("text")
        painter.setPen(QPen(colour, lw, Qt.PenStyle.DashLine))
        painter.drawLine(QPointF(point.x(), rect.bottom()), point)
        dot = max(4.0, 2.5 * lw)
        painter.setPen(QPen(colour, lw))
        painter.setBrush(self.theme.color("surface"))
        painter.drawEllipse(point, dot, dot)
        placer.block(QRectF(point.x() - dot, point.y() - dot, 2 * dot, 2 * dot))
        line = self.measure.line_height(px, False)
        width = rect.width() * 0.55
        gap = dot + 4
        # Left of the dot and above it first: right of the knee the curve climbs.
        for box, align in ((QRectF(point.x() - width - gap, point.y() - 2 * line - gap, width, 2 * line), RIGHT | BOTTOM),
                           (QRectF(point.x() - width - gap, point.y() - line / 2, width, 2 * line), RIGHT | TOP),
                           (QRectF(point.x() + gap, rect.bottom() - 2 * line - lw, width, 2 * line), LEFT | BOTTOM)):
            if placer.place("knee", state.knee_label, box.intersected(rect), px, False, align, "text", backdrop=True):
                return

    def _paint_rate(self, painter: QPainter, placer: LabelPlacer, state: LatencyPlotState, px: int) -> None:
        if state.rate is None or not 0 < x_share(state, state.rate) <= 1:
            return
        lw = self.theme.scaled_line_width
        rects = [self.panel_rects[p.key] for p in state.panels]
        x = rects[0].left() + rects[0].width() * x_share(state, state.rate)
        painter.setPen(QPen(self.theme.color("text"), 1.5 * lw, Qt.PenStyle.DotLine))
        for rect in rects:
            painter.drawLine(QPointF(x, rect.top()), QPointF(x, rect.bottom()))
        line = self.measure.line_height(px, False)
        top = rects[0]
        width = top.width() * 0.45
        for box, align in ((QRectF(x + 4 * lw, top.top() + line * 1.2, width, line), LEFT | V_CENTRE),
                           (QRectF(x - width - 4 * lw, top.top() + line * 1.2, width, line), RIGHT | V_CENTRE),
                           (QRectF(x + 4 * lw, top.bottom() - 2.2 * line, width, line), LEFT | V_CENTRE),
                           (QRectF(x - width - 4 * lw, top.bottom() - 2.2 * line, width, line), RIGHT | V_CENTRE)):
            if placer.place("rate", state.rate_label, box.intersected(top), px, True, align, "text", backdrop=True):
                return

    def _paint_axes(self, painter: QPainter, placer: LabelPlacer, state: LatencyPlotState) -> None:
        floor, lw = self.theme.floor_px, self.theme.scaled_line_width
        tick_line = self.measure.line_height(floor, False)
        bottom_panel = self.panel_rects[state.panels[-1].key]
        margin = max(4.0, 0.015 * min(self.width(), self.height()))
        if state.x_label:
            placer.place("x_axis", state.x_label,
                         QRectF(bottom_panel.left(), self.height() - margin - tick_line, bottom_panel.width(), tick_line),
                         floor, False, H_CENTRE | V_CENTRE, "muted")
        painter.setPen(QPen(self.theme.color("muted"), lw))
        for rate, text in state.x_ticks:
            x = bottom_panel.left() + bottom_panel.width() * x_share(state, rate)
            painter.drawLine(QPointF(x, bottom_panel.bottom()), QPointF(x, bottom_panel.bottom() + 4))
            width = self.measure.width(text, floor, False) + 2
            placer.place("tick", text, QRectF(x - width / 2, bottom_panel.bottom() + 5, width, tick_line), floor,
                         False, H_CENTRE | V_CENTRE, "muted")
        for panel in state.panels:
            rect = self.panel_rects[panel.key]
            for seconds, text in panel.y_ticks:
                y = self.to_pixels(panel, 0, seconds).y()
                if rect.top() - 1 <= y <= rect.bottom() + 1:
                    painter.drawLine(QPointF(rect.left() - 4, y), QPointF(rect.left(), y))
                    placer.place("tick", text, QRectF(margin, y - tick_line / 2, rect.left() - 6 - margin, tick_line),
                                 floor, False, RIGHT | V_CENTRE, "muted")
