"""Scene "Your machine waits too" without Qt: its story before and after a measurement, and its probe state.

The measurement is injected (``your_machine_fixtures.sample_result``); no probe runs here.
"""
from __future__ import annotations

import dataclasses
import re

import pytest

from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.kit import questions
from desktop.kit.answers import Answers
from desktop.kit.story import Inputs
from desktop.scenes.your_machine import measurement
from desktop.scenes.your_machine.figures import GPU_ID, GPU_NAMES, HERE_NAMES, Figures, comparison_scenario
from desktop.scenes.your_machine.measurement import ProbeState
from desktop.scenes.your_machine.story import YourMachineStory
from engine import compute_report
from engine.probe import STAGES
from engine.probe_sizes import probe_error
from engine.units import format_bandwidth, format_flops, format_number, format_percent, format_seconds
from tests.desktop.stories import ANSWERS, CATALOG, scene_text, story, texts
from tests.desktop.your_machine_fixtures import PEAK, sample_result

KEY = "your_machine"
MARK = {"en": "(measured here)", "zh": "（本机实测）"}
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def result():
    return sample_result()


def _story(probe: ProbeState, build: int = 0, language: str = "en", scenario=DEFAULT_SCENARIO):
    return story(YourMachineStory, scenario, build, probe, language, KEY)


def _stage_texts(s: YourMachineStory) -> list[str]:
    """Every text the build's widget states carry, with the strip's."""
    found: list[str] = []
    shown = s.shows()
    if "table" in shown:
        table = s.table_state()
        found += [table.title, *table.headers, table.message]
        found += [text for row in table.rows for text in (row.label, *(cell.text for cell in row.cells))]
        found += [note.text for note in table.notes]
    if "plot" in shown:
        plot = s.plot_state()
        found += [plot.ridge_label, plot.x_label, plot.y_label, *(p.label for p in plot.points)]
        found += [plot.other.ridge_label] if plot.other else []
    if "times" in shown:
        times = s.times_state()
        found += [times.title, times.footer, *(t for bar in times.bars for t in (bar.label, bar.value_label))]
    if "shares" in shown:
        shares = s.shares_state()
        found += [shares.headline, *(t for row in shares.rows for t in (row.title, *(p.label for p in row.parts)))]
    strip = s.strip_state()
    if s.strip_kind() == "progress":
        found += [strip.headline, *(t for row in strip.rows for t in (row.title, *(p.label for p in row.parts)))]
    else:
        found += [strip.title, strip.message, *(note.text for note in strip.notes)]
    return [text for text in found if text]


def _caption_and_notes(s: YourMachineStory, language: str) -> tuple[str, str]:
    tables = texts(KEY)
    return (tables["caption"][s.phase()][language].format_map(s.caption_values()),
            tables["notes"][s.phase()][language].format_map(s.note_values()))


def _measured_numbers(result) -> list[str]:
    """Numbers only a measurement gives (none of them is a catalogue's or the engine's, nor a prediction)."""
    cpu = result.cpu
    return [format_bandwidth(cpu.memory_bandwidth_bytes_per_second), format_flops(cpu.flops_per_second),
            format_number(cpu.ridge_flops_per_byte), format_seconds(cpu.decode.measured_seconds),
            format_percent(1 - cpu.decode.measured_utilisation),
            format_percent(cpu.prefill.measured_utilisation), format_seconds(cpu.prefill.measured_seconds)]


def _predicted_numbers(result) -> list[str]:
    return [format_seconds(result.cpu.decode.predicted_seconds), format_seconds(result.cpu.prefill.predicted_seconds)]


# -- before a measurement -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("build", range(4))
def test_before_a_measurement_every_build_invites_and_shows_no_figure_of_this_machine(result, build, language):
    s = _story(ProbeState(), build, language)
    assert s.phase() == f"{YourMachineStory.builds[build]}_invite"
    shown = _stage_texts(s) + list(_caption_and_notes(s, language))
    assert not any(MARK[language] in text for text in shown)
    numbers = _measured_numbers(result) + _predicted_numbers(result)
    assert not any(number in text for number in numbers for text in shown)
    assert "times" not in s.shows()
    strip = s.strip_state()
    assert strip.message == scene_text(KEY, language)("label.invite")


def test_before_a_measurement_the_table_says_not_measured_beside_the_h800s_datasheet():
    table = _story(ProbeState()).table_state()
    here = [row.cells[0].text for row in table.rows]
    assert here == ["not measured yet"] * 3
    gpu = CATALOG.gpu(GPU_ID)
    assert format_bandwidth(gpu.memory_bandwidth_bytes_per_second) in table.rows[0].cells[1].text


# -- after one ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("build", range(4))
def test_every_measured_figure_on_the_stage_says_measured_here(result, build, language):
    s = _story(ProbeState(result=result), build, language)
    assert s.phase() == YourMachineStory.builds[build]
    numbers = _measured_numbers(result)
    carrying = [text for text in _stage_texts(s) if any(number in text for number in numbers)]
    assert carrying, "the build shows no measured figure"
    unmarked = [text for text in carrying if MARK[language] not in text and "本机实测" not in text]
    assert not unmarked, unmarked
    predicted = {"en": "(predicted)", "zh": "（预测）"}[language]
    predictions = [text for text in _stage_texts(s) if any(n in text for n in _predicted_numbers(result))]
    assert all(predicted in text for text in predictions), predictions


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_strip_names_the_machine_its_cores_and_the_date(result, language):
    strip = _story(ProbeState(result=result), 2, language).strip_state()
    assert result.machine.cpu_name in strip.title and "2026-03-14 09:26" in strip.title
    assert str(result.machine.logical_cores) in strip.title
    assert (MARK[language].strip("()（）") in strip.title)


def test_predictions_are_labelled_as_predictions_and_side_by_side_with_the_measurement(result):
    times = _story(ProbeState(result=result), 2).times_state()
    predicted, measured = times.bars
    assert predicted.value == result.cpu.decode.predicted_seconds and "(predicted)" in predicted.value_label
    assert measured.value == result.cpu.decode.measured_seconds and MARK["en"] in measured.value_label
    prefill = _story(ProbeState(result=result), 3).times_state()
    assert [bar.value for bar in prefill.bars] == [result.cpu.prefill.predicted_seconds,
                                                   result.cpu.prefill.measured_seconds]


def test_the_idle_share_is_one_minus_the_measured_utilisation(result):
    shares = _story(ProbeState(result=result), 2).shares_state()
    here = shares.rows[0]
    busy, idle = here.parts
    utilisation = result.cpu.decode.measured_utilisation
    assert busy.share == pytest.approx(utilisation) and idle.share == pytest.approx(1 - utilisation)
    assert format_percent(1 - utilisation) in idle.label and format_percent(1 - utilisation) in shares.headline
    assert utilisation == pytest.approx(result.cpu.decode.flops / result.cpu.decode.measured_seconds / PEAK)


def test_the_h800_beside_it_is_the_engines_report_of_the_same_model(result):
    s = _story(ProbeState(result=result), 2)
    scenario = comparison_scenario(DEFAULT_SCENARIO, result.model_id, result.cpu.prefill.tokens)
    assert scenario.gpu == GPU_ID and scenario.model == result.model_id and scenario.batch == 1
    assert s.subject()[0] == scenario
    report = compute_report(scenario, CATALOG)
    gpu_row = s.shares_state().rows[1]
    assert gpu_row.parts[0].share == pytest.approx(report.decode.utilisation)
    assert format_seconds(report.decode.seconds_per_token) in gpu_row.title
    assert format_percent(1 - report.decode.utilisation) in gpu_row.parts[1].label
    plot = _story(ProbeState(result=result), 1).plot_state()
    reference = next(p for p in plot.points if p.key == "reference")
    assert reference.flops_per_byte == pytest.approx(report.decode.flops_per_byte)
    assert plot.ridge_flops_per_byte == pytest.approx(report.ridge_flops_per_byte)


def test_the_roofline_draws_this_machines_roof_and_points_from_the_measurement(result):
    plot = _story(ProbeState(result=result), 1).plot_state()
    cpu = result.cpu
    assert plot.other.ridge_flops_per_byte == pytest.approx(cpu.ridge_flops_per_byte)
    assert plot.other.roof[1][1] == pytest.approx(cpu.flops_per_second)
    decode = next(p for p in plot.points if p.key == "decode")
    assert decode.flops_per_byte == pytest.approx(cpu.decode.flops / cpu.decode.bytes)
    assert decode.attainable_flops_per_second == pytest.approx(cpu.decode.flops / cpu.decode.measured_seconds)
    assert plot.roof[0][0] == plot.other.roof[0][0] and plot.roof[2][0] == plot.other.roof[2][0]
    assert _story(ProbeState(), 1).plot_state().other is None


def test_a_busy_measurement_says_so_in_the_strip():
    strip = _story(ProbeState(result=sample_result(core_share=0.45)), 0).strip_state()
    assert strip.notes and "45%" in strip.notes[0].text


# -- the probe running, stopped, refused ------------------------------------------------------------------------------
def test_progress_is_shown_stage_by_stage_in_order_and_never_goes_back():
    probe = ProbeState().started()
    seen = []
    for stage, fraction in (("bandwidth", 0.1), ("compute", 0.3), ("compute", 0.2), ("decode", 0.5),
                            ("nonsense", 0.9), ("prefill", 0.95)):
        probe = probe.progressed(stage, fraction)
        strip = _story(probe, 2).strip_state()
        seen.append((probe.stage, probe.fraction, strip.headline, strip.rows[0].parts[0].share))
    assert [stage for stage, *_ in seen] == ["bandwidth", "compute", "compute", "decode", "decode", "prefill"]
    fractions = [fraction for _, fraction, *_ in seen]
    assert fractions == sorted(fractions) and fractions[2] == 0.3
    assert "compute" in seen[1][2] and "30%" in seen[1][2] and "a prefill" in seen[-1][2]
    order = _story(probe, 0).strip_state().rows[0].title
    assert [order.index(name) for name in ("memory bandwidth", "compute", "a decode step", "a prefill")] == \
        sorted(order.index(name) for name in ("memory bandwidth", "compute", "a decode step", "a prefill"))
    assert set(STAGES) == {"bandwidth", "compute", "decode", "prefill"}


def test_while_measuring_again_the_earlier_measurement_stays_and_the_button_stops(result):
    probe = ProbeState(result=result).started().progressed("decode", 0.6)
    s = _story(probe, 2)
    assert s.strip_kind() == "progress" and s.button_text() == "Stop measuring"
    assert "a decode step" in s.status_text() and "60%" in s.status_text()
    assert s.times_state() is not None                         # the earlier figures, with their date
    assert _story(probe.stopped(), 2).button_text() == "Measure again"
    assert _story(ProbeState(), 2).button_text() == "Measure this machine"


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_probe_that_cannot_run_is_one_sentence_and_no_figure(language):
    error = probe_error("probe.memory", {"needed": "32 MB", "available": "20 MB"})
    probe = ProbeState().started().progressed("bandwidth", 0.1).failed(error)
    assert not probe.running and probe.result is None
    s = story(YourMachineStory, DEFAULT_SCENARIO, 0, probe, language, KEY)
    strip = s.strip_state()
    assert strip.message == str(error) and strip.message_role == "warning"       # the stories' refusal_text: English
    assert strip.message.count(".") + strip.message.count("。") == 1
    assert all(row.cells[0].role == "muted" for row in s.table_state().rows)
    assert not any(MARK[language] in text for text in _stage_texts(s))


def test_a_refused_h800_is_said_where_its_figures_would_be(result):
    catalog = dataclasses.replace(CATALOG, gpus={k: v for k, v in CATALOG.gpus.items() if k != GPU_ID})
    answers = Answers(catalog)
    inputs = Inputs(DEFAULT_SCENARIO, ANSWERS.ask(questions.report, DEFAULT_SCENARIO), 0, answers.ask,
                    scene_text(KEY), controls=ProbeState(result=result))
    for build in range(4):
        s = YourMachineStory(inputs.at_build(build))
        texts_shown = _stage_texts(s)
        assert texts_shown
        if build == 0:
            assert s.table_state().notes and GPU_ID in s.table_state().notes[0].text.lower()
    assert YourMachineStory(inputs.at_build(1)).plot_state().other is None          # this machine's roof alone


# -- texts -------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("measured", [False, True])
@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_phase_fills_its_caption_and_notes_in_both_languages(result, measured, language):
    for build in range(4):
        s = _story(ProbeState(result=result if measured else None), build, language)
        caption, notes = _caption_and_notes(s, language)
        assert caption and notes and "—" not in caption
        assert not re.search(r"\{[a-z_]+\}", caption + notes)
        if language == "zh":
            assert CJK.search(caption) and all(CJK.search(text) for text in _stage_texts(s) if len(text) > 20)


def test_the_notes_explain_why_prediction_and_measurement_differ(result):
    _, waits = _caption_and_notes(_story(ProbeState(result=result), 2), "en")
    for reason in ("cache", "clock", "other programs", "call from Python"):
        assert reason in waits
    _, prefill = _caption_and_notes(_story(ProbeState(result=result), 3), "en")
    assert "thin" in prefill and "square" in prefill


def test_the_figures_name_every_value_the_texts_may_use(result):
    figures = Figures(result, ANSWERS.ask(questions.report, comparison_scenario(DEFAULT_SCENARIO, result.model_id,
                                                                                512)), scene_text(KEY))
    assert tuple(figures.here) == HERE_NAMES and tuple(figures.gpu) == GPU_NAMES


# -- the session's measurement ------------------------------------------------------------------------------------------
def test_the_session_keeps_the_last_measurement_and_a_file_stands_in_for_none(result, tmp_path, monkeypatch):
    import json
    from engine.cli_parsing import finite
    measurement.forget()
    monkeypatch.delenv(measurement.PROBE_FILE_VARIABLE, raising=False)
    assert measurement.session_state() == ProbeState()
    path = tmp_path / "probe.json"
    path.write_text(json.dumps(finite(result.to_json_dict())), encoding="utf-8")
    monkeypatch.setenv(measurement.PROBE_FILE_VARIABLE, str(path))
    assert measurement.session_result() == result
    later = sample_result(measured_at="2026-03-15T10:00:00+08:00")
    measurement.keep(later)
    try:
        assert measurement.session_result() is later
    finally:
        measurement.forget()
    broken = tmp_path / "broken.json"
    broken.write_text("{}", encoding="utf-8")
    monkeypatch.setenv(measurement.PROBE_FILE_VARIABLE, str(broken))
    state = measurement.session_state()
    assert state.result is None and state.error.code == "probe.file" and str(broken) in str(state.error)


# -- a GPU in this machine ---------------------------------------------------------------------------------------------
def test_a_gpu_the_probe_measured_too_gets_its_own_column_measured_here():
    from tests.desktop.your_machine_fixtures import sample_accelerator
    accelerator = sample_accelerator()
    table = _story(ProbeState(result=sample_result(accelerator=accelerator)), 0).table_state()
    assert len(table.headers) == 3 and accelerator.device_name in table.headers[1]
    assert table.drop_order == (1,)                 # where three columns do not fit, the GPU's goes first
    gpu_cells = [row.cells[1].text for row in table.rows]
    assert format_bandwidth(accelerator.memory_bandwidth_bytes_per_second) in gpu_cells[0]
    assert all(MARK["en"] in cell for cell in gpu_cells)
    assert _story(ProbeState(result=sample_result()), 0).table_state().headers[0] == "this machine"


def test_a_gpu_that_could_not_be_measured_is_said_under_the_cpus_figures():
    problem = probe_error("probe.failed", {"device": "NVIDIA H200", "reason": "CUDA driver too old"})
    s = _story(ProbeState(result=sample_result(accelerator_error=problem)), 0)
    notes = s.strip_state().notes
    assert notes and "CUDA driver too old" in notes[0].text and s.strip_lines() == 2
    assert len(s.table_state().headers) == 2
