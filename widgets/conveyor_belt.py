"""The conveyor belt: warehouse (HBM), belt (bandwidth) and worker (compute), drawn to scale in time.

Draws the ``ConveyorState`` it is handed at the scene clock's time (``frame_at``: the frame rate never
changes what is shown). Each box holds its work to scale (full at the ridge, a sliver at 1 FLOP/byte);
the worker glows only while he works. The levers' parts (smaller boxes, the tray, the KV shelf) are
``widgets.conveyor_levers``'s. Parts and labels are placed by ``widgets.conveyor_layout`` once per
size and build, no text below the theme's ``text_floor_px``; static parts are drawn once into a pixmap.
Built on ``widgets.state_widget.StateWidget`` like every stage widget.
"""
from __future__ import annotations

import math
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import QWidget

from widgets.bar_paint import alpha, mixed
from widgets.conveyor_layout import (
    BELT_HEIGHT, BOX_SIZE, BOX_SPACING, GEAR_RADIUS, ROOF_OVERHANG, ROOF_RISE, SHELVES_HEIGHT,
    ConveyorLayout, fit_dynamic, lay_out,
)
from widgets.conveyor_levers import paint_kv_shelf, paint_tray, smaller
from widgets.conveyor_state import (
    DYNAMIC_LABELS, GAUGE_LABELS, TRACE_WINDOW_SECONDS, ConveyorFrame, ConveyorState, box_work_share,
    busy_intervals, busy_share, continuous_origin, frame_at, label_role, layout_words, tray_at, tray_capacity,
)
from widgets.state_widget import StateWidget
from widgets.still_picture import StillPicture
from widgets.text_fit import DrawnText, FittedText, TextMeasure
from widgets.theme import Theme

# Drawn each frame, only when the moment calls for them.
MOMENT_LABELS = ("waiting", "backed_up")
MIN_FILL = 2.0        # logical units: a box with any work in it shows a sliver
LAYOUTS_KEPT = 12     # a scene's builds at two sizes
GEAR = QPolygonF([QPointF(r * math.cos(a), r * math.sin(a)) for n in range(20)        # ten teeth
                  for r in [GEAR_RADIUS if n % 2 == 0 else GEAR_RADIUS * 0.78]
                  for a in ((n - 0.5) * math.pi / 10, (n + 0.5) * math.pi / 10)])


class ConveyorBelt(StateWidget):
    """Draws a ``ConveyorState`` at the time it is told; holds no physics.

    A ``StateWidget``: theme and state kept, repainted only when either changes (and, while shown, as its
    time moves: the belt runs continuously). Its layout is its own: one per size and ``layout_words``
    (not per state, which changes every frame of a transition), prepared ahead by ``prepare``."""

    stage_sizes = ((160, 90), (900, 600))

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(theme, parent)
        self._measure = TextMeasure()
        self._seconds, self._origin_seconds = 0.0, 0.0      # the clock's time; where the cycle pattern started
        self._still = StillPicture()          # the belt, the shelf and the steady labels (widgets.still_picture)
        self._layouts: dict[tuple, ConveyorLayout] = {}     # prepared and recent layouts, by what they depend on
        self._layout_stale = False     # the state or size changed since the last layout
        self._dynamic, self._dynamic_texts = {}, {}        # labels that change with the intensity: fitted, text

    # -- what the scene drives ------------------------------------------------------
    def set_state(self, state: ConveyorState) -> None:
        if state == self._state:
            return             # nothing to draw again; the cycle keeps its origin (the gear keeps its angle)
        self._origin_seconds = continuous_origin(self._state, state, self._seconds, self._origin_seconds)
        self._state = state
        self._layout_stale = True       # laid out when next painted or asked for: never for a size not shown
        self.update()

    def set_theme(self, theme: Theme) -> None:
        if theme != self._theme:
            self._theme, self._layout_stale = theme, True
            self._still.forget()     # the text floor may have changed
            self.update()

    def floor_px(self) -> int:
        return self._theme.floor_px

    def set_seconds(self, seconds: float) -> None:       # a hidden widget keeps the time but skips drawing
        self._seconds = seconds
        if self.isVisible():
            self.update()

    def current_frame(self) -> ConveyorFrame | None:
        return None if self._state is None else frame_at(self._state, self._seconds - self._origin_seconds)

    # -- layout ---------------------------------------------------------------------------
    def label_rects(self) -> dict[str, QRectF]:
        """Screen rectangles of every label laid out now (the moments' ones included): what painting uses."""
        self._ensure_layout_for_size()
        fitted = {**self._layout.labels, **self._dynamic} if self._layout is not None else {}
        return {key: text.rect for key, text in fitted.items()}

    def shape_rects(self) -> dict[str, QRectF]:
        self._ensure_layout_for_size()
        return self._layout.shape_rects() if self._layout is not None else {}

    def prepare(self, state: ConveyorState, width: int, height: int) -> tuple:
        """Lay ``state`` out at ``width`` x ``height`` ahead of time (a scene's idle time): no layout when shown."""
        key = (width, height, self.floor_px(), layout_words(state))
        if key not in self._layouts:
            self._layouts[key] = lay_out(self._measure, width, height, dict(state.labels), state.compact,
                                         self.floor_px())
            while len(self._layouts) > LAYOUTS_KEPT:
                del self._layouts[next(iter(self._layouts))]
        return key

    def _update_layout(self) -> None:
        if self._state is None:
            return
        key, labels = self.prepare(self._state, self.width(), self.height()), self._state.labels
        if key != self._layout_key:
            self._layout, self._layout_key = self._layouts[key], key
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
            self._dynamic.pop(name, None)
            if fitted is not None:
                self._dynamic[name] = fitted

    def _ensure_layout_for_size(self) -> None:
        """Lay out for the state and size now, if either changed (lazy: a window settling resizes many times)."""
        size_changed = self._layout_key is not None and self._layout_key[:2] != self.size().toTuple()
        if self._layout_stale or size_changed:
            self._layout_stale = False
            self._update_layout()

    def resizeEvent(self, event) -> None:
        self._layout_stale = True
        super().resizeEvent(event)

    # -- painting -----------------------------------------------------------------------
    def _static_picture(self) -> QPixmap:
        key = (self._theme, self._layout_key, self._drawn_static_labels(),
               None if self._state is None else (self._state.shelf, self._state.box_size_share))
        return self._still.pixmap(key, self, self._paint_still, self._theme.color("background"))

    def _paint_still(self, painter: QPainter) -> None:
        if self._layout is None:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.save()
        painter.translate(self._layout.origin)
        painter.scale(self._layout.scale, self._layout.scale)
        self._paint_static(painter)
        painter.restore()
        for name in self._drawn_static_labels():
            self._paint_label(painter, name, self._layout.labels[name])

    def _shown(self, name: str) -> bool:       # hidden labels (and the gauge's, without it) keep their place
        state = self._state
        return state is not None and name not in state.hidden and (state.show_gauge or name not in GAUGE_LABELS)

    def _drawn_static_labels(self) -> tuple[str, ...]:
        labels = self._layout.labels if self._layout is not None else {}
        return tuple(name for name in labels if name not in MOMENT_LABELS and self._shown(name))

    def drawn_texts(self) -> list[DrawnText]:
        """Every text the next paint draws (a moment's label only while its moment lasts), lines joined."""
        self._ensure_layout_for_size()
        if self._layout is None:
            return []
        frame = self.current_frame()
        moments = {"waiting": not frame.worker_busy, "backed_up": frame.queue_boxes > 0}
        fitted = {**self._layout.labels, **self._dynamic}
        return [DrawnText(name, "\n".join(text.lines), text.px, QRectF(text.rect)) for name, text in fitted.items()
                if self._shown(name) and moments.get(name, True)]

    def _paint_label(self, painter: QPainter, name: str, fitted: FittedText) -> None:
        painter.setPen(self._theme.color(label_role(name, self._state)))
        fitted.paint(painter, self._measure.font(fitted.px, fitted.bold))

    def paintEvent(self, event) -> None:
        self._ensure_layout_for_size()
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._static_picture())
        if self._state is None or self._layout is None:
            return painter.end()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        frame = self.current_frame()
        painter.save()
        painter.translate(self._layout.origin)
        painter.scale(self._layout.scale, self._layout.scale)
        self._paint_boxes(painter, frame)
        self._paint_worker(painter, frame)
        if self._state.show_gauge:
            self._paint_gauge(painter)
        if self._layout.trace is not None:
            self._paint_trace(painter)
        tray = tray_at(self._state, self._seconds - self._origin_seconds)
        if tray is not None:
            paint_tray(painter, self._layout, tray, tray_capacity(self._state), self._pen, self._tint,
                       self._theme.color("compute"))
        painter.restore()
        for name, fitted in self._dynamic.items():
            if self._shown(name):
                self._paint_label(painter, name, fitted)
        for name, now in (("waiting", not frame.worker_busy), ("backed_up", frame.queue_boxes > 0)):
            if now and name in self._layout.labels:
                self._paint_label(painter, name, self._layout.labels[name])
        painter.end()

    # -- static parts ---------------------------------------------------------------------
    def _tint(self, role: str, share: float) -> QColor:      # opaque: moving parts blend nothing per frame
        return mixed(self._theme.color(role), share, self._theme.color("background"))

    def _pen(self, role: str, width_factor: float = 1.0) -> QPen:
        return QPen(self._theme.color(role), self._theme.line_width * width_factor, Qt.PenStyle.SolidLine,
                    Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin)

    def _paint_static(self, painter: QPainter) -> None:
        L = self._layout
        theme = self._theme
        wh = L.warehouse
        # Warehouse: a building with a roof and shelves of boxes (the weights it stores).
        roof = QPolygonF([QPointF(wh.left() - ROOF_OVERHANG, wh.top()),
                          QPointF(wh.center().x(), wh.top() - ROOF_RISE),
                          QPointF(wh.right() + ROOF_OVERHANG, wh.top())])
        painter.setPen(self._pen("memory"))
        painter.setBrush(alpha(theme.color("memory"), 0.18))
        painter.drawPolygon(roof)
        painter.setBrush(theme.color("surface"))
        painter.drawRect(wh)
        painter.setBrush(alpha(theme.color("memory"), 0.35))
        painter.setPen(self._pen("memory", 0.5))
        columns = max(5, int((wh.width() - 34) // 53))
        pitch = (wh.width() - 34) / columns
        shelf, side = self._state.shelf, self._state.box_size_share
        for row in range(2):
            y = wh.bottom() - SHELVES_HEIGHT + row * 62
            painter.drawLine(QPointF(wh.left() + 12, y + 50), QPointF(wh.right() - 12, y + 50))
            if row == 1 and shelf is not None:           # the lower shelf holds the KV cache
                paint_kv_shelf(painter, wh.left() + 22, wh.left() + 11 + columns * pitch, y + 8, 42, shelf,
                               self._pen, self._tint)
                painter.setBrush(alpha(theme.color("memory"), 0.35))
                painter.setPen(self._pen("memory", 0.5))
                continue
            for col in range(columns):
                painter.drawRect(smaller(QRectF(wh.left() + 22 + col * pitch, y + 8, pitch - 11, 42), side))
        painter.fillRect(QRectF(wh.right() - 8, L.belt_top - 90, 8, 90), theme.color("background"))   # the door

        # Belt frame and rollers; the tread moves and is drawn per frame.
        belt = QRectF(L.belt_start_x, L.belt_top, L.belt_end_x - L.belt_start_x, BELT_HEIGHT)
        painter.setPen(self._pen("memory"))
        painter.setBrush(alpha(theme.color("memory"), 0.12))
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
        for x in (bench.left() + 14, bench.right() - 14):
            painter.drawLine(QPointF(x, bench.top() + 16), QPointF(x, bench.bottom()))
        if L.trace is not None:
            painter.setPen(self._pen("muted", 0.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(L.trace)

    # -- moving parts ---------------------------------------------------------------------
    def _paint_box(self, painter: QPainter, centre_x: float, bottom: float, size: float, fill: float) -> None:
        """A box of weights, filled from the bottom with its work to scale (``fill``: 1 at the ridge)."""
        rect = QRectF(centre_x - size / 2, bottom - size, size, size)
        painter.drawRect(rect)
        if fill > 0:
            inner = rect.adjusted(3, 3, -3, -3)
            height = max(MIN_FILL, inner.height() * fill)
            painter.fillRect(QRectF(inner.left(), inner.bottom() - height, inner.width(), height), self._work_brush)

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
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)     # upright boxes: crisp, and cheaper
        painter.setPen(self._pen("memory", 0.75))
        painter.setBrush(self._tint("memory", 0.15))
        self._work_brush = theme.color("compute")
        fill = box_work_share(self._state)
        size = BOX_SIZE * self._state.box_size_share
        # A box arrives at the belt's end as each cycle begins. When the worker
        # cannot keep up, boxes stand in a queue there and the moving ones join its tail.
        end = L.belt_end_x - BOX_SIZE / 2 - 4
        queue_pitch = BOX_SIZE + 6
        tail = end - frame.queue_boxes * queue_pitch
        for n in range(frame.queue_boxes):
            self._paint_box(painter, end - n * queue_pitch, top, size, fill)
        x = end - BOX_SPACING + offset
        while x > L.belt_start_x + BOX_SIZE / 2:
            if x <= tail or not frame.queue_boxes:
                self._paint_box(painter, x, top, size, fill)
            x -= BOX_SPACING
        # The box on the bench empties as the worker turns its work into results; he glows only meanwhile.
        bench = L.bench
        if frame.worker_busy:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(self._tint("accent", 0.35))
            painter.drawEllipse(QPointF(bench.center().x(), bench.top() - 30), 80, 50)
            painter.setPen(self._pen("memory", 0.75))
            painter.setBrush(self._tint("memory", 0.15))
            self._paint_box(painter, bench.center().x(), bench.top(), size, fill * (1.0 - frame.work_progress))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)

    def _paint_worker(self, painter: QPainter, frame: ConveyorFrame) -> None:
        L, busy = self._layout, frame.worker_busy
        role = "accent" if busy else "muted"
        painter.setPen(self._pen(role, 1.6))
        x, top = L.worker_x, L.belt_top
        hip = QPointF(x, top)
        painter.setBrush(self._tint(role, 0.2))
        painter.drawEllipse(QPointF(x, top - 140), 30, 30)
        painter.drawPolyline(QPolygonF([QPointF(x - 30, top + 120), hip, QPointF(x + 30, top + 120)]))
        painter.drawLine(QPointF(x, top - 110), hip)
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
            for side in (-1, 1):
                painter.drawPolyline(QPolygonF([shoulder, QPointF(x + 34 * side, top - 40),
                                                QPointF(x - 26 * side, top - 55)]))
        painter.save()                   # the machine's gear, turning with the work done
        painter.translate(self._layout.gear_centre)
        painter.rotate(frame.gear_turns * 360.0)
        role = "compute" if busy else "muted"
        painter.setPen(self._pen(role))
        painter.setBrush(self._tint(role, 0.25))
        painter.drawPolygon(GEAR)
        painter.drawLine(QPointF(0, 0), QPointF(GEAR_RADIUS * 0.6, 0))   # a marked spoke: the turning reads
        painter.setBrush(self._theme.color(role))
        painter.drawEllipse(QPointF(GEAR_RADIUS * 0.6, 0), 7, 7)
        painter.restore()

    def _paint_gauge(self, painter: QPainter) -> None:
        L = self._layout
        theme = self._theme
        share = busy_share(self._state)
        bar = L.gauge_bar
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self._tint("warning", 0.25))
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
        L, now = self._layout, self._seconds - self._origin_seconds
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

