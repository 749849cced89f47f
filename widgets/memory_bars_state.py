"""What the memory bars draw: each GPU's HBM as one bar, stacked weights / KV cache / runtime / free.

Qt-free: plain frozen dataclasses and the arithmetic on them, so scenes and
their models build states without a display and tests check them without one.
Every number arrives from the engine (``Report.weights_bytes_per_gpu``,
``kv_bytes_per_gpu``, ``overhead_bytes_per_gpu``, ``hbm_bytes_per_gpu``); every
text arrives formatted and translated. Nothing here computes physics.

A bar is drawn bottom up: its segments in the order given (weights, KV cache,
runtime allowance and activations), then the free part up to the card's
capacity (a line across the bar). What is stacked beyond the capacity is drawn
past the line, hatched in the warning colour, and labelled with the bar's
``over_label`` ("61 GB over"). All bars share one vertical scale.

How to use it (``widgets.memory_bars.MemoryBars``):

- ``bars.set_state(state)`` draws exactly ``state`` at the next paint. This is
  the call for a value that changes every frame (scene 3's KV cache growing
  token by token): it does no layout work when only the segment sizes and
  their texts change (the bar columns, names, capacity and link labels are laid
  out once per size and per static texts; numbers in texts are measured as if
  "88.8", so a changing number is not a change of layout), so it is cheap
  enough for every tick. It also stops any running transition.
- ``bars.show_state(state, now_seconds, animate=True)`` moves the segments from
  where they are drawn now to ``state`` over ``TRANSITION_SECONDS`` of the scene
  clock (the kit's ``widgets.transition.Transition``: eased, and exactly the
  state's numbers at the end); connect ``scene.clock.ticked`` to
  ``bars.set_seconds``. ``animate=False`` jumps. Texts switch to the target's at once.
  Bars that appear grow from nothing; bars that go away are dropped at once.
- ``bars.drawn_texts()``: every text the last paint drew (key, text, px, rect).

Which texts the widget knows (each drawn only when not empty): per segment
``label`` ("Weights 70.6 GB") and ``value`` ("70.6 GB", the short form drawn
inside another bar's segment); per bar ``name`` (or ``short_name`` where that
does not fit), ``free_label``, ``over_label``, ``capacity_label``; per state
``link_label`` ("NVLink 400 GB/s"), ``network_label`` (the link between nodes),
``labels[key]`` (``"sequences"``: "one band per sequence", shown under the bars
when the KV segment is split), ``title`` and ``footer``; per node ``label`` (or
``short_label``). Texts that do not fit at the floor size are left out in the
order of ``LABEL_PRIORITY`` (last first), never shrunk further.

Where the texts go: the segments of the last bar are labelled in a column to
its right, each beside its segment with a pattern swatch (under tensor
parallelism every bar holds the same); another bar's segment carries its
``value`` inside only where it differs from the last bar's and fits. The first
bar's ``capacity_label`` sits left of the capacity line; names under the bars;
the link between bars drawn in the gaps and ``link_label`` named once below.

Nodes (a deployment past one node): ``nodes`` splits the bars, in order, into
node frames, each labelled at its top ("Node 1 · 8 GPUs"); a wider gap
separates the frames, the link inside a node is drawn between its bars as
before, and the network between nodes across the gap, dashed, named once below
the link's row by ``network_label``. A ``repeated`` node stands for several
alike (nodes 2 to 128): it is drawn as a stack of frames, and its label says how many.
Where the bars by node would be narrower than the text floor (a small picture),
the widget draws ``one_bar_for_each`` instead: one bar named ``each_label``.
"""
from __future__ import annotations

from dataclasses import field, replace

from engine.frozen import frozen

# The segment kinds, bottom up, as a bar stacks them.
SEGMENT_KEYS = ("weights", "kv", "runtime")
# Text kinds, most important first: the widget drops from the end when space runs out.
LABEL_PRIORITY = ("over", "title", "footer", "capacity", "weights", "free", "kv", "node", "name", "link",
                  "network", "runtime", "sequences", "value")
MAX_BARS = 16                     # two nodes of eight GPUs; a scene shows more GPUs as "each of them"
# The KV segment is split into sequences only while each part stays visible (the widget checks the pixels too).
MAX_DRAWN_SEQUENCES = 64


@frozen
class Segment:
    """One stacked part of a bar. ``key`` is one of ``SEGMENT_KEYS`` (its colour and pattern)."""
    key: str
    bytes: float
    label: str = ""        # "Weights 70.6 GB", drawn beside or inside the segment
    value: str = ""        # "70.6 GB": drawn inside when the full label does not fit


@frozen
class GpuBar:
    """One GPU's memory: its capacity and what is stacked in it, bottom up."""
    name: str                           # "GPU 1" or "H800"
    capacity_bytes: float
    segments: tuple[Segment, ...] = ()
    free_label: str = ""                # "8.1 GB free"
    over_label: str = ""                # "61 GB over": drawn only while the stack passes the capacity
    capacity_label: str = ""            # "80 GB": drawn beside the capacity line (first bar only)
    short_name: str = ""                # "1": drawn instead of ``name`` where that does not fit under the bar


@frozen
class NodeGroup:
    """One node's frame around consecutive bars: its GPUs, joined by the node's link."""
    label: str                          # "Node 1 · 8 GPUs", at the frame's top
    bars: int                           # how many of the state's bars, in order, the frame holds
    short_label: str = ""               # "Node 1": drawn where ``label`` does not fit
    repeated: bool = False              # stands for several nodes alike: drawn as a stack of frames


@frozen
class MemoryBarsState:
    """Up to ``MAX_BARS`` bars side by side on one scale.

    ``scale_bytes`` is what the full drawn height stands for (the widget never
    draws less than the tallest stack or capacity, so nothing is cut off);
    give every state of a scene the same scale so that a change reads as
    growth, not as a new axis. ``kv_sequences`` > 1 divides the KV segment into
    that many equal parts, one per sequence (scene 5).
    """
    bars: tuple[GpuBar, ...]
    scale_bytes: float = 0.0
    link_label: str = ""                # "NVLink 400 GB/s", drawn as a link between the bars (2 or more)
    labels: dict[str, str] = field(default_factory=dict)
    kv_sequences: int = 0
    title: str = ""                     # above the bars: what they show ("FP8 on one H800")
    footer: str = ""                    # below them, up to two lines: a verdict or what a choice costs
    footer_role: str = "text"           # its colour role: "text", "good" or "warning" (the words say it too)
    # Widgets of one size side by side (a comparison): each keeps room for a title line, a link row and two
    # footer lines even where it has none, so their bars share one baseline and one scale.
    aligned_rows: bool = False
    nodes: tuple[NodeGroup, ...] = ()   # the bars by node, in order (empty: one node, no frames)
    network_label: str = ""             # "InfiniBand NDR · 100 GB/s per GPU": the link between node frames
    # "each of 16 GPUs in 2 nodes": the name of one bar for every GPU (all alike), drawn instead of the nodes'
    # bars where those would be too narrow to read (a small picture); "" keeps the nodes' bars.
    each_label: str = ""

    def __hash__(self) -> int:          # labels is a dict: hash what identifies the picture
        return hash((self.bars, self.scale_bytes, self.link_label, tuple(sorted(self.labels.items())),
                     self.kv_sequences, self.title, self.footer, self.footer_role, self.aligned_rows,
                     self.nodes, self.network_label, self.each_label))


def bar_nodes(state: MemoryBarsState) -> tuple[int, ...]:
    """The node (0, 1, ...) of each of the first ``MAX_BARS`` bars; () without nodes. Bars past the nodes'
    counts belong to the last node."""
    if not state.nodes:
        return ()
    owners = [n for n, node in enumerate(state.nodes) for _ in range(max(0, node.bars))]
    shown = min(len(state.bars), MAX_BARS)
    owners += [len(state.nodes) - 1] * max(0, shown - len(owners))
    return tuple(owners[:shown])


def one_bar_for_each(state: MemoryBarsState) -> MemoryBarsState:
    """``state`` as one bar named ``each_label`` standing for every GPU (under tensor and pipeline parallelism
    every GPU holds the same), without node frames: what a picture too small for the nodes' bars draws."""
    if not state.bars:
        return state
    first = replace(state.bars[0], name=state.each_label, short_name="")
    return replace(state, bars=(first,), nodes=(), network_label="", link_label="")


def used_bytes(bar: GpuBar) -> float:
    """Everything stacked in the bar, summed bottom up (the engine's order: weights + KV + allowance)."""
    total = 0.0
    for segment in bar.segments:
        total += segment.bytes
    return total


def free_bytes(bar: GpuBar) -> float:
    """Capacity minus what is stacked; negative: short by that much."""
    return bar.capacity_bytes - used_bytes(bar)


def overflow_bytes(bar: GpuBar) -> float:
    """What is stacked past the capacity line (0 when it fits)."""
    return max(0.0, used_bytes(bar) - bar.capacity_bytes)


def overflows(bar: GpuBar) -> bool:
    """Whether the bar draws anything past its capacity line."""
    return used_bytes(bar) > bar.capacity_bytes


def drawn_scale_bytes(state: MemoryBarsState) -> float:
    """The bytes the full drawn height stands for: the state's scale, or more when a stack or capacity is taller."""
    tallest = max((max(used_bytes(bar), bar.capacity_bytes) for bar in state.bars), default=0.0)
    return max(state.scale_bytes, tallest, 1.0)


def segment_spans(bar: GpuBar) -> tuple[tuple[str, float, float], ...]:
    """Each segment as (key, bottom bytes, top bytes), bottom up."""
    spans, bottom = [], 0.0
    for segment in bar.segments:
        top = bottom + max(0.0, segment.bytes)
        spans.append((segment.key, bottom, top))
        bottom = top
    return tuple(spans)


# -- motion: the numbers a transition eases, and a state built back from them ------------------------
def motion_values(state: MemoryBarsState) -> tuple[float, ...]:
    """The numbers that move: the scale, then every segment's bytes and capacity, bar by bar."""
    values = [state.scale_bytes]
    for bar in state.bars:
        values.append(bar.capacity_bytes)
        values.extend(segment.bytes for segment in bar.segments)
    return tuple(values)


def with_motion_values(state: MemoryBarsState, values: tuple[float, ...]) -> MemoryBarsState:
    """``state`` with its moving numbers replaced by ``values`` (as ``motion_values`` lists them)."""
    it = iter(values)
    scale = next(it)
    bars = []
    for bar in state.bars:
        capacity = next(it)
        segments = tuple(replace(segment, bytes=next(it)) for segment in bar.segments)
        bars.append(replace(bar, capacity_bytes=capacity, segments=segments))
    return replace(state, scale_bytes=scale, bars=tuple(bars))


def same_shape(a: MemoryBarsState, b: MemoryBarsState) -> bool:
    """Whether two states have the same bars with the same segment kinds (their motion values line up)."""
    return len(a.bars) == len(b.bars) and all(
        tuple(s.key for s in x.segments) == tuple(s.key for s in y.segments) for x, y in zip(a.bars, b.bars))


def aligned_start(shown: MemoryBarsState | None, target: MemoryBarsState) -> MemoryBarsState:
    """``target``'s shape with the sizes now shown, so a transition can ease from them.

    A bar or segment kind that is not shown now starts from nothing (it grows
    in); a new bar starts at the target's capacity. With nothing shown the target is returned.
    """
    if shown is None:
        return target
    bars = []
    for n, bar in enumerate(target.bars):
        old = shown.bars[n] if n < len(shown.bars) else None
        old_bytes = {s.key: s.bytes for s in old.segments} if old is not None else {}
        segments = tuple(replace(s, bytes=old_bytes.get(s.key, 0.0)) for s in bar.segments)
        capacity = old.capacity_bytes if old is not None else bar.capacity_bytes
        bars.append(replace(bar, capacity_bytes=capacity, segments=segments))
    return replace(target, scale_bytes=shown.scale_bytes or target.scale_bytes, bars=tuple(bars))
