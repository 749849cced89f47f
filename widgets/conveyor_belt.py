"""The conveyor belt: warehouse (HBM), belt (bandwidth) and worker (compute), drawn to scale in time.

The widget draws the ``ConveyorState`` it is handed and the time it is told
(``set_seconds``, from the scene's clock); where everything is comes from
``widgets.conveyor_state.frame_at``, so the frame rate never changes what is
shown. Where the parts and labels go comes from ``widgets.conveyor_layout``,
computed once per size and build; static parts (warehouse, belt frame, fixed
labels) are drawn once into a pixmap, redrawn only when the layout or theme
changes; each frame adds only the moving boxes, the worker, the gauge and the
labels that change with the intensity (fitted when it changes, not per frame).

Shapes are painted in logical units scaled to the widget; labels in screen
pixels, at the sizes and places the layout measured, so what ``label_rects``
reports is what is on screen.
"""
from __future__ import annotations

import math
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QWidget

from widgets.conveyor_layout import (
    BELT_HEIGHT, BOX_SIZE, BOX_SPACING, DYNAMIC_LABELS, GEAR_RADIUS, ROOF_OVERHANG, ROOF_RISE, SHELVES_HEIGHT,
    ConveyorLayout, fit_dynamic, lay_out, number_template,
)
from widgets.conveyor_state import (
    FLASH_SCREEN_SECONDS, GAUGE_LABELS, ConveyorFrame, ConveyorState, busy_intervals, busy_share,
    continuous_origin, frame_at,
)
from widgets.text_fit import FittedText, TextMeasure
from widgets.theme import Theme

TRACE_WINDOW_SECONDS = 6.0   # screen seconds of the worker's history shown in the trace
# Drawn each frame, only when the moment calls for them.
MOMENT_LABELS = ("waiting", "backed_up")
# The colour role of each label.
LABEL_ROLE = {"warehouse": "text", "capacity": "memory", "belt": "text", "bandwidth": "memory", "worker": "text",
              "peak": "compute", "ratio": "warning", "idle": "warning", "busy": "good", "basis": "muted",
              "measured": "accent", "waiting": "warning",
              "backed_up": "warning", "time_scale": "muted", "box": "muted", "trace": "muted"}


def _with_alpha(color: QColor, alpha: float) -> QColor:
    c = QColor(color)
    c.setAlphaF(max(0.0, min(1.0, alpha)))
    return c


class ConveyorBelt(QWidget):
    """Draws a ``ConveyorState`` at the time it is told; holds no physics."""

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self._theme = theme
        self._state: ConveyorState | None = None
        self._seconds = 0.0
        self._origin_seconds = 0.0     # where the current cycle pattern started
        self._static: QPixmap | None = None
        self._static_key: tuple | None = None
        self._measure = TextMeasure()
        self._layout: ConveyorLayout | None = None
        self._layout_key: tuple | None = None
        self._layout_stale = False     # the state or size changed since the last layout
        self._dynamic: dict[str, FittedText] = {}
        self._dynamic_texts: dict[str, str] = {}
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(160, 90)

    # -- what the scene drives ------------------------------------------------------
    @property
    def state(self) -> ConveyorState | None:
        return self._state

    def set_state(self, state: ConveyorState) -> None:
        self._origin_seconds = continuous_origin(self._state, state, self._seconds, self._origin_seconds)
        self._state = state
        self._layout_stale = True       # laid out when next painted or asked for: never for a size not shown
        self.update()

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self._static = None
        self.update()

    def set_seconds(self, seconds: float) -> None:
        """The scene clock's time; a hidden widget keeps the time but skips drawing."""
        self._seconds = seconds
        if self.isVisible():
            self.update()

    def current_frame(self) -> ConveyorFrame | None:
        """Where everything is now (what the next paint shows)."""
        if self._state is None:
            return None
        return frame_at(self._state, self._seconds - self._origin_seconds)

    def sizeHint(self) -> QSize:
        return QSize(1200, 570)

    # -- layout ---------------------------------------------------------------------------
    def label_rects(self) -> dict[str, QRectF]:
        """Screen rectangles of every label laid out for the current size and state (the ones shown only
        at some moments, "waiting" and "backed_up", included): what painting uses."""
        self._ensure_layout_for_size()
        if self._layout is None:
            return {}
        rects = {key: fitted.rect for key, fitted in self._layout.labels.items()}
        rects.update({key: fitted.rect for key, fitted in self._dynamic.items()})
        return rects

    def shape_rects(self) -> dict[str, QRectF]:
        """Screen rectangles of the drawn parts that labels keep clear of."""
        self._ensure_layout_for_size()
        return self._layout.shape_rects() if self._layout is not None else {}

    def is_tall(self) -> bool:
        """Whether the gauge and trace are below the belt (a narrow stage) rather than beside it."""
        self._ensure_layout_for_size()
        return self._layout is not None and self._layout.tall

    def _update_layout(self) -> None:
        """Lay out again when the size or the words change; refit the labels whose numbers changed."""
        if self._state is None:
            return
        labels = self._state.labels
        key = (self.width(), self.height(), self._state.compact,
               tuple(sorted((k, number_template(v) if k in DYNAMIC_LABELS else v) for k, v in labels.items())))
        if key != self._layout_key:
            self._layout = lay_out(self._measure, self.width(), self.height(), dict(labels), self._state.compact)
            self._layout_key = key
            self._dynamic, self._dynamic_texts = {}, {}
        for name in DYNAMIC_LABELS:
            text = labels.get(name, "")
            if self._dynamic_texts.get(name) == text and (name in self._dynamic or not text):
                continue
            self._dynamic_texts[name] = text
            others = [fitted.rect for fitted in self._layout.labels.values()]
            others += [fitted.rect for other, fitted in self._dynamic.items() if other != name]
            others += list(self._layout.shape_rects().values())
            fitted = fit_dynamic(self._measure, self._layout, name, text, others)
            if fitted is None:
                self._dynamic.pop(name, None)
            else:
                self._dynamic[name] = fitted

    def _ensure_layout_for_size(self) -> None:
        """Lay out for the state and size the widget has now, if either changed since the last layout.

        Layout is lazy: a window settling its geometry resizes the widget several times before the
        first paint, and each layout measures many texts; only the size that is painted is laid out."""
        if self._layout_stale or (self._layout_key is not None
                                  and self._layout_key[:2] != (self.width(), self.height())):
            self._layout_stale = False
            self._update_layout()

    def resizeEvent(self, event) -> None:
        self._layout_stale = True
        super().resizeEvent(event)

    # -- painting -----------------------------------------------------------------------
    def _static_picture(self) -> QPixmap:
        ratio = self.devicePixelRatioF()
        key = (self.width(), self.height(), ratio, self._theme, id(self._layout), self._drawn_static_labels())
        if self._static is None or self._static_key != key:
            pixmap = QPixmap(QSize(max(1, round(self.width() * ratio)), max(1, round(self.height() * ratio))))
            pixmap.setDevicePixelRatio(ratio)
            pixmap.fill(self._theme.color("background"))
            if self._layout is not None:
                painter = QPainter(pixmap)
                painter.setRenderHint(QPainter.RenderHint.Antialiasing)
                painter.save()
                self._apply_canvas(painter)
                self._paint_static(painter)
                painter.restore()
                for name in self._drawn_static_labels():
                    self._paint_label(painter, name, self._layout.labels[name])
                painter.end()
            self._static, self._static_key = pixmap, key
        return self._static

    def _shown(self, name: str) -> bool:
        """Whether the label ``name`` is drawn now (laid out or not): hidden ones and, without the gauge,
        the gauge's own keep their place but are not drawn."""
        state = self._state
        return state is not None and name not in state.hidden and (state.show_gauge or name not in GAUGE_LABELS)

    def _drawn_static_labels(self) -> tuple[str, ...]:
        if self._layout is None:
            return ()
        return tuple(name for name in self._layout.labels if name not in MOMENT_LABELS and self._shown(name))

    def drawn_label_texts(self) -> dict[str, str]:
        """The text of every label drawn now (the moments' ones included), lines joined by newlines."""
        self._ensure_layout_for_size()
        if self._layout is None:
            return {}
        fitted = {**self._layout.labels, **self._dynamic}
        return {name: "\n".join(text.lines) for name, text in fitted.items() if self._shown(name)}

    def _apply_canvas(self, painter: QPainter) -> None:
        painter.translate(self._layout.origin)
        painter.scale(self._layout.scale, self._layout.scale)

    def _paint_label(self, painter: QPainter, name: str, fitted: FittedText) -> None:
        painter.setPen(self._theme.color(LABEL_ROLE[name]))
        fitted.paint(painter, self._measure.font(fitted.px, fitted.bold))

    def paintEvent(self, event) -> None:
        self._ensure_layout_for_size()
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._static_picture())
        if self._state is None or self._layout is None:
            painter.end()
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        frame = self.current_frame()
        painter.save()
        self._apply_canvas(painter)
        self._paint_boxes(painter, frame)
        self._paint_worker(painter, frame)
        if self._state.show_gauge:
            self._paint_gauge(painter)
        if self._layout.trace is not None:
            self._paint_trace(painter)
        painter.restore()
        for name, fitted in self._dynamic.items():
            if self._shown(name):
                self._paint_label(painter, name, fitted)
        moments = self._layout.labels
        if not frame.worker_busy and "waiting" in moments:
            self._paint_label(painter, "waiting", moments["waiting"])
        if frame.queue_boxes and "backed_up" in moments:
            self._paint_label(painter, "backed_up", moments["backed_up"])
        painter.end()

    # -- static parts ---------------------------------------------------------------------
    def _pen(self, role: str, width_factor: float = 1.0) -> QPen:
        pen = QPen(self._theme.color(role), self._theme.line_width * width_factor)
        pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        return pen

    def _paint_static(self, painter: QPainter) -> None:
        L = self._layout
        theme = self._theme
        wh = L.warehouse
        # Warehouse: a building with a roof and shelves of boxes (the weights it stores).
        roof = QPolygonF([QPointF(wh.left() - ROOF_OVERHANG, wh.top()),
                          QPointF(wh.center().x(), wh.top() - ROOF_RISE),
                          QPointF(wh.right() + ROOF_OVERHANG, wh.top())])
        painter.setPen(self._pen("memory"))
        painter.setBrush(_with_alpha(theme.color("memory"), 0.18))
        painter.drawPolygon(roof)
        painter.setBrush(theme.color("surface"))
        painter.drawRect(wh)
        painter.setBrush(_with_alpha(theme.color("memory"), 0.35))
        painter.setPen(self._pen("memory", 0.5))
        columns = max(5, int((wh.width() - 34) // 53))
        pitch = (wh.width() - 34) / columns
        for row in range(2):
            y = wh.bottom() - SHELVES_HEIGHT + row * 62
            painter.drawLine(QPointF(wh.left() + 12, y + 50), QPointF(wh.right() - 12, y + 50))
            for col in range(columns):
                painter.drawRect(QRectF(wh.left() + 22 + col * pitch, y + 8, pitch - 11, 42))
        door = QRectF(wh.right() - 8, L.belt_top - 90, 8, 90)
        painter.fillRect(door, theme.color("background"))

        # Belt frame and rollers; the tread moves and is drawn per frame.
        belt = QRectF(L.belt_start_x, L.belt_top, L.belt_end_x - L.belt_start_x, BELT_HEIGHT)
        painter.setPen(self._pen("memory"))
        painter.setBrush(_with_alpha(theme.color("memory"), 0.12))
        painter.drawRoundedRect(belt, BELT_HEIGHT / 2, BELT_HEIGHT / 2)
        painter.setBrush(theme.color("surface"))
        x = L.belt_start_x + 30
        while x < L.belt_end_x - 10:
            painter.drawEllipse(QPointF(x, L.belt_top + BELT_HEIGHT + 16), 12, 12)
            x += 95

        # The bench the worker takes boxes from.
        bench = L.bench
        painter.setPen(self._pen("text", 0.75))
        painter.setBrush(theme.color("surface"))
        painter.drawRect(QRectF(bench.left(), bench.top(), bench.width(), 16))
        painter.drawLine(QPointF(bench.left() + 14, bench.top() + 16), QPointF(bench.left() + 14, bench.bottom()))
        painter.drawLine(QPointF(bench.right() - 14, bench.top() + 16), QPointF(bench.right() - 14, bench.bottom()))
        if L.trace is not None:
            painter.setPen(self._pen("muted", 0.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(L.trace)

    # -- moving parts ---------------------------------------------------------------------
    def _paint_box(self, painter: QPainter, centre_x: float, bottom: float, size: float) -> None:
        rect = QRectF(centre_x - size / 2, bottom - size, size, size)
        painter.drawRect(rect)
        painter.drawLine(QPointF(rect.left(), rect.top() + size * 0.3), QPointF(rect.right(), rect.top() + size * 0.3))

    def _paint_boxes(self, painter: QPainter, frame: ConveyorFrame) -> None:
        L = self._layout
        theme = self._theme
        top = L.belt_top
        offset = (frame.belt_travel_boxes % 1.0) * BOX_SPACING
        # Tread marks move with the belt, so even an empty stretch shows its speed.
        painter.setPen(self._pen("memory", 0.5))
        tread_step = BOX_SPACING / 4
        x = L.belt_start_x + 20 + (offset % tread_step)
        while x < L.belt_end_x - 16:
            painter.drawLine(QPointF(x, top + 9), QPointF(x - 8, top + BELT_HEIGHT - 9))
            x += tread_step
        painter.setPen(self._pen("memory", 0.75))
        painter.setBrush(_with_alpha(theme.color("memory"), 0.55))
        # A box arrives at the belt's end as each cycle begins. When the worker
        # cannot keep up, boxes stand in a queue there and the moving ones join its tail.
        end = L.belt_end_x - BOX_SIZE / 2 - 4
        queue_pitch = BOX_SIZE + 6
        tail = end - frame.queue_boxes * queue_pitch
        for n in range(frame.queue_boxes):
            self._paint_box(painter, end - n * queue_pitch, top, BOX_SIZE)
        x = end - BOX_SPACING + offset
        while x > L.belt_start_x + BOX_SIZE / 2:
            if x <= tail or not frame.queue_boxes:
                self._paint_box(painter, x, top, BOX_SIZE)
            x -= BOX_SPACING
        # The box on the bench shrinks as the worker turns it into results.
        bench = L.bench
        if frame.worker_busy:
            size = BOX_SIZE * math.sqrt(max(0.05, 1.0 - frame.work_progress))
            self._paint_box(painter, bench.center().x(), bench.top(), size)
        flash = 1.0 - frame.seconds_since_box_arrived / FLASH_SCREEN_SECONDS
        if flash > 0:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(_with_alpha(theme.color("accent"), 0.45 * flash))
            painter.drawEllipse(QPointF(bench.center().x(), bench.top() - 30), 70 * (1.2 - flash * 0.2), 50)

    def _paint_worker(self, painter: QPainter, frame: ConveyorFrame) -> None:
        L = self._layout
        theme = self._theme
        busy = frame.worker_busy
        role = "accent" if busy else "muted"
        pen = self._pen(role, 1.6)
        painter.setPen(pen)
        x, top = L.worker_x, L.belt_top
        head = QPointF(x, top - 140)
        hip = QPointF(x, top)
        painter.setBrush(_with_alpha(theme.color(role), 0.2))
        painter.drawEllipse(head, 30, 30)
        painter.drawLine(QPointF(x, top - 110), hip)
        painter.drawLine(hip, QPointF(x - 30, top + 120))
        painter.drawLine(hip, QPointF(x + 30, top + 120))
        shoulder = QPointF(x, top - 85)
        if busy:
            # Both hands on the machine's crank, which turns with the worker's speed.
            angle = frame.gear_turns * 2 * math.pi
            gear = L.gear_centre
            crank = QPointF(gear.x() + GEAR_RADIUS * 0.6 * math.cos(angle), gear.y() + GEAR_RADIUS * 0.6 * math.sin(angle))
            elbow = QPointF((shoulder.x() + crank.x()) / 2 + 10, (shoulder.y() + crank.y()) / 2 + 26)
            painter.drawPolyline(QPolygonF([shoulder, elbow, crank]))
            painter.drawLine(shoulder, QPointF(x - 50, top - 50))
        else:
            # Arms folded: waiting for the next box.
            painter.drawLine(shoulder, QPointF(x - 34, top - 40))
            painter.drawLine(QPointF(x - 34, top - 40), QPointF(x + 26, top - 55))
            painter.drawLine(shoulder, QPointF(x + 34, top - 40))
            painter.drawLine(QPointF(x + 34, top - 40), QPointF(x - 26, top - 55))
        self._paint_gear(painter, frame.gear_turns, busy)

    def _paint_gear(self, painter: QPainter, turns: float, busy: bool) -> None:
        L = self._layout
        role = "compute" if busy else "muted"
        painter.save()
        painter.translate(L.gear_centre)
        painter.rotate(turns * 360.0)
        path = QPainterPath()
        teeth = 10
        for n in range(teeth * 2):
            radius = GEAR_RADIUS if n % 2 == 0 else GEAR_RADIUS * 0.78
            a0 = (n - 0.5) * math.pi / teeth
            a1 = (n + 0.5) * math.pi / teeth
            p0 = QPointF(radius * math.cos(a0), radius * math.sin(a0))
            p1 = QPointF(radius * math.cos(a1), radius * math.sin(a1))
            if n == 0:
                path.moveTo(p0)
            else:
                path.lineTo(p0)
            path.lineTo(p1)
        path.closeSubpath()
        painter.setPen(self._pen(role))
        painter.setBrush(_with_alpha(self._theme.color(role), 0.25))
        painter.drawPath(path)
        # One marked spoke, so that the turning reads even when it is fast.
        painter.drawLine(QPointF(0, 0), QPointF(GEAR_RADIUS * 0.6, 0))
        painter.setBrush(self._theme.color(role))
        painter.drawEllipse(QPointF(GEAR_RADIUS * 0.6, 0), 7, 7)
        painter.restore()

    def _paint_gauge(self, painter: QPainter) -> None:
        """A bar: the worker's busy share (the engine's utilisation, as handed over) in colour, the idle rest in the warning colour (upright beside
        the worker, busy from the bottom; or lying below the belt, busy from the left)."""
        L = self._layout
        theme = self._theme
        share = busy_share(self._state)
        bar = L.gauge_bar
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(_with_alpha(theme.color("warning"), 0.25))
        painter.drawRect(bar)
        # At least a hairline, so a 0.3% share is seen to be there.
        painter.setBrush(theme.color("good"))
        if L.tall:
            painter.drawRect(QRectF(bar.left(), bar.top(), max(bar.width() * share, 3), bar.height()))
        else:
            busy_height = max(bar.height() * share, 3)
            painter.drawRect(QRectF(bar.left(), bar.bottom() - busy_height, bar.width(), busy_height))
        painter.setPen(self._pen("text", 0.75))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(bar)

    def _paint_trace(self, painter: QPainter) -> None:
        """The worker's last seconds, oldest at the left: busy stretches in colour."""
        L = self._layout
        now = self._seconds - self._origin_seconds
        start = now - TRACE_WINDOW_SECONDS
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self._theme.color("good"))
        per_second = (L.trace.width() - 4) / TRACE_WINDOW_SECONDS
        for begin, finish in busy_intervals(self._state, start, now):
            left = L.trace.left() + 2 + (begin - start) * per_second
            width = max(3.0, (finish - begin) * per_second)   # a hairline at least: 0.3% must show
            painter.drawRect(QRectF(left, L.trace.top() + 4, min(width, L.trace.right() - 2 - left), L.trace.height() - 8))
        # Results leave the worker's side of the trace: a marker at "now".
        painter.setBrush(self._theme.color("text"))
        painter.drawRect(QRectF(L.trace.right() - 3, L.trace.top() - 6, 3, L.trace.height() + 12))

