"""The work counter: token computations with and without a KV cache, counted and plotted as tokens are generated.

Draws a ``WorkCounterState`` (``widgets.work_counter_state``). Top: one box per
way of working, each with its name, its counter and the last step's work as a
strip: without a cache every earlier token is recomputed (hatched), with one
they are read from the cache (dotted) and only the new token is computed
(solid), each pattern named inside its strip. Below: both cumulative curves
against tokens generated, on one linear scale, drawn up to the current token
(the naive one solid over a tinted area, the cached one dashed), each named.
Patterns, line styles and labels, not colour alone, tell the two apart.

What stays the same during a playback (background, boxes, titles, axes) is
painted once into a ``StaticLayer``; a frame draws it and then the counters,
strips and curves: well inside the frame budget at 1920x1080.
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QWidget

from widgets.bar_paint import mixed
from widgets.kv_labels import StaticLayer
from widgets.state_widget import StateWidget
from widgets.text_fit import LabelPlacer, TextMeasure
from widgets.theme import Theme, pattern_brush
from widgets.work_counter_state import WorkCounterState, shown_tokens

HEADER_SHARE = 0.42          # of the height: the two counter boxes
MARGIN_SHARE = 0.02
RECOMPUTED_PATTERN = Qt.BrushStyle.BDiagPattern      # hatched: work done again
READ_PATTERN = Qt.BrushStyle.Dense5Pattern           # dotted: read from the cache
NAIVE_ROLE, CACHED_ROLE, NEW_ROLE = "warning", "memory", "accent"
CURVE_VERTICES = 100         # at most this many vertices a curve: smooth at any size, cheap every frame
# Texts that stay the same during a playback: painted once into the cached layer.
STATIC_LABELS = ("naive_title", "cached_title", "x_axis", "x_end", "y_axis")


class WorkCounter(StateWidget):
    """Draws a ``WorkCounterState``."""

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(theme, parent)
        self.measure = TextMeasure()
        self._layer = StaticLayer()
        self._px, self._line = 12, 12.0

    # -- layout ---------------------------------------------------------------------------------
    def _boxes(self) -> dict[str, QRectF]:
        """Every area of the picture, in widget pixels, from the size alone."""
        w, h = float(self.width()), float(self.height())
        margin = max(4.0, MARGIN_SHARE * min(w, h))
        header = QRectF(margin, margin, w - 2 * margin, HEADER_SHARE * h - margin)
        left = QRectF(header.left(), header.top(), (header.width() - margin) / 2, header.height())
        right = QRectF(left.right() + margin, header.top(), left.width(), header.height())
        boxes = {"naive_box": left, "cached_box": right}
        for which, box in (("naive", left), ("cached", right)):
            pad = max(4.0, 0.04 * box.height())
            inner = box.adjusted(pad, pad, -pad, -pad)
            bh = inner.height()
            boxes[f"{which}_title"] = QRectF(inner.left(), inner.top(), inner.width(), 0.2 * bh)
            boxes[f"{which}_count"] = QRectF(inner.left(), inner.top() + 0.23 * bh, inner.width(), 0.31 * bh)
            boxes[f"{which}_step"] = QRectF(inner.left(), inner.top() + 0.57 * bh, inner.width(), 0.22 * bh)
            boxes[f"{which}_strip"] = QRectF(inner.left(), inner.top() + 0.81 * bh, inner.width(), 0.19 * bh)
        px = max(self.theme.floor_px, int(0.045 * h))
        line = self.measure.line_height(px, False)
        area = QRectF(margin, header.bottom() + margin, w - 2 * margin, h - header.bottom() - 2 * margin)
        boxes["y_title"] = QRectF(area.left(), area.top(), area.width(), line)
        boxes["x_title"] = QRectF(area.left(), area.bottom() - line, area.width(), line)
        boxes["plot"] = QRectF(area.left() + 0.5 * line, area.top() + 1.3 * line, area.width() - line,
                               area.height() - 2.6 * line)
        plot = boxes["plot"]
        lw = self.theme.scaled_line_width
        boxes["ratio"] = QRectF(plot.left() + 2 * lw, plot.top(), plot.width() * 0.55, 1.6 * line)
        boxes["naive_line"] = QRectF(plot.left() + 2 * lw, plot.top() + 1.8 * line, plot.width() * 0.5, 2 * line)
        boxes["cached_line"] = QRectF(plot.left() + plot.width() * 0.3, plot.bottom() - 2.6 * line,
                                      plot.width() * 0.7, 2 * line)
        self._px, self._line = px, line
        return boxes

    # -- painting -------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.NonCosmeticBrushPatterns, True)   # patterns scale (pattern_brush)
        state = self.state
        if state is None or state.max_tokens <= 0:
            painter.fillRect(self.rect(), self.theme.color("background"))
            self._drawn = []
            return
        boxes = self._boxes()
        static_labels = {k: state.labels.get(k, "") for k in STATIC_LABELS}
        key = (self.width(), self.height(), self.theme, state.show_cached, tuple(sorted(static_labels.items())))
        pixmap, placer = self._layer.pixmap_for(key, self, self.measure, self.theme.floor_px,
                                                lambda p, pl: self._paint_static(p, pl, boxes, state))
        painter.drawPixmap(0, 0, pixmap)
        labels = state.labels
        left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        for which, naive in (("naive", True), ("cached", False)):
            if not naive and not state.show_cached:
                continue
            count_box = boxes[f"{which}_count"]
            placer.place(f"{which}_count", labels.get(f"{which}_count", ""), count_box, count_box.height(), True,
                         left, NAIVE_ROLE if naive else CACHED_ROLE, one_line=True)
            step_box = boxes[f"{which}_step"]
            placer.place(f"{which}_step", labels.get(f"{which}_step", ""), step_box, 0.8 * step_box.height(), False,
                         left, one_line=True)
            self._paint_strip(painter, placer, boxes[f"{which}_strip"], state, naive)
        self._paint_curves(painter, boxes["plot"], state)
        # The curves' names go over the curves' area, so they are drawn after it (their texts never change,
        # so their fit is measured once).
        if boxes["plot"].height() >= 3 * placer.floor_px:
            placer.place("naive_line", labels.get("naive_line", ""), boxes["naive_line"], self._px, False,
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, NAIVE_ROLE)
            if state.show_cached:
                placer.place("cached_line", labels.get("cached_line", ""), boxes["cached_line"], self._px, False,
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom, CACHED_ROLE, backdrop=True)
        if state.show_cached:
            placer.place("ratio", labels.get("ratio", ""), boxes["ratio"], 1.6 * self._px, True,
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, one_line=True)
        placer.paint(painter, self.theme)
        self._drawn = placer.drawn_texts()

    def _paint_static(self, painter: QPainter, placer: LabelPlacer, boxes: dict[str, QRectF],
                      state: WorkCounterState) -> None:
        painter.fillRect(self.rect(), self.theme.color("background"))
        lw = self.theme.scaled_line_width
        labels = state.labels
        left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        for which in ("naive", "cached") if state.show_cached else ("naive",):
            painter.setPen(QPen(self.theme.color("muted"), lw))
            painter.setBrush(self.theme.color("surface"))
            painter.drawRect(boxes[f"{which}_box"])
            title = boxes[f"{which}_title"]
            placer.place(f"{which}_title", labels.get(f"{which}_title", ""), title, 0.8 * title.height(), True, left)
            strip = boxes[f"{which}_strip"]
            if strip.height() >= 4:      # the strip's full width, dotted: Qt strokes a dotted pen of 1.4 px slowly
                painter.setPen(QPen(self.theme.color("muted"), max(1.0, lw / 2), Qt.PenStyle.DotLine))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(strip)
        # Room kept for the texts that change: nothing static is placed there.
        for key in ("naive_count", "naive_step", "naive_strip", "cached_count", "cached_step", "cached_strip",
                    "ratio"):
            placer.reserve(boxes[key])
        plot = boxes["plot"]
        if plot.height() < 3 * placer.floor_px or plot.width() < 6 * placer.floor_px:
            placer.paint(painter, self.theme)
            return
        painter.setPen(QPen(self.theme.color("muted"), lw))
        painter.drawLine(plot.bottomLeft(), plot.bottomRight())
        painter.drawLine(plot.bottomLeft(), plot.topLeft())
        px = self._px
        placer.place("y_axis", labels.get("y_axis", ""), boxes["y_title"], px, False, left, "muted")
        placer.place("x_axis", labels.get("x_axis", ""), boxes["x_title"], px, False,
                     Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter, "muted")
        placer.place("x_end", labels.get("x_end", ""), boxes["x_title"], px, False,
                     Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, "muted")
        placer.reserve(boxes["naive_line"])
        placer.reserve(boxes["cached_line"])
        placer.paint(painter, self.theme)

    def _paint_strip(self, painter: QPainter, placer: LabelPlacer, strip: QRectF, state: WorkCounterState,
                     naive: bool) -> None:
        """The last step's work: N tokens on a bar whose full width is the last token of the playback."""
        if strip.height() < 4:
            return
        n = shown_tokens(state)            # (its dotted outline is in the still layer)
        lw = self.theme.scaled_line_width
        if n <= 0:
            return
        new_width = min(strip.width(), max(6.0, 3 * lw, strip.width() / state.max_tokens))
        filled = strip.width() * n / state.max_tokens
        if naive:
            self._fill(painter, QRectF(strip.left(), strip.top(), max(filled, new_width), strip.height()),
                       NAIVE_ROLE, RECOMPUTED_PATTERN)
            key, text = "recomputed", state.labels.get("recomputed", "")
        else:
            read_width = max(0.0, filled - new_width)
            if read_width > 0:
                self._fill(painter, QRectF(strip.left(), strip.top(), read_width, strip.height()), CACHED_ROLE,
                           READ_PATTERN)
            new = QRectF(strip.left() + read_width, strip.top(), new_width, strip.height())
            painter.fillRect(new, self.theme.color(NEW_ROLE))
            key, text = "read", state.labels.get("read", "")
            placer.block(new)
        # The pattern's name on a patch inside the strip: the pattern and its name side by side.
        label_box = QRectF(strip.left() + 4 * lw, strip.top() + lw, strip.width() - 8 * lw - new_width,
                           strip.height() - 2 * lw)
        placer.place(key, text, label_box, 0.8 * strip.height(), False,
                     Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, "text", backdrop=True, one_line=True)

    def _fill(self, painter: QPainter, rect: QRectF, role: str, pattern: Qt.BrushStyle) -> None:
        colour = self.theme.color(role)
        tint = QColor(colour)
        tint.setAlpha(50)
        painter.fillRect(rect, tint)
        painter.fillRect(rect, pattern_brush(colour, pattern, self.theme))
        painter.setPen(QPen(colour, self.theme.scaled_line_width))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(rect)

    def _paint_curves(self, painter: QPainter, plot: QRectF, state: WorkCounterState) -> None:
        n = shown_tokens(state)
        if n <= 0 or plot.height() <= 0 or plot.width() <= 0:
            return
        lw = self.theme.scaled_line_width
        top_value = state.naive_curve[-1] or 1.0
        step = max(1, state.max_tokens // CURVE_VERTICES)
        indices = list(range(0, n + 1, step))
        if indices[-1] != n:
            indices.append(n)
        x_scale, y_scale = plot.width() / state.max_tokens, plot.height() / top_value
        naive_points = [QPointF(plot.left() + i * x_scale, plot.bottom() - state.naive_curve[i] * y_scale)
                        for i in indices]
        colour = self.theme.color(NAIVE_ROLE)
        # The area under the curve in the line's colour, blended with the background once here: an opaque
        # fill costs a fraction of an alpha-blended one over this large an area, every frame.
        ground = self.theme.color("background")
        tint = mixed(colour, 0.14, ground)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(tint)
        painter.drawPolygon(QPolygonF(naive_points + [QPointF(naive_points[-1].x(), plot.bottom())]))
        painter.setPen(QPen(colour, 2 * lw))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPolyline(QPolygonF(naive_points))
        if state.show_cached:
            cached_points = [QPointF(plot.left() + i * x_scale, plot.bottom() - state.cached_curve[i] * y_scale)
                             for i in indices]
            painter.setPen(QPen(self.theme.color(CACHED_ROLE), 2 * lw, Qt.PenStyle.DashLine))
            painter.drawPolyline(QPolygonF(cached_points))
