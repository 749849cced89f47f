"""Scene 1's model, without Qt: every figure is the engine's, one per idea, and a refused what-if is a value."""
from __future__ import annotations

import dataclasses
import re
import string
import tomllib
from pathlib import Path

import pytest

from desktop.scenes.gpu_waits_model import (
    BUILDS, FP8_BUILD, GpuWaitsModel, intensity_of_decode, intensity_of_prefill, preset_changes, whole_numbers,
)
from desktop.what_if import WhatIfs, refused
from engine import InputError, Scenario, roofline
from engine.catalog import default_catalog
from engine.units import format_percent, format_seconds

CATALOG = default_catalog()
WHAT_IFS = WhatIfs(CATALOG)
DEFAULT = Scenario(gpus=2)                    # the app's default: Llama 3.1 70B, FP16, two H800s
TEXTS = tomllib.loads((Path(__file__).resolve().parents[2] / "resources/text/gpu_waits.toml").read_text("utf-8"))
# The 1,000-token prefill preset would exceed the model's 131,072-token context: the engine refuses it.
NO_PREFILL = dataclasses.replace(DEFAULT, prompt_tokens=1, output_tokens=130_500)


def text_in(language: str):
    def text(key: str, **values) -> str:
        table, name = key.split(".")
        return TEXTS[table][name][language].format(**values)
    return text


def model_for(scenario: Scenario, build: str = "decode", language: str = "en") -> GpuWaitsModel:
    report = WHAT_IFS.report(scenario)
    assert not refused(report)
    presets = {key: WHAT_IFS.changed(scenario, **changes) for key, changes in preset_changes(scenario).items()}
    index = BUILDS.index(build)
    return GpuWaitsModel(scenario, report, presets, index, CATALOG, text_in(language), fp8_shown=index == FP8_BUILD)


def test_the_model_leaves_qt_and_the_engines_entry_points_alone():
    """(The kit's test imports every model with Qt made unimportable.)"""
    import desktop.scenes.gpu_waits_model
    source = Path(desktop.scenes.gpu_waits_model.__file__).read_text("utf-8")
    assert "PySide6" not in source and "compute_report" not in source and "default_catalog" not in source


def test_decode_is_the_engines_batch_1_preset_whatever_the_scenarios_batch():
    scenario = dataclasses.replace(DEFAULT, batch=8)
    model = model_for(scenario)
    batch_1 = WHAT_IFS.changed(scenario, batch=1)
    assert model.decode_intensity == pytest.approx(intensity_of_decode(batch_1))
    assert intensity_of_decode(WHAT_IFS.report(scenario)) > 5 * model.decode_intensity
    assert model.target_intensity() == model.decode_intensity
    assert model_for(scenario, "ratio").target_intensity() == pytest.approx(WHAT_IFS.report(scenario).ridge_flops_per_byte)


def test_the_stage_shows_the_scenarios_mode_and_the_notes_the_other():
    realistic = model_for(dataclasses.replace(DEFAULT, mode="realistic"))
    decode = WHAT_IFS.changed(realistic.scenario, batch=1).decode
    busy, basis = realistic.busy(realistic.decode_intensity)
    assert (busy, basis) == (decode.utilisation, "realistic")
    state = realistic.conveyor_state(realistic.decode_intensity)
    assert state.utilisation == decode.utilisation
    assert state.labels["idle"] == f"idle {format_percent(1 - decode.utilisation)}"
    assert state.labels["basis"] == TEXTS["label"]["basis_realistic"]["en"]
    gpu, precision = realistic.gpu, realistic.precision
    on_roofline = roofline.utilisation(gpu, precision, realistic.decode_intensity)
    assert on_roofline > decode.utilisation
    assert format_percent(on_roofline) not in " ".join(state.labels.values())        # one figure on the stage
    assert realistic.caption_values["roofline_busy"] == format_percent(on_roofline)   # the other in the notes
    ideal = model_for(dataclasses.replace(DEFAULT, mode="ideal"))
    assert ideal.busy(ideal.decode_intensity) == (on_roofline, "roofline")
    assert ideal.caption_values["realistic_busy"] == format_percent(decode.utilisation)


@pytest.mark.parametrize("flops_per_byte", [0.5, 20.0, 300.0, 5000.0])
def test_away_from_a_preset_the_busy_share_is_the_rooflines(flops_per_byte):
    model = model_for(DEFAULT)
    busy, basis = model.busy(flops_per_byte)
    assert basis == "roofline"
    assert busy == roofline.utilisation(model.gpu, model.precision, flops_per_byte)
    assert model.conveyor_state(flops_per_byte).labels["busy"] == f"busy {format_percent(busy)}"


def test_the_fp8_build_halves_the_bytes_and_shows_the_engines_step_times():
    model = model_for(DEFAULT, "fp8")
    fp16, fp8 = WHAT_IFS.changed(DEFAULT, weights="fp16", batch=1), WHAT_IFS.changed(DEFAULT, weights="fp8", batch=1)
    assert fp8.decode.bytes_per_token < 0.55 * fp16.decode.bytes_per_token
    assert fp8.decode.seconds_per_token < 0.6 * fp16.decode.seconds_per_token
    state = model.conveyor_state(model.target_intensity())
    assert state.labels["step"] == (f"one decode step: {whole_numbers(format_seconds(fp16.decode.seconds_per_token))}"
                                    f" → {whole_numbers(format_seconds(fp8.decode.seconds_per_token))}")
    assert "ratio" not in state.labels                     # the step time takes its place over the belt
    assert model.target_intensity() == pytest.approx(intensity_of_decode(fp8))     # FP8 boxes: twice the work
    assert state.peak_flops_per_second == pytest.approx(2 * fp16.peak_flops_per_gpu, rel=1e-3)
    assert 1 - state.utilisation > 0.99                    # and the worker still waits
    assert model.phase() == "fp8" and model.report.weights_precision.id == "fp16"


def test_a_gpu_without_fp8_units_says_so_and_keeps_its_16_bit_worker():
    model = model_for(dataclasses.replace(DEFAULT, gpu="a100-80gb"), "fp8")
    assert model.phase() == "fp8_weight_only"
    assert model.peak == CATALOG.gpu("a100-80gb").flops_per_second["fp16"]
    assert "step" in model.conveyor_state(model.target_intensity()).labels


def test_a_refused_preset_is_a_value_and_leaves_its_point_out():
    model = model_for(NO_PREFILL, "roofline")
    assert isinstance(model.refusal("prefill"), InputError) and model.preset("prefill") is None
    assert model.prefill_intensity is None
    assert [point.key for point in model.roofline_state(model.decode_intensity).points] == ["decode", "control"]
    assert model.phase() == "roofline_without_prefill"
    assert "prefill_intensity" not in model.caption_values
    with_prefill = model_for(DEFAULT, "roofline")
    prefill = WHAT_IFS.changed(DEFAULT, prompt_tokens=1000, batch=1)
    assert with_prefill.prefill_intensity == pytest.approx(intensity_of_prefill(prefill))
    assert [p.key for p in with_prefill.roofline_state(1.0).points] == ["decode", "prefill", "control"]


UNIT_AFTER_SPACE = re.compile(r"\d (?:[KMGTP]?B\b|[KMGTP]B/s|[mµ]?s\b|[GMT]?FLOPS?\b|token|FLOP)")
SCENARIOS = [DEFAULT, dataclasses.replace(DEFAULT, mode="ideal"), NO_PREFILL,
             dataclasses.replace(DEFAULT, gpu="a100-80gb"), dataclasses.replace(DEFAULT, gpu="b200", weights="fp8"),
             dataclasses.replace(DEFAULT, weights="int4", gpus=1), Scenario(model="llama-3.1-8b", gpus=1)]


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: f"{s.gpu}-{s.weights}-{s.mode}-{s.output_tokens}")
def test_every_phase_has_a_caption_and_notes_filled_from_the_model(scenario, language):
    for build in BUILDS:
        model = model_for(scenario, build, language)
        values = model.caption_values
        for kind in ("caption", "notes"):
            template = TEXTS[kind][model.phase()][language]
            names = {name for _, name, _, _ in string.Formatter().parse(template) if name}
            assert names <= set(values), (build, kind, sorted(names - set(values)))
            filled = template.format(**values)
            assert "{" not in filled
            assert not UNIT_AFTER_SPACE.search(filled), filled         # a number keeps its unit


@pytest.mark.parametrize("language", ["en", "zh"])
def test_notes_say_what_why_formula_and_question(language):
    marks = {"en": ("Say:", "Why:", "Formula:", "Question:", "Answer:"),
             "zh": ("说：", "为什么：", "公式：", "可能的提问：", "回答：")}[language]
    for phase, entry in TEXTS["notes"].items():
        assert all(mark in entry[language] for mark in marks), phase
        if language == "zh":
            assert not re.search(r"[\u4e00-\u9fff][,:?]", entry["zh"]), phase       # full-width ，：？


def test_caption_values_are_computed_once_per_model():
    model = model_for(DEFAULT)
    assert model.caption_values is model.caption_values


def test_captions_stay_short_in_both_languages():
    """One takeaway each: about two lines of a 1024 x 768 projector (the slide test renders them)."""
    values = model_for(DEFAULT).caption_values
    for phase, entry in TEXTS["caption"].items():
        assert len(entry["en"].format_map(_Longest(values))) <= 140, phase
        assert len(entry["zh"].format_map(_Longest(values))) <= 70, phase


class _Longest(dict):
    def __missing__(self, key):
        return "00.0\u00a0ms"


def test_the_control_on_decode_leaves_the_legend_to_decode():
    model = model_for(DEFAULT, "roofline")
    on_decode = {p.key: p for p in model.roofline_state(model.decode_intensity).points}
    assert not on_decode["control"].in_legend and on_decode["decode"].in_legend
    elsewhere = {p.key: p for p in model.roofline_state(30.0).points}
    assert elsewhere["control"].in_legend


def test_intensities_are_the_engines_and_counts_are_formatted_by_engine_units():
    model = model_for(dataclasses.replace(DEFAULT, gpus=2))
    decode = WHAT_IFS.changed(DEFAULT, batch=1).decode
    assert model.decode_intensity == decode.flops_per_byte
    assert model.caption_values["prefill_tokens"] == "1,000" and model.caption_values["gpus"] == "2"
    assert model.caption_values["weights_total"] in model.text("notes.decode", **model.caption_values)
