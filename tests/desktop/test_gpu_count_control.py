"""The "Number of GPUs" control offers only the counts tensor parallelism allows for the model in use."""
from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import Qt

from desktop.i18n import Language
from desktop.scenario_controls import ScenarioControls
from desktop.scenario_store import ScenarioStore
from engine import Scenario
from engine.catalog import default_catalog


@pytest.fixture
def controls(qtbot):
    def make(scenario: Scenario) -> ScenarioControls:
        store = ScenarioStore(scenario, language=Language("en"))
        made = ScenarioControls(store, Language("en"), default_catalog())
        qtbot.addWidget(made)
        made.show()
        qtbot.waitExposed(made)
        return made
    return make


def _choose_model(controls: ScenarioControls, model_id: str) -> None:
    box = controls.choices["model"]
    index = box.findData(model_id)
    box.setCurrentIndex(index)
    box.activated.emit(index)          # what a user's choice emits


def test_stepping_up_from_2_for_llama_31_8b_goes_to_4_then_8_and_stops_at_32(controls, qtbot):
    made = controls(replace(Scenario(), model="llama-3.1-8b", gpus=2))
    spin, store = made.gpu_count, made._store
    assert spin is made.counts["gpus"] and spin.allowed() == (1, 2, 4, 8, 16, 32)
    with qtbot.assertNotEmitted(store.error):
        spin.stepUp()
        assert (spin.value(), store.scenario.gpus) == (4, 4)
        spin.stepUp()
        assert store.scenario.gpus == 8
        spin.stepBy(10)
        assert (spin.value(), store.scenario.gpus) == (32, 32)
        spin.stepBy(-2)
        assert store.scenario.gpus == 8
        spin.stepBy(-10)
        assert store.scenario.gpus == 1


def test_arrow_keys_step_through_the_allowed_counts(controls, qtbot):
    made = controls(replace(Scenario(), model="llama-3.1-8b", gpus=4))
    spin = made.gpu_count
    spin.setFocus()
    with qtbot.assertNotEmitted(made._store.error):
        qtbot.keyClick(spin, Qt.Key.Key_Up)
        assert made._store.scenario.gpus == 8
        qtbot.keyClick(spin, Qt.Key.Key_Down)
        qtbot.keyClick(spin, Qt.Key.Key_Down)
        assert made._store.scenario.gpus == 2


def test_switching_to_a_model_that_cannot_use_the_count_picks_the_nearest_allowed_below(controls, qtbot):
    made = controls(replace(Scenario(), model="llama-3.1-70b", gpus=64))
    store = made._store
    with qtbot.assertNotEmitted(store.error), qtbot.waitSignal(store.changed) as changed:
        _choose_model(made, "llama-3.1-8b")                    # 32 heads: 64 GPUs are too many
    assert (changed.args[0].model, changed.args[0].gpus) == ("llama-3.1-8b", 32)    # one update, both fields
    assert made.gpu_count.value() == 32 and made.gpu_count.allowed() == (1, 2, 4, 8, 16, 32)
    with qtbot.assertNotEmitted(store.error):
        _choose_model(made, "qwen2.5-7b")                     # 28 heads, 4 KV heads: 1, 2 or 4
    assert (store.scenario.model, store.scenario.gpus, made.gpu_count.value()) == ("qwen2.5-7b", 4, 4)
    assert made.gpu_count.allowed() == (1, 2, 4)
    assert made.error_text() == ""


def test_switching_model_keeps_a_count_the_new_model_allows(controls, qtbot):
    made = controls(replace(Scenario(), model="llama-3.1-70b", gpus=8))
    with qtbot.assertNotEmitted(made._store.error):
        _choose_model(made, "llama-3.1-8b")
    assert made._store.scenario.gpus == 8


def test_a_change_of_model_from_elsewhere_gives_the_box_that_models_counts(controls):
    made = controls(Scenario())
    assert made._store.update(model="qwen2.5-7b", gpus=2)
    assert made.gpu_count.allowed() == (1, 2, 4) and made.gpu_count.value() == 2
    assert made._store.set_scenario(Scenario())
    assert made.gpu_count.allowed() == (1, 2, 4, 8, 16, 32, 64)


def _type(qtbot, spin, text: str) -> None:
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), text)
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)


def test_typing_an_allowed_count_uses_it(controls, qtbot):
    made = controls(replace(Scenario(), model="llama-3.1-8b", gpus=2))
    with qtbot.assertNotEmitted(made._store.error):
        _type(qtbot, made.gpu_count, "16")
    assert made._store.scenario.gpus == 16


@pytest.mark.parametrize("typed", ["3", "5", "7", "33"])   # "3" could become 32; "5", "7" and "33" cannot
def test_typing_a_disallowed_count_is_refused_by_the_box(controls, qtbot, typed):
    made = controls(replace(Scenario(), model="llama-3.1-8b", gpus=2))
    spin = made.gpu_count
    with qtbot.assertNotEmitted(made._store.error), qtbot.assertNotEmitted(made._store.changed):
        _type(qtbot, spin, typed)
    assert spin.value() == 2 and made._store.scenario.gpus == 2
    assert made.error_text() == ""


def test_a_keystroke_that_makes_a_disallowed_count_is_dropped(controls, qtbot):
    spin = controls(replace(Scenario(), model="llama-3.1-8b", gpus=2)).gpu_count
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), "12")
    assert spin.lineEdit().text() == "1"


def test_digits_that_can_still_become_an_allowed_count_are_let_through_and_others_are_not(controls, qtbot):
    from PySide6.QtGui import QValidator
    spin = controls(replace(Scenario(), model="llama-3.1-8b", gpus=2)).gpu_count
    state = lambda text: spin.validate(text, len(text))[0]    # noqa: E731
    assert state("16") == QValidator.State.Acceptable
    assert state("1") == QValidator.State.Acceptable and state("3") == QValidator.State.Intermediate  # 3 -> 32
    assert state("5") == QValidator.State.Invalid and state("12") == QValidator.State.Invalid
    assert state("x") == QValidator.State.Invalid and state("") == QValidator.State.Intermediate


def test_a_program_setting_a_disallowed_count_is_refused_too(controls, qtbot):
    made = controls(replace(Scenario(), model="llama-3.1-8b", gpus=4))
    with qtbot.assertNotEmitted(made._store.error):
        made.gpu_count.setValue(3)
    assert made.gpu_count.value() == 4 and made._store.scenario.gpus == 4
