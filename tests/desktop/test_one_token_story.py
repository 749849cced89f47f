"""The story of "one token at a time" without Qt: builds follow the cut, the rest of the answer plays by itself,
counters and the KV bar are the engine's."""
import dataclasses
import math
import tomllib
from pathlib import Path

import pytest

from desktop.kit import questions
from desktop.kit.answers import Answers
from desktop.kit.story import Inputs
from desktop.scenes.one_token import pictures
from desktop.scenes.one_token.story import (
    BARS_AT_PROGRESS, DEFAULT_SPEED, NO_PLAN_ANSWER_TOKENS, PHASES, SPEEDS_TOKENS_PER_SECOND, OneTokenChoices,
    OneTokenStory, build_names, pass_share, phase_of, plays_on, retimed,
)
from engine import Scenario
from engine.catalog import default_catalog
from engine.token_pieces import joined_bytes
from engine.tokens import TOKENIZERS
from engine.units import format_bytes
from widgets.decode_stepper_state import answer_tiles_shown, tile_text
from widgets.playback import Playback

ROOT = Path(__file__).resolve().parents[2]
TEXTS = tomllib.loads((ROOT / "resources" / "text" / "one_token.toml").read_text(encoding="utf-8"))
ASK = Answers(default_catalog()).ask
BASE = Scenario(gpus=2)
MISCONCEPTIONS = pictures.MISCONCEPTIONS


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


def cut_of(tokenizer="llama-3", code="zh"):
    return pictures.cut_request(tokenizer, TEXTS["label"]["prompt_text"][code], TEXTS["label"]["answer_text"][code])


def story(build=0, cut="llama-3", scenario=BASE, code="zh", speed=DEFAULT_SPEED, tokenizer=None):
    """The story at ``build`` (an index or a name) with the zh texts cut by ``cut`` (a tokenizer id, a cut, or
    None: still loading)."""
    cut = cut_of(cut, code) if isinstance(cut, str) else cut
    text = text_in(code)
    made = OneTokenStory(Inputs(scenario, ASK(questions.report, scenario), 0, ASK, text,
                                controls=OneTokenChoices(tokenizer, speed, cut)))
    index = made.build_names().index(build) if isinstance(build, str) else build
    return OneTokenStory(made.inputs.at_build(index))


def engine_report(scenario, **changes):
    return ASK(questions.report, dataclasses.replace(scenario, **changes))


def step_report(cut, n, scenario=BASE):
    """The engine's report for the request stopped after ``n`` passes (None before the first), as the story asks."""
    return engine_report(scenario, **pictures.request_changes(cut, n)) if n >= 1 else None


# -- the cut and the builds ------------------------------------------------------------------------------
def test_default_tokenizer_is_the_models_own_and_a_chosen_one_wins():
    assert pictures.default_tokenizer("llama-3.1-70b") == "llama-3"
    assert pictures.default_tokenizer("qwen2.5-72b") == "qwen2.5"
    assert pictures.default_tokenizer("no-such-model") == pictures.FALLBACK_TOKENIZER
    assert story().tokenizer == "llama-3" and story(tokenizer="gpt2").tokenizer == "gpt2"


def test_the_cut_wanted_follows_the_tokenizer_and_the_language():
    assert story().cut_is_current
    assert not story(tokenizer="gpt2").cut_is_current                   # chosen, not cut yet
    assert not story(code="en", cut=cut_of("llama-3", "zh")).cut_is_current   # the other language's texts
    assert story(cut=None).wanted_cut() == ("llama-3", PROMPT, ANSWER)


@pytest.mark.parametrize("tokenizer", [info.id for info in TOKENIZERS])
@pytest.mark.parametrize("code", ["zh", "en"])
def test_pieces_join_back_and_the_builds_are_two_passes_then_the_rest(tokenizer, code):
    cut = cut_of(tokenizer, code)
    assert joined_bytes(cut.prompt) == TEXTS["label"]["prompt_text"][code].encode("utf-8")
    assert joined_bytes(cut.answer) == TEXTS["label"]["answer_text"][code].encode("utf-8")
    assert build_names(cut) == ("prompt", "prefill", "step_2", "rest", *MISCONCEPTIONS)
    assert {phase_of(name) for name in build_names(cut)} <= set(PHASES)


def test_a_short_answer_still_ends_with_the_rest_of_it():
    short = dataclasses.replace(cut_of(), answer=cut_of().answer[:1])
    assert build_names(short) == ("prompt", "prefill", "rest", *MISCONCEPTIONS)
    assert story("rest", cut=short).span() == (2, 2)                    # the end marker alone


def test_while_the_cut_loads_there_is_one_build_and_the_question_shows_uncut():
    loading = story(cut=None)
    assert loading.build_names() == ("loading",) and loading.build_count == 1 and loading.phase() == "loading"
    state = loading.stepper_state()
    assert [part.text for tile in state.tiles for part in tile.parts] == [PROMPT]
    assert state.labels["context"] == TEXTS["control"]["loading"]["zh"]
    assert loading.memory_state() is None and loading.request is None
    assert loading.caption_values()["tokenizer"] == "Llama 3"               # as every stage names it
    assert loading.subject() == (BASE, loading.report)


def test_each_build_shows_its_passes_and_the_rest_shows_its_end_when_still():
    cut = cut_of()
    shown = {name: story(name).passes_at() for name in build_names(cut)}
    assert shown == {"prompt": 0, "prefill": 1, "step_2": 2, "rest": cut.passes, "why_decode": 1,
                     "no_plan": NO_PLAN_ANSWER_TOKENS, "same_computation": cut.passes}
    rest = story("rest")
    assert rest.span() == (3, cut.passes)
    assert [rest.passes_at(p) for p in (0.0, 3.0, 3.99, 5.5, cut.passes + 0.7, 99.0)] == \
        [3, 3, 3, 5, cut.passes, cut.passes]


def test_the_request_asked_of_the_engine_is_this_one():
    made = story()
    request, cut = made.request, made.cut
    assert request.scenario.batch == 1 and request.scenario.prompt_tokens == len(cut.prompt)
    assert request.scenario.output_tokens == len(cut.answer) + 1
    assert request.scenario.gpus == BASE.gpus and request.scenario.model == BASE.model
    assert made.subject() == (request.scenario, request) and made.refusal_note() == ""


# -- how each build plays -----------------------------------------------------------------------------------
def test_a_pass_build_stepped_to_plays_its_pass_and_the_rest_plays_to_the_end_marker():
    cut, share = cut_of(), pass_share(DEFAULT_SPEED)
    assert story("prompt").entry() is None and all(story(name).entry() is None for name in MISCONCEPTIONS)
    assert story("prefill").entry() == (1.0, 1 + share)
    assert story("step_2").entry() == (2.0, 2 + share)
    assert story("rest").entry() == (3.0, cut.passes + share)
    # the rest, played on the scene clock: a pass a second at speed 1, each pass's animation in its first share
    rest = story("rest")
    playback = Playback(*rest.entry(), DEFAULT_SPEED, position=3.0)
    playback.play(10.0)
    assert rest.passes_at(playback.position(10.0)) == 3 and rest.pass_progress(playback.position(10.0)) == 0.0
    assert rest.pass_progress(playback.position(10.0 + share / 2)) == pytest.approx(0.5)
    for k in range(cut.passes - 3):
        assert rest.passes_at(playback.position(10.0 + k + 0.5)) == 3 + k and plays_on(playback, 10.0 + k + 0.5)
    last_begins = 10.0 + cut.passes - 3
    assert rest.passes_at(playback.position(last_begins)) == cut.passes
    assert not plays_on(playback, last_begins) and playback.playing(last_begins)   # the end marker's animation
    assert not playback.playing(last_begins + share) and rest.pass_progress(playback.position(99.0)) == 1.0


def test_the_share_of_a_pass_its_animation_takes_follows_the_speed():
    assert [pass_share(s) for s in SPEEDS_TOKENS_PER_SECOND] == pytest.approx([0.3, 0.6, 0.8, 0.8])
    assert story(speed=2.0).pass_share == pytest.approx(0.8)


def test_step_goes_one_pass_forward_into_the_rest_and_stops_at_the_end_marker():
    cut, share = cut_of(), pass_share(DEFAULT_SPEED)
    rest = build_names(cut).index("rest")
    assert story("prompt").step_target(None) == (1, 1.0, 1 + share)
    assert story("prefill").step_target(None) == (2, 2.0, 2 + share)
    assert story("step_2").step_target(None) == (rest, 3.0, 3 + share)
    assert story("rest").step_target(4.2) == (rest, 5.0, 5 + share)      # mid-pass: the next pass
    assert story("rest").step_target(None) is None                          # at the end marker
    assert all(story(name).step_target(None) is None for name in MISCONCEPTIONS)


def test_play_goes_on_from_where_the_stage_is_and_from_the_prompt_again_at_the_end():
    share = pass_share(DEFAULT_SPEED)
    assert story("prompt").play_from(None) == pytest.approx(share)         # the prompt, whole
    assert story("step_2").play_from(None) == pytest.approx(2 + share)
    assert story("rest").play_from(5.3) == 5.3                              # a playback stands there
    assert story("rest").play_from(None) is None                            # the end marker: from the prompt
    assert all(story(name).play_from(None) is None for name in MISCONCEPTIONS)


def test_a_playback_from_the_prompt_walks_the_pass_builds():
    prompt, cut = story("prompt"), cut_of()
    rest = build_names(cut).index("rest")
    assert [prompt.build_at(p) for p in (None, 0.5, 1.0, 2.7, 3.0, cut.passes + 0.8)] == [0, 0, 1, 2, rest, rest]
    assert story("why_decode").build_at(5.0) == build_names(cut).index("why_decode")   # still pictures stay


def test_a_new_cut_keeps_the_misconception_or_the_pass_as_far_as_the_answer_goes():
    gpt2 = story(cut="gpt2")
    names = gpt2.build_names()
    assert gpt2.place_of("no_plan", 3) == (names.index("no_plan"), None)
    assert gpt2.place_of("loading", 0) == (0, None)
    assert gpt2.place_of("step_2", 2) == (2, None)
    assert gpt2.place_of("rest", 4) == (names.index("rest"), 4)             # inside the rest: that pass
    assert gpt2.place_of("rest", gpt2.cut.passes) == (names.index("rest"), None)   # its end: the build's own
    short = story(cut=dataclasses.replace(cut_of(), answer=cut_of().answer[:3]))
    assert short.place_of("rest", 9) == (short.build_names().index("rest"), None)   # past its end marker


def test_a_new_speed_keeps_the_pass_where_its_animation_is_and_the_last_pass():
    slow, fast = pass_share(0.5), pass_share(2.0)
    playback = Playback(3.0, 9 + slow, 0.5, position=3.0)
    playback.play(0.0)
    at = 2.0 + slow / 2 / 0.5                  # pass 4, halfway through its animation
    again = retimed(playback, at, slow, fast, 2.0)
    assert again.rate == 2.0 and again.end == pytest.approx(9 + fast)
    assert again.position(at) == pytest.approx(4 + fast / 2) and again.playing(at)
    paused = Playback(5.0, 5 + slow, 0.5, position=5 + slow)                # a step done: at rest
    assert retimed(paused, 1.0, slow, fast, 2.0).position(1.0) == pytest.approx(5 + fast)
    assert not retimed(paused, 1.0, slow, fast, 2.0).playing(1.0)


# -- the pictures, against the engine --------------------------------------------------------------------------
def at_passes(cut, n, speed=1.0, code="en"):
    """The story showing ``n`` passes (the build of that pass, the playback standing there, whole)."""
    base = story(0, cut=cut, speed=speed, code=code)
    build = base.build_of_passes(n)
    return story(build, cut=cut, speed=speed, code=code), n + pass_share(speed)


@pytest.mark.parametrize("tokenizer", ["llama-3", "gpt2", "qwen2.5"])
def test_after_n_passes_n_answer_tokens_and_the_engines_counters(tokenizer):
    cut = cut_of(tokenizer)
    for n in range(cut.passes + 1):
        shown, position = at_passes(cut, n)
        state, step = shown.stepper_state(position), step_report(cut, n)
        assert answer_tiles_shown(state) == min(n, len(cut.answer))
        assert (state.tiles[-1].role == "end") == (n == cut.passes)
        # the engine's report for the request stopped after n passes: its time, its bytes
        expected_bytes = 0.0 if n == 0 else step.prefill.bytes + (n - 1) * step.decode.bytes_per_token
        assert pictures.bytes_read(step, n) == pytest.approx(expected_bytes, rel=1e-12)
        assert pictures.gpu_seconds(step, n) == (0.0 if n == 0 else step.total_seconds)
        counters = {c.key: c.text for c in state.counters}
        assert counters["step"] == f"pass {n} of {cut.passes}"
        assert counters["kv"].endswith(format_bytes(step.kv_bytes if step else 0.0))
    # all passes together are the engine's whole request
    report = story(cut=cut).request
    assert pictures.gpu_seconds(step_report(cut, cut.passes), cut.passes) == report.total_seconds
    assert pictures.bytes_read(step_report(cut, cut.passes), cut.passes) == pictures.bytes_read(report, cut.passes)


def test_each_pass_after_the_prefill_adds_one_decode_step():
    cut = cut_of()
    report = story().request
    assert pictures.gpu_seconds(step_report(cut, 1), 1) == pytest.approx(report.ttft_seconds)
    assert pictures.bytes_read(step_report(cut, 1), 1) == pytest.approx(report.prefill.bytes)
    for n in range(2, cut.passes + 1):
        added_seconds = pictures.gpu_seconds(step_report(cut, n), n) - pictures.gpu_seconds(step_report(cut, n - 1),
                                                                                            n - 1)
        added_bytes = pictures.bytes_read(step_report(cut, n), n) - pictures.bytes_read(step_report(cut, n - 1), n - 1)
        # one decode step at this context: about the mean step, a little more as the cache grows
        assert added_seconds == pytest.approx(report.tpot_seconds, rel=0.05) and added_seconds > 0
        assert added_bytes == pytest.approx(report.decode.bytes_per_token, rel=0.01) and added_bytes > 0


def test_the_new_token_is_the_last_tile_and_the_newest_goes_in():
    cut = cut_of("qwen2.5")
    state = story("prefill", cut=cut).stepper_state()
    assert state.new_tile == len(cut.prompt)
    assert all(tile.enters for tile in state.tiles[:len(cut.prompt)])     # prefill: the whole prompt
    assert tile_text(state.tiles[state.new_tile]) == "江南"
    state = story("rest", cut=cut).stepper_state(3.0)
    entering = [n for n, tile in enumerate(state.tiles) if tile.enters]
    assert entering == [len(cut.prompt) + 1]                               # decode: the newest token only
    assert state.new_tile == len(cut.prompt) + 2


def test_the_prompt_build_shows_the_prompt_only():
    cut = cut_of()
    state = story("prompt").stepper_state()
    assert [tile.role for tile in state.tiles] == ["prompt"] * len(cut.prompt)
    assert state.new_tile == -1 and not state.model_busy
    assert "belt" not in state.labels


def test_cut_characters_show_bytes_and_their_character():
    state = story("rest").stepper_state()
    parts = [part for tile in state.tiles for part in tile.parts if part.partial]
    assert parts and parts[0].text == "E6 9D" and parts[0].part_of == "（杭）"
    assert not any("\ufffd" in part.text for tile in state.tiles for part in tile.parts)


def test_kv_segment_is_the_engines_for_the_context_so_far_and_grows_halfway_through_a_pass():
    cut = cut_of()
    for n in (1, 4, cut.passes):
        shown, position = at_passes(cut, n)
        kv = next(s for s in shown.memory_state(position).bars[0].segments if s.key == "kv")
        step = step_report(cut, n)
        assert kv.bytes == step.kv_bytes_per_gpu
        # the engine's KV for prompt + n tokens, on each of the GPUs
        assert kv.bytes == pytest.approx(shown.request.kv_bytes_per_token * (len(cut.prompt) + n) / BASE.gpus)
    rest, share = story("rest"), pass_share(DEFAULT_SPEED)
    before, after = (rest.memory_state(5 + share * (BARS_AT_PROGRESS + d)) for d in (-0.1, 0.1))
    kv_of = lambda state: next(s for s in state.bars[0].segments if s.key == "kv").bytes   # noqa: E731
    assert kv_of(before) == step_report(cut, 4).kv_bytes_per_gpu and kv_of(after) == step_report(cut, 5).kv_bytes_per_gpu
    assert kv_of(story("prompt").memory_state()) == 0.0


def test_misconceptions_each_have_their_own_picture():
    cut = cut_of()
    why = story("why_decode").stepper_state()
    assert answer_tiles_shown(why) == 1 and sum(t.role == "future" for t in why.tiles) == cut.passes - 1
    assert why.labels["banner"]
    plan = story("no_plan").stepper_state()
    assert answer_tiles_shown(plan) == NO_PLAN_ANSWER_TOKENS
    assert any(t.role == "future" for t in plan.tiles)
    same = story("same_computation").stepper_state()
    assert same.picture == "compare" and [row.key for row in same.rows] == ["prefill", "decode"]
    assert len(same.rows[0].inputs) == len(cut.prompt) and len(same.rows[1].inputs) == 1


def test_no_probabilities_are_shown_anywhere():
    for name in build_names(cut_of()):
        words = " ".join(story(name, code="en").stepper_state().labels.values()).lower()
        assert "%" not in words and "probab" not in words


@pytest.mark.parametrize("code", ["zh", "en"])
def test_caption_values_fill_every_caption_and_note(code):
    for name in (*build_names(cut_of("llama-3", code)), "loading"):
        shown = story(name, code=code, speed=2.0) if name != "loading" else story(cut=None, code=code)
        for table in ("caption", "notes"):
            assert "{" not in TEXTS[table][shown.phase()][code].format_map(shown.caption_values())
    values = story("prefill").caption_values()
    assert values["token"] == "江" and values["first_token"] == "江"
    rest = story("rest").caption_values()
    assert rest["rest_from"] == "3" and rest["passes"] == str(cut_of().passes)


def test_every_phase_has_a_caption_and_notes_in_both_languages():
    for phase in PHASES:
        for table in ("caption", "notes"):
            assert TEXTS[table][phase]["en"] and TEXTS[table][phase]["zh"], (table, phase)


def test_screen_time_follows_the_speed():
    assert pictures.screen_seconds(4, 2.0) == 2.0
    shown, position = at_passes(cut_of(), 2, speed=0.5)
    assert {c.key: c.text for c in shown.stepper_state(position).counters}["screen_time"] == "on screen: 4 s"


def test_a_scenario_that_does_not_fit_still_gives_states():
    shown = story("rest", scenario=dataclasses.replace(BASE, gpus=1))
    assert not shown.request.fits
    bar = shown.memory_state().bars[0]
    assert bar.over_label and not bar.free_label


def test_nothing_yet_reads_zero_seconds():
    shown = {c.key: c.text for c in story("prompt", code="en").stepper_state().counters}
    assert shown["gpu_time"] == "GPU time: 0 s" and shown["screen_time"] == "on screen: 0 s"


def test_the_free_memory_shown_is_the_engines_for_the_context_so_far():
    cut = cut_of()
    for n in (1, 4, cut.passes):
        shown, position = at_passes(cut, n)
        bar = shown.memory_state(position).bars[0]
        assert bar.free_label == EN("label.bar_free", bytes=format_bytes(step_report(cut, n).free_bytes_per_gpu))
    # before the first pass: no cache yet, so the request's free memory plus its cache
    report = story().request
    bar = story("prompt", cut=cut, code="en").memory_state().bars[0]
    assert bar.free_label == EN("label.bar_free", bytes=format_bytes(report.free_bytes_per_gpu + report.kv_bytes_per_gpu))


def test_the_bar_names_the_runtime_allowance_too():
    report = story().request
    bar = pictures.memory_state(report, report, EN).bars[0]
    runtime = next(s for s in bar.segments if s.key == "runtime")
    assert runtime.label == f"runtime {format_bytes(report.overhead_bytes_per_gpu)}"


def test_the_stage_gives_the_bar_its_share_and_a_narrow_stage_to_the_stepper():
    stepper, bars = pictures.stage_rects(1500, 800)
    assert bars == (1500 - round(1500 * pictures.BARS_SHARE), 0, round(1500 * pictures.BARS_SHARE), 800)
    assert stepper[2] + bars[2] == 1500
    assert pictures.stage_rects(950, 500)[1][2] == pictures.BARS_MIN_PX
    assert pictures.stage_rects(760, 540)[1][2] == round(760 * pictures.NARROW_BARS_SHARE)
    assert math.isclose(sum(r[2] for r in pictures.stage_rects(760, 540)), 760)


def test_hex_tiles_are_explained_on_the_stage_where_the_tokenizer_cuts_a_character():
    """Scene 3 showed "E6 9D（杭）" without a word until scene 6: the question's caption now says what a hex tile is."""
    cuts = {tokenizer: cut_of(tokenizer) for tokenizer in ("llama-3", "qwen2.5")}
    cut_bytes = {tokenizer: any(s.is_partial for piece in cut.prompt for s in piece.segments)
                 for tokenizer, cut in cuts.items()}
    assert cut_bytes["llama-3"] and not cut_bytes["qwen2.5"]
    for tokenizer, cut in cuts.items():
        assert story(0, cut).phase() == ("prompt_bytes" if cut_bytes[tokenizer] else "prompt")
    assert "十六进制" in ZH("caption.prompt_bytes", prompt_tokens="11")


@pytest.mark.parametrize("code", ["zh", "en"])
def test_a_mixture_of_experts_compares_the_experts_its_tokens_pick_not_the_same_weights(code):
    """Qwen3 235B-A22B's prefill of 8 tokens read 198 GB and its decode step 43.1 GB, under a caption and a
    banner that said both read the same weights."""
    moe = Scenario(model="qwen3-235b-a22b", gpus=8)
    shown = story("same_computation", scenario=moe, code=code)
    report = shown.request                                               # the question's own prompt
    assert report.prefill.bytes > 2 * report.decode.bytes_per_token       # more experts picked by more tokens
    assert shown.phase() == "same_computation_experts"
    assert shown.stepper_state().labels["banner"] == TEXTS["label"]["banner_same_computation_experts"][code]
    caption = TEXTS["caption"][shown.phase()][code].format_map(shown.caption_values())
    assert format_bytes(report.prefill.bytes) in caption and format_bytes(report.decode.bytes_per_token) in caption
    for table in ("caption", "notes"):
        assert "{" not in TEXTS[table][shown.phase()][code].format_map(shown.caption_values())
    assert story("same_computation", code=code).phase() == "same_computation"           # a dense model: the same
