"""What the request timeline shows, and where each block goes: plain numbers, no Qt.

One request is drawn to scale in time: one prefill block (the whole prompt in
one pass, ending with the first output token) and then one block per decode
step (one token per pass). The seconds come from the engine, handed over by
the scene: ``prefill_seconds`` is the report's time to first token and each
decode block is the report's mean time per output token, so the blocks add up
to the report's total. Under the blocks, the GPU's compute in use in each phase
(the engine's utilisation, 0..1 of peak) and which bound applies there.

The whole request is one bar; because decode takes almost all the time, the
prefill block there is a sliver, so a second bar, clearly labelled as a zoom,
shows the end of prefill and the first ``zoom_steps`` decode steps at a larger scale (``zoom_window``).

When decode blocks are narrower than a readable minimum, they are grouped
(``group_blocks``): ``tokens_per_group`` steps to a block, the last one holding
what is left, each group carrying its count.

Texts arrive translated and formatted (the scene formats numbers with
``engine.units``); ``group_text(count)`` writes a group's count.
"""
from __future__ import annotations

import functools
import math
from dataclasses import field
from typing import Callable

from engine.frozen import frozen

PHASES = ("prefill", "decode")
# Labels the timeline can draw, most important first: where they do not fit, the tail is left out.
LABEL_PRIORITY = ("decode_block", "prefill_block", "end", "start", "prefill_bound", "decode_bound", "zoom",
                  "decode_step", "scale", "groups", "strip")
# Group sizes tried, smallest first: round numbers a room can count with.
GROUP_SIZES = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000,
               100_000, 200_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000)
# The zoom shows prefill and a few decode steps: enough steps that prefill is at most this share of it.
ZOOM_PREFILL_SHARE_MAX = 0.45
ZOOM_STEPS_MIN = 3
ZOOM_STEPS_MAX = 12
# Layouts the timeline and its table keep for recent states (``StateWidget.layouts_kept``): a control's whole
# range dragged back and forth (the batch slider of "prefill and decode" has 49 values) is laid out once.
LAYOUTS_KEPT = 50


@frozen
class TimelineState:
    """One request, from the engine: seconds, compute in use per phase (0..1), and translated labels.

    ``labels`` keys (each drawn only when present and when it fits, in ``LABEL_PRIORITY``):
    ``prefill_block`` (inside the zoom's prefill block), ``decode_block`` (inside the whole bar's decode
    part), ``decode_step`` (over the zoom's decode steps), ``prefill_bound`` and ``decode_bound`` (under
    the zoom's utilisation strip, one per phase), ``start``/``end`` (the whole bar's time axis), ``zoom``
    (the zoom's title), ``scale`` (the whole bar's title), ``strip`` (in the whole bar's axis row, under its
    strip: what the strips measure). ``group_text(n)`` names the group size when
    decode steps are grouped; ``token_text(n)`` numbers the zoom's decode steps (token 1 comes out of prefill).
    """
    prefill_seconds: float
    decode_step_seconds: float
    decode_steps: int
    prefill_utilisation: float
    decode_utilisation: float
    labels: dict[str, str] = field(default_factory=dict)
    # Not compared: a new scene state makes new functions; they follow the labels' language, and the labels compare.
    group_text: Callable[[int], str] = field(default=str, compare=False)
    token_text: Callable[[int], str] = field(default=str, compare=False)
    strip_phases: frozenset[str] = frozenset(PHASES)   # phases whose utilisation is shown (the rest keep their place)
    # (prefill, decode): the share of each strip's fill drawn, eased in when a strip is revealed
    strip_reveal: tuple[float, float] = (1.0, 1.0)
    highlight: str | None = None                          # a phase drawn emphasised (the others dimmed)
    compute_bound: frozenset[str] = frozenset({"prefill"})  # phases that are compute-bound (drawn solid, else hatched)

    def __hash__(self) -> int:
        """From the fields compared (the labels' pairs for the dict), so a state can key a widget's kept layouts."""
        return hash((self.prefill_seconds, self.decode_step_seconds, self.decode_steps, self.strip_reveal,
                     self.highlight, frozenset(self.labels.items())))

    @property
    def decode_seconds(self) -> float:
        return self.decode_step_seconds * self.decode_steps

    @property
    def total_seconds(self) -> float:
        return self.prefill_seconds + self.decode_seconds


@frozen
class Block:
    """One drawn block: its phase, where it starts and how long it lasts (seconds), and the tokens it holds."""
    phase: str
    start_seconds: float
    seconds: float
    tokens: int                  # decode steps in this block (prefill: 1 pass)

    @property
    def end_seconds(self) -> float:
        return self.start_seconds + self.seconds


def zoom_steps(state: TimelineState) -> int:
    """Decode steps in the zoom: enough that prefill fills at most ``ZOOM_PREFILL_SHARE_MAX`` of it, within limits."""
    if state.decode_steps <= 0 or state.decode_step_seconds <= 0:
        return 0
    wanted = state.prefill_seconds * (1 - ZOOM_PREFILL_SHARE_MAX) / ZOOM_PREFILL_SHARE_MAX / state.decode_step_seconds
    steps = max(ZOOM_STEPS_MIN, min(ZOOM_STEPS_MAX, math.ceil(wanted - 1e-9)))
    return min(steps, state.decode_steps)


def zoom_window(state: TimelineState) -> tuple[float, float]:
    """(start, end) in seconds of what the zoom shows: the end of prefill and the first ``zoom_steps`` decode
    steps. Prefill takes at most ``ZOOM_PREFILL_SHARE_MAX`` of it: a longer prefill is cut on the left (the
    zoom starts after 0 and the widget marks the cut), so the decode steps stay wide enough to see."""
    decode = zoom_steps(state) * state.decode_step_seconds
    if decode <= 0:
        return 0.0, state.prefill_seconds
    shown = min(state.prefill_seconds, decode * ZOOM_PREFILL_SHARE_MAX / (1 - ZOOM_PREFILL_SHARE_MAX))
    return state.prefill_seconds - shown, state.prefill_seconds + decode


def tokens_per_group(step_px: float, min_block_px: float, steps: int) -> int:
    """The smallest round group size whose block is at least ``min_block_px`` wide (1: every step its own block)."""
    for size in GROUP_SIZES:
        if size * step_px >= min_block_px or size >= steps:
            return min(size, max(1, steps))
    return max(1, steps)


def group_blocks(state: TimelineState, steps: int, group: int) -> tuple[Block, ...]:
    """Prefill, then ``steps`` decode steps in groups of ``group`` (the last group holds what is left)."""
    return _grouped(state.prefill_seconds, state.decode_step_seconds, steps, group)


@functools.lru_cache(maxsize=2 * LAYOUTS_KEPT)       # a layout's whole bar and its zoom, for each state kept
def _grouped(prefill_seconds: float, step_seconds: float, steps: int, group: int) -> tuple[Block, ...]:
    """``group_blocks`` of these seconds: the same blocks for every state with them (a hundred blocks are made
    for each new one; a control dragged back over a value, or the next build at it, makes none)."""
    blocks = [Block("prefill", 0.0, prefill_seconds, 1)]
    start, left = prefill_seconds, steps
    while left > 0:
        tokens = min(group, left)
        blocks.append(Block("decode", start, tokens * step_seconds, tokens))
        start += tokens * step_seconds
        left -= tokens
    return tuple(blocks)


def blocks_for_width(state: TimelineState, width_px: float, min_block_px: float, zoom: bool = False
                     ) -> tuple[Block, ...]:
    """The blocks of the whole request for a bar ``width_px`` wide, decode steps grouped so that no block is
    narrower than ``min_block_px``; or of the zoom (``zoom``): prefill and ``zoom_steps`` steps, each its own block."""
    if zoom:
        return group_blocks(state, zoom_steps(state), 1)
    steps, total = state.decode_steps, state.total_seconds
    if total <= 0 or width_px <= 0:
        return group_blocks(state, steps, max(1, steps))
    step_px = state.decode_step_seconds / total * width_px
    return group_blocks(state, steps, tokens_per_group(step_px, min_block_px, steps))


def x_of(seconds: float, window: tuple[float, float], left_px: float, width_px: float) -> float:
    """Where ``seconds`` falls on a bar showing ``window`` = (start, end) seconds across ``width_px``."""
    start, end = window
    if end <= start:
        return left_px
    return left_px + (seconds - start) / (end - start) * width_px


def strip_height_px(utilisation: float, strip_px: float) -> float:
    """The filled height of a utilisation strip: linear in the share of peak, 100% fills it."""
    return max(0.0, min(1.0, utilisation)) * strip_px


@frozen
class Cell:
    """One table cell: its text and, optionally, a bar behind it (a share 0..1 of the column's width)."""
    text: str
    bar: float | None = None
    key: str = ""                 # what a test or a reader calls it ("decode.utilisation")
    bar_role: str = "compute"     # the gauge's colour role: the colour of the phase it belongs to


@frozen
class TableState:
    """A small table with an optional large figure beside it; texts arrive translated.

    ``hidden_columns`` keep their place but are not drawn (yet), so the table does not jump when they appear.
    ``highlight_row`` is drawn framed and in bold (the scenario's own row).
    ``figure_label``/``figure_value``: the large figure (e.g. the share of time in decode); empty: none.
    ``footnote``: a line under the rows (what a mark in a cell means).
    ``widest``: per column, texts as wide as any its cells may show (the widest number a format gives, each word
    a cell may say): the columns keep their widths while a dragged control changes the cells, so the rest of
    the table stays put (and is not painted again) when a row comes or goes.
    ``rows_sized_for``: the table's text is sized as if it had this many rows (its own, if more): a table whose
    rows come and go as a control is dragged keeps one size of text.
    """
    header: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    hidden_columns: frozenset[int] = frozenset()
    highlight_row: int | None = None
    figure_label: str = ""
    figure_value: str = ""
    figure_note: str = ""
    footnote: str = ""            # under the rows (what a mark in a cell means)
    drop_order: tuple[int, ...] = ()                # columns left out first when the table is too wide
    essential_rows: frozenset[int] = frozenset()    # kept when rows must be left out (others go first, bottom up)
    widest: tuple[tuple[str, ...], ...] = ()
    rows_sized_for: int = 0

    def cell(self, key: str) -> Cell | None:
        """The cell called ``key``, or None."""
        return next((c for row in self.rows for c in row if c.key == key), None)


def rows_kept(state: TableState, room: int) -> tuple[int, ...]:
    """The rows drawn when only ``room`` fit: all if they fit, else the essential ones and, of the others,
    those nearest the top; in their order."""
    count = len(state.rows)
    if room >= count:
        return tuple(range(count))
    essential = [n for n in range(count) if n in state.essential_rows][:max(0, room)]
    others = [n for n in range(count) if n not in state.essential_rows][:max(0, room - len(essential))]
    return tuple(sorted(essential + others))
