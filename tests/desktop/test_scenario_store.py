"""The one shared scenario: changes recompute the report; refused input keeps the old scenario."""
from __future__ import annotations

from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.scenario_store import ScenarioStore
from engine import compute_report


def test_an_update_recomputes_and_announces_the_report(qtbot):
    store = ScenarioStore()
    with qtbot.waitSignal(store.changed) as signal:
        assert store.update(batch=4)
    scenario, report = signal.args
    assert scenario.batch == 4 and store.scenario is scenario
    assert report == compute_report(scenario) and store.report is report


def test_refused_input_keeps_the_previous_scenario_and_says_why(qtbot):
    store = ScenarioStore()
    before = store.scenario
    with qtbot.waitSignal(store.error) as signal, qtbot.assertNotEmitted(store.changed):
        assert not store.update(gpu="no-such-gpu")
    assert "no-such-gpu" in signal.args[0]
    assert store.scenario is before


def test_setting_the_same_scenario_announces_nothing(qtbot):
    store = ScenarioStore()
    with qtbot.assertNotEmitted(store.changed):
        assert store.set_scenario(DEFAULT_SCENARIO)


def test_an_error_from_the_store_shows_inline_under_the_controls_and_goes_with_the_next_change(qtbot, window):
    controls = window.controls
    window.store.update(gpu="no-such-gpu")
    assert "no-such-gpu" in controls.error_text()
    assert controls.choices["gpu"].currentData() == window.store.scenario.gpu
    controls.counts["batch"].setValue(2)
    assert controls.error_text() == ""


def test_spin_boxes_refuse_values_out_of_their_range(window):
    spin = window.controls.counts["gpus"]
    spin.setValue(0)
    assert spin.value() == 1 and window.store.scenario.gpus == 1


def test_a_gpu_chosen_in_the_controls_is_the_gpu_of_every_scene(qtbot, window):
    box = window.controls.choices["gpu"]
    index = box.findData("h100-sxm")
    box.setCurrentIndex(index)
    box.activated.emit(index)
    assert window.store.scenario.gpu == "h100-sxm"
    for position in range(len(window.deck.entries)):
        window.deck.show(position)
        assert window.deck.current.kit.store.scenario.gpu == "h100-sxm"
