"""Where the conveyor belt's parts and labels go in a widget of a given size.

Shapes are laid out in logical units and shown at ``scale`` screen pixels per
unit. Text takes its size from the same scale (``LABEL_PX[key] * scale``) but
never goes below ``FLOOR_PX``; where that makes a label wider or taller than
its place, the place grows (the warehouse widens, the belt lengthens, a band
gets taller) and the scale is the largest at which every essential label
fits. So at a projector's 1850 x 700 the words are big, and in a 450 x 400
window they are 12 px and still inside their places.

Two arrangements: "wide" puts the busy/idle gauge beside the worker (a 16:9
stage); "tall" puts it, as a horizontal bar, below the belt with the trace
(a narrow stage, which then draws larger instead of leaving empty bands). The
one that draws larger wins. Optional labels only take room that is there,
and are left out where they would not fit (``LABEL_PRIORITY``); the gauge's
notes (what its numbers rest on, and a second figure) get a band of their own
while it costs the drawing little (``GAUGE_NOTES_COST``).

Every label has its own place (a box, in screen pixels), and no two places
overlap, nor does a place overlap a shape, except the warehouse's own words
inside its walls. Labels whose text changes with the intensity (``idle``,
``busy``, ``box``) get a place sized for any number, so the layout is
computed once per size and build, not per frame.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt

from widgets.conveyor_state import ESSENTIAL_LABELS, LABEL_PRIORITY
from widgets.text_fit import FLOOR_PX, FittedText, TextMeasure

# Text size of each label at scale 1 (logical units); times the scale, at least FLOOR_PX.
LABEL_PX = {"warehouse": 28, "capacity": 40, "belt": 28, "bandwidth": 40, "worker": 28, "peak": 40,
            "ratio": 40, "idle": 40, "busy": 28, "basis": 22, "measured": 26, "waiting": 28, "backed_up": 28,
            "time_scale": 24, "box": 24, "trace": 24}
PLAIN_LABELS = frozenset({"time_scale", "box", "trace", "basis"})     # the rest are bold
# Labels whose numbers change with the intensity, every frame of a transition: their places are
# sized for the text with every number replaced by this, so the layout stays put.
DYNAMIC_LABELS = ("idle", "busy", "box")
# What the gauge's numbers rest on, and a second figure beside them: placed while they cost the drawing
# less than this share of its size (they say what the gauge means, so they may cost more than the trace's caption).
GAUGE_NOTES = ("basis", "measured")
GAUGE_NOTES_COST = 0.85
NUMBER_TEMPLATE = "00.000"
# Placeholders that keep a place for numbers a build does not show yet, so the drawing does not
# jump when they appear.
RESERVED_TEXT = {"capacity": "000 GB", "bandwidth": "0.00 TB/s", "peak": "0000 TFLOPS", "idle": "00.000%",
                 "busy": "00.000%"}

MARGIN = 12.0
GAP = 10.0
WAREHOUSE_WIDTH, WAREHOUSE_HEIGHT = 300.0, 380.0
WAREHOUSE_BELOW_BELT = 80.0
ROOF_RISE, ROOF_OVERHANG = 70.0, 14.0
SHELVES_HEIGHT = 180.0                    # the two shelves of boxes at the bottom of the warehouse
BELT_MIN_LENGTH, BELT_MAX_LENGTH = 460.0, 1400.0
BELT_HEIGHT = 34.0
ROLLERS_BELOW_BELT = 62.0                 # the bottom of the rollers under the belt's top
BOX_SIZE, BOX_SPACING = 64.0, 150.0
FLASH_ABOVE_BELT = 84.0                   # the flash over the bench when a box arrives
BENCH_WIDTH, BENCH_HEIGHT = 150.0, 130.0
WORKER_FROM_BELT_END = 230.0
WORKER_RIGHT_FROM_BELT_END = 270.0        # the worker's reach to his right
HEAD_TOP_ABOVE_BELT = 175.0
FEET_BELOW_BELT = 120.0
GEAR_ABOVE_BELT, GEAR_RADIUS = 100.0, 46.0
GAUGE_MIN_WIDTH, GAUGE_BAR_WIDTH, GAUGE_BAR_HEIGHT = 180.0, 80.0, 240.0   # wide: upright, beside the worker
GAUGE_BAR_THICKNESS = 36.0                # tall: lying, below the belt
TRACE_HEIGHT = 52.0
TRACE_MIN_PX = GAUGE_MIN_PX = 14.0       # a strip thinner than this is hard to read
# The trace's caption is kept only while it costs the drawing less than this share of its size.
OPTIONAL_BAND_COST = 0.92


def stack_gap(s: float) -> float:
    """Logical units between two labels stacked in one place (a name and its number): 4, at least 2 px."""
    return max(4.0, 2.0 / s)


def number_template(text: str) -> str:
    """``text`` with every number replaced by a fixed-width one: the place it needs whatever the value."""
    return re.sub(r"\d+(?:[.,]\d+)*", NUMBER_TEMPLATE, text)


@dataclass
class ConveyorLayout:
    """Shapes in logical units (drawn through ``origin`` and ``scale``); labels in screen pixels."""
    scale: float
    origin: QPointF
    tall: bool
    warehouse: QRectF
    belt_top: float
    belt_start_x: float
    belt_end_x: float
    worker_x: float
    gauge_bar: QRectF
    trace: QRectF | None
    labels: dict[str, FittedText] = field(default_factory=dict)
    dynamic_boxes: dict[str, tuple[QRectF, Qt.AlignmentFlag]] = field(default_factory=dict)

    @property
    def bench(self) -> QRectF:
        return QRectF(self.belt_end_x, self.belt_top, BENCH_WIDTH, BENCH_HEIGHT)

    @property
    def gear_centre(self) -> QPointF:
        return QPointF(self.belt_end_x + BENCH_WIDTH / 2, self.belt_top - GEAR_ABOVE_BELT)

    def to_screen(self, rect: QRectF) -> QRectF:
        s = self.scale
        return QRectF(self.origin.x() + rect.left() * s, self.origin.y() + rect.top() * s,
                      rect.width() * s, rect.height() * s)

    def shape_rects(self) -> dict[str, QRectF]:
        """Screen rectangles of the drawn parts no label may cover (the warehouse's walls hold its words)."""
        wh, top = self.warehouse, self.belt_top
        gear = self.gear_centre
        shapes = {
            "roof": QRectF(wh.left() - ROOF_OVERHANG, wh.top() - ROOF_RISE, wh.width() + 2 * ROOF_OVERHANG, ROOF_RISE),
            "shelves": QRectF(wh.left() + 12, wh.bottom() - SHELVES_HEIGHT + 6, wh.width() - 24, 116),
            "belt": QRectF(self.belt_start_x, top - BOX_SIZE - 4, self.belt_end_x - self.belt_start_x,
                           BOX_SIZE + 4 + ROLLERS_BELOW_BELT),
            "bench": self.bench,
            "worker": QRectF(gear.x() - GEAR_RADIUS, top - HEAD_TOP_ABOVE_BELT,
                             self.worker_x + 40 - gear.x() + GEAR_RADIUS, HEAD_TOP_ABOVE_BELT + FEET_BELOW_BELT),
            "gauge": self.gauge_bar,
        }
        if self.trace is not None:
            shapes["trace"] = self.trace.adjusted(0, -6, 0, 6)
        return {key: self.to_screen(rect) for key, rect in shapes.items()}


@dataclass
class _Plan:
    """One arrangement at one scale, in logical units; boxes are where labels may go."""
    width: float
    height: float
    layout: ConveyorLayout
    boxes: list[tuple[str, QRectF, Qt.AlignmentFlag]]     # in placing order, logical units
    centres: dict[str, float]        # labels centred on this x (logical) as far as their box allows


class _Planner:
    def __init__(self, measure: TextMeasure, labels: dict[str, str], compact: bool):
        self.measure = measure
        self.labels = labels
        self.compact = compact

    def text(self, key: str) -> str:
        text = self.labels.get(key, "")
        if key in DYNAMIC_LABELS and text:
            return number_template(text)
        return text or RESERVED_TEXT.get(key, "")

    def px(self, key: str, s: float) -> int:
        return max(FLOOR_PX, round(LABEL_PX[key] * s))

    def lines(self, key: str, s: float, width: float) -> tuple[int, float]:
        """(lines, logical width) ``key`` takes within ``width`` logical units: one line if it fits, else two,
        else (2, the width it needs on two lines)."""
        text = self.text(key)
        if not text:
            return 0, 0.0
        px, bold = self.px(key, s), key not in PLAIN_LABELS
        found = self.measure.lines_within(text, px, bold, width * s)
        if found is not None:
            return len(found[0]), found[1] / s
        split = self.measure.narrowest_two_lines(text, px, bold)
        if split is None:
            return 1, self.measure.width(text, px, bold) / s
        return 2, split[1] / s

    def height(self, key: str, s: float, lines: int = 1) -> float:
        if lines == 0:
            return 0.0
        return lines * self.measure.line_height(self.px(key, s), key not in PLAIN_LABELS) / s

    def has_gauge_notes(self) -> bool:
        return any(self.labels.get(key) for key in GAUGE_NOTES)

    def plan(self, s: float, tall: bool, trace_label: bool, gauge_notes: bool = False,
             belt_extra: float = 0.0) -> _Plan:
        # Columns, left to right: warehouse, belt, bench and worker, gauge (wide only).
        name_lines, name_width = self.lines("warehouse", s, WAREHOUSE_WIDTH - 16)
        _, capacity_width = self.lines("capacity", s, 1e9)
        warehouse_width = max(WAREHOUSE_WIDTH, name_width + 16, capacity_width + 16)
        words_height = self.height("warehouse", s, name_lines) + stack_gap(s) + self.height("capacity", s)
        warehouse_height = max(WAREHOUSE_HEIGHT, 10 + words_height + 8 + SHELVES_HEIGHT)

        belt_lines, belt_width = self.lines("belt", s, BELT_MIN_LENGTH - 12)
        _, bandwidth_width = self.lines("bandwidth", s, 1e9)
        belt_length = max(BELT_MIN_LENGTH, belt_width + 12, bandwidth_width + 12)
        ratio_lines, ratio_width = self.lines("ratio", s, belt_length - 10)
        belt_length = max(belt_length, ratio_width + 10) + belt_extra
        _, idle_width = self.lines("idle", s, 1e9)
        _, busy_width = self.lines("busy", s, 1e9)
        gauge_width = 0.0 if tall else max(GAUGE_MIN_WIDTH, idle_width + 20, busy_width + 20)
        # What the gauge's numbers rest on, and the second figure (when they get room): under "busy" beside
        # the worker (wide), or under the bar (tall); each on one line or two, the column widening if need be.
        notes = {key: (0, 0.0) for key in GAUGE_NOTES}
        if gauge_notes and not tall:
            for key in GAUGE_NOTES:
                notes[key] = self.lines(key, s, gauge_width - 20)
                gauge_width = max(gauge_width, notes[key][1] + 20)

        warehouse_left = MARGIN + ROOF_OVERHANG
        belt_start = warehouse_left + warehouse_width
        belt_end = belt_start + belt_length
        worker_x = belt_end + WORKER_FROM_BELT_END
        worker_right = belt_end + WORKER_RIGHT_FROM_BELT_END + (GAP if tall else 2 * GAP)
        content_right = worker_right + gauge_width
        if tall:
            content_right = max(content_right, MARGIN + idle_width + busy_width + 3 * GAP)
        side_by_side = False
        if tall and gauge_notes:
            # Side by side under the bar when each fits half the width on one line, else one under the other.
            half = (content_right - MARGIN - GAP) / 2
            side_by_side = all(self.lines(key, s, half)[0] <= 1 for key in GAUGE_NOTES)
            for key in GAUGE_NOTES:
                notes[key] = self.lines(key, s, half if side_by_side else content_right - MARGIN)
                if not side_by_side:
                    content_right = max(content_right, MARGIN + notes[key][1])
        if side_by_side:
            notes_height = max(self.height(key, s, notes[key][0]) for key in GAUGE_NOTES)
        else:
            notes_height = sum(self.height(key, s, notes[key][0]) for key in GAUGE_NOTES) \
                + (stack_gap(s) if all(notes[key][0] for key in GAUGE_NOTES) else 0.0)
        width = content_right + MARGIN

        # Rows, top to bottom: the worker's words, the picture (up to and down from the belt's top), the
        # gauge (tall only), the trace.
        top_room = content_right - belt_start - 2 * GAP
        worker_lines, _ = self.lines("worker", s, top_room)
        peak_lines, _ = self.lines("peak", s, top_room)
        top_height = self.height("worker", s, worker_lines) + stack_gap(s) + self.height("peak", s, peak_lines)
        backed_up_height = self.height("backed_up", s)
        above = max(
            warehouse_height - WAREHOUSE_BELOW_BELT + ROOF_RISE,
            BOX_SIZE + 6 + backed_up_height + 6 + self.height("ratio", s, ratio_lines) + 4,
            FLASH_ABOVE_BELT + self.height("ratio", s, ratio_lines) + 4,
            HEAD_TOP_ABOVE_BELT + 6 + self.height("waiting", s) + 4,
            0.0 if tall else GAUGE_BAR_HEIGHT + 6 + self.height("idle", s) + 4,
        )
        belt_words = ROLLERS_BELOW_BELT + 6 + self.height("belt", s, belt_lines) + stack_gap(s) \
            + self.height("bandwidth", s)
        busy_height = self.height("busy", s)
        below = max(BENCH_HEIGHT, WAREHOUSE_BELOW_BELT, belt_words,
                    0.0 if tall else 6 + busy_height + (stack_gap(s) + notes_height if notes_height else 0.0) + 4)
        top = MARGIN + top_height + GAP
        belt_top = top + above
        y = belt_top + below

        warehouse = QRectF(warehouse_left, belt_top + WAREHOUSE_BELOW_BELT - warehouse_height,
                           warehouse_width, warehouse_height)
        boxes: list[tuple[str, QRectF, Qt.AlignmentFlag]] = []
        align = Qt.AlignmentFlag
        gauge_left = worker_right
        if tall:
            y += GAP
            row_height = max(self.height("idle", s), self.height("busy", s))
            half = (content_right - MARGIN) / 2
            boxes.append(("busy", QRectF(MARGIN, y, half - GAP / 2, row_height), align.AlignLeft | align.AlignBottom))
            boxes.append(("idle", QRectF(MARGIN + half + GAP / 2, y, half - GAP / 2, row_height),
                          align.AlignRight | align.AlignBottom))
            y += row_height + 6
            thickness = max(GAUGE_BAR_THICKNESS, GAUGE_MIN_PX / s)
            gauge_bar = QRectF(MARGIN, y, content_right - MARGIN, thickness)
            y += thickness
            if notes_height:
                y += 6
                if side_by_side:
                    half = (content_right - MARGIN - GAP) / 2
                    boxes.append(("basis", QRectF(MARGIN, y, half, notes_height), align.AlignLeft | align.AlignTop))
                    boxes.append(("measured", QRectF(content_right - half, y, half, notes_height),
                                  align.AlignRight | align.AlignTop))
                else:
                    boxes.append(("basis+measured", QRectF(MARGIN, y, content_right - MARGIN, notes_height),
                                  align.AlignLeft | align.AlignTop))
                y += notes_height
        else:
            gauge_centre = gauge_left + gauge_width / 2
            gauge_bar = QRectF(gauge_centre - GAUGE_BAR_WIDTH / 2, belt_top - GAUGE_BAR_HEIGHT,
                               GAUGE_BAR_WIDTH, GAUGE_BAR_HEIGHT)
            boxes.append(("idle", QRectF(gauge_left, top, gauge_width, gauge_bar.top() - 6 - top),
                          align.AlignHCenter | align.AlignBottom))
            boxes.append(("busy", QRectF(gauge_left, belt_top + 6, gauge_width, busy_height),
                          align.AlignHCenter | align.AlignTop))
            if notes_height:
                notes_top = belt_top + 6 + busy_height + stack_gap(s)
                boxes.append(("basis+measured", QRectF(gauge_left, notes_top, gauge_width,
                                                       belt_top + below - notes_top), align.AlignHCenter | align.AlignTop))
        trace = None
        if not self.compact:
            y += GAP
            if trace_label:
                label_height = self.height("trace", s)
                boxes.append(("trace", QRectF(belt_start, y, content_right - belt_start, label_height),
                              align.AlignLeft | align.AlignBottom))
                y += label_height + 10      # clear of the "now" mark, which stands out of the strip
            trace_height = max(TRACE_HEIGHT, TRACE_MIN_PX / s)
            trace = QRectF(belt_start, y, content_right - belt_start, trace_height)
            y += trace_height
        height = y + MARGIN

        # The warehouse's words inside its walls, above the shelves.
        words = QRectF(warehouse.left() + 8, warehouse.top() + 10, warehouse_width - 16,
                       warehouse.height() - SHELVES_HEIGHT - 18)
        boxes.append(("warehouse+capacity", words, align.AlignHCenter | align.AlignTop))
        boxes.append(("belt+bandwidth", QRectF(belt_start + 6, belt_top + ROLLERS_BELOW_BELT + 6,
                                               belt_length - 12, below - ROLLERS_BELOW_BELT - 6),
                      align.AlignHCenter | align.AlignTop))
        boxes.append(("worker+peak", QRectF(belt_start + 2 * GAP, MARGIN, content_right - belt_start - 2 * GAP,
                                            top_height), align.AlignHCenter | align.AlignTop))
        # Over the belt: the ratio, and under it (right, over the queue) "boxes pile up".
        over_belt = QRectF(belt_start + 2 * GAP, top, belt_length - GAP, 0)
        over_belt.setBottom(belt_top - max(FLASH_ABOVE_BELT, BOX_SIZE + 6 + backed_up_height + 6))
        boxes.append(("ratio", over_belt, align.AlignHCenter | align.AlignVCenter))
        boxes.append(("backed_up", QRectF(over_belt.left(), belt_top - BOX_SIZE - 6 - backed_up_height,
                                          belt_end - over_belt.left(), backed_up_height),
                      align.AlignRight | align.AlignBottom))
        waiting_right = gauge_left - GAP if not tall else content_right
        boxes.append(("waiting", QRectF(belt_end + 2 * GAP, top, waiting_right - belt_end - 2 * GAP,
                                        above - HEAD_TOP_ABOVE_BELT - 6), align.AlignHCenter | align.AlignBottom))
        if not self.compact:
            # The notes at the top left take what the worker's words leave of the top band.
            boxes.append(("time_scale+box", QRectF(MARGIN, MARGIN, content_right - 2 * MARGIN, top_height),
                          align.AlignLeft | align.AlignTop))
        layout = ConveyorLayout(s, QPointF(0, 0), tall, warehouse, belt_top, belt_start, belt_end, worker_x,
                                gauge_bar, trace)
        return _Plan(width, height, layout, boxes, {"worker": worker_x, "peak": worker_x, "waiting": worker_x})


def _largest_scale(planner: _Planner, width: float, height: float, tall: bool, trace_label: bool,
                   gauge_notes: bool) -> float:
    """The largest scale at which the arrangement fits ``width`` x ``height`` pixels (bisection: text
    at the floor makes the logical size grow as the scale falls, so there is no closed form)."""
    def fits(s: float) -> bool:
        plan = planner.plan(s, tall, trace_label, gauge_notes)
        return plan.width * s <= width and plan.height * s <= height

    low, high = 0.02, 4.0
    if not fits(low):
        return low
    for _ in range(24):
        middle = (low + high) / 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    return low


def lay_out(measure: TextMeasure, width: float, height: float, labels: dict[str, str],
            compact: bool) -> ConveyorLayout:
    """The arrangement that draws largest in ``width`` x ``height`` pixels, with every label placed."""
    planner = _Planner(measure, labels, compact)
    options = []
    for tall in (False, True):
        bare = _largest_scale(planner, width, height, tall, False, False)
        with_notes = _largest_scale(planner, width, height, tall, False, True) if planner.has_gauge_notes() else 0.0
        notes = with_notes >= GAUGE_NOTES_COST * bare
        base = with_notes if notes else bare
        with_trace = base if compact else _largest_scale(planner, width, height, tall, True, notes)
        trace = with_trace >= OPTIONAL_BAND_COST * base
        s = with_trace if trace else base
        # Dropping the gauge's notes counts as drawing that much smaller: kept where the other arrangement
        # is not clearly larger without them.
        options.append((s * (1.0 if notes or not planner.has_gauge_notes() else GAUGE_NOTES_COST), s, tall,
                        trace, notes))
    _, s, tall, trace_label, gauge_notes = max(options, key=lambda option: (option[0], option[2]))
    plan = planner.plan(s, tall, trace_label, gauge_notes)
    extra = min(BELT_MAX_LENGTH - (plan.layout.belt_end_x - plan.layout.belt_start_x), width / s - plan.width)
    if extra > 1:
        plan = planner.plan(s, tall, trace_label, gauge_notes, belt_extra=extra)
    layout = plan.layout
    layout.origin = QPointF((width - plan.width * s) / 2, (height - plan.height * s) / 2)
    _place_labels(measure, planner, layout, QRectF(0, 0, width, height), plan.boxes, plan.centres)
    return layout


def _place_labels(measure: TextMeasure, planner: _Planner, layout: ConveyorLayout, widget: QRectF,
                  boxes: list[tuple[str, QRectF, Qt.AlignmentFlag]], centres: dict[str, float]) -> None:
    """Fit each label into its place, most important first. A label that would touch one already placed,
    or a shape, is left out: only optional ones can be, the places were sized for the essential ones.
    A place named "a+b" holds two labels, b under a (or in the whole place when a is left out)."""
    s = layout.scale
    obstacles = list(layout.shape_rects().values())
    placed: dict[str, FittedText] = {}

    def fit(key: str, box: QRectF, align) -> FittedText | None:
        box = box.intersected(widget)     # below the smallest scale only: better left out than cut off
        centre = layout.origin.x() + centres[key] * s if key in centres else None
        fitted = measure.fit(planner.labels.get(key, ""), box, planner.px(key, s), key not in PLAIN_LABELS, align,
                             centre_x=centre)
        if fitted is None or any(fitted.rect.intersects(other) for other in obstacles) \
                or any(fitted.rect.intersects(other.rect) for other in placed.values()):
            return None
        placed[key] = fitted
        return fitted

    for keys, logical_box, align in sorted(boxes, key=lambda item: LABEL_PRIORITY.index(item[0].split("+")[0])):
        box = layout.to_screen(logical_box)
        first, _, second = keys.partition("+")
        if first == "time_scale":        # the notes end where the worker's words (placed before) begin
            words = [placed[key].rect.left() for key in ("worker", "peak") if key in placed]
            if words:
                box.setRight(min(words) - 2 * GAP * s)
        if first in DYNAMIC_LABELS:
            layout.dynamic_boxes[first] = (box.intersected(widget), align)
            continue
        fitted = fit(first, box, align)
        if not second:
            continue
        rest = QRectF(box)
        if fitted is not None:
            rest.setTop(fitted.rect.bottom() + stack_gap(s) * s)
        if second in DYNAMIC_LABELS:
            layout.dynamic_boxes[second] = (rest.intersected(widget), align)
        else:
            fit(second, rest, align)
    layout.labels = placed


def fit_dynamic(measure: TextMeasure, layout: ConveyorLayout, key: str, text: str,
                others: list[QRectF]) -> FittedText | None:
    """Fit a label whose text changes with the intensity into its place (once per change, not per frame)."""
    if key not in layout.dynamic_boxes or not text:
        return None
    box, align = layout.dynamic_boxes[key]
    fitted = measure.fit(text, box, max(FLOOR_PX, round(LABEL_PX[key] * layout.scale)), key not in PLAIN_LABELS,
                         align)
    if fitted is None or any(fitted.rect.intersects(other) for other in others):
        return None
    return fitted


__all__ = ["ConveyorLayout", "ESSENTIAL_LABELS", "LABEL_PX", "lay_out", "fit_dynamic", "number_template"]
