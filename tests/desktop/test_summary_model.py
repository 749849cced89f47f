"""The summary's story without Qt: builds, links, and every figure against the engine's report."""
from __future__ import annotations

import dataclasses

import pytest

from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.i18n import Language
from desktop.scenario_store import ScenarioStore
from desktop.kit import questions
from desktop.kit.story import Inputs
from desktop.scenes.kv_cache.pictures import PLAYBACK_TOKENS
from desktop.scenes.registry import SceneEntry
from desktop.scenes.summary.story import (
    BUILDS, BUSY_SERVER_BATCH, QUESTIONS, RECAP_BUILD, BusyServer, SummaryStory, busy_server, focus, linked_scene,
)
from engine.kv_cache import tokens_processed_with_cache, tokens_processed_without_cache, work_ratio_without_cache
from engine.units import format_bytes, format_count, format_percent, format_ratio, format_usd
from widgets.memory_bars_state import used_bytes

# Some scenes registered, with their places: links go only to these.
REGISTERED = {entry.key: entry for entry in (SceneEntry("gpu_waits", 1), SceneEntry("model_memory", 2),
                                             SceneEntry("prefill_decode", 4), SceneEntry("kv_cache", 5))}


def what_if(store):
    return lambda **changes: store.answers.ask(questions.report, dataclasses.replace(store.scenario, **changes))


def make_model(code="en", scenario=DEFAULT_SCENARIO, registered=REGISTERED, busy=None, report=None):
    """The summary's story as its view makes it, with ``registered`` as the scenes a link may go to."""
    store = ScenarioStore(scenario)
    report = report or store.report
    story = SummaryStory(Inputs(store.scenario, report, 0, store.answers.ask, Language(code).text, str))
    story.__dict__["registered"] = dict(registered)
    if busy is not None:
        story.__dict__["busy"] = busy
    return story, report, story.busy


def test_each_question_has_its_question_build_then_its_answer_build_then_the_recap():
    assert len(BUILDS) == 2 * len(QUESTIONS) + 1
    assert [focus(b) for b in range(RECAP_BUILD)] == [(q, revealed) for q in range(4) for revealed in (False, True)]
    assert focus(RECAP_BUILD) == (None, True)
    assert focus(99) == (None, True) and focus(-3) == (0, False)


def test_links_go_to_the_first_registered_scene_that_explains_the_answer():
    assert [linked_scene(q, REGISTERED).number for q in QUESTIONS] == [1, 5, 2, 4]
    assert linked_scene("output_price", {**REGISTERED, "tokens": SceneEntry("tokens", 6)}).number == 6
    assert linked_scene("kv_cache", {"gpu_waits": REGISTERED["gpu_waits"]}) is None
    model, _, _ = make_model(registered={"gpu_waits": REGISTERED["gpu_waits"]})
    card = model.card(1)
    assert card.link == "" and card.link_scene == ""
    assert model.card(0).link == "→ Scene 1: Why the GPU waits" and model.card(0).link_scene == "gpu_waits"


def test_the_idle_gauge_is_the_engines_decode_utilisation_and_decode_share():
    model, report, _ = make_model()
    state = model.picture(0)
    request, compute = state.rows
    assert [p.share for p in request.parts] == [1.0 - report.decode_share, report.decode_share]
    assert [p.share for p in compute.parts] == [report.decode.utilisation, 1.0 - report.decode.utilisation]
    idle = format_percent(1.0 - report.decode.utilisation)
    assert idle in state.headline and idle in compute.parts[1].label
    assert format_percent(report.decode_share) in request.parts[1].label
    assert format_percent(report.decode_share) in model.card(0).answer and idle in model.card(0).answer


def test_the_work_picture_is_scene_fives_n_squared_against_n_on_one_scale():
    """Both totals on one scale: 500 is a sliver beside 125,250, never two full bars read as equal."""
    model, _, _ = make_model()
    state = model.picture(1)
    naive, cached = state.rows
    assert naive.parts[0].share == 1.0
    assert cached.parts[0].share == pytest.approx(tokens_processed_with_cache(PLAYBACK_TOKENS)
                                                  / tokens_processed_without_cache(PLAYBACK_TOKENS))
    assert cached.parts[0].share < 0.01
    answer = model.card(1).answer
    for figure in (format_count(tokens_processed_without_cache(PLAYBACK_TOKENS)),
                   format_ratio(work_ratio_without_cache(PLAYBACK_TOKENS))):
        assert figure in answer
    assert model.picture(1, grow=0.5).grow == 0.5 and model.picture(1, grow=0.5).rows == state.rows


def test_the_memory_bars_are_the_shared_scenarios_weights_against_kv_on_every_gpu():
    model, report, _ = make_model()
    state = model.picture(2)
    assert len(state.bars) == report.scenario.gpus == 2
    for bar in state.bars:
        sizes = {s.key: s.bytes for s in bar.segments}
        assert sizes["weights"] == report.weights_bytes_per_gpu and sizes["kv"] == report.kv_bytes_per_gpu
        assert bar.capacity_bytes == report.hbm_bytes_per_gpu
    assert format_bytes(report.weights_bytes_per_gpu) in model.card(2).answer
    assert format_bytes(report.kv_bytes_per_gpu) in model.card(2).answer
    assert state.title and not model.picture(2, compact=True).title
    # Shown whole during a reveal, and the very same state every tick: no new layout of the bars per frame.
    assert model.picture(2, grow=0.3) is model.picture(2, grow=0.9) is state
    assert used_bytes(state.bars[0]) == pytest.approx(report.weights_bytes_per_gpu + report.kv_bytes_per_gpu
                                                      + report.overhead_bytes_per_gpu)
    # The recap names the bars by their short names: "GPU 1GPU 2" would run together under narrow bars.
    assert [bar.name for bar in model.picture(2, compact=True).bars] == ["1", "2"]


def test_the_price_bars_are_the_engines_prices_on_one_scale():
    model, report, _ = make_model()
    state = model.picture(3)
    inputs, outputs = state.bars
    assert (inputs.value, outputs.value) == (report.usd_per_million_input_tokens,
                                             report.usd_per_million_output_tokens)
    assert format_usd(report.usd_per_million_input_tokens) in inputs.value_label
    assert format_usd(report.usd_per_million_output_tokens) in outputs.value_label
    assert format_usd(report.scenario.usd_per_gpu_hour) in state.title
    assert format_ratio(report.output_to_input_price_ratio) in model.card(3).answer
    assert format_ratio(report.output_to_input_price_ratio) in model.picture(3, compact=True).title
    assert {inputs.kind, outputs.kind} == {"solid", "hatched"}          # not colour alone
    half = model.picture(3, grow=0.5)
    assert half.bars[1].value == pytest.approx(outputs.value / 2) and half.drawn_max() == state.drawn_max()


def test_the_recap_shows_the_work_counters_totals_as_bars():
    model, _, _ = make_model()
    state = model.picture(1, compact=True)
    naive, cached = state.rows
    assert format_count(tokens_processed_without_cache(PLAYBACK_TOKENS)) in naive.title
    assert cached.parts[0].share == pytest.approx(tokens_processed_with_cache(PLAYBACK_TOKENS)
                                                  / tokens_processed_without_cache(PLAYBACK_TOKENS))
    assert format_ratio(work_ratio_without_cache(PLAYBACK_TOKENS)) in state.headline


def test_the_notes_quote_a_busy_server_that_fits_and_say_on_how_many_gpus():
    """Batch 128 does not fit the default 70B on 2 x H800: the notes' busy server is the fewest GPUs it fits on."""
    model, report, busy = make_model()
    store = ScenarioStore(DEFAULT_SCENARIO)
    assert not what_if(store)(batch=BUSY_SERVER_BATCH).fits
    assert busy.kind == "fits" and busy.batch == BUSY_SERVER_BATCH and busy.gpus == 4 and busy.result.fits
    assert busy.result.scenario.gpus == 4 and busy.result.scenario.batch == BUSY_SERVER_BATCH
    assert 2 <= busy.result.output_to_input_price_ratio <= 4
    assert model.values["busy_ratio"] == format_ratio(busy.result.output_to_input_price_ratio)
    assert f"on 4 × {report.gpu.name}" in model.values["busy_sentence"]
    assert model.values["busy_sentence"] in model.text("summary.notes.recap", **model.values)


def test_a_scenario_already_that_busy_is_said_to_be_so_with_its_own_batch():
    scenario = dataclasses.replace(DEFAULT_SCENARIO, batch=256, gpus=8)
    model, report, busy = make_model(scenario=scenario)
    assert (busy.kind, busy.batch, busy.gpus) == ("already", 256, 8)
    assert model.values["busy_batch"] == "256"
    assert format_ratio(report.output_to_input_price_ratio) in model.values["busy_sentence"]


def test_values_follow_the_scenario_and_a_refused_or_unfitting_busy_server_has_its_own_words():
    scenario = dataclasses.replace(DEFAULT_SCENARIO, usd_per_gpu_hour=7.0, batch=8)
    model, report, _ = make_model(scenario=scenario)
    assert model.values["price"] == "$7" and model.values["batch"] == "8"
    from engine import InputError
    refusal = BusyServer("refused", BUSY_SERVER_BATCH, 2, InputError("batch must be at least 1."))
    refused, _, _ = make_model(scenario=scenario, busy=refusal)
    assert refused.values["busy_ratio"] == "" and "refused" in refused.values["busy_sentence"]
    assert "batch must be at least 1)" in refused.values["busy_sentence"]
    # Nothing up to 8 GPUs holds it: the figure is the scenario's own count's, and said to be hypothetical.
    store = ScenarioStore(dataclasses.replace(DEFAULT_SCENARIO, prompt_tokens=100_000, output_tokens=20_000))
    busy = busy_server(store.scenario, store.report, what_if(store))
    assert busy.kind == "hypothetical" and busy.gpus == store.scenario.gpus
    unfitting, _, _ = make_model("zh", store.scenario, busy=busy)
    assert "假设" in unfitting.values["busy_sentence"]
    assert unfitting.values["busy_ratio"] == format_ratio(busy.result.output_to_input_price_ratio)


@pytest.mark.parametrize("code", ["en", "zh"])
def test_every_card_has_its_question_and_a_short_answer(code):
    model, _, _ = make_model(code)
    language = Language(code)
    for index, question in enumerate(QUESTIONS):
        card = model.card(index)
        assert language.text(f"summary.question.{question}") in card.question
        assert card.question.startswith(str(index + 1))
        assert 0 < len(card.answer) <= (140 if code == "en" else 70)
        assert model.card(index, compact=True).compact


def test_the_memory_answer_says_so_when_the_weights_alone_overflow_a_card():
    model, report, _ = make_model(scenario=dataclasses.replace(DEFAULT_SCENARIO, gpus=1))
    assert report.weights_bytes_per_gpu > report.hbm_bytes_per_gpu
    assert model.answer_key("memory") == "memory_over"
    assert format_bytes(report.weights_bytes_per_gpu) in model.card(2).answer
    assert make_model()[0].answer_key("memory") == "memory"


@pytest.mark.parametrize("code", ["en", "zh"])
def test_the_recaps_slow_bars_name_their_parts_in_their_titles(code):
    """A recap card has no room for a line of part labels under each bar: the titles name the parts."""
    model, report, _ = make_model(code)
    state = model.picture(0, compact=True)
    request, compute = state.rows
    assert format_percent(report.decode_share) in request.title
    assert format_percent(1 - report.decode_share) in request.title
    assert format_percent(report.decode.utilisation) in compute.title
    assert format_percent(1 - report.decode.utilisation) in compute.title
    assert not any(part.label for row in state.rows for part in row.parts)
    assert all(part.label for row in model.picture(0).rows for part in row.parts)


# -- the formula behind each answer's figures -------------------------------------------------------------
def _at_build(build: int, scenario=DEFAULT_SCENARIO) -> SummaryStory:
    store = ScenarioStore(scenario)
    return SummaryStory(Inputs(store.scenario, store.report, build, store.answers.ask, Language("en").text, str))


def test_a_question_offers_no_card_its_answer_offers_its_own_figures_and_the_recap_all_of_them():
    answers = {}
    for build, name in enumerate(BUILDS):
        offered = set(_at_build(build).formulas())
        if build < RECAP_BUILD and not name.endswith("_answer"):
            assert offered == set(), name                              # the bare question: nothing to explain yet
        elif build < RECAP_BUILD:
            answers[name] = offered
    assert answers["slow_answer"] == {"step_idle_share"}
    assert answers["kv_cache_answer"] == {"work_ratio_without_cache", "tokens_processed_without_cache",
                                          "tokens_processed_with_cache"}
    assert answers["memory_answer"] == {"weights_bytes_per_gpu", "kv_bytes_per_gpu", "overhead_bytes_per_gpu"}
    assert answers["output_price_answer"] == {"usd_per_million_input_tokens", "usd_per_million_output_tokens",
                                              "output_to_input_price_ratio"}
    assert set(_at_build(RECAP_BUILD).formulas()) == set().union(*answers.values())


@pytest.mark.parametrize("mode", ["realistic", "ideal"])
def test_each_card_is_the_figure_its_picture_draws(mode):
    recap = _at_build(RECAP_BUILD, dataclasses.replace(DEFAULT_SCENARIO, gpus=4, batch=64, mode=mode))
    cards, report = recap.formulas(), recap.report
    slow = recap.picture(0)
    assert cards["step_idle_share"].value == slow.rows[1].parts[1].share            # the compute bar's idle part
    assert cards["step_idle_share"].result in slow.headline                          # in ideal mode too
    naive, cached = tokens_processed_without_cache(PLAYBACK_TOKENS), tokens_processed_with_cache(PLAYBACK_TOKENS)
    assert cards["tokens_processed_without_cache"].value == naive == sum(range(1, PLAYBACK_TOKENS + 1))
    assert cards["tokens_processed_with_cache"].value == cached
    assert cards["work_ratio_without_cache"].value == naive / cached
    sizes = {s.key: s.bytes for s in recap.picture(2).bars[0].segments}
    for key, segment in (("weights_bytes_per_gpu", "weights"), ("kv_bytes_per_gpu", "kv"),
                         ("overhead_bytes_per_gpu", "runtime")):
        assert cards[key].value == pytest.approx(sizes[segment]), key
    bars = recap.picture(3).bars
    assert [cards["usd_per_million_input_tokens"].value, cards["usd_per_million_output_tokens"].value] == \
        pytest.approx([bar.value for bar in bars])
    assert cards["output_to_input_price_ratio"].value == pytest.approx(bars[1].value / bars[0].value)
    assert cards["output_to_input_price_ratio"].result in recap.picture(3, compact=True).title
    assert format_usd(report.usd_per_million_input_tokens) == cards["usd_per_million_input_tokens"].result


def test_where_the_weights_alone_overflow_the_card_the_memory_cards_still_give_the_bars_numbers():
    memory = _at_build(BUILDS.index("memory_answer"), dataclasses.replace(DEFAULT_SCENARIO, gpu="rtx-4090", gpus=1))
    assert memory.answer_key("memory") == "memory_over"
    sizes = {s.key: s.bytes for s in memory.picture(2).bars[0].segments}
    assert memory.formulas()["weights_bytes_per_gpu"].value == sizes["weights"] > memory.report.hbm_bytes_per_gpu
