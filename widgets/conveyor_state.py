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

Scene 7's levers add to the same picture, each off by default (scene 1's
picture): smaller boxes (``box_size_share``: the same weights in fewer bytes),
a tray under the bench with the tokens each box yields (``sequences_per_box``:
one per sequence of a batch), the guesses the worker drafts while he waits and
the verdict on them when the box comes (``guesses_per_box`` and ``acceptance``:
``tray_at``), and the KV cache on the warehouse's lower shelf (``KvShelf``:
long reservations or packed pages).
"""
from __future__ import annotations

import math
from dataclasses import field

from engine.frozen import frozen
from widgets.roofline_state import number_template

# Boxes that queue in front of the worker when the belt backs up; more would
# only crowd the picture, and the gauge already says "always busy".
QUEUE_CAP_BOXES = 3
# The worker's machine turns once per this many FLOP (on screen): with the
# default time scale an H800 at FP16 turns about once a second, a B200 at FP4
# under ten times, slow enough never to alias at 60 frames a second.
FLOP_PER_GEAR_TURN = 1e9
TRACE_WINDOW_SECONDS = 6.0   # screen seconds of the worker's history shown in the trace
TRAY_CAP_TOKENS = 30         # tokens drawn on the tray under the bench (a label names a larger batch)
SHELF_CAP_SLOTS = 48         # sequences drawn on the KV shelf (more would be slivers)

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


@frozen
class KvShelf:
    """The warehouse's lower shelf holding the KV cache: the room each sequence holds, and what it uses of it."""
    held_share: float       # one sequence's held room as a share of the shelf (above 1: not even one fits)
    used_share: float       # the share of its held room a sequence fills, 0..1
    paged: bool = False     # held in small pages, packed, rather than as one long reservation each


@frozen
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
    # The levers' parts (module docstring); the defaults draw none of them.
    box_size_share: float = 1.0         # a box's side against a full box's (its area: its bytes' share)
    sequences_per_box: int = 0          # tokens one box's work yields, one per sequence (0: no tray)
    guesses_per_box: int = 0            # guesses drafted per box (speculative decoding's k; 0: none)
    acceptance: float = 0.0             # the chance that each guess is kept
    shelf: KvShelf | None = None        # the KV cache on the warehouse's lower shelf (None: boxes of weights)


@frozen
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


# -- the levers' parts -------------------------------------------------------------------------------

@frozen
class Tray:
    """The tokens on the tray under the bench at one moment (drawn in this order, at most ``TRAY_CAP_TOKENS``)."""
    kept: int = 0        # tokens the last box yielded (and the guesses it kept)
    thrown: int = 0      # guesses the last box threw away
    drafted: int = 0     # guesses drafted for the next box, not checked yet


def _uniform(box: int, position: int) -> float:
    """A fixed pseudo-random number in [0, 1) for one guess of one box (the same on every frame and run)."""
    h = (box * 0x9E3779B1 + position * 0x85EBCA77 + 0x165667B1) & 0xFFFFFFFF
    for multiplier in (0x2C1B3C6D, 0x297A2D39):
        h ^= h >> 15
        h = (h * multiplier) & 0xFFFFFFFF
    h ^= h >> 15
    return h / 2 ** 32


def guesses_kept(state: ConveyorState, box: int) -> int:
    """How many of box ``box``'s guesses are kept: those before the first one rejected, each kept with the
    chance ``acceptance`` (so over many boxes, kept + 1 averages (1 - a^(k+1)) / (1 - a))."""
    kept = 0
    while kept < state.guesses_per_box and _uniform(box, kept) < state.acceptance:
        kept += 1
    return kept


def _capped(kept: int, thrown: int, drafted: int) -> Tray:
    kept = min(kept, TRAY_CAP_TOKENS)
    thrown = min(thrown, TRAY_CAP_TOKENS - kept)
    return Tray(kept, thrown, min(drafted, TRAY_CAP_TOKENS - kept - thrown))


def tray_at(state: ConveyorState, seconds: float) -> Tray | None:
    """The tray at ``seconds`` (screen seconds since the cycle origin); None when the state draws no tray.

    Guessing: while the worker checks a box he holds its k guesses; once done, the tray shows what it kept
    (its guesses up to the first rejected, and one token of his own) and what it threw away, for the first
    half of his wait; in the second half he drafts the next box's guesses one by one. Batching: each box's
    tokens, one per sequence, land on the tray as he works it and stay there until the next box.
    """
    k = state.guesses_per_box
    if k <= 0 and state.sequences_per_box <= 0:
        return None
    cycle = cycle_screen_seconds(state)
    work = work_screen_seconds(state)
    whole, into = divmod(seconds, cycle)
    box = int(whole)
    if k > 0:
        if into < work:
            return _capped(0, 0, k)
        wait = (into - work) / max(cycle - work, 1e-12)
        if wait < 0.5:
            kept = guesses_kept(state, box)
            return _capped(kept + 1, k - kept, 0)
        return _capped(0, 0, min(k, math.ceil((wait - 0.5) * 2 * k)))
    tokens = state.sequences_per_box
    if into < work:
        return _capped(max(1, math.ceil(tokens * into / max(work, 1e-12))), 0, 0)
    return _capped(tokens, 0, 0)


def tray_capacity(state: ConveyorState) -> int:
    """The most tokens the tray ever holds in this state (its grid is sized for them): k + 1, or the batch."""
    most = state.guesses_per_box + 1 if state.guesses_per_box > 0 else state.sequences_per_box
    return max(0, min(TRAY_CAP_TOKENS, most))


def shelf_slots(shelf: KvShelf) -> int:
    """The sequences drawn on the KV shelf: as many as its room holds (one, overflowing, when none fits)."""
    if shelf.held_share <= 0 or not math.isfinite(shelf.held_share):
        return 1
    return max(1, min(SHELF_CAP_SLOTS, math.floor(1.0 / shelf.held_share + 1e-9)))
