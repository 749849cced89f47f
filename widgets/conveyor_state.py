"""What the conveyor-belt picture shows, and where everything is at a given moment.

The picture is the seed's analogy made to scale: a warehouse (HBM) sends boxes
of weights down a belt (HBM bandwidth) to a worker (the compute units). One
box holds ``box_bytes`` of weights and ``box_bytes * flops_per_byte`` FLOP of
work. The belt brings a box every ``box_bytes / bandwidth`` seconds of GPU
time; the worker needs ``box work / peak FLOPS`` seconds to finish one. Shown
slowed down by ``gpu_seconds_per_screen_second``.

Everything here is plain arithmetic on the numbers the scene hands over (it
takes them from the engine); no Qt, so the motion can be checked by tests.
The busy share is not computed here: the scene hands over the engine's
``utilisation`` and the worker works that share of every cycle, so the gauge
(which draws ``utilisation``), the label beside it and the motion can never
disagree. The cycle's length comes from the speeds: a box every
``box_bytes / bandwidth`` seconds, or, when the worker needs longer for a box
(above the ridge), his time for it at peak.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from widgets.roofline_state import number_template

# Boxes that queue in front of the worker when the belt backs up; more would
# only crowd the picture, and the gauge already says "always busy".
QUEUE_CAP_BOXES = 3
# The worker's machine turns once per this many FLOP (on screen): with the
# default time scale an H800 at FP16 turns about once a second, a B200 at FP4
# under ten times, slow enough never to alias at 60 frames a second.
FLOP_PER_GEAR_TURN = 1e9
TRACE_WINDOW_SECONDS = 6.0   # screen seconds of the worker's history shown in the trace

# Every label the picture can show, most important first. The essential ones always get a place
# (the drawing shrinks until they fit, at or above the text floor); the optional tail gets the room that
# is left and is left out, from the end of this list, where there is none.
LABEL_PRIORITY = ("warehouse", "capacity", "belt", "bandwidth", "worker", "peak", "idle", "step", "ratio",
                  "belt_time", "worker_time", "busy", "basis", "waiting", "backed_up", "time_scale", "trace", "box")
# Drawn with the gauge only (``show_gauge``): the hero "idle" number, the busy share and its basis.
GAUGE_LABELS = frozenset({"idle", "busy", "basis"})
ESSENTIAL_LABELS = frozenset(LABEL_PRIORITY[:LABEL_PRIORITY.index("worker_time") + 1])

# Text size of each label at scale 1 (logical units); times the scale, at least the floor.
LABEL_PX = {"warehouse": 28, "capacity": 40, "belt": 28, "bandwidth": 40, "belt_time": 26, "worker": 28,
            "peak": 40, "worker_time": 26, "ratio": 32, "step": 36, "idle": 60, "busy": 24, "basis": 22,
            "waiting": 28, "backed_up": 26, "time_scale": 24, "box": 24, "trace": 24}
PLAIN_LABELS = frozenset({"time_scale", "box", "trace", "basis", "busy"})     # the rest are bold
# Labels whose numbers change with the intensity, every frame of a transition: their places are
# sized for the text with every number replaced by a template, so the layout stays put. "basis" changes
# its words (the roofline's figure, or the engine's at a preset): its place keeps room for two lines.
DYNAMIC_LABELS = ("idle", "busy", "box", "worker_time", "basis")
REWORDED_LABELS = frozenset({"basis"})
# The colour role of each label: one red figure on the stage, the hero "idle".
LABEL_ROLE = {"warehouse": "text", "capacity": "memory", "belt": "text", "bandwidth": "memory",
              "belt_time": "memory", "worker": "text", "peak": "compute", "worker_time": "compute", "ratio": "text",
              "step": "accent", "idle": "warning", "busy": "good", "basis": "muted", "waiting": "muted",
              "backed_up": "muted", "time_scale": "muted", "box": "muted", "trace": "muted"}


@dataclass(frozen=True)
class ConveyorState:
    """The numbers and texts the conveyor belt draws; texts arrive translated.

    ``labels`` keys the widget knows (each drawn only when present):
    ``warehouse``, ``capacity``, ``belt``, ``bandwidth``, ``belt_time`` (how often a box arrives),
    ``worker``, ``peak``, ``worker_time`` (how long a box's work takes him), ``ratio`` or ``step`` (over the
    belt; ``step`` wins), ``idle`` (the hero number), ``busy``, ``basis`` (what the gauge's share rests on),
    ``waiting``, ``backed_up``, ``time_scale``, ``box``, ``trace`` (the last three left out when ``compact``).
    Where the widget is too small for all of them, it leaves out optional ones (``LABEL_PRIORITY``).
    Labels named in ``hidden`` keep their place but are not drawn (yet), so the drawing does not
    jump when they appear.
    """
    bandwidth_bytes_per_second: float
    peak_flops_per_second: float
    flops_per_byte: float
    utilisation: float                   # the engine's share of peak at ``flops_per_byte``, 0..1
    box_bytes: float = 2e6
    gpu_seconds_per_screen_second: float = 1e-6
    labels: dict[str, str] = field(default_factory=dict)
    hidden: frozenset[str] = frozenset()
    show_gauge: bool = True
    # Beside another picture: only the parts that carry the idea (warehouse, belt,
    # worker, their numbers, the gauge); no trace, so the drawing can be larger.
    compact: bool = False


@dataclass(frozen=True)
class ConveyorFrame:
    """Where everything is at one moment (screen seconds since the cycle origin)."""
    belt_travel_boxes: float        # how far the belt has moved, in box spacings
    worker_busy: bool
    work_progress: float            # 0..1 through the box on the bench (0 when idle)
    seconds_since_box_arrived: float
    queue_boxes: int                # boxes waiting in front of the worker
    gear_turns: float               # turns of the worker's machine so far
    boxes_finished: int             # boxes turned into results so far


def layout_words(state: ConveyorState) -> tuple:
    """What the belt's layout depends on besides its size: the words, with every changing number templated
    and every reworded label blank (their places are sized for any of them)."""
    return state.compact, tuple(sorted(
        (key, "" if key in REWORDED_LABELS else number_template(text) if key in DYNAMIC_LABELS else text)
        for key, text in state.labels.items()))


def box_interval_screen_seconds(state: ConveyorState) -> float:
    """Screen seconds between two boxes when the belt runs: bytes / bandwidth, slowed down."""
    return state.box_bytes / state.bandwidth_bytes_per_second / state.gpu_seconds_per_screen_second


def box_at_peak_screen_seconds(state: ConveyorState) -> float:
    """Screen seconds one box's work takes at peak FLOPS: its FLOP / peak, slowed down (sets the pace
    only above the ridge, where the belt waits for the worker)."""
    box_flop = state.box_bytes * state.flops_per_byte
    return box_flop / state.peak_flops_per_second / state.gpu_seconds_per_screen_second


def cycle_screen_seconds(state: ConveyorState) -> float:
    """One box per cycle: the slower of belt and worker sets the pace."""
    return max(box_interval_screen_seconds(state), box_at_peak_screen_seconds(state))


def box_work_share(state: ConveyorState) -> float:
    """How full of work a box is, 0..1: its FLOP over the FLOP a box holds at the ridge (where the worker
    needs exactly the belt's time for it). At 1 FLOP/byte on an H800 a box is 0.3% full."""
    ridge = state.peak_flops_per_second / state.bandwidth_bytes_per_second
    return max(0.0, min(1.0, state.flops_per_byte / ridge))


# The hero "idle" figure is the stage's alarm only while the worker mostly waits; a compute-bound step ("idle 0%")
# is the healthy case and is drawn as such, never in red.
IDLE_ALARM_SHARE = 0.5


def label_role(name: str, state: ConveyorState) -> str:
    """The colour role ``name`` is drawn in for ``state`` (``LABEL_ROLE``, but "idle" red only when it is high)."""
    if name == "idle" and 1.0 - busy_share(state) < IDLE_ALARM_SHARE:
        return "good"
    return LABEL_ROLE[name]


def busy_share(state: ConveyorState) -> float:
    """Share of each cycle the worker works: the engine's utilisation, as handed over (clamped to 0..1)."""
    return max(0.0, min(1.0, state.utilisation))


def work_screen_seconds(state: ConveyorState) -> float:
    """Screen seconds the worker works in each cycle: the engine's utilisation of the cycle."""
    return busy_share(state) * cycle_screen_seconds(state)


def belt_share(state: ConveyorState) -> float:
    """Share of each cycle the belt runs (below 1 only when the worker is the bottleneck)."""
    return box_interval_screen_seconds(state) / cycle_screen_seconds(state)


def belt_speed_boxes_per_second(state: ConveyorState) -> float:
    """How fast the belt moves while it runs, in box spacings per screen second (∝ bandwidth)."""
    return 1.0 / box_interval_screen_seconds(state)


def gear_turns_per_second(state: ConveyorState) -> float:
    """How fast the worker's machine turns while he works, per screen second (∝ peak FLOPS)."""
    return state.peak_flops_per_second * state.gpu_seconds_per_screen_second / FLOP_PER_GEAR_TURN


def queue_boxes(state: ConveyorState) -> int:
    """Boxes shown waiting: none at or below the ridge, more the further above it (capped)."""
    backlog = box_at_peak_screen_seconds(state) / box_interval_screen_seconds(state)
    if backlog <= 1.0 + 1e-9:
        return 0
    return min(QUEUE_CAP_BOXES, math.ceil(backlog - 1e-9) - 1)


def busy_seconds_until(state: ConveyorState, seconds: float) -> float:
    """Screen seconds the worker has worked from the cycle origin up to ``seconds``."""
    cycle = cycle_screen_seconds(state)
    whole, into = divmod(seconds, cycle)
    return whole * work_screen_seconds(state) + min(into, work_screen_seconds(state))


def busy_intervals(state: ConveyorState, start_seconds: float, end_seconds: float) -> list[tuple[float, float]]:
    """The stretches of [start, end] in which the worker works (each cycle starts with work)."""
    cycle = cycle_screen_seconds(state)
    work = work_screen_seconds(state)
    out: list[tuple[float, float]] = []
    first = math.floor(start_seconds / cycle)
    last = math.floor(end_seconds / cycle)
    for n in range(first, last + 1):
        begin = max(start_seconds, n * cycle)
        finish = min(end_seconds, n * cycle + work)
        if finish > begin:
            out.append((begin, finish))
    return out


def frame_at(state: ConveyorState, seconds: float) -> ConveyorFrame:
    """The picture at ``seconds``: a pure function of the state and the time.

    Each cycle starts when a box reaches the worker. He works on it for
    ``work`` seconds; the belt runs during the last ``interval`` seconds of the
    cycle, so the next box arrives just as the cycle ends. Below the ridge the
    belt never stops and the worker waits; above it the worker never stops and
    the belt waits.
    """
    cycle = cycle_screen_seconds(state)
    interval = box_interval_screen_seconds(state)
    work = work_screen_seconds(state)
    whole, into = divmod(seconds, cycle)
    belt_running_for = max(0.0, into - (cycle - interval))
    busy = into < work
    return ConveyorFrame(
        belt_travel_boxes=whole + belt_running_for / interval,
        worker_busy=busy,
        work_progress=into / work if busy else 0.0,
        seconds_since_box_arrived=into,
        queue_boxes=queue_boxes(state),
        gear_turns=gear_turns_per_second(state) * busy_seconds_until(state, seconds),
        boxes_finished=int(whole) + (0 if busy else 1),
    )


def continuous_origin(old: ConveyorState | None, new: ConveyorState,
                      seconds: float, old_origin: float) -> float:
    """The cycle origin for ``new`` that keeps the current cycle's phase, so a change does not jump."""
    if old is None:
        return old_origin
    phase = ((seconds - old_origin) / cycle_screen_seconds(old)) % 1.0
    return seconds - phase * cycle_screen_seconds(new)
