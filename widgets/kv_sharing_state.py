"""What the sharing table draws: how many conversations of one context fit beside the weights, per GPU count.

Qt-free. One row per GPU count the engine accepts; each row draws its
conversations as blocks (one block each, up to ``MAX_BLOCKS``; beyond that a
bar of the same length scale), its name and its value text. A row whose
weights alone do not fit is hatched and says so. Every number is the engine's
(``Report.max_sequences`` of a what-if), every text formatted and translated.
"""
from __future__ import annotations

from dataclasses import field

from engine.frozen import frozen

LABEL_PRIORITY = ("row_value", "row_name", "title", "current_mark")
MAX_BLOCKS = 48


@frozen
class SharingRow:
    gpus: int
    name: str                 # "2 GPUs"
    sequences: int            # the engine's max_sequences (0: none fits)
    value_text: str           # "12 conversations", "weights alone do not fit"
    fits: bool = True         # False: the weights and allowance alone overflow
    current: bool = False     # the scenario's own GPU count: outlined


@frozen
class KvSharingState:
    rows: tuple[SharingRow, ...]
    reveal: float = 1.0       # 0..1: the blocks fill from the left
    labels: dict[str, str] = field(default_factory=dict)   # "title", "current_mark"

    def __hash__(self) -> int:
        return hash((self.rows, self.reveal, tuple(sorted(self.labels.items()))))


def longest_row(state: KvSharingState) -> int:
    """The most conversations of any row (sets the blocks' common length scale)."""
    return max((row.sequences for row in state.rows), default=0)


def drawn_blocks(state: KvSharingState, row: SharingRow) -> float:
    """How many blocks of ``row`` are drawn now (fractional while they fill)."""
    return row.sequences * max(0.0, min(1.0, state.reveal))
