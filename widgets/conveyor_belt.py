"""The conveyor belt: warehouse (HBM), belt (bandwidth) and worker (compute), drawn to scale in time.

The widget draws the ``ConveyorState`` it is handed and the time it is told
(``set_seconds``, from the scene's clock); where everything is comes from
``widgets.conveyor_state.frame_at``, so the frame rate never changes what is
shown. Static parts (warehouse, belt frame, fixed labels) are drawn once into
a pixmap, redrawn only when the size, theme or those parts change; each frame
adds only the moving boxes, the worker and the gauge.

Painting is in logical units on a 1600 x 760 canvas, scaled uniformly to the
widget and centred, so it reads the same at 320 x 240 and at 3840 x 2160.
"""
from __future__ import annotations

import math
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QWidget

from widgets.conveyor_state import (
    FLASH_SCREEN_SECONDS, ConveyorFrame, ConveyorState, busy_intervals, busy_share,
    continuous_origin, frame_at,
)
from widgets.theme import Theme

CANVAS_HEIGHT = 760.0
# The canvas is as wide as the widget's shape asks for, within these limits:
# the belt between warehouse and worker stretches or shrinks (the box spacing,
# and so the speed on screen, stays the same), so the drawing fills a wide
# 16:9 stage and still fits beside the roofline at 4:3.
CANVAS_WIDTH_RANGE = (1300.0, 2200.0)
COMPACT_CANVAS_WIDTH_RANGE = (1250.0, 2200.0)
COMPACT_CANVAS_HEIGHT = 650.0             # compact: no trace below the belt's labels
CANVAS_WIDTH = 1600.0                     # the layout the fixed positions below are written for

# Layout of the canvas (logical units) at CANVAS_WIDTH; everything right of the
# belt moves with the canvas's right edge (``_Layout``).
WAREHOUSE = QRectF(30, 170, 300, 380)
BELT_TOP = 470.0
BELT_HEIGHT = 34.0
BELT_START_X = WAREHOUSE.right()
BELT_END_X = 1090.0
BOX_SPACING = 150.0
BOX_SIZE = 64.0
BENCH_WIDTH, BENCH_HEIGHT = 150.0, 130.0
WORKER_X = 1320.0            # centre of the worker figure
GEAR_Y = 370.0
GEAR_RADIUS = 46.0
GAUGE = QRectF(1410, 170, 160, 380)
TRACE_TOP, TRACE_HEIGHT = 676.0, 52.0
TRACE_WINDOW_SECONDS = 6.0   # screen seconds of the worker's history shown in the trace
TOP_TEXT_Y = 6.0


class _Layout:
    """Where the parts are on a canvas ``width`` logical units wide."""

    def __init__(self, width: float):
        shift = width - CANVAS_WIDTH
        self.width = width
        self.belt_end_x = BELT_END_X + shift
        self.bench = QRectF(self.belt_end_x, BELT_TOP, BENCH_WIDTH, BENCH_HEIGHT)
        self.worker_x = WORKER_X + shift
        self.gear_centre = QPointF(self.bench.center().x(), GEAR_Y)
        self.gauge = GAUGE.translated(shift, 0)
        self.trace = QRectF(BELT_START_X, TRACE_TOP, width - 20 - BELT_START_X, TRACE_HEIGHT)
        self.worker_text = QRectF(self.bench.left() - 60, WAREHOUSE.top() - 150,
                                  width - self.bench.left() + 60, 70)
        # The two small lines at the top left end before the worker's name begins.
        self.top_text_width = self.worker_text.left() - 40


# Labels drawn into the cached static picture; the rest change with the intensity and are drawn each frame.
STATIC_LABELS = ("warehouse", "capacity", "belt", "bandwidth", "worker", "peak", "ratio",
                 "time_scale", "trace")

# Text is never drawn smaller than the widget's height divided by this (nor than
# MIN_TEXT_SCREEN_PX): on a 1024 x 768 projector, beside the roofline, the
# smallest label is still ~16 px, readable from the back of a room; in a small
# window the words grow relative to the drawing rather than become unreadable.
MIN_TEXT_LINES_PER_HEIGHT = 28
MIN_TEXT_SCREEN_PX = 12
SMALL_PX = 24
LABEL_PX = 28
NUMBER_PX = 40
BIG_PX = 52


def _font(pixel_size: int, bold: bool = False) -> QFont:
    font = QFont()
    font.setPixelSize(pixel_size)
    font.setBold(bold)
    return font


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
        self._min_text_px = float(SMALL_PX)   # in logical units, for the current size
        self._layout = _Layout(CANVAS_WIDTH)
        self._box_text_top = TOP_TEXT_Y + 46   # below the time-scale line, however it wrapped
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
        self._update_layout()
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

    # -- painting -----------------------------------------------------------------------
    def _compact(self) -> bool:
        return self._state is not None and self._state.compact

    def _canvas_height(self) -> float:
        return COMPACT_CANVAS_HEIGHT if self._compact() else CANVAS_HEIGHT

    def _update_layout(self) -> None:
        low, high = COMPACT_CANVAS_WIDTH_RANGE if self._compact() else CANVAS_WIDTH_RANGE
        width = max(low, min(high, self._canvas_height() * self.width() / max(1, self.height())))
        if width != self._layout.width:
            self._layout = _Layout(width)

    def _canvas_transform(self) -> tuple[float, float, float]:
        width, height = self._layout.width, self._canvas_height()
        scale = min(self.width() / width, self.height() / height)
        dx = (self.width() - width * scale) / 2
        dy = (self.height() - height * scale) / 2
        return scale, dx, dy

    def resizeEvent(self, event) -> None:
        self._update_layout()
        super().resizeEvent(event)

    def _static_picture(self) -> QPixmap:
        state = self._state
        static_labels = tuple((k, state.labels.get(k, "")) for k in STATIC_LABELS) if state else ()
        ratio = self.devicePixelRatioF()
        key = (self.width(), self.height(), ratio, self._theme, static_labels, self._layout.width, self._compact())
        if self._static is None or self._static_key != key:
            pixmap = QPixmap(QSize(max(1, round(self.width() * ratio)), max(1, round(self.height() * ratio))))
            pixmap.setDevicePixelRatio(ratio)
            pixmap.fill(self._theme.color("background"))
            painter = QPainter(pixmap)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            self._apply_canvas(painter)
            self._paint_static(painter, dict(static_labels))
            painter.end()
            self._static, self._static_key = pixmap, key
        return self._static

    def _apply_canvas(self, painter: QPainter) -> None:
        scale, dx, dy = self._canvas_transform()
        min_screen_px = max(MIN_TEXT_SCREEN_PX, self.height() / MIN_TEXT_LINES_PER_HEIGHT)
        self._min_text_px = min_screen_px / max(scale, 1e-6)
        painter.translate(dx, dy)
        painter.scale(scale, scale)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._static_picture())
        if self._state is None:
            painter.end()
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        self._apply_canvas(painter)
        frame = self.current_frame()
        self._paint_boxes(painter, frame)
        self._paint_worker(painter, frame)
        if self._state.show_gauge:
            self._paint_gauge(painter)
        if self._compact():
            painter.end()
            return
        self._paint_trace(painter)
        self._text(painter, QRectF(20, self._box_text_top, self._layout.top_text_width, 120),
                   self._state.labels.get("box", ""), SMALL_PX, role="muted",
                   align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        painter.end()

    # -- static parts ---------------------------------------------------------------------
    def _pen(self, role: str, width_factor: float = 1.0) -> QPen:
        pen = QPen(self._theme.color(role), self._theme.line_width * width_factor)
        pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        return pen

    def _text(self, painter: QPainter, rect: QRectF, text: str, px: int, role: str = "text",
              bold: bool = False, align=Qt.AlignmentFlag.AlignCenter) -> QRectF:
        if not text:
            return QRectF()
        painter.setFont(_font(round(max(px, self._min_text_px)), bold))
        painter.setPen(self._theme.color(role))
        return painter.drawText(rect, int(align | Qt.TextFlag.TextWordWrap), text)

    def _paint_static(self, painter: QPainter, labels: dict[str, str]) -> None:
        L = self._layout
        theme = self._theme
        # Warehouse: a building with a roof and shelves of boxes (the weights it stores).
        roof = QPolygonF([QPointF(WAREHOUSE.left() - 14, WAREHOUSE.top()),
                          QPointF(WAREHOUSE.center().x(), WAREHOUSE.top() - 70),
                          QPointF(WAREHOUSE.right() + 14, WAREHOUSE.top())])
        painter.setPen(self._pen("memory"))
        painter.setBrush(_with_alpha(theme.color("memory"), 0.18))
        painter.drawPolygon(roof)
        painter.setBrush(theme.color("surface"))
        painter.drawRect(WAREHOUSE)
        painter.setBrush(_with_alpha(theme.color("memory"), 0.35))
        painter.setPen(self._pen("memory", 0.5))
        for row in range(2):
            y = WAREHOUSE.top() + 200 + row * 62
            painter.drawLine(QPointF(WAREHOUSE.left() + 12, y + 50), QPointF(WAREHOUSE.right() - 12, y + 50))
            for col in range(5):
                painter.drawRect(QRectF(WAREHOUSE.left() + 22 + col * 53, y + 8, 42, 42))
        door = QRectF(WAREHOUSE.right() - 8, BELT_TOP - 90, 8, 90)
        painter.fillRect(door, theme.color("background"))
        used = self._text(painter, QRectF(WAREHOUSE.left() + 8, WAREHOUSE.top() + 10, WAREHOUSE.width() - 16, 120),
                          labels.get("warehouse", ""), LABEL_PX, bold=True,
                          align=Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        capacity_top = max(WAREHOUSE.top() + 60, used.bottom() + 4)     # below the name, however it wrapped
        self._text(painter, QRectF(WAREHOUSE.left(), capacity_top, WAREHOUSE.width(), 70),
                   labels.get("capacity", ""), NUMBER_PX, role="memory", bold=True,
                   align=Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)

        # Belt frame and rollers; the tread moves and is drawn per frame.
        belt = QRectF(BELT_START_X, BELT_TOP, L.belt_end_x - BELT_START_X, BELT_HEIGHT)
        painter.setPen(self._pen("memory"))
        painter.setBrush(_with_alpha(theme.color("memory"), 0.12))
        painter.drawRoundedRect(belt, BELT_HEIGHT / 2, BELT_HEIGHT / 2)
        painter.setBrush(theme.color("surface"))
        x = BELT_START_X + 30
        while x < L.belt_end_x - 10:
            painter.drawEllipse(QPointF(x, BELT_TOP + BELT_HEIGHT + 16), 12, 12)
            x += 95
        # The belt's words may reach under the bench: a short belt (beside the roofline) keeps them on one line.
        belt_text = QRectF(BELT_START_X, BELT_TOP + 62, L.belt_end_x + BENCH_WIDTH / 2 - BELT_START_X, 44)
        self._text(painter, belt_text, labels.get("belt", ""), LABEL_PX, bold=True)
        self._text(painter, belt_text.translated(0, 40).adjusted(0, 0, 0, 12),
                   labels.get("bandwidth", ""), NUMBER_PX, role="memory", bold=True)

        # The bench the worker takes boxes from.
        painter.setPen(self._pen("text", 0.75))
        painter.setBrush(theme.color("surface"))
        painter.drawRect(QRectF(L.bench.left(), L.bench.top(), L.bench.width(), 16))
        painter.drawLine(QPointF(L.bench.left() + 14, L.bench.top() + 16), QPointF(L.bench.left() + 14, L.bench.bottom()))
        painter.drawLine(QPointF(L.bench.right() - 14, L.bench.top() + 16), QPointF(L.bench.right() - 14, L.bench.bottom()))
        worker_text = L.worker_text
        self._text(painter, worker_text, labels.get("worker", ""), LABEL_PX, bold=True)
        self._text(painter, worker_text.translated(0, 64).adjusted(0, 0, 0, -14),
                   labels.get("peak", ""), NUMBER_PX, role="compute", bold=True)

        # The ratio between them, as a banner over the belt.
        # The ratio, as a banner over the belt (reaching over the bench, left of the worker's "waiting").
        self._text(painter, QRectF(BELT_START_X + 10, WAREHOUSE.top() - 8, L.belt_end_x + 90 - BELT_START_X, 140),
                   labels.get("ratio", ""), NUMBER_PX, role="warning", bold=True)
        if self._compact():
            return
        used = self._text(painter, QRectF(20, TOP_TEXT_Y, L.top_text_width, 200), labels.get("time_scale", ""),
                          SMALL_PX, role="muted", align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self._box_text_top = TOP_TEXT_Y + max(40.0, used.height() + 4)
        self._text(painter, QRectF(L.trace.left(), L.trace.top() - 40, L.trace.width(), 36), labels.get("trace", ""),
                   SMALL_PX, role="muted", align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom)
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
        offset = (frame.belt_travel_boxes % 1.0) * BOX_SPACING
        # Tread marks move with the belt, so even an empty stretch shows its speed.
        painter.setPen(self._pen("memory", 0.5))
        tread_step = BOX_SPACING / 4
        x = BELT_START_X + 20 + (offset % tread_step)
        while x < L.belt_end_x - 16:
            painter.drawLine(QPointF(x, BELT_TOP + 9), QPointF(x - 8, BELT_TOP + BELT_HEIGHT - 9))
            x += tread_step
        painter.setPen(self._pen("memory", 0.75))
        painter.setBrush(_with_alpha(theme.color("memory"), 0.55))
        # A box arrives at the belt's end as each cycle begins. When the worker
        # cannot keep up, boxes stand in a queue there and the moving ones join its tail.
        end = L.belt_end_x - BOX_SIZE / 2 - 4
        queue_pitch = BOX_SIZE + 6
        tail = end - frame.queue_boxes * queue_pitch
        for n in range(frame.queue_boxes):
            self._paint_box(painter, end - n * queue_pitch, BELT_TOP, BOX_SIZE)
        x = end - BOX_SPACING + offset
        while x > BELT_START_X + BOX_SIZE / 2:
            if x <= tail or not frame.queue_boxes:
                self._paint_box(painter, x, BELT_TOP, BOX_SIZE)
            x -= BOX_SPACING
        if frame.queue_boxes:
            self._text(painter, QRectF(L.belt_end_x - 460, BELT_TOP - BOX_SIZE - 70, 460, 60),
                       self._state.labels.get("backed_up", ""), LABEL_PX, role="warning", bold=True,
                       align=Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom)
        # The box on the bench shrinks as the worker turns it into results.
        if frame.worker_busy:
            size = BOX_SIZE * math.sqrt(max(0.05, 1.0 - frame.work_progress))
            self._paint_box(painter, L.bench.center().x(), L.bench.top(), size)
        flash = 1.0 - frame.seconds_since_box_arrived / FLASH_SCREEN_SECONDS
        if flash > 0:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(_with_alpha(theme.color("accent"), 0.45 * flash))
            painter.drawEllipse(QPointF(L.bench.center().x(), L.bench.top() - 30), 70 * (1.2 - flash * 0.2), 50)

    def _paint_worker(self, painter: QPainter, frame: ConveyorFrame) -> None:
        L = self._layout
        theme = self._theme
        busy = frame.worker_busy
        role = "accent" if busy else "muted"
        pen = self._pen(role, 1.6)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        head = QPointF(L.worker_x, 330)
        hip = QPointF(L.worker_x, 470)
        painter.setBrush(_with_alpha(theme.color(role), 0.2))
        painter.drawEllipse(head, 30, 30)
        painter.drawLine(QPointF(L.worker_x, 360), hip)
        painter.drawLine(hip, QPointF(L.worker_x - 30, 590))
        painter.drawLine(hip, QPointF(L.worker_x + 30, 590))
        shoulder = QPointF(L.worker_x, 385)
        if busy:
            # Both hands on the machine's crank, which turns with the worker's speed.
            angle = frame.gear_turns * 2 * math.pi
            crank = QPointF(L.gear_centre.x() + GEAR_RADIUS * 0.6 * math.cos(angle),
                            L.gear_centre.y() + GEAR_RADIUS * 0.6 * math.sin(angle))
            elbow = QPointF((shoulder.x() + crank.x()) / 2 + 10, (shoulder.y() + crank.y()) / 2 + 26)
            painter.drawPolyline(QPolygonF([shoulder, elbow, crank]))
            painter.drawLine(shoulder, QPointF(L.worker_x - 50, 420))
        else:
            # Arms folded: waiting for the next box.
            painter.drawLine(shoulder, QPointF(L.worker_x - 34, 430))
            painter.drawLine(QPointF(L.worker_x - 34, 430), QPointF(L.worker_x + 26, 415))
            painter.drawLine(shoulder, QPointF(L.worker_x + 34, 430))
            painter.drawLine(QPointF(L.worker_x + 34, 430), QPointF(L.worker_x - 26, 415))
            self._text(painter, QRectF(L.worker_x - 120, 240, 240, 50), self._state.labels.get("waiting", ""),
                       LABEL_PX, role="warning", bold=True)
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
        """A tall bar: the worker's busy share in colour, the idle rest in the warning colour."""
        L = self._layout
        theme = self._theme
        share = busy_share(self._state)
        bar = QRectF(L.gauge.center().x() - 40, L.gauge.top() + 60, 80, L.gauge.height() - 140)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(_with_alpha(theme.color("warning"), 0.25))
        painter.drawRect(bar)
        busy_height = bar.height() * share
        # At least a hairline, so a 0.3% share is seen to be there.
        painter.setBrush(theme.color("good"))
        painter.drawRect(QRectF(bar.left(), bar.bottom() - max(busy_height, 3), bar.width(), max(busy_height, 3)))
        painter.setPen(self._pen("text", 0.75))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(bar)
        labels = self._state.labels
        # Centred on the bar, except where that would run past the canvas's right edge.
        right = min(L.width - 4, L.gauge.center().x() + 150)
        text_rect = QRectF(right - 380, L.gauge.top() - 10, 380, 64)
        align = Qt.AlignmentFlag.AlignRight if right < L.gauge.center().x() + 150 else Qt.AlignmentFlag.AlignHCenter
        if align == Qt.AlignmentFlag.AlignHCenter:
            text_rect = QRectF(L.gauge.center().x() - 150, L.gauge.top() - 10, 300, 64)
        self._text(painter, text_rect, labels.get("idle", ""), NUMBER_PX, role="warning", bold=True,
                   align=align | Qt.AlignmentFlag.AlignVCenter)
        self._text(painter, text_rect.translated(0, bar.bottom() + 10 - text_rect.top()),
                   labels.get("busy", ""), LABEL_PX, role="good", bold=True, align=align | Qt.AlignmentFlag.AlignVCenter)

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

