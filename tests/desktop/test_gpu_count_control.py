"""The "Number of GPUs" control offers only the counts whose default layout the engine accepts for the model and GPU.

Within one node of up to 8 GPUs those are the counts tensor parallelism allows; past it, the counts that a
tensor group divides into no more pipeline stages than the model has layers (``engine.layout``), up to 1,024.
"""
from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import Qt

from desktop.i18n import Language
from desktop.scenario_controls import ScenarioControls
from desktop.scenario_store import ScenarioStore
from engine import InputError, Scenario, compute_report
from engine.catalog import default_catalog
from engine.layout import default_layout_gpu_counts


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


def _choose(controls: ScenarioControls, field: str, entry_id: str) -> None:
    box = controls.choices[field]
    index = box.findData(entry_id)
    box.setCurrentIndex(index)
    box.activated.emit(index)          # what a user's choice emits


def _choose_model(controls: ScenarioControls, model_id: str) -> None:
    _choose(controls, "model", model_id)


def _engine_accepts(**fields) -> bool:
    try:
        compute_report(Scenario(**fields))
    except InputError:
        return False
    return True


def _counts(model_id: str, gpu_id: str = "h800") -> tuple[int, ...]:
    catalog = default_catalog()
    return default_layout_gpu_counts(catalog.model(model_id), catalog.gpu(gpu_id))


def test_the_box_offers_exactly_the_counts_the_engine_accepts(controls):
    spin = controls(replace(Scenario(), model="llama-3.1-8b", gpus=2)).gpu_count
    assert spin.allowed() == _counts("llama-3.1-8b")
    for gpus in range(1, 80):                  # one node and the next nine: each offered count reports, no other
        assert (gpus in spin.allowed()) == _engine_accepts(model="llama-3.1-8b", gpus=gpus, prompt_tokens=100,
                                                           output_tokens=10), gpus
    # 64 GPUs are eight nodes of a tensor group of 8 (no longer "too many heads"); 1,024 is the largest
    assert 64 in spin.allowed() and spin.allowed()[-1] == 1024


def test_stepping_up_from_2_for_llama_31_8b_follows_the_accepted_counts_to_the_largest(controls, qtbot):
    made = controls(replace(Scenario(), model="llama-3.1-8b", gpus=2))
    spin, store = made.gpu_count, made._store
    allowed = spin.allowed()
    assert spin is made.counts["gpus"] and allowed[:4] == (1, 2, 4, 8)      # inside the node: tensor parallelism
    with qtbot.assertNotEmitted(store.error):
        spin.stepUp()
        assert (spin.value(), store.scenario.gpus) == (4, 4)
        spin.stepUp()
        assert store.scenario.gpus == 8
        spin.stepUp()
        assert 9 in allowed and store.scenario.gpus == 16           # past the node: whole tensor groups of 8
        spin.stepUp()
        assert store.scenario.gpus == 24
        spin.stepBy(10_000)
        assert (spin.value(), store.scenario.gpus) == (allowed[-1], allowed[-1])
        spin.stepBy(-2)
        assert store.scenario.gpus in allowed and store.scenario.gpus % 8 == 0 and 512 < store.scenario.gpus < 1024
        spin.stepBy(-10_000)
        assert store.scenario.gpus == 1


def test_a_count_off_the_arrows_steps_is_still_taken_when_typed(controls, qtbot):
    made = controls(replace(Scenario(), model="llama-3.1-8b", gpus=8))
    spin = made.gpu_count
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), "9")
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)
    assert made._store.scenario.gpus == 9                    # nine stages of one GPU: the engine's to accept
    spin.stepUp()
    assert made._store.scenario.gpus == 16


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
    # 58 GPUs: Llama 3.1 70B runs tensor 2 over 29 stages of its 80 layers; Qwen2.5 7B has 28 layers, and its
    # 4 KV heads allow tensor groups of 1, 2 or 4 only, none of which cuts 58 into 28 stages or fewer
    assert _engine_accepts(model="llama-3.1-70b", gpus=58) and not _engine_accepts(model="qwen2.5-7b", gpus=58)
    made = controls(replace(Scenario(), model="llama-3.1-70b", gpus=58))
    store = made._store
    below = max(count for count in _counts("qwen2.5-7b") if count <= 58)
    with qtbot.assertNotEmitted(store.error), qtbot.waitSignal(store.changed) as changed:
        _choose_model(made, "qwen2.5-7b")
    assert (changed.args[0].model, changed.args[0].gpus) == ("qwen2.5-7b", below)    # one update, both fields
    assert made.gpu_count.value() == below and made.gpu_count.allowed() == _counts("qwen2.5-7b")
    assert made.error_text() == ""


def test_switching_to_a_gpu_with_another_node_picks_the_nearest_count_it_lays_out(controls, qtbot):
    # an M3 Max is a node of one GPU: 3 of them are three pipeline stages; on an 8-GPU H800 node, 3 GPUs
    # would be a tensor group that Llama 3.1 8B's 32 heads cannot be cut over
    assert _engine_accepts(model="llama-3.1-8b", gpu="m3-max", gpus=3)
    assert not _engine_accepts(model="llama-3.1-8b", gpu="h800", gpus=3)
    made = controls(replace(Scenario(), model="llama-3.1-8b", gpu="m3-max", gpus=3))
    assert made.gpu_count.allowed() == _counts("llama-3.1-8b", "m3-max")
    with qtbot.assertNotEmitted(made._store.error):
        _choose(made, "gpu", "h800")
    assert (made._store.scenario.gpu, made._store.scenario.gpus) == ("h800", 2)
    assert made.gpu_count.allowed() == _counts("llama-3.1-8b")


def test_switching_model_keeps_a_count_the_new_model_allows(controls, qtbot):
    made = controls(replace(Scenario(), model="llama-3.1-70b", gpus=8))
    with qtbot.assertNotEmitted(made._store.error):
        _choose_model(made, "llama-3.1-8b")
    assert made._store.scenario.gpus == 8


def test_a_change_of_model_from_elsewhere_gives_the_box_that_models_counts(controls):
    made = controls(Scenario())
    assert made._store.update(model="qwen2.5-7b", gpus=2)
    assert made.gpu_count.allowed() == _counts("qwen2.5-7b") and made.gpu_count.value() == 2
    assert made._store.set_scenario(Scenario())
    assert made.gpu_count.allowed() == _counts("llama-3.1-70b")


def _type(qtbot, spin, text: str) -> None:
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), text)
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)


def test_typing_an_allowed_count_uses_it(controls, qtbot):
    made = controls(replace(Scenario(), model="llama-3.1-8b", gpus=2))
    with qtbot.assertNotEmitted(made._store.error):
        _type(qtbot, made.gpu_count, "16")
    assert made._store.scenario.gpus == 16


# inside one node Llama 3.1 8B's heads allow 1, 2, 4 or 8 GPUs; 33 GPUs fill neither tensor groups nor its 32 layers
@pytest.mark.parametrize("typed", ["3", "5", "7", "33"])
def test_typing_a_disallowed_count_is_refused_by_the_box(controls, qtbot, typed):
    made = controls(replace(Scenario(), model="llama-3.1-8b", gpus=2))
    spin = made.gpu_count
    with qtbot.assertNotEmitted(made._store.error), qtbot.assertNotEmitted(made._store.changed):
        _type(qtbot, spin, typed)
    assert spin.value() == 2 and made._store.scenario.gpus == 2
    assert made.error_text() == ""


# Qwen2.5 7B (28 layers, tensor groups of 1, 2 or 4): 29 GPUs cannot be laid out, and no count starts "29"
QWEN = replace(Scenario(), model="qwen2.5-7b", gpus=2)


def test_a_keystroke_that_makes_a_disallowed_count_is_dropped(controls, qtbot):
    assert not _engine_accepts(model="qwen2.5-7b", gpus=29)
    spin = controls(QWEN).gpu_count
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), "29")
    assert spin.lineEdit().text() == "2"


def test_digits_that_can_still_become_an_allowed_count_are_let_through_and_others_are_not(controls, qtbot):
    from PySide6.QtGui import QValidator
    spin = controls(QWEN).gpu_count
    state = lambda text: spin.validate(text, len(text))[0]    # noqa: E731
    assert _engine_accepts(model="qwen2.5-7b", gpus=12) and not _engine_accepts(model="qwen2.5-7b", gpus=3)
    assert state("12") == QValidator.State.Acceptable and state("1") == QValidator.State.Acceptable
    assert state("3") == QValidator.State.Intermediate                       # 3 GPUs no; 30 or 32 yes
    assert state("29") == QValidator.State.Invalid
    assert state("x") == QValidator.State.Invalid and state("") == QValidator.State.Intermediate


def test_a_program_setting_a_disallowed_count_is_refused_too(controls, qtbot):
    made = controls(replace(Scenario(), model="llama-3.1-8b", gpus=4))
    with qtbot.assertNotEmitted(made._store.error):
        made.gpu_count.setValue(3)
    assert made.gpu_count.value() == 4 and made._store.scenario.gpus == 4
