"""Scene 3's model without Qt: builds follow the tokens, counters are the engine's, the KV bar is the engine's."""
import dataclasses
import tomllib
from pathlib import Path

import pytest

from desktop.scenes import one_token_model as model
from desktop.what_if import WhatIfs
from engine import Scenario
from engine.catalog import default_catalog
from engine.token_pieces import joined_bytes
from engine.tokens import TOKENIZERS
from engine.units import format_bytes
from widgets.decode_stepper_state import answer_tiles_shown, tile_text

ROOT = Path(__file__).resolve().parents[2]
TEXTS = tomllib.loads((ROOT / "resources" / "text" / "one_token.toml").read_text(encoding="utf-8"))
WHAT_IFS = WhatIfs(default_catalog())
BASE = Scenario(gpus=2)


def text_in(code):
    def text(key, count=None, **values):
        table, name = key.split(".")
        form = TEXTS[table][name][code]
        if isinstance(form, dict):
            form = form["one"] if count == 1 else form["other"]
        if count is not None:
            values["count"] = count
        return form.format(**values)
    return text


EN, ZH = text_in("en"), text_in("zh")
PROMPT, ANSWER = TEXTS["label"]["prompt_text"]["zh"], TEXTS["label"]["answer_text"]["zh"]


def cut_and_report(tokenizer="llama-3", scenario=BASE):
    cut = model.cut_request(tokenizer, PROMPT, ANSWER)
    report = WHAT_IFS.changed(scenario, **model.request_changes(cut))
    return cut, report


def test_default_tokenizer_is_the_models_own():
    assert model.default_tokenizer("llama-3.1-70b") == "llama-3"
    assert model.default_tokenizer("qwen2.5-72b") == "qwen2.5"
    assert model.default_tokenizer("no-such-model") == model.FALLBACK_TOKENIZER


@pytest.mark.parametrize("tokenizer", [info.id for info in TOKENIZERS])
@pytest.mark.parametrize("code", ["zh", "en"])
def test_pieces_join_back_to_the_texts_for_every_tokenizer(tokenizer, code):
    prompt, answer = TEXTS["label"]["prompt_text"][code], TEXTS["label"]["answer_text"][code]
    cut = model.cut_request(tokenizer, prompt, answer)
    assert joined_bytes(cut.prompt) == prompt.encode("utf-8")
    assert joined_bytes(cut.answer) == answer.encode("utf-8")
    names = model.build_names(cut)
    assert len(names) == len(cut.answer) + 2 + len(model.MISCONCEPTIONS)
    assert [model.phase_of(name) for name in names].count("step") == len(cut.answer) - 1
    assert len(set(names)) == len(names)


def test_the_request_asked_of_the_engine_is_this_one():
    cut, report = cut_and_report()
    assert report.scenario.batch == 1
    assert report.scenario.prompt_tokens == len(cut.prompt)
    assert report.scenario.output_tokens == len(cut.answer) + 1
    assert report.scenario.gpus == BASE.gpus and report.scenario.model == BASE.model


def step_report(cut, n, scenario=BASE):
    """The engine's report for the request stopped after ``n`` passes (None before the first), as the scene asks."""
    return WHAT_IFS.changed(scenario, **model.request_changes(cut, n)) if n >= 1 else None


@pytest.mark.parametrize("tokenizer", ["llama-3", "gpt2", "qwen2.5"])
def test_after_n_passes_n_answer_tokens_and_the_engines_counters(tokenizer):
    cut, report = cut_and_report(tokenizer)
    for n in range(cut.passes + 1):
        step = step_report(cut, n)
        state = model.stepper_state(cut, report, n, 1.0, step, "Llama", EN)
        assert answer_tiles_shown(state) == min(n, len(cut.answer))
        assert (state.tiles[-1].role == "end") == (n == cut.passes)
        # the engine's report for the request stopped after n passes: its time, its bytes
        expected_bytes = 0.0 if n == 0 else step.prefill.bytes + (n - 1) * step.decode.bytes_per_token
        assert model.bytes_read(step, n) == pytest.approx(expected_bytes, rel=1e-12)
        assert model.gpu_seconds(step, n) == (0.0 if n == 0 else step.total_seconds)
        counters = {c.key: c.text for c in state.counters}
        assert counters["step"] == f"pass {n} of {cut.passes}"
        assert counters["kv"].endswith(format_bytes(step.kv_bytes if step else 0.0))
    # all passes together are the engine's whole request
    assert model.gpu_seconds(step_report(cut, cut.passes), cut.passes) == report.total_seconds
    assert model.bytes_read(step_report(cut, cut.passes), cut.passes) == model.bytes_read(report, cut.passes)


def test_each_pass_after_the_prefill_adds_one_decode_step():
    cut, report = cut_and_report()
    assert model.gpu_seconds(step_report(cut, 1), 1) == pytest.approx(report.ttft_seconds)
    assert model.bytes_read(step_report(cut, 1), 1) == pytest.approx(report.prefill.bytes)
    for n in range(2, cut.passes + 1):
        added_seconds = model.gpu_seconds(step_report(cut, n), n) - model.gpu_seconds(step_report(cut, n - 1), n - 1)
        added_bytes = model.bytes_read(step_report(cut, n), n) - model.bytes_read(step_report(cut, n - 1), n - 1)
        # one decode step at this context: about the mean step, a little more as the cache grows
        assert added_seconds == pytest.approx(report.tpot_seconds, rel=0.05) and added_seconds > 0
        assert added_bytes == pytest.approx(report.decode.bytes_per_token, rel=0.01) and added_bytes > 0


def test_the_new_token_is_the_last_tile_and_the_newest_goes_in():
    cut, report = cut_and_report("qwen2.5")
    state = model.stepper_state(cut, report, 1, 1.0, None, "m", ZH)
    assert state.new_tile == len(cut.prompt)
    assert all(tile.enters for tile in state.tiles[:len(cut.prompt)])     # prefill: the whole prompt
    assert tile_text(state.tiles[state.new_tile]) == "江南"
    state = model.stepper_state(cut, report, 3, 1.0, None, "m", ZH)
    entering = [n for n, tile in enumerate(state.tiles) if tile.enters]
    assert entering == [len(cut.prompt) + 1]                               # decode: the newest token only
    assert state.new_tile == len(cut.prompt) + 2


def test_reset_build_shows_the_prompt_only():
    cut, report = cut_and_report()
    state = model.stepper_state(cut, report, 0, 1.0, None, "m", EN)
    assert [tile.role for tile in state.tiles] == ["prompt"] * len(cut.prompt)
    assert state.new_tile == -1 and not state.model_busy
    assert "belt" not in state.labels


def test_cut_characters_show_bytes_and_their_character():
    cut, report = cut_and_report("llama-3")
    state = model.stepper_state(cut, report, cut.passes, 1.0, None, "m", ZH)
    parts = [part for tile in state.tiles for part in tile.parts if part.partial]
    assert parts and parts[0].text == "E6 9D" and parts[0].part_of == "（杭）"
    assert not any("\ufffd" in part.text for tile in state.tiles for part in tile.parts)


def test_kv_segment_is_the_engines_for_the_context_so_far():
    cut, report = cut_and_report()
    for n in (1, 4, cut.passes):
        step = WHAT_IFS.changed(BASE, **model.request_changes(cut, n))
        state = model.memory_state(step, report, EN)
        kv = next(s for s in state.bars[0].segments if s.key == "kv")
        assert kv.bytes == step.kv_bytes_per_gpu
        # the engine's KV for prompt + n tokens, on each of the GPUs
        assert kv.bytes == pytest.approx(report.kv_bytes_per_token * (len(cut.prompt) + n) / BASE.gpus)
    final = model.memory_state(WHAT_IFS.changed(BASE, **model.request_changes(cut, cut.passes)), report, EN)
    assert next(s for s in final.bars[0].segments if s.key == "kv").bytes == report.kv_bytes_per_gpu
    empty = model.memory_state(None, report, EN)
    assert next(s for s in empty.bars[0].segments if s.key == "kv").bytes == 0.0


def test_misconceptions_each_have_their_own_picture():
    cut, report = cut_and_report()
    names = model.build_names(cut)
    why = model.stepper_state(cut, report, names.index("why_decode"), 1.0, None, "m", EN)
    assert answer_tiles_shown(why) == 1 and sum(t.role == "future" for t in why.tiles) == cut.passes - 1
    assert why.labels["banner"]
    plan = model.stepper_state(cut, report, names.index("no_plan"), 1.0, None, "m", EN)
    assert answer_tiles_shown(plan) == model.NO_PLAN_ANSWER_TOKENS
    assert any(t.role == "future" for t in plan.tiles)
    same = model.stepper_state(cut, report, names.index("same_computation"), 1.0, None, "m", EN)
    assert same.picture == "compare" and [row.key for row in same.rows] == ["prefill", "decode"]
    assert len(same.rows[0].inputs) == len(cut.prompt) and len(same.rows[1].inputs) == 1


def test_no_probabilities_are_shown_anywhere():
    cut, report = cut_and_report()
    for build in range(len(model.build_names(cut))):
        state = model.stepper_state(cut, report, build, 1.0, None, "m", EN)
        words = " ".join(state.labels.values()).lower()
        assert "%" not in words and "probab" not in words


def test_caption_values_fill_every_caption_and_note():
    cut, report = cut_and_report()
    for build, name in enumerate(model.build_names(cut)):
        values = model.caption_values(cut, report, build, 2.0, "Llama 3.1 70B",
                                      step_report(cut, model.passes_at(cut, build)))
        for code in ("en", "zh"):
            for table in ("caption", "notes"):
                assert "{" not in TEXTS[table][model.phase_of(name)][code].format(**values)
    values = model.caption_values(cut, report, 1, 1.0, "m", step_report(cut, 1))
    assert values["token"] == "江" and values["first_token"] == "江"


def test_screen_time_follows_the_speed():
    assert model.screen_seconds(4, 2.0) == 2.0
    cut, report = cut_and_report()
    slow = {c.key: c.text for c in model.stepper_state(cut, report, 2, 0.5, step_report(cut, 2), "m", EN).counters}
    assert slow["screen_time"] == "on screen: 4 s"


def test_a_scenario_that_does_not_fit_still_gives_states():
    cut, report = cut_and_report(scenario=dataclasses.replace(BASE, gpus=1))
    assert not report.fits
    bar = model.memory_state(report, report, EN).bars[0]
    assert bar.over_label and not bar.free_label


def test_nothing_yet_reads_zero_seconds():
    cut, report = cut_and_report()
    shown = {c.key: c.text for c in model.stepper_state(cut, report, 0, 1.0, None, "m", EN).counters}
    assert shown["gpu_time"] == "GPU time: 0 s" and shown["screen_time"] == "on screen: 0 s"


def test_while_loading_the_question_shows_uncut():
    state = model.loading_state(PROMPT, ZH)
    assert [part.text for tile in state.tiles for part in tile.parts] == [PROMPT]
    assert state.labels["context"] == TEXTS["control"]["loading"]["zh"]


def test_the_free_memory_shown_is_the_engines_for_the_context_so_far():
    cut, report = cut_and_report()
    for n in (1, 4, cut.passes):
        step = step_report(cut, n)
        bar = model.memory_state(step, report, EN).bars[0]
        assert bar.free_label == EN("label.bar_free", bytes=format_bytes(step.free_bytes_per_gpu))
    # before the first pass: no cache yet, so the request's free memory plus its cache
    bar = model.memory_state(None, report, EN).bars[0]
    assert bar.free_label == EN("label.bar_free", bytes=format_bytes(report.free_bytes_per_gpu + report.kv_bytes_per_gpu))


def test_the_bar_names_the_runtime_allowance_too():
    cut, report = cut_and_report()
    bar = model.memory_state(report, report, EN).bars[0]
    runtime = next(s for s in bar.segments if s.key == "runtime")
    assert runtime.label == f"runtime {format_bytes(report.overhead_bytes_per_gpu)}"
