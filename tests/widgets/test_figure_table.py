"""The figure table: every text at or above the floor, none over another, none outside; columns give way first."""
import pytest
from PySide6.QtCore import QRectF

from widgets.figure_table import FigureTable, wrapped
from widgets.figure_table_state import Cell, FigureTableState, TableNote, TableRow
from widgets.text_fit import TextMeasure
from widgets.theme import THEMES, for_screen

ROWS = tuple(TableRow(label, (Cell(a), Cell(b, bold=True), Cell(change, "good", True))) for label, a, b, change in (
    ("Time per output token", "29.8 ms", "16.8 ms", "1.77× faster"),
    ("First token after", "146 ms", "100 ms", "1.45× faster"),
    ("Tokens/s per GPU", "16.8", "29.7", "1.77× more"),
    ("Price per 1M output tokens", "$33.1", "$18.7", "1.77× cheaper"),
    ("Sequences that fit", "33", "176", "5.33× more")))
STATE = FigureTableState(title="Fewer bytes on the belt: quantised weights", headers=("FP16", "FP8", "change"),
                         rows=ROWS, notes=(TableNote("Costs", "accuracy, which this app does not model."),
                                           TableNote("Stops paying", "never here: decode stays memory-bound up to "
                                                                     "batch 4,096.")), drop_order=(2,))


def table(qtbot, size, state=STATE, screen_height=768):
    widget = FigureTable(for_screen(THEMES["light"], screen_height))
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.set_state(state)
    widget.grab()
    return widget


def drawn(widget):
    return {d.key: d for d in widget.drawn_texts()}


@pytest.mark.parametrize("size, screen", [((430, 560), 768), ((520, 560), 768), ((800, 700), 1080),
                                          ((1600, 1500), 2160), ((240, 200), 768)])
def test_no_text_below_the_floor_over_another_or_outside(qtbot, size, screen):
    widget = table(qtbot, size, screen_height=screen)
    texts = widget.drawn_texts()
    bounds = QRectF(widget.rect()).adjusted(-1, -1, 1, 1)
    assert all(t.px >= widget.theme.floor_px and bounds.contains(t.rect) for t in texts)
    assert not any(a.rect.intersects(b.rect) for i, a in enumerate(texts) for b in texts[i + 1:])


def test_a_roomy_table_shows_every_figure_and_both_notes(qtbot):
    keys = drawn(table(qtbot, (800, 600)))
    assert {f"cell.{r}.{c}" for r in range(5) for c in range(3)} <= set(keys)
    assert {"title", "note.0", "note.1", "lead.0", "header.2"} <= set(keys)
    assert keys["cell.0.2"].text == "1.77× faster"


def test_a_narrow_table_leaves_out_the_change_column_before_any_figure(qtbot):
    keys = drawn(table(qtbot, (330, 560)))
    assert not any(key.endswith(".2") and key.startswith("cell") for key in keys)
    assert {f"cell.{r}.{c}" for r in range(5) for c in range(2)} <= set(keys)


def test_a_short_table_leaves_out_its_last_note_first(qtbot):
    keys = drawn(table(qtbot, (800, 290)))
    assert "cell.4.1" in keys and "note.1" not in keys


def test_a_message_stands_in_for_the_rows(qtbot):
    reason = "The acceptance rate must be a number from 0 up to, but not including, 1; got 1.0."
    keys = drawn(table(qtbot, (430, 400), FigureTableState(title="Speculative decoding", message=reason)))
    assert keys["message"].text.replace("\n", " ") == reason and not any(k.startswith("cell") for k in keys)


def test_wrapping_keeps_every_word_within_the_width_and_the_line_count():
    m = TextMeasure()
    assert wrapped(m, "one two three four", 18, False, 10_000, 1) == ("one two three four",)
    lines = wrapped(m, "one two three four five six seven", 18, False, 120, 3)
    assert lines is not None and 2 <= len(lines) <= 3 and " ".join(lines) == "one two three four five six seven"
    assert all(m.width(line, 18, False) <= 120 for line in lines)
    assert wrapped(TextMeasure(), "one two three four five six seven", 18, False, 40, 2) is None


def test_a_larger_widget_draws_larger_text(qtbot):
    small, large = drawn(table(qtbot, (430, 400))), drawn(table(qtbot, (900, 900)))
    assert large["cell.0.0"].px > small["cell.0.0"].px
