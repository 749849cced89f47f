"""Scene 9's formula cards, without Qt: this machine's ridge, busy and idle shares and predicted time come from
the probe's measurement, the H800's ridge, idle share and decode step from the engine's report of the case set
beside it; each result is the number in the label it sits on."""
from __future__ import annotations

import re
from dataclasses import replace

import pytest
from PySide6.QtCore import Qt

from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.scenes.your_machine.measurement import ProbeState
from desktop.scenes.your_machine.story import YourMachineStory
from engine import InputError
from engine.probe import _prediction
from engine.probe_formulas import formula
from engine.units import format_percent
from tests.desktop.stories import story
from tests.desktop.your_machine_fixtures import DECODE_UTILISATION, PEAK, PREFILL_UTILISATION, sample_result

BUILDS = YourMachineStory.builds


def _story(build: str, measured: bool = True, language: str = "en", scenario=DEFAULT_SCENARIO):
    probe = ProbeState(result=sample_result()) if measured else ProbeState()
    return story(YourMachineStory, scenario, BUILDS.index(build), probe, language, "your_machine")


def _labels(told) -> dict[str, str]:
    """The text of every label a card sits on, by its widget's state (what the view hands each widget)."""
    texts = {}
    shares, table = told.shares_state(), told.table_state() if "table" in told.shows() else None
    if shares is not None:
        texts["headline"] = shares.headline
        for row in shares.rows:
            texts[f"title.{row.key}"] = row.title
            texts.update({f"part.{row.key}.{part.key}": part.label for part in row.parts})
    if "times" in told.shows():
        texts["value"] = told.times_state().bars[0].value_label
    if table is not None:
        texts.update({f"cell.{r}.{c}": cell.text for r, row in enumerate(table.rows) for c, cell in enumerate(row.cells)})
    return {key: text.replace("\u00a0", " ") for key, text in texts.items()}


@pytest.mark.parametrize("measured", [True, False], ids=["measured", "unmeasured"])
@pytest.mark.parametrize("build", BUILDS)
@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_card_ends_in_the_number_of_the_label_it_sits_on(build, measured, language):
    told = _story(build, measured, language)
    formulas, labels = told.formulas(), _labels(told)
    assert set(formulas) == set(told.formula_labels())
    for key, (_, names) in told.formula_labels().items():
        number = re.search(r"\d[\d,.]*", formulas[key].result).group(0)       # the unit is worded per language
        assert re.search(rf"(?<![\d.,]){re.escape(number)}(?![\d,]|\.\d)", labels[names[0]]), (key, labels[names[0]])


def test_the_waits_cards_are_the_measurements_shares_and_the_h800s_step():
    told = _story("waits")
    formulas = told.formulas()
    assert formulas["here_decode.busy"].value == pytest.approx(DECODE_UTILISATION)
    assert formulas["here_decode.idle.headline"].value == pytest.approx(1 - DECODE_UTILISATION)
    assert formulas["here_decode.busy"].values.endswith(f"÷ {formulas['here_decode.busy'].terms[2].value}")
    assert formulas["gpu_decode.idle"].key == "step_idle_share"
    assert formulas["gpu_decode.idle"].value == pytest.approx(1 - told.comparison.decode.utilisation)
    assert formulas["gpu_decode.step"].value == told.comparison.decode.seconds_per_token
    assert formulas["here_decode.predicted"].value == sample_result().cpu.decode.predicted_seconds


def test_the_prefill_cards_are_the_prefill_pass_and_before_a_measurement_none_of_this_machine():
    formulas = _story("prefill").formulas()
    assert formulas["here_prefill.busy.headline"].value == pytest.approx(PREFILL_UTILISATION)
    assert "here_prefill.predicted" in formulas
    unmeasured = _story("waits", measured=False).formulas()
    assert set(unmeasured) == {"gpu_decode.idle", "gpu_decode.idle.headline", "gpu_decode.step"}
    assert _story("prefill", measured=False).formulas().keys() <= {"gpu_decode.idle", "gpu_decode.step"}
    assert set(_story("question", measured=False).formulas()) == {"gpu.ridge"}


def test_the_question_builds_ridges_are_measured_compute_over_bandwidth_and_the_h800s_datasheet():
    formulas = _story("question").formulas()
    assert formulas["here.ridge"].value == pytest.approx(PEAK / sample_result().cpu.memory_bandwidth_bytes_per_second)
    assert formulas["gpu.ridge"].values == "989 TFLOPS ÷ 3.35 TB/s"


def test_the_prediction_is_the_larger_of_the_flop_and_the_bytes_time_at_the_measured_figures():
    cpu = sample_result().cpu
    for name in ("decode", "prefill"):
        measured = getattr(cpu, name)
        predicted = _prediction(measured, measured.peak_flops_per_second, cpu.memory_bandwidth_bytes_per_second)
        device = replace(cpu, **{name: replace(measured, predicted_seconds=predicted.seconds)})   # as the probe fills it
        shown = formula(device, "predicted_seconds", name)
        assert shown.value == pytest.approx(max(measured.flops / measured.peak_flops_per_second,
                                                measured.bytes / cpu.memory_bandwidth_bytes_per_second))
        assert shown.symbols == "t = max(F ÷ P, M ÷ B)"


def test_an_unknown_figure_or_pass_is_refused_naming_the_known_ones():
    cpu = sample_result().cpu
    with pytest.raises(InputError) as refused:
        formula(cpu, "vibes")
    assert "measured_busy_share" in str(refused.value)
    with pytest.raises(InputError) as refused:
        formula(cpu, "measured_busy_share", "training")
    assert refused.value.code == "formula.unknown_pass" and "'prefill'" in str(refused.value)
    assert formula(cpu, "measured_idle_share", "prefill").result == format_percent(1 - PREFILL_UTILISATION)


def test_in_the_window_a_measured_machines_cards_open_on_a_click_beside_their_figures(make_window, qtbot):
    from desktop.scenes.your_machine import measurement
    measurement.keep(sample_result())
    try:
        window = make_window("zh")
        window.resize(1024, 768)
        window.deck.show(window.deck.position_of("your_machine"))
        scene = window.deck.current
        scene.go_to_build(BUILDS.index("waits"), animate=False)
        scene.grab()
        rects = scene.formula_cards.rects()
        assert {"here_decode.busy", "here_decode.idle", "here_decode.idle.headline", "gpu_decode.step"} <= set(rects)
        qtbot.mouseClick(scene, Qt.MouseButton.LeftButton, pos=rects["here_decode.idle.headline"].center())
        card = scene.formula_cards.card
        texts = [t.replace("\u00a0", " ") for t in card.texts()]
        assert scene.formula_cards.shown_key == "here_decode.idle.headline" and "这台机器算力的等待占比（实测）" in texts
        assert texts[texts.index("这台机器算力的等待占比（实测）") + 3] == f"= {format_percent(1 - DECODE_UTILISATION)}"
        assert scene.rect().contains(card.geometry())
        share = "here_decode.idle"                                                 # the bar's own idle label
        qtbot.mouseClick(scene, Qt.MouseButton.LeftButton, pos=rects[share].center())
        assert scene.formula_cards.shown_key == share and not card.geometry().intersects(rects[share])
    finally:
        measurement.forget()
