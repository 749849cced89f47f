"""Scene 1's story, without Qt: every figure is the engine's, one per idea, a refused what-if is a value, and
every decision that depends on the build (the intensity, the fp8 what-if, the stage's layout, the controls' words)."""
from __future__ import annotations

import dataclasses
import re
import string
import tomllib
from pathlib import Path

import pytest

from desktop.kit import questions
from desktop.kit.answers import Answers, refused
from desktop.kit.story import Inputs
from desktop.scenes.gpu_waits.figures import intensity_of_decode, intensity_of_prefill
from desktop.scenes.gpu_waits.story import BUILDS, GpuWaitsControls, GpuWaitsStory
from engine import InputError, Scenario, roofline
from engine.catalog import default_catalog
from engine.units import format_percent, format_seconds, glue_units

CATALOG = default_catalog()
ANSWERS = Answers(CATALOG)
DEFAULT = Scenario(gpus=2)                    # the app's default: Llama 3.1 70B, FP16, two H800s
TEXTS = tomllib.loads((Path(__file__).resolve().parents[2] / "resources/text/gpu_waits.toml").read_text("utf-8"))
# The 1,000-token prefill preset would exceed the model's 131,072-token context: the engine refuses it.
NO_PREFILL = dataclasses.replace(DEFAULT, prompt_tokens=1, output_tokens=130_500)


def text_in(language: str):
    def text(key: str, count: int | None = None, **values) -> str:
        table, name = key.split(".")
        return TEXTS[table][name][language].format(**values)
    return text


def report_of(scenario: Scenario):
    return ANSWERS.ask(questions.report, scenario)


def what_if(scenario: Scenario, **changes):
    return report_of(dataclasses.replace(scenario, **changes))


def story_for(scenario: Scenario, build: str = "decode", language: str = "en",
              controls: GpuWaitsControls = GpuWaitsControls(), ask=ANSWERS.ask) -> GpuWaitsStory:
    report = report_of(scenario)
    assert not refused(report)
    return GpuWaitsStory(Inputs(scenario, report, BUILDS.index(build), ask, text_in(language), controls=controls))


def test_the_story_leaves_qt_and_the_engines_entry_points_alone():
    """The scene's Qt-free modules import no Qt and never call the engine or load the catalogue themselves."""
    import ast

    import desktop.scenes.gpu_waits as package
    for name in ("story", "figures", "pictures"):
        source = (Path(package.__file__).parent / f"{name}.py").read_text("utf-8")
        imported = {node.module or "" for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ImportFrom)}
        imported |= {alias.name for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Import)
                     for alias in node.names}
        assert not {module.split(".")[0] for module in imported} & {"PySide6", "shiboken6", "pyqtgraph"}, name
        assert "view" not in imported, name
        assert "compute_report" not in source and "default_catalog" not in source, name


def test_decode_is_the_engines_batch_1_preset_whatever_the_scenarios_batch():
    scenario = dataclasses.replace(DEFAULT, batch=8)
    story = story_for(scenario)
    batch_1 = what_if(scenario, batch=1)
    assert story.decode_intensity == pytest.approx(intensity_of_decode(batch_1))
    assert intensity_of_decode(report_of(scenario)) > 5 * story.decode_intensity
    assert story.target_intensity() == story.decode_intensity
    assert story_for(scenario, "ratio").target_intensity() == pytest.approx(report_of(scenario).ridge_flops_per_byte)


def test_the_stage_shows_the_scenarios_mode_and_the_notes_the_other():
    realistic = story_for(dataclasses.replace(DEFAULT, mode="realistic"))
    decode = what_if(realistic.scenario, batch=1).decode
    busy, basis = realistic.figures.busy(realistic.decode_intensity)
    assert (busy, basis) == (decode.utilisation, "realistic")
    state = realistic.conveyor_state(realistic.decode_intensity)
    assert state.utilisation == decode.utilisation
    assert state.labels["idle"] == f"idle {format_percent(1 - decode.utilisation)}"
    assert state.labels["basis"] == TEXTS["label"]["basis_realistic"]["en"]
    gpu, precision = realistic.figures.gpu, realistic.figures.precision
    on_roofline = roofline.utilisation(gpu, precision, realistic.decode_intensity)
    assert on_roofline > decode.utilisation
    assert format_percent(on_roofline) not in " ".join(state.labels.values())        # one figure on the stage
    assert realistic.caption_values()["roofline_busy"] == format_percent(on_roofline)   # the other in the notes
    ideal = story_for(dataclasses.replace(DEFAULT, mode="ideal"))
    assert ideal.figures.busy(ideal.decode_intensity) == (on_roofline, "roofline")
    assert ideal.caption_values()["realistic_busy"] == format_percent(decode.utilisation)


@pytest.mark.parametrize("flops_per_byte", [0.5, 20.0, 300.0, 5000.0])
def test_away_from_a_preset_the_busy_share_is_the_rooflines(flops_per_byte):
    story = story_for(DEFAULT)
    busy, basis = story.figures.busy(flops_per_byte)
    assert basis == "roofline"
    assert busy == roofline.utilisation(story.figures.gpu, story.figures.precision, flops_per_byte)
    assert story.conveyor_state(flops_per_byte).labels["busy"] == f"busy {format_percent(busy)}"


def test_the_fp8_build_halves_the_bytes_and_shows_the_engines_step_times():
    story = story_for(DEFAULT, "fp8")
    fp16, fp8 = what_if(DEFAULT, weights="fp16", batch=1), what_if(DEFAULT, weights="fp8", batch=1)
    assert fp8.decode.bytes_per_token < 0.55 * fp16.decode.bytes_per_token
    # the step saves what the belt saves: FP8's memory and compute time; the per-step framework cost and the
    # all-reduces (16-bit activations) stay the same
    saved = fp16.decode.seconds_per_token - fp8.decode.seconds_per_token
    assert saved == pytest.approx((fp16.decode.memory_seconds + fp16.decode.compute_seconds)
                                  - (fp8.decode.memory_seconds + fp8.decode.compute_seconds), rel=1e-6)
    assert fp8.decode.communication_seconds == pytest.approx(fp16.decode.communication_seconds)
    state = story.conveyor_state(story.target_intensity())
    assert state.labels["step"] == (f"one decode step: {glue_units(format_seconds(fp16.decode.seconds_per_token))}"
                                    f" → {glue_units(format_seconds(fp8.decode.seconds_per_token))}")
    assert "ratio" not in state.labels                     # the step time takes its place over the belt
    assert story.target_intensity() == pytest.approx(intensity_of_decode(fp8))     # FP8 boxes: twice the work
    assert state.peak_flops_per_second == pytest.approx(2 * fp16.peak_flops_per_gpu, rel=1e-3)
    assert 1 - state.utilisation > 0.99                    # and the worker still waits
    assert story.phase() == "fp8" and story.report.weights_precision.id == "fp16"


def test_a_gpu_without_fp8_units_says_so_and_keeps_its_16_bit_worker():
    story = story_for(dataclasses.replace(DEFAULT, gpu="a100-80gb"), "fp8")
    assert story.phase() == "fp8_weight_only"
    assert story.figures.peak == CATALOG.gpu("a100-80gb").flops_per_second["fp16"]
    assert "step" in story.conveyor_state(story.target_intensity()).labels


def test_a_refused_preset_is_a_value_and_leaves_its_point_out():
    story = story_for(NO_PREFILL, "roofline")
    assert isinstance(story.refusal("prefill"), InputError) and story.preset("prefill") is None
    assert story.prefill_intensity is None
    assert [point.key for point in story.roofline_state(story.decode_intensity).points] == ["decode", "control"]
    assert story.phase() == "roofline_without_prefill"
    assert "prefill_intensity" not in story.caption_values()
    with_prefill = story_for(DEFAULT, "roofline")
    prefill = what_if(DEFAULT, prompt_tokens=1000, batch=1)
    assert with_prefill.prefill_intensity == pytest.approx(intensity_of_prefill(prefill))
    assert [p.key for p in with_prefill.roofline_state(1.0).points] == ["decode", "prefill", "control"]


UNIT_AFTER_SPACE = re.compile(r"\d (?:[KMGTP]?B\b|[KMGTP]B/s|[mµ]?s\b|[GMT]?FLOPS?\b|token|FLOP)")
SCENARIOS = [DEFAULT, dataclasses.replace(DEFAULT, mode="ideal"), NO_PREFILL,
             dataclasses.replace(DEFAULT, gpu="a100-80gb"), dataclasses.replace(DEFAULT, gpu="b200", weights="fp8"),
             dataclasses.replace(DEFAULT, weights="int4", gpus=1), Scenario(model="llama-3.1-8b", gpus=1)]


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: f"{s.gpu}-{s.weights}-{s.mode}-{s.output_tokens}")
def test_every_phase_has_a_caption_and_notes_filled_from_the_story(scenario, language):
    for build in BUILDS:
        story = story_for(scenario, build, language)
        values = story.caption_values()
        for kind in ("caption", "notes"):
            template = TEXTS[kind][story.phase()][language]
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


def test_caption_values_are_computed_once_per_story():
    story = story_for(DEFAULT)
    assert story.caption_values() is story.caption_values()


def test_captions_stay_short_in_both_languages():
    """One takeaway each: about two lines of a 1024 x 768 projector (the slide test renders them)."""
    values = dict(story_for(DEFAULT, "fp8").caption_values())
    for phase, entry in TEXTS["caption"].items():
        assert len(entry["en"].format_map(_Longest(values))) <= 140, phase
        assert len(entry["zh"].format_map(_Longest(values))) <= 70, phase


class _Longest(dict):
    def __missing__(self, key):
        return "00.0\u00a0ms"


def test_the_control_on_decode_leaves_the_legend_to_decode():
    story = story_for(DEFAULT, "roofline")
    on_decode = {p.key: p for p in story.roofline_state(story.decode_intensity).points}
    assert not on_decode["control"].in_legend and on_decode["decode"].in_legend
    elsewhere = {p.key: p for p in story.roofline_state(30.0).points}
    assert elsewhere["control"].in_legend


def test_intensities_are_the_engines_and_counts_are_formatted_by_engine_units():
    story = story_for(dataclasses.replace(DEFAULT, gpus=2))
    decode = what_if(DEFAULT, batch=1).decode
    assert story.decode_intensity == decode.flops_per_byte
    assert story.caption_values()["prefill_tokens"] == "1,000" and story.caption_values()["gpus"] == "2"
    assert story.caption_values()["weights_total"] in story.text("notes.decode", **story.caption_values())


# -- the decisions the view used to make by build --------------------------------------------------------------
def test_the_intensity_starts_at_the_ridge_then_at_decode_in_every_build():
    for build in BUILDS:
        story = story_for(DEFAULT, build)
        expected = story.figures.ridge if BUILDS.index(build) < BUILDS.index("decode") else story.decode_intensity
        assert story.target_intensity() == expected, build
    fp8 = story_for(DEFAULT, "fp8")
    assert fp8.target_intensity() == pytest.approx(intensity_of_decode(what_if(DEFAULT, weights="fp8", batch=1)))


def test_a_precision_chosen_during_the_fp8_build_wins_until_the_build_is_left():
    fp8 = story_for(DEFAULT, "fp8")
    assert fp8.fp8_shown and fp8.figures.precision.id == "fp8"
    chosen = fp8.controls_after(dataclasses.replace(DEFAULT, weights="int4"))
    assert chosen == GpuWaitsControls(precision_chosen=True)
    assert fp8.controls_after(dataclasses.replace(DEFAULT, gpu="b200")) == GpuWaitsControls()   # not a precision
    int4 = dataclasses.replace(DEFAULT, weights="int4")
    theirs = story_for(int4, "fp8", controls=chosen)
    assert not theirs.fp8_shown and theirs.figures.precision.id == "int4" and theirs.fp8_label() is None
    assert theirs.subject() == (int4, report_of(int4))
    assert theirs.controls_on_arrival() == chosen                       # still in the fp8 build: theirs still wins
    left = story_for(int4, "roofline", controls=chosen)
    assert left.controls_on_arrival() == GpuWaitsControls()             # another build: the next visit shows FP8
    assert story_for(DEFAULT, "decode").controls_after(int4) == GpuWaitsControls()   # outside the fp8 build: no matter


def test_the_fp8_build_names_its_what_if_in_the_corner_and_among_the_controls():
    fp8 = story_for(DEFAULT, "fp8")
    scenario, report = fp8.subject()
    assert (scenario.weights, scenario.batch) == ("fp8", 1) and report is what_if(DEFAULT, weights="fp8", batch=1)
    assert fp8.fp8_label() == TEXTS["control"]["fp8_override"]["en"].format(scenario="FP16")
    for build in BUILDS:
        if build != "fp8":
            story = story_for(DEFAULT, build)
            assert story.subject() == (DEFAULT, report_of(DEFAULT)) and story.fp8_label() is None, build


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_refused_preset_says_why_in_the_controls_and_an_available_one_says_nothing(language):
    assert story_for(DEFAULT, "stage", language).prefill_preset_tip() == ""
    refused_story = story_for(NO_PREFILL, "stage", language)
    reason = str(refused_story.refusal("prefill"))
    assert refused_story.prefill_preset_tip() == TEXTS["control"]["preset_refused"][language].format(reason=reason)


def test_the_stage_is_the_belts_until_the_roofline_comes_in_beside_it():
    never_asked = lambda: pytest.fail("the belt's labels are asked for only beside the roofline")  # noqa: E731
    for build in BUILDS[:-1]:
        rects = story_for(DEFAULT, build).rects(1000, 500, never_asked)
        assert rects["belt"] == ((0, 0, 1000, 500), True) and not rects["roofline"][1], build
        assert rects["roofline"][0] == (600, 0, 400, 500)        # laid out ahead where it will show
    roofline_story = story_for(DEFAULT, "roofline")
    everything = lambda: set(roofline_story.conveyor_state(1.0).labels)  # noqa: E731
    assert roofline_story.belt_rect(1000, 500) == (0, 0, 600, 500)
    assert roofline_story.rects(1000, 500, everything) == {"belt": ((0, 0, 600, 500), True),
                                                           "roofline": ((600, 0, 400, 500), True)}


def test_a_stage_too_small_for_the_belts_essential_words_shows_the_roofline_alone():
    story = story_for(DEFAULT, "roofline")
    labels = set(story.conveyor_state(1.0).labels)
    narrow = story.rects(390, 300, lambda: pytest.fail("no room for the belt whatever it measures"))
    assert narrow["roofline"] == ((0, 0, 390, 300), True) and not narrow["belt"][1]   # 390 - 156 < 240 px
    without_idle = story.rects(1000, 500, lambda: labels - {"idle"})                # an essential word left out
    assert without_idle["roofline"] == ((0, 0, 1000, 500), True) and not without_idle["belt"][1]
    without_trace = story.rects(1000, 500, lambda: labels - {"trace"})               # an optional one: no matter
    assert without_trace["belt"] == ((0, 0, 600, 500), True)


def test_before_the_roofline_build_the_plot_holds_what_that_build_will_show():
    final = story_for(DEFAULT, "roofline")
    for build in BUILDS[:-1]:
        assert story_for(DEFAULT, build).plot_state(30.0) == final.roofline_state(final.decode_intensity), build
    control = {p.key: p for p in final.plot_state(30.0).points}["control"]
    assert control.flops_per_byte == 30.0 and control.in_legend


def test_a_caption_asks_the_engine_only_for_what_its_build_shows():
    asked = []

    def counting(question, *arguments):
        if question is questions.report:
            asked.append(arguments[0])
        return ANSWERS.ask(question, *arguments)

    weights = lambda: {scenario.weights for scenario in asked}  # noqa: E731
    for build in ("stage", "numbers", "ratio", "decode", "roofline"):
        asked.clear()
        story = story_for(DEFAULT, build, ask=counting)
        story.caption_values()["ridge"], story.conveyor_state(story.target_intensity()), story.phase()
        assert weights() <= {"fp16"} and all(s.batch == 1 for s in asked), build   # no FP8 what-if
    story = story_for(DEFAULT, "fp8", ask=counting)
    story.caption_values()["step_fp8"]
    assert "fp8" in weights()


def test_glue_units_keeps_every_number_with_the_word_after_it():
    assert glue_units("a box every 597 ms") == "a box every 597\u00a0ms"
    assert glue_units("Llama 3.1 70B on 2 GPUs") == "Llama 3.1\u00a070B on 2\u00a0GPUs"
    assert glue_units("ends with 42 ") == "ends with 42 " and glue_units("no numbers here") == "no numbers here"
