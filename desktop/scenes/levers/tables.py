"""The figure tables of scene 7 (``widgets.figure_table_state``), made from the engine's answers. Qt-free.

``figures_table``: a lever's five figures without it and with it, the change
in words ("1.8× faster"), and under them what it costs and where it stops
paying. The curve tables show one lever's figure as the prompt, the context,
the cached share or the batch grows. A side on which no sequence fits shows
"—" for its times and prices; a side that fits fewer than its batch marks them
with "*" (hypothetical), and a note says so. Every number is formatted by
``engine.units``.
"""
from __future__ import annotations

from typing import Callable

from engine.units import format_count, format_number, format_percent, format_seconds, format_usd, glue_units
from widgets.figure_table_state import Cell, FigureTableState, TableNote, TableRow

Text = Callable[..., str]
NOT_RUNNING = "—"               # a time or price of a side on which no sequence fits
HYPOTHETICAL = "*"              # a side that does not hold its batch: its times are hypothetical
SAME_WITHIN = 0.005             # a change under half a percent reads "same"
PERCENT_BELOW = 1.1             # changes under 1.1x are said in percent ("6% faster"), larger ones as "2.3×"

# (figure, its text key, lower is better, its formatter)
FIGURES = (
    ("tpot_seconds", "tpot", True, format_seconds),
    ("ttft_seconds", "ttft", True, format_seconds),
    ("tokens_per_second_per_gpu", "throughput", False, format_number),
    ("usd_per_million_output_tokens", "price", True, format_usd),
    ("sequences_that_fit", "fit", False, format_count),
)
TIMED = frozenset({"tpot_seconds", "ttft_seconds", "tokens_per_second_per_gpu", "usd_per_million_output_tokens"})
# each figure's formula card: the engine's formula of that figure of a report (``engine.formulas``)
FORMULA_OF = {"tpot_seconds": "tpot_seconds", "ttft_seconds": "ttft_seconds",
              "tokens_per_second_per_gpu": "tokens_per_second_per_gpu",
              "usd_per_million_output_tokens": "usd_per_million_output_tokens", "sequences_that_fit": "max_batch"}
WITH_COLUMN = 1                 # the cells of the side with the levers on


def factor_text(factor: float) -> str:
    """How much larger one figure is than another: "6.2%" under ``PERCENT_BELOW``, else "2.3×"."""
    return format_percent(factor - 1.0) if factor < PERCENT_BELOW else format_number(factor) + "×"


def change_text(text: Text, figure: str, lower_better: bool, base: float, new: float) -> Cell:
    """The change from ``base`` to ``new`` in words, coloured by whether it helps (the words say it too)."""
    if base == new or (base and abs(new / base - 1.0) < SAME_WITHIN):
        return Cell(text("change.same"), "muted")
    if base == 0 or new == 0:
        key = "from_none" if base == 0 else "to_none"
        return Cell(text(f"change.{key}"), "good" if (base == 0) != lower_better else "warning")
    better = new < base if lower_better else new > base
    larger, smaller = max(base, new), min(base, new)
    if figure == "usd_per_million_output_tokens":
        word = "cheaper" if better else "dearer"
    elif lower_better:
        word = "faster" if better else "slower"
    else:
        word = "more" if better else "fewer"
    return Cell(text(f"change.{word}", factor=glue_units(factor_text(larger / smaller))), "good" if better else "warning",
                bold=True)


def side_cells(side, figure: str, formatter) -> tuple[Cell, bool]:
    """One side's value of ``figure`` as a cell, and whether it is hypothetical."""
    value = getattr(side, figure)
    if figure in TIMED and side.sequences_that_fit == 0:
        return Cell(NOT_RUNNING, "muted"), False
    hypothetical = figure in TIMED and not side.fits
    return Cell(glue_units(formatter(value)) + (HYPOTHETICAL if hypothetical else "")), hypothetical


def figures_table(outcome, text: Text, title: str, base_name: str, with_name: str,
                  notes: tuple[TableNote, ...] = ()) -> FigureTableState:
    """The five figures of ``outcome`` (an ``engine.levers.LeverOutcome``) without and with its levers."""
    rows, hypothetical = [], False
    for figure, key, lower_better, formatter in FIGURES:
        base, base_hypothetical = side_cells(outcome.base, figure, formatter)
        new, new_hypothetical = side_cells(outcome.with_levers, figure, formatter)
        hypothetical |= base_hypothetical or new_hypothetical
        if NOT_RUNNING in (base.text, new.text):
            change = Cell(NOT_RUNNING, "muted")
        else:
            change = change_text(text, figure, lower_better, getattr(outcome.base, figure),
                                 getattr(outcome.with_levers, figure))
        rows.append(TableRow(text(f"label.figure_{key}"), (base, Cell(new.text, new.role, True), change)))
    if hypothetical:
        notes = (TableNote(HYPOTHETICAL, text("label.hypothetical"), "muted"), *notes)
    return FigureTableState(title=title, headers=(base_name, with_name, text("label.change")), rows=tuple(rows),
                            notes=notes, drop_order=(2,))


def with_cells(outcome) -> dict[str, str]:
    """The label of each figure of ``outcome``'s "on" column that is its report's own (a what-if lever changed
    none of it, ``LeverOutcome.report_figures``) and shows a number, by the key of its formula."""
    return {FORMULA_OF[figure]: f"cell.{row}.{WITH_COLUMN}" for row, (figure, _, _, formatter) in enumerate(FIGURES)
            if figure in outcome.report_figures
            and side_cells(outcome.with_levers, figure, formatter)[0].text != NOT_RUNNING}


def refused_table(title: str, reason: str) -> FigureTableState:
    """A lever the engine refused with these settings: its reason where its figures would be."""
    return FigureTableState(title=title, message=reason)


def curve_table(text: Text, title: str, headers: tuple[str, ...], rows: list[tuple[str, tuple[Cell, ...]]],
                drop_order: tuple[int, ...] = ()) -> FigureTableState:
    """A lever's figure as something grows: one row per length or batch; a note says what "*" means."""
    notes = ()
    if any(cell.text.endswith(HYPOTHETICAL) for _, cells in rows for cell in cells):
        notes = (TableNote(HYPOTHETICAL, text("label.hypothetical"), "muted"),)
    return FigureTableState(title=title, headers=headers, rows=tuple(TableRow(label, cells) for label, cells in rows),
                            notes=notes, drop_order=drop_order)


def seconds_cell(seconds: float, fits: bool = True, bold: bool = False) -> Cell:
    return Cell(glue_units(format_seconds(seconds)) + ("" if fits else HYPOTHETICAL), bold=bold)


def ratio_cell(factor: float, role: str = "text") -> Cell:
    return Cell(glue_units(factor_text(factor)), role, bold=True)
