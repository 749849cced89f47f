"""The formula card: a new state shows only its own terms, at once (no old row shows through until Qt frees it)."""
from __future__ import annotations

from PySide6.QtWidgets import QLabel

from widgets.formula_card import FormulaCard, FormulaCardState
from widgets.theme import THEMES


def _state(*terms) -> FormulaCardState:
    return FormulaCardState("Where this number comes from", "Title", ("a = b × c", "= 2 × 3", "= 6"), terms,
                            "from engine.x", "", "Esc closes it")


def test_a_new_state_shows_its_own_terms_only_before_the_event_loop_runs(qtbot):
    card = FormulaCard(THEMES["light"])
    qtbot.addWidget(card)
    card.set_state(_state(("b", "the first", "2"), ("c", "the second", "3")))
    card.show()
    card.set_state(_state(("k", "the only one", "7")))          # no turn of the event loop in between
    def shown() -> set[str]:
        return {label.text() for label in card.findChildren(QLabel) if label.isVisibleTo(card)}

    assert not shown() & {"b", "the first", "2", "c", "the second", "3"}      # the old rows gone at once
    qtbot.waitUntil(lambda: {"k", "the only one", "7"} <= shown())              # the new ones as Qt shows them
