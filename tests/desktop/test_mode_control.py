"""The Mode control: ideal (pure roofline) or realistic (measured efficiency), explained, shared, remembered."""
from __future__ import annotations

from dataclasses import replace

import pytest

from desktop import settings as settings_store
from desktop.i18n import Language
from desktop.scenario_controls import ScenarioControls
from desktop.scenario_store import ScenarioStore
from engine import Scenario
from engine.catalog import default_catalog
from engine.efficiency import REALISTIC
from engine.units import format_percent


@pytest.fixture
def controls(qtbot):
    store = ScenarioStore(Scenario(), language=Language("en"))
    made = ScenarioControls(store, Language("en"), default_catalog())
    qtbot.addWidget(made)
    made.show()
    qtbot.waitExposed(made)
    return made


def choose_mode(controls: ScenarioControls, mode: str) -> None:
    index = controls.mode.findData(mode)
    controls.mode.setCurrentIndex(index)
    controls.mode.activated.emit(index)          # what a user's choice emits


def test_the_mode_control_offers_both_modes_and_starts_at_the_default(controls):
    assert [controls.mode.itemData(i) for i in range(controls.mode.count())] == ["ideal", "realistic"]
    assert controls.mode.currentData() == Scenario().mode == "realistic"
    assert controls.mode.currentText() == "Realistic"


def test_choosing_ideal_recomputes_with_the_pure_roofline(controls, qtbot):
    realistic = controls._store.report
    with qtbot.waitSignal(controls._store.changed):
        choose_mode(controls, "ideal")
    assert controls._store.scenario.mode == "ideal"
    assert controls._store.report.tpot_seconds < realistic.tpot_seconds     # 100% of peak is faster


def test_a_mode_set_elsewhere_shows_in_the_control(controls):
    controls._store.set_scenario(replace(Scenario(), mode="ideal"))
    assert controls.mode.currentData() == "ideal"


@pytest.mark.parametrize("code", ["en", "zh"])
def test_the_tooltip_explains_both_modes(qtbot, code):
    language = Language(code)
    made = ScenarioControls(ScenarioStore(Scenario(), language=language), language, default_catalog())
    qtbot.addWidget(made)
    tip = made.mode.toolTip()
    gpu = Scenario().gpu
    shares = (REALISTIC.bandwidth_share_for(gpu), REALISTIC.compute_share, REALISTIC.narrow_compute_share)
    assert "100%" in tip and all(format_percent(share) in tip for share in shares)   # ideal's peak; realistic's
    assert "roofline" in tip and default_catalog().gpu(gpu).name in tip
    assert language.text("controls.mode.basis_measured") in tip
    names = [made.mode.itemText(i) for i in range(made.mode.count())]
    assert names == [language.text("controls.mode.ideal"), language.text("controls.mode.realistic")]
    language.set_code("en" if code == "zh" else "zh")
    assert made.mode.toolTip() != tip and made.mode.itemText(0) != names[0]


def test_the_tooltip_gives_the_share_measured_on_the_gpu_in_use(controls):
    """Each GPU has its own measured bandwidth share (engine.efficiency): the tip follows the GPU chosen, and
    says where no measurement is published."""
    shares = {}
    for gpu in ("h800", "mi300x", "l4"):
        controls._store.update(gpu=gpu, model="llama-3.1-8b", gpus=1)
        tip = controls.mode.toolTip()
        share = REALISTIC.bandwidth_share_for(gpu) * REALISTIC.stack_share(gpu)
        assert default_catalog().gpu(gpu).name in tip and format_percent(share) in tip, gpu
        measured = gpu in dict(REALISTIC.gpu_bandwidth_shares)
        assert (controls._language.text("controls.mode.basis_measured") in tip) == measured, gpu
        assert (controls._language.text("controls.mode.basis_typical") in tip) == (not measured), gpu
        shares[gpu] = share
    assert len(set(shares.values())) == 3          # three GPUs, three shares: not one share for every GPU


def test_the_mode_is_remembered_with_the_scenario(make_window):
    window = make_window()
    choose_mode(window.controls, "ideal")
    window.close()
    assert settings_store.load().settings.scenario.mode == "ideal"
