"""Scene 2's story without Qt: the bars carry the engine's numbers, overflow exactly when it does not fit.

Past one node the bars follow the report's layout; the nodes build's costs and the formulas of the notes are
the engine's (``tests/desktop/test_model_memory_nodes.py``)."""
from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest

from desktop.kit import questions
from desktop.scenes.model_memory import bars, figures as mm_figures, story as mm
from tests.desktop.stories import ANSWERS, scene_text
from engine import InputError, Scenario
from engine.catalog import default_catalog
from engine.compute import counts_for
from engine.units import format_bytes
from widgets.memory_bars_state import free_bytes, overflow_bytes, overflows, used_bytes

ROOT = Path(__file__).resolve().parents[2]
TEXTS = tomllib.loads((ROOT / "resources" / "text" / "model_memory.toml").read_text(encoding="utf-8"))
BASE = Scenario(gpus=2)          # the app's default shared scenario


def text_in(code: str):
    return scene_text("model_memory", code)


EN = text_in("en")
ASK = ANSWERS.ask


def report(**changes):
    result = ANSWERS.ask(questions.report, dataclasses.replace(BASE, **changes))
    assert not isinstance(result, InputError), result
    return result


def story_results(base: Scenario = BASE) -> dict:
    results = {phase: ANSWERS.ask(questions.report, mm.story_scenario(base, phase)) for phase in mm.BUILD_CHANGES}
    results["explore"] = ANSWERS.ask(questions.report, base)
    return results


# Dense MHA, dense GQA, MoE, MLA + MoE; several precisions and GPU counts (some fit, some do not).
CASES = [
    dict(model="llama-2-13b", weights="fp16", gpus=1),
    dict(model="llama-2-13b", weights="fp32", kv="fp32", gpus=1, gpu="a100-40gb"),
    dict(model="llama-3.1-70b", weights="fp16", gpus=1),
    dict(model="llama-3.1-70b", weights="fp8", gpus=1),
    dict(model="llama-3.1-70b", weights="int4", kv="fp8", gpus=4, batch=64, prompt_tokens=8000),
    dict(model="mixtral-8x7b", weights="bf16", gpus=2),
    dict(model="mixtral-8x7b", weights="int8", gpus=8, gpu="l40s"),
    dict(model="deepseek-v3", weights="fp8", gpus=8),
    dict(model="deepseek-v3", weights="fp8", gpus=8, gpu="h200"),
    dict(model="qwen2.5-72b", weights="int4", gpus=1, gpu="rtx-4090"),
    dict(model="llama-3.1-8b", weights="fp16", gpus=1, batch=4096, prompt_tokens=100_000),
]


@pytest.mark.parametrize("changes", CASES, ids=lambda c: "-".join(str(v) for v in c.values()))
def test_each_bar_holds_exactly_the_engines_numbers(changes):
    r = report(**changes)
    shown = bars.gpu_bars(r, EN)
    assert len(shown) == changes["gpus"]
    for bar in shown:
        sizes = {segment.key: segment.bytes for segment in bar.segments}
        assert sizes == {"weights": r.weights_bytes_per_gpu, "kv": r.kv_bytes_per_gpu,
                         "runtime": r.overhead_bytes_per_gpu}
        assert bar.capacity_bytes == r.hbm_bytes_per_gpu
        assert used_bytes(bar) == pytest.approx(r.used_bytes_per_gpu, rel=1e-12)
        assert free_bytes(bar) == pytest.approx(r.free_bytes_per_gpu, rel=1e-9, abs=1.0)
        assert overflows(bar) == (not r.fits)
        assert bool(bar.over_label) == (not r.fits) and bool(bar.free_label) == r.fits
        if not r.fits:
            assert overflow_bytes(bar) == pytest.approx(-r.free_bytes_per_gpu, rel=1e-9)
            assert format_bytes(-r.free_bytes_per_gpu) in bar.over_label


def test_overflow_follows_fits_right_at_the_edge():
    """Grow the batch until the engine flips from fits to does not fit: the bar flips at the same step."""
    seen = set()
    for batch in range(1, 40):
        r = report(model="llama-3.1-70b", weights="fp8", gpus=1, batch=batch)
        bar = bars.gpu_bars(r, EN)[0]
        assert overflows(bar) == (not r.fits), batch
        seen.add(r.fits)
    assert seen == {True, False}


def test_more_than_eight_gpus_of_one_node_show_one_bar_for_each_of_them():
    r = report(model="llama-3.1-70b", gpus=16, gpu="gb200")        # one NVL72 rack: 72 GPUs a node
    assert r.nodes == 1
    shown = bars.gpu_bars(r, EN)
    assert len(shown) == 1 and "16" in shown[0].name
    assert shown[0].segments[0].bytes == r.weights_bytes_per_gpu


def test_the_builds_tell_the_seeds_story_and_keep_the_shared_fields():
    base = dataclasses.replace(BASE, batch=3, prompt_tokens=2000, kv="fp8", mode="ideal")
    for phase in mm.BUILD_CHANGES:
        s = mm.story_scenario(base, phase)
        assert (s.batch, s.prompt_tokens, s.output_tokens, s.kv, s.mode) == (3, 2000, 500, "fp8", "ideal")
        assert s.gpu == "h800"
    results = story_results()
    problem = results["problem"]
    assert (problem.scenario.model, problem.scenario.weights, problem.scenario.gpus) == ("llama-3.1-70b", "fp16", 1)
    assert not problem.fits and format_bytes(problem.weights_bytes) == "141 GB"
    assert format_bytes(problem.hbm_bytes_per_gpu) == "80 GB"
    values = mm.shown_values(results, "problem", EN, ASK)
    assert values["weights_over"] == "61.1 GB"          # 141 GB of weights against 80 GB
    # quantised, the layers' matrices shrink to the format's bytes (INT4 with its group scales); the embedding,
    # LM head and norms stay 16-bit, as quantised checkpoints ship them
    counts = counts_for(default_catalog().model("llama-3.1-70b"))
    sixteen_bit = counts.embedding + counts.lm_head + counts.norms
    for build in ("quantise", "int4"):
        r = results[build]
        narrow = (counts.total - sixteen_bit) * r.weights_precision.bytes_per_value
        assert r.weights_bytes == pytest.approx(narrow + 2 * sixteen_bit)
    assert results["quantise"].fits and results["quantise"].weights_bytes < 0.55 * problem.weights_bytes
    assert results["int4"].weights_bytes < 0.6 * results["quantise"].weights_bytes
    assert results["split"].scenario.gpus == 2 and results["split"].fits
    assert results["smaller"].scenario.model == "llama-3.1-8b" and results["smaller"].fits


def test_the_verdict_reads_fits_with_free_and_tokens_or_over():
    fits = report(model="llama-3.1-70b", weights="fp8", gpus=1)
    line, role = bars.verdict(fits, EN, str)
    assert role == "good"
    assert format_bytes(fits.free_bytes_per_gpu) in line
    assert not fits.longest_context_capped
    more = fits.longest_context_tokens - (fits.scenario.prompt_tokens + fits.scenario.output_tokens)
    assert f"{more:,}" in line and "batch 1" in line and "maximum" not in line
    over = report(model="llama-3.1-70b", weights="fp16", gpus=1)
    line, role = bars.verdict(over, EN, str)
    assert role == "warning" and line == f"Does not fit: {format_bytes(-over.free_bytes_per_gpu)} over"
    refusal = ANSWERS.ask(questions.report, dataclasses.replace(BASE, gpus=3))
    assert isinstance(refusal, InputError)
    line, role = bars.verdict(refusal, EN, lambda error: "refused: " + str(error))
    assert role == "warning" and line.startswith("refused: ") and "3" in line


def test_a_refusal_shows_no_bars_and_says_why():
    refusal = ANSWERS.ask(questions.report, dataclasses.replace(BASE, gpus=3))
    state = bars.bars_state(refusal, EN, str, 100e9)
    assert state.bars == () and state.footer == str(refusal) and state.footer_role == "warning"


def test_stage_states_per_phase():
    results = story_results()
    states = {phase: mm.stage_states(results, phase, EN, str) for phase in mm.BUILDS}
    assert [len(s) for s in states.values()] == [3 if phase == "compare" else 1 for phase in mm.BUILDS]
    story_scale = states["problem"][0].scale_bytes
    assert story_scale >= used_bytes(states["problem"][0].bars[0])
    for phase in ("quantise", "int4", "split", "nodes", "smaller"):
        assert states[phase][0].scale_bytes == story_scale
    ways_scale = mm.scale_for([results[way] for way in mm.WAYS])
    assert all(state.scale_bytes == ways_scale and state.aligned_rows for state in states["compare"])
    assert states["split"][0].link_label == "NVLink 4 · 400 GB/s"
    assert states["problem"][0].link_label == ""
    compare = states["compare"]
    assert [len(state.bars) for state in compare] == [1, 2, 1]
    assert [state.footer for state in compare] == [EN(f"label.cost_{way}") for way in mm.WAYS]
    explore = states["explore"][0]
    assert len(explore.bars) == BASE.gpus and explore.footer == bars.verdict(results["explore"], EN, str)[0]


def test_links_name_the_cards_own_link_or_pcie():
    assert bars.link_parts(report(gpus=2)) == ("NVLink 4", "400 GB/s")
    assert bars.link_parts(report(gpus=2, gpu="l40s", model="llama-3.1-8b"))[0].startswith("PCIe")
    assert bars.link_parts(report(gpus=4, gpu="h100-pcie", model="llama-3.1-8b"))[0].startswith("PCIe")
    assert bars.link_parts(report(gpus=2, gpu="h100-pcie", model="llama-3.1-8b"))[0].startswith("NVLink")
    assert bars.link_label(report(gpus=1, model="llama-3.1-8b"), EN) == ""


@pytest.mark.parametrize("code", ("en", "zh"))
def test_every_caption_and_note_fills_in_for_every_phase(code):
    text = text_in(code)
    results = story_results()
    for phase in mm.BUILDS:
        values = mm.shown_values(results, phase, text, ASK)
        for kind in ("caption", "notes"):
            filled = TEXTS[kind][phase][code].format_map(values)
            assert "{" not in filled and filled


def test_one_bar_builder_serves_every_scene():
    """``memory_bar_model``: the report's own figures, or another KV cache with its free memory."""
    from desktop.scenes.memory_bar_model import BarName, memory_bars_state
    shown = report()
    label = lambda kind, n_bytes: f"{kind} {n_bytes:.0f}"        # noqa: E731
    state = memory_bars_state(shown, label, (BarName("GPU 1", "1"), BarName("GPU 2", "2")), scale_bytes=1.0)
    first, second = state.bars
    assert [s.bytes for s in first.segments] == [shown.weights_bytes_per_gpu, shown.kv_bytes_per_gpu,
                                                 shown.overhead_bytes_per_gpu]
    assert free_bytes(first) == pytest.approx(shown.free_bytes_per_gpu)
    assert first.capacity_label and not second.capacity_label and second.short_name == "2"
    empty = memory_bars_state(shown, label, BarName("GPU"), kv_bytes_per_gpu=0.0).bars[0]
    assert empty.segments[1].bytes == 0.0 and free_bytes(empty) == pytest.approx(empty.capacity_bytes
                                                                                 - shown.weights_bytes_per_gpu
                                                                                 - shown.overhead_bytes_per_gpu)
    given = memory_bars_state(shown, label, BarName("GPU"), kv_bytes_per_gpu=1e9, free_bytes_per_gpu=-5e9).bars[0]
    assert given.over_label == "over 5000000000" and not given.free_label


def test_the_notes_say_by_how_much_an_option_is_over_never_zero_free():
    """At batch 16 with 8,000 + 1,000 tokens, FP8 on one H800 is over: the notes said "0 B free"."""
    from desktop.scenes.model_memory.story import ModelMemoryStory
    from tests.desktop.stories import story
    scenario = dataclasses.replace(BASE, batch=16, prompt_tokens=8000, output_tokens=1000)
    told = story(ModelMemoryStory, scenario, mm.BUILDS.index("compare"), "", "en", "model_memory")
    quantise = told.results["quantise"]
    assert not quantise.fits
    values = told.note_values()
    assert values["quantise_room"] == f"over by {format_bytes(-quantise.free_bytes_per_gpu)}"
    notes = TEXTS["notes"]["compare"]["en"].format_map(values)
    assert "over by" in notes and "0 B free" not in notes


@pytest.mark.parametrize("changes", CASES)
def test_free_memory_stops_at_zero_and_what_does_not_fit_is_over(changes):
    """The boundary, decided in ``figures``: "free" is what is left on a card, never below 0; a shortfall is
    said as "over" (and the weights' own shortfall as "weights_over")."""
    r = report(**changes)
    left = r.hbm_bytes_per_gpu - r.used_bytes_per_gpu
    values = mm_figures.figures(r, EN, ASK)
    assert values["free"] == format_bytes(max(left, 0.0)) and values["over"] == format_bytes(max(-left, 0.0))
    assert values["weights_over"] == format_bytes(max(r.weights_bytes_per_gpu - r.hbm_bytes_per_gpu, 0.0))



@pytest.mark.parametrize("code", ["en", "zh"])
def test_the_notes_count_one_sequence_as_one(code):
    """At the default batch of 1 the notes (and the handout) said "× 1 sequences"."""
    from tests.desktop.stories import story
    texts = []
    for build in range(len(mm.BUILDS)):
        s = story(mm.ModelMemoryStory, BASE, build, language=code, key="model_memory")
        texts.append(s.text(f"notes.{s.phase()}", **s.note_values()))
    joined = "\n".join(texts)
    if code == "en":
        assert "× 1 sequence " in joined and "1 sequences" not in joined
    else:
        assert "× 1\u00a0条序列" in joined and "{" not in joined
