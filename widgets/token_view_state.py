"""What the token view draws: texts cut into tokens, one coloured chip per token, in a grid of cells.

Qt-free: plain frozen dataclasses. Every text arrives formatted and translated;
nothing here tokenizes or counts. A scene builds the chips from real tokenizer
pieces (``engine.token_pieces``) and hands the view a state.

A state is a grid: an optional header row (``columns``), then rows, each with a
title in the first column and one cell per remaining column. A cell holds the
chips of one text under one tokenizer, flowed left to right and wrapped, and a
``summary`` line under them ("4 tokens · 1.5 characters a token"). A
playground is the same grid with one cell per row (one row per tokenizer).

Chips alternate between two shades and every chip has its own outline, so the
cut reads without colour. A ``bytes`` chip holds bytes of one UTF-8 character
that the tokenizer cut (shown in hex, "E6 9D") and is drawn with a dashed
outline and the character it is part of; it is never a replacement box. With
``show_ids`` each chip carries its token id on a second line.

Chips that do not fit a cell's height are left out from the end and the cell
ends with an ellipsis chip; texts that do not fit at the floor size are dropped
in the order of ``LABEL_PRIORITY`` (last first), never shrunk below the floor.
"""
from __future__ import annotations


from engine.frozen import frozen

# Chip kinds: ordinary text, bytes of a cut character, or a mark drawn by the view ("…").
CHIP_KINDS = ("text", "bytes", "mark")
SPACE_MARK = "␣"           # a token's space, made visible: the same mark on every stage (scenes 3 and 6)
# Text kinds, most important first.
LABEL_PRIORITY = ("title", "header", "row", "chip", "summary", "footer", "part_of", "id")


@frozen
class Chip:
    """One token as drawn: its label (whitespace already made visible by the scene when asked), its kind,
    its id as text (drawn only when the state shows ids), which of two shades it takes, and, for a
    ``bytes`` chip, the character its bytes belong to (``part_of``, drawn small under the hex)."""
    label: str
    kind: str = "text"
    id_label: str = ""
    shade: int = 0
    part_of: str = ""


@frozen
class TokenCell:
    """The chips of one text under one tokenizer, and a summary line under them."""
    chips: tuple[Chip, ...] = ()
    summary: str = ""
    summary_role: str = "text"        # "text", "muted", "warning" (the words say it too)
    summary_short: str = ""           # drawn instead of ``summary`` where that does not fit ("3 ≠ seed")
    cut: bool = False                 # the scene left chips out (only part of a long text): end with "…"


@frozen
class TokenRow:
    title: str
    cells: tuple[TokenCell, ...]
    title_role: str = "text"


@frozen
class TokenViewState:
    rows: tuple[TokenRow, ...]
    columns: tuple[str, ...] = ()     # header texts: the row-title column first, then one per cell
    title: str = ""                   # above the grid
    footer: str = ""                  # below it, up to two lines: what is cut or cleaned, where the seed differs
    footer_role: str = "muted"
    show_ids: bool = False
    # Chip text may grow up to this many times the floor size when everything fits (the seed's few examples).
    max_scale: float = 1.4
    # The row titles repeat what the first cell shows (the seed's examples): their column goes to the cells
    # before a cell would be cut.
    row_titles_optional: bool = False

    @property
    def cell_count(self) -> int:
        return max((len(row.cells) for row in self.rows), default=0)


def chips_in(state: TokenViewState) -> int:
    """How many chips the state holds (what a paint may draw at most)."""
    return sum(len(cell.chips) for row in state.rows for cell in row.cells)
