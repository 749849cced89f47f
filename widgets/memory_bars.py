"""Live memory bars: each GPU's HBM stacked weights / KV cache / runtime / free, on one scale.

Draws the ``MemoryBarsState`` it is handed (``widgets.memory_bars_state`` says
what a state holds and how to feed one every frame). ``set_state`` draws a state
exactly; ``show_state`` eases the segments to it on the scene clock with the
kit's ``Transition`` (told the time by ``set_seconds``), ending exactly at the
state's numbers. Layout: ``widgets.memory_bars_layout``, computed once per size
and static texts; a paint only places the segments and the annotation column
(``widgets.memory_bars_place``).

Colour never carries meaning alone: each kind has its own pattern (weights
solid, KV cache hatched, runtime dotted, free empty, overflow cross-hatched),
repeated in the swatch beside its label; the link inside a node is a solid line,
the network between nodes a dashed one in another colour, each beside its label.
"""
from __future__ import annotations

from PySide6.QtCore import QLine, QRectF, Qt
from PySide6.QtGui import QPainter, QPen
from PySide6.QtWidgets import QWidget

from widgets.bar_paint import alpha, mixed
from widgets.memory_bars_layout import FrameLayout, readable_layout, static_key
from widgets.memory_bars_nodes import REPEAT_OFFSET_SHARE
from widgets.memory_bars_place import Placed, drawn_key, place
from widgets.memory_bars_state import (
    MemoryBarsState, aligned_start, motion_values, one_bar_for_each, same_shape, with_motion_values,
)
from widgets.state_widget import StateWidget
from widgets.text_fit import TextMeasure
from widgets.theme import Theme, pattern_brush
from widgets.transition import TRANSITION_SECONDS, Transition

# Each kind: (colour role, fill alpha, pattern over the fill).
PATTERNS = {
    "weights": ("memory", 0.55, Qt.BrushStyle.SolidPattern),
    "kv": ("accent", 0.25, Qt.BrushStyle.BDiagPattern),
    "runtime": ("compute", 0.2, Qt.BrushStyle.Dense6Pattern),
    "free": ("muted", 0.0, Qt.BrushStyle.NoBrush),
    "over": ("warning", 0.12, Qt.BrushStyle.DiagCrossPattern),
    "link": ("accent", 1.0, Qt.BrushStyle.SolidPattern),
}
# The lines between bars: (colour role, pen style); the network's is dashed so that it never reads as the link.
LINES = {"link": ("accent", Qt.PenStyle.SolidLine), "network": ("warning", Qt.PenStyle.DashLine)}
REPEATED_FRAMES = 2         # the frames drawn behind a node that stands for several


def _edges(rect: QRectF) -> tuple[float, float, float, float]:
    return rect.x(), rect.y(), rect.width(), rect.height()


def _text_area(key: str, fitted) -> QRectF:
    """What a text covers: a value's text sits on a plate a little wider than it."""
    return fitted.rect.adjusted(-2, 0, 2, 0) if key.startswith("value.") else fitted.rect


def _swatch_area(rect: QRectF, theme: Theme) -> QRectF:
    """What a swatch covers: a line's swatch is stroked twice the line width thick, its caps past the ends."""
    pen = 2 * theme.scaled_line_width
    return rect.adjusted(-pen, -pen, pen, pen)


class MemoryBars(StateWidget):
    """Draws a ``MemoryBarsState``; holds no physics. ``state``: the state asked for last (the end of any
    running transition)."""
    stage_sizes = ((120, 120), (900, 600))

    def __init__(self, theme: Theme, parent: QWidget | None = None, transition_seconds: float = TRANSITION_SECONDS):
        super().__init__(theme, parent)
        self._shown: MemoryBarsState | None = None       # what the next paint draws
        self._tween: Transition | None = None
        self._transition_seconds = transition_seconds
        self._seconds = 0.0
        self._measure = TextMeasure()
        self._frame: FrameLayout | None = None
        self._frame_key: tuple | None = None
        self._one_bar = False          # the frame is of ``one_bar_for_each``: the nodes' bars would be slivers
        self._placed: Placed | None = None
        self._placed_for: tuple | None = None
        self._keyed: tuple[Placed, tuple] | None = None     # (a placement, its drawn_key)

    # -- what a scene drives -----------------------------------------------------------------
    def shown_state(self) -> MemoryBarsState | None:
        """The state the next paint draws (mid-transition: where the segments are now)."""
        return self._shown

    def set_state(self, state: MemoryBarsState) -> None:
        """Draw ``state`` exactly from the next paint on; stops any transition. Cheap enough for every frame:
        the same state again (a playback's frame that adds nothing to the bars) paints nothing."""
        if self._tween is None and state == self._state and self._shown is state:
            return
        self._tween = None
        self._state = self._shown = state
        self._update_changed()

    def show_state(self, state: MemoryBarsState, now_seconds: float, animate: bool = True) -> None:
        """Ease from what is drawn now to ``state`` over the transition time, starting at ``now_seconds``."""
        if not animate or self._shown is None:
            self._seconds = now_seconds
            self.set_state(state)
            return
        start = aligned_start(self._shown, state)
        if self._tween is None or self._state is None or not same_shape(self._state, state):
            self._tween = Transition(motion_values(start), self._transition_seconds)
        self._tween.retarget(motion_values(state), now_seconds, animate=True)
        self._state, self._seconds = state, now_seconds
        self._shown = with_motion_values(state, self._tween.value(now_seconds))
        self._update_changed()

    def set_seconds(self, seconds: float) -> None:
        """The scene clock's time: moves a running transition (a hidden widget keeps the time, skips drawing)."""
        self._seconds = seconds
        if self._tween is None or self._state is None:
            return
        before = self._drawn_key() if self.isVisible() else None
        self._shown = with_motion_values(self._state, self._tween.value(seconds))
        if not self._tween.running(seconds):
            self._tween = None
            self._shown = self._state                 # exactly the state asked for
        if self.isVisible() and (before is None or self._drawn_key() != before):
            self._update_changed()                    # a step that moves nothing visibly paints nothing

    def _drawn_key(self) -> tuple | None:
        """``drawn_key`` of what the next paint draws, worked out once per placement (a tick asks for the key
        before its step, which is the key after the last one)."""
        placed = self.placed()
        if placed is None:
            return None
        if self._keyed is None or self._keyed[0] is not placed:
            self._keyed = (placed, drawn_key(placed))
        return self._keyed[1]

    def animating(self) -> bool:
        return self._tween is not None

    def placed(self) -> Placed | None:
        """Where everything goes for the current size and the shown state (what the next paint draws)."""
        if self._shown is None:
            return None
        key = static_key(self._shown) + (self.width(), self.height(), self._theme.text_floor_px)
        if key != self._frame_key:
            self._frame, self._one_bar = readable_layout(self._measure, self.width(), self.height(),
                                                         self._theme.floor_px, self._shown)
            self._frame_key, self._placed_for = key, None
        if self._placed_for is not self._shown:
            drawn = one_bar_for_each(self._shown) if self._one_bar else self._shown
            self._placed, self._placed_for = place(self._measure, self._frame, drawn), self._shown
        return self._placed

    # -- painting only what changed ---------------------------------------------------------
    def _drawn_layout(self) -> Placed | None:
        return self.placed()

    def _pieces(self, placed: Placed) -> list[tuple[QRectF, object]]:
        """The bars with all that is drawn among them (``StateWidget._pieces``), each leader, swatch and text:
        a transition or a growing cache repaints the bars and the labels that move, not the titles, the names
        under the bars and the legend."""
        frame, theme = self._frame, self._theme
        shapes = QRectF(frame.plot)
        node_pad = frame.bar_lefts[0] - frame.node_frames[0].left() if frame.node_frames else 0.0
        for rect, repeated in zip(frame.node_frames, frame.node_repeated):
            shapes = shapes.united(rect)
            for k in range(REPEATED_FRAMES if repeated else 0, 0, -1):
                offset = k * REPEAT_OFFSET_SHARE * node_pad
                shapes = shapes.united(rect.translated(offset, -offset))
        for _bar, _kind, rect in placed.segments:
            shapes = shapes.united(rect)
        for rect in placed.overflow:
            if not rect.isEmpty():
                shapes = shapes.united(rect)
        for i, (y, x0, x1) in enumerate(placed.capacity_lines):
            shapes = shapes.united(QRectF(x0, y, x1 - x0, 1.0)).united(
                QRectF(frame.bar_lefts[i], y, frame.bar_width, frame.plot.bottom() - y))
        for y, x0, x1 in placed.sequence_lines:
            shapes = shapes.united(QRectF(x0, y, x1 - x0, 1.0))
        pen = 3 * theme.scaled_line_width + 2        # the widest pen (the link's, the capacity's), half outside
        drawn = (self._frame_key, tuple((bar, kind, _edges(rect)) for bar, kind, rect in placed.segments),
                 tuple(_edges(rect) for rect in placed.overflow), tuple(placed.capacity_lines),
                 tuple(placed.sequence_lines), tuple(kind in placed.texts for kind in LINES))
        pieces: list[tuple[QRectF, object]] = [(shapes.adjusted(-pen, -pen, pen, pen), drawn)]
        pieces += [(QRectF(start, end).normalized(), ("leader", start.x(), start.y(), end.x(), end.y()))
                   for start, end in placed.leaders]
        pieces += [(_swatch_area(rect, theme), ("swatch", key, kind)) for key, (kind, rect) in placed.swatches.items()]
        pieces += [(_text_area(key, fitted), (key, fitted.lines, fitted.px, fitted.bold, fitted.align,
                                              placed.roles.get(key, "text")))
                   for key, fitted in placed.texts.items()]
        return pieces

    # -- painting ---------------------------------------------------------------------------
    def _fill(self, painter: QPainter, kind: str, rects: list[QRectF], on_background: bool = True) -> None:
        """``kind``'s tint and pattern over each of ``rects`` (none overlapping another), each layer in one call:
        Qt sets up a pattern brush's texture once per call, which costs more than filling a small segment. On the
        plain background (every segment and swatch) the tint is mixed with it beforehand: the same colour,
        painted opaque, at half the cost of blending a large area. A solid pattern covers its tint: it alone."""
        role, share, pattern = PATTERNS[kind]
        color = self._theme.color(role)
        layers: list = []
        if pattern == Qt.BrushStyle.SolidPattern:
            layers.append(color)
        else:
            if share > 0:
                layers.append(mixed(color, share, self._theme.color("background")) if on_background
                              else alpha(color, share))
            if pattern != Qt.BrushStyle.NoBrush:
                layers.append(pattern_brush(color, pattern, self._theme))
        painter.setPen(Qt.PenStyle.NoPen)
        for layer in layers:
            painter.setBrush(layer)
            painter.drawRects(rects)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.NonCosmeticBrushPatterns, True)   # patterns scale (pattern_brush)
        painter.fillRect(self.rect(), self._theme.color("background"))
        self._drawn = []
        placed = self.placed()
        if placed is None:
            return
        self.painted(placed)
        self._paint_nodes(painter)
        theme = self._theme
        line_w = theme.scaled_line_width
        outline = QPen(theme.color("text"), line_w)
        thin = QPen(theme.color("text"), max(1.0, line_w / 2))       # the lines inside a card
        by_kind: dict[str, list[QRectF]] = {}
        for _bar, kind, rect in placed.segments:
            if rect.height() > 0:
                by_kind.setdefault(kind, []).append(rect)
        for kind, rects in by_kind.items():
            self._fill(painter, kind, rects)
        painter.setPen(thin)
        for y, x0, x1 in placed.sequence_lines:
            painter.drawLine(int(x0), int(y), int(x1), int(y))
        for rect in placed.overflow:                   # what does not fit: washed out, cross-hatched
            if not rect.isEmpty():
                painter.fillRect(rect, alpha(theme.color("background"), 0.6))
                self._fill(painter, "over", [rect], on_background=False)     # over the segments it washes out
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(thin)           # (the washed-out fills above leave no pen)
        painter.drawRects([rect for _bar, _kind, rect in placed.segments])      # the borders between segments
        self._paint_frames(painter, placed, outline)
        self._paint_link(painter, placed)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(theme.color("muted"), max(1.0, line_w / 2)))
        for start, end in placed.leaders:
            painter.drawLine(start, end)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        self._paint_texts(painter, placed, event.region())

    def _paint_frames(self, painter: QPainter, placed: Placed, outline: QPen) -> None:
        """Each card's outline up to its capacity, what overflows it outlined, and its capacity dashed; each kind
        of line in one call (the cards lie apart: only a card's own lines cross, in this order)."""
        theme = self._theme
        frame = self._frame
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(outline)
        painter.drawRects([QRectF(frame.bar_lefts[i], y, frame.bar_width, frame.plot.bottom() - y)
                           for i, (y, _x0, _x1) in enumerate(placed.capacity_lines)])
        overflowing = [rect for rect in placed.overflow[:len(placed.capacity_lines)] if not rect.isEmpty()]
        if overflowing:
            painter.setPen(QPen(theme.color("warning"), theme.scaled_line_width * 1.5))
            painter.drawRects(overflowing)
        caps: dict[str, list[QLine]] = {}
        for i, (y, x0, x1) in enumerate(placed.capacity_lines):
            bar_top = min([r.top() for b, _k, r in placed.segments if b == i] + [y])
            caps.setdefault("warning" if bar_top < y else "text", []).append(QLine(int(x0), int(y), int(x1), int(y)))
        for role, lines in caps.items():
            painter.setPen(QPen(theme.color(role), theme.scaled_line_width * 1.5, Qt.PenStyle.DashLine))
            painter.drawLines(lines)

    def _paint_nodes(self, painter: QPainter) -> None:
        """Each node's frame (behind the bars); a repeated node's frames stacked behind it, up and to the right."""
        frame, theme = self._frame, self._theme
        pen = QPen(theme.color("muted"), theme.scaled_line_width)
        pad = frame.bar_lefts[0] - frame.node_frames[0].left() if frame.node_frames else 0.0
        for rect, repeated in zip(frame.node_frames, frame.node_repeated):
            painter.setPen(pen)
            for k in range(REPEATED_FRAMES if repeated else 0, 0, -1):
                offset = k * REPEAT_OFFSET_SHARE * pad
                behind = rect.translated(offset, -offset)
                painter.fillRect(behind, theme.color("background"))
                painter.drawRect(behind)
            painter.fillRect(rect, theme.color("background"))
            painter.drawRect(rect)

    def _line_pen(self, kind: str) -> QPen:
        role, style = LINES[kind]
        return QPen(self._theme.color(role), self._theme.scaled_line_width * 2, style)

    def _paint_link(self, painter: QPainter, placed: Placed) -> None:
        """The link between neighbouring bars of one node; the network between nodes, across their gap."""
        frame = self._frame
        if len(frame.bar_lefts) < 2:
            return
        y = frame.plot.bottom() - frame.plot.height() * 0.12
        tick = 4 * self._theme.size_scale
        owners = frame.bar_nodes or (0,) * len(frame.bar_lefts)
        spans: dict[str, list[QLine]] = {}
        ticks: dict[str, list[QLine]] = {}
        for i in range(len(frame.bar_lefts) - 1):
            kind = "link" if owners[i] == owners[i + 1] else "network"
            x0 = frame.bar_lefts[i] + frame.bar_width
            x1 = frame.bar_lefts[i + 1]
            if kind not in placed.texts or x1 - x0 < 4:
                continue
            spans.setdefault(kind, []).append(QLine(int(x0), int(y), int(x1), int(y)))
            ticks.setdefault(kind, []).extend((QLine(int(x0), int(y - tick), int(x0), int(y + tick)),
                                               QLine(int(x1), int(y - tick), int(x1), int(y + tick))))
        for kind, lines in spans.items():          # each kind's spans, then its ticks, in one call each
            pen = self._line_pen(kind)
            painter.setPen(pen)
            painter.drawLines(lines)
            painter.setPen(QPen(pen.color(), self._theme.scaled_line_width * 2))
            painter.drawLines(ticks[kind])

    def _paint_texts(self, painter: QPainter, placed: Placed, region) -> None:
        """The swatches and texts this paint's ``region`` meets (the others stay on the screen)."""
        theme, exposed = self._theme, self.exposure(region)
        for key, (kind, rect) in placed.swatches.items():
            if not exposed(_swatch_area(rect, theme)):
                continue
            if kind in LINES:
                painter.setPen(self._line_pen(kind))
                painter.drawLine(int(rect.left()), int(rect.center().y()), int(rect.right()), int(rect.center().y()))
                continue
            painter.fillRect(rect, theme.color("background"))
            self._fill(painter, kind, [rect])
            painter.setPen(QPen(theme.color("warning" if kind == "over" else "text"), theme.size_scale))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(rect)
        for key, fitted in placed.texts.items():
            if exposed(_text_area(key, fitted)):
                if key.startswith("value."):
                    painter.fillRect(_text_area(key, fitted), alpha(theme.color("surface"), 0.85))
                painter.setPen(theme.color(placed.roles.get(key, "text")))
                fitted.paint(painter, self._measure.font(fitted.px, fitted.bold))
            self._drawn.append(fitted.drawn(key))
