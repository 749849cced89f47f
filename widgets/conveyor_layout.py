"""Where the conveyor belt's parts and labels go in a widget of a given size.

Shapes are laid out in logical units, shown at ``scale`` pixels per unit; text takes its size from the
same scale (``LABEL_PX[key] * scale``) but never goes below the theme's floor (``floor_px``): where that
makes a label outgrow its place, the place grows, and the scale is the largest at which every essential
label fits. "Wide" puts the gauge (the hero "idle" number over its bar) beside the worker; "tall" lays it
below the belt; the one that draws larger wins. Optional labels take only the room that is there, in
``LABEL_PRIORITY`` order; the gauge's note gets a band while it costs little (``GAUGE_NOTES_COST``).

Every label has its own place (screen pixels); no two places overlap, nor a place and a shape (but the
warehouse's words in its walls). A place "a+b+c" stacks its labels. Labels whose text changes with the
intensity (``DYNAMIC_LABELS``) get a place sized for any number: one layout per size and build.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt

from widgets.conveyor_state import DYNAMIC_LABELS, LABEL_PRIORITY, LABEL_PX, PLAIN_LABELS
from widgets.roofline_state import number_template
from widgets.scale_search import largest_scale
from widgets.text_fit import FLOOR_PX, FittedText, TextMeasure

# What the gauge's share rests on: placed while it costs the drawing less than this share of its size.
GAUGE_NOTES, GAUGE_NOTES_COST = ("basis",), 0.85
# Placeholders that keep a place for numbers a build does not show yet, so the drawing does not
# jump when they appear.
RESERVED_TEXT = {"capacity": "000 GB", "bandwidth": "0.00 TB/s", "peak": "0000 TFLOPS", "idle": "00.000%",
                 "busy": "00.000%"}
OVER_BELT = ("step", "ratio")            # one of them over the belt: the first present

MARGIN, GAP = 12.0, 10.0
WAREHOUSE_WIDTH, WAREHOUSE_HEIGHT, WAREHOUSE_BELOW_BELT = 300.0, 380.0, 80.0
ROOF_RISE, ROOF_OVERHANG = 70.0, 14.0
SHELVES_HEIGHT = 180.0                    # the two shelves of boxes at the bottom of the warehouse
BELT_MIN_LENGTH, BELT_MAX_LENGTH, BELT_HEIGHT = 460.0, 1400.0, 34.0
ROLLERS_BELOW_BELT = 62.0                 # the bottom of the rollers under the belt's top
BOX_SIZE, BOX_SPACING = 64.0, 150.0
FLASH_ABOVE_BELT = 84.0                   # the glow over the bench while the worker works
BENCH_WIDTH, BENCH_HEIGHT = 150.0, 130.0
WORKER_FROM_BELT_END, WORKER_RIGHT_FROM_BELT_END = 230.0, 270.0      # the worker, and his reach to his right
HEAD_TOP_ABOVE_BELT, FEET_BELOW_BELT = 175.0, 120.0
GEAR_ABOVE_BELT, GEAR_RADIUS = 100.0, 46.0
GAUGE_MIN_WIDTH, GAUGE_BAR_WIDTH, GAUGE_BAR_HEIGHT = 180.0, 80.0, 240.0   # wide: upright, beside the worker
GAUGE_BAR_THICKNESS = 36.0                # tall: lying, below the belt
TRACE_HEIGHT, TRACE_MIN_PX, GAUGE_MIN_PX = 52.0, 14.0, 14.0     # a strip thinner than 14 px is hard to read
# The trace's caption is kept only while it costs the drawing less than this share of its size.
OPTIONAL_BAND_COST = 0.92


def stack_gap(s: float) -> float:
    """Logical units between two labels stacked in one place (a name and its number): 4, at least 2 px."""
    return max(4.0, 2.0 / s)


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
    floor_px: int = FLOOR_PX
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
    def __init__(self, measure: TextMeasure, labels: dict[str, str], compact: bool, floor_px: int):
        self.measure = measure
        self.labels = labels
        self.compact = compact
        self.floor_px = floor_px
        self.over_belt = next((key for key in OVER_BELT if labels.get(key)), "ratio")

    def text(self, key: str) -> str:
        text = self.labels.get(key, "")
        if key in DYNAMIC_LABELS and text:
            return number_template(text)
        return text or RESERVED_TEXT.get(key, "")

    def px(self, key: str, s: float) -> int:
        return max(self.floor_px, round(LABEL_PX[key] * s))

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
        time_lines, time_width = self.lines("belt_time", s, BELT_MIN_LENGTH - 12)
        belt_length = max(BELT_MIN_LENGTH, belt_width + 12, bandwidth_width + 12, time_width + 12)
        over = self.over_belt
        ratio_lines, ratio_width = self.lines(over, s, belt_length - 10)
        belt_length = max(belt_length, ratio_width + 10) + belt_extra
        _, idle_width = self.lines("idle", s, 1e9)
        _, busy_width = self.lines("busy", s, 1e9)
        gauge_width = 0.0 if tall else max(GAUGE_MIN_WIDTH, idle_width + 20, busy_width + 20)
        notes_lines = 0
        if gauge_notes and not tall:         # under "busy" beside the worker, widening the column if need be
            notes_lines, notes_width = self.lines("basis", s, gauge_width - 20)
            gauge_width = max(gauge_width, notes_width + 20)
        worker_lines, worker_width = self.lines("worker_time", s, WORKER_RIGHT_FROM_BELT_END)
        worker_reach = max(WORKER_RIGHT_FROM_BELT_END, worker_width)

        warehouse_left = MARGIN + ROOF_OVERHANG
        belt_start = warehouse_left + warehouse_width
        belt_end = belt_start + belt_length
        worker_x = belt_end + WORKER_FROM_BELT_END
        worker_right = belt_end + worker_reach + (GAP if tall else 2 * GAP)
        content_right = worker_right + gauge_width
        if tall:
            content_right = max(content_right, MARGIN + idle_width + busy_width + 3 * GAP)
            if gauge_notes:
                notes_lines, notes_width = self.lines("basis", s, content_right - MARGIN)
                content_right = max(content_right, MARGIN + notes_width)
        notes_height = self.height("basis", s, 2 if notes_lines else 0)     # either wording fits (REWORDED_LABELS)
        words = max(self.lines(key, s, content_right - belt_start - 2 * GAP)[1] for key in ("worker", "peak"))
        content_right = max(content_right, belt_start + 2 * GAP + words)      # the worker's words fit above
        width = content_right + MARGIN

        # Rows, top to bottom: the worker's words, the picture (up to and down from the belt's top), the
        # gauge (tall only), the trace.
        top_room = content_right - belt_start - 2 * GAP
        top_lines = self.lines("worker", s, top_room)[0], self.lines("peak", s, top_room)[0]
        top_height = self.height("worker", s, top_lines[0]) + stack_gap(s) + self.height("peak", s, top_lines[1])
        backed_up_height = self.height("backed_up", s)
        ratio_height = self.height(over, s, ratio_lines)
        above = max(
            warehouse_height - WAREHOUSE_BELOW_BELT + ROOF_RISE,
            BOX_SIZE + 6 + backed_up_height + 6 + ratio_height + 4,
            FLASH_ABOVE_BELT + ratio_height + 4,
            HEAD_TOP_ABOVE_BELT + 6 + self.height("waiting", s) + 4,
            0.0 if tall else GAUGE_BAR_HEIGHT + 6 + self.height("idle", s) + 4,
        )
        belt_words = ROLLERS_BELOW_BELT + 6 + self.height("belt", s, belt_lines) + stack_gap(s) \
            + self.height("bandwidth", s) + stack_gap(s) + self.height("belt_time", s, time_lines)
        worker_words = BENCH_HEIGHT + 6 + self.height("worker_time", s, worker_lines)
        busy_height = self.height("busy", s)
        below = max(WAREHOUSE_BELOW_BELT, belt_words, worker_words,
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
            busy_room = max(busy_width, (content_right - MARGIN - GAP) - idle_width)
            boxes.append(("busy", QRectF(MARGIN, y, busy_room, row_height), align.AlignLeft | align.AlignBottom))
            boxes.append(("idle", QRectF(MARGIN + busy_room + GAP, y, content_right - MARGIN - busy_room - GAP,
                                         row_height), align.AlignRight | align.AlignBottom))
            y += row_height + 6
            thickness = max(GAUGE_BAR_THICKNESS, GAUGE_MIN_PX / s)
            gauge_bar = QRectF(MARGIN, y, content_right - MARGIN, thickness)
            y += thickness
            if notes_height:
                boxes.append(("basis", QRectF(MARGIN, y + 6, content_right - MARGIN, notes_height),
                              align.AlignLeft | align.AlignTop))
                y += 6 + notes_height
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
                boxes.append(("basis", QRectF(gauge_left, notes_top, gauge_width, belt_top + below - notes_top),
                              align.AlignHCenter | align.AlignTop))
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
        boxes.append(("belt+bandwidth+belt_time", QRectF(belt_start + 6, belt_top + ROLLERS_BELOW_BELT + 6,
                                                         belt_length - 12, below - ROLLERS_BELOW_BELT - 6),
                      align.AlignHCenter | align.AlignTop))
        boxes.append(("worker_time", QRectF(belt_end, belt_top + BENCH_HEIGHT + 6, worker_right - GAP - belt_end,
                                            below - BENCH_HEIGHT - 6), align.AlignHCenter | align.AlignTop))
        boxes.append(("worker+peak", QRectF(belt_start + 2 * GAP, MARGIN, content_right - belt_start - 2 * GAP,
                                            top_height), align.AlignHCenter | align.AlignTop))
        # Over the belt: the ratio (or the step time), and under it (right, over the queue) "boxes pile up".
        over_belt = QRectF(belt_start + 2 * GAP, top, belt_length - GAP, 0)
        over_belt.setBottom(belt_top - max(FLASH_ABOVE_BELT, BOX_SIZE + 6 + backed_up_height + 6))
        boxes.append((over, over_belt, align.AlignHCenter | align.AlignVCenter))
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
                                gauge_bar, trace, self.floor_px)
        centres = {"worker": worker_x, "peak": worker_x, "waiting": worker_x, "worker_time": worker_x}
        return _Plan(width, height, layout, boxes, centres)


def _largest_scale(planner: _Planner, width: float, height: float, tall: bool, trace_label: bool,
                   gauge_notes: bool, guess: float | None = None) -> float:
    """The largest scale at which the arrangement fits ``width`` x ``height`` pixels (``largest_scale``)."""
    def size(s: float) -> tuple[float, float]:
        plan = planner.plan(s, tall, trace_label, gauge_notes)
        return plan.width, plan.height

    return largest_scale(size, width, height, guess)


def lay_out(measure: TextMeasure, width: float, height: float, labels: dict[str, str],
            compact: bool, floor_px: int = FLOOR_PX) -> ConveyorLayout:
    """The arrangement that draws largest in ``width`` x ``height`` pixels, with every label placed."""
    planner = _Planner(measure, labels, compact, floor_px)
    notes_cost = GAUGE_NOTES_COST if planner.has_gauge_notes() else 1.0
    options = []
    for tall in (False, True):
        bare = _largest_scale(planner, width, height, tall, False, False)
        with_notes = (_largest_scale(planner, width, height, tall, False, True, guess=bare)
                      if planner.has_gauge_notes() else 0.0)
        notes = with_notes >= GAUGE_NOTES_COST * bare
        base = with_notes if notes else bare
        with_trace = base if compact else _largest_scale(planner, width, height, tall, True, notes, guess=base)
        trace = with_trace >= OPTIONAL_BAND_COST * base
        s = with_trace if trace else base
        # Dropping the gauge's note counts as drawing that much smaller: kept where the other arrangement
        # is not clearly larger without it.
        options.append((s * (1.0 if notes else notes_cost), s, tall, trace, notes))
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
    A place named "a+b" holds its labels one under another (a label left out leaves its room to the next);
    a label whose text changes (``DYNAMIC_LABELS``) gets the rest of its place, fitted when its text comes."""
    s = layout.scale
    obstacles = list(layout.shape_rects().values())
    placed: dict[str, FittedText] = {}

    def fit(key: str, box: QRectF, align) -> FittedText | None:
        box = box.intersected(widget)     # below the smallest scale only: better left out than cut off
        centre = layout.origin.x() + centres[key] * s if key in centres else None
        fitted = measure.fit(planner.labels.get(key, ""), box, planner.px(key, s), key not in PLAIN_LABELS, align,
                             floor_px=layout.floor_px, centre_x=centre)
        if fitted is None or any(fitted.rect.intersects(other) for other in obstacles) \
                or any(fitted.rect.intersects(other.rect) for other in placed.values()):
            return None
        placed[key] = fitted
        return fitted

    for keys, logical_box, align in sorted(boxes, key=lambda item: LABEL_PRIORITY.index(item[0].split("+")[0])):
        rest = layout.to_screen(logical_box)
        if keys.startswith("time_scale"):        # the notes end where the worker's words (placed before) begin
            words = [placed[key].rect.left() for key in ("worker", "peak") if key in placed]
            if words:
                rest.setRight(min(words) - 2 * GAP * s)
        for key in keys.split("+"):
            if key in DYNAMIC_LABELS:
                layout.dynamic_boxes[key] = (rest.intersected(widget), align)
                break
            fitted = fit(key, rest, align)
            if fitted is not None:
                rest.setTop(fitted.rect.bottom() + stack_gap(s) * s)
    layout.labels = placed


def fit_dynamic(measure: TextMeasure, layout: ConveyorLayout, key: str, text: str,
                others: list[QRectF]) -> FittedText | None:
    """Fit a label whose text changes with the intensity into its place (once per change, not per frame)."""
    if key not in layout.dynamic_boxes or not text:
        return None
    box, align = layout.dynamic_boxes[key]
    px = max(layout.floor_px, round(LABEL_PX[key] * layout.scale))
    fitted = measure.fit(text, box, px, key not in PLAIN_LABELS, align, floor_px=layout.floor_px)
    if fitted is None or any(fitted.rect.intersects(other) for other in others):
        return None
    return fitted

