"""What the figure table draws: a title, a small table of figures, and notes under it. Qt-free.

Scene 7 shows each lever's five figures without it and with it (one row per
figure, a column per side and one for the change), and beside them a curve as
the prompt or the context grows. Every text arrives formatted and translated.
A cell's ``role`` gives its colour and ``mark`` the word or sign that says the
same without colour (the change column says "faster" or "slower" in words).

Where the table does not fit its widget at the text floor, columns named in
``drop_order`` are left out first (the first named first), then the notes from
the last; a row label may take two lines. ``message`` stands in for the rows
(a refusal, in one sentence or two).
"""
from __future__ import annotations


from engine.frozen import frozen


@frozen
class Cell:
    text: str
    role: str = "text"          # theme colour role
    bold: bool = False


@frozen
class TableRow:
    label: str                  # the row's name, left of its cells
    cells: tuple[Cell, ...]


@frozen
class TableNote:
    """A line under the table: a bold lead ("Costs") and its text, wrapped over up to ``MAX_NOTE_LINES``."""
    lead: str
    text: str
    role: str = "text"


MAX_NOTE_LINES = 3


@frozen
class FigureTableState:
    title: str = ""
    headers: tuple[str, ...] = ()        # one per cell column
    rows: tuple[TableRow, ...] = ()
    notes: tuple[TableNote, ...] = ()
    drop_order: tuple[int, ...] = ()     # cell columns that may be left out, the first named first
    message: str = ""                    # drawn instead of the rows (a refusal)
    message_role: str = "warning"
    max_text_scale: float = 1.35         # texts may grow up to this many times the floor where there is room

    @property
    def columns(self) -> int:
        return max([len(self.headers), *(len(row.cells) for row in self.rows)], default=0)
