"""Scene "Serving many users" without Qt: its figures are the engine's plan, curve and prices for the scenario and
the controls; the fleet is drawn to count; the corpus and tokenizer are the ones it names; until an answer is in,
nothing of other inputs shows; a refusal stands beside the control it concerns, in one sentence."""
from __future__ import annotations

import dataclasses
import math
import re

import pytest

from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.kit.answers import NOT_KNOWN
from desktop.scenes.serving import asked, pictures
from desktop.scenes.serving.choices import SMALL_SERVICE_SHARE, ServingControls, ServingInputs
from desktop.scenes.serving.story import BUILDS, ServingStory
from desktop.scenes.tokens.corpus import app_corpus
from engine.plan import Traffic, plan_fleet
from engine.plan_curve import latency_curve
from engine.plan_language import language_prices
from engine.tokens import count_tokens
from engine.units import format_count, format_number, format_usd
from tests.desktop.stories import ANSWERS, CATALOG, story
from widgets.fleet_picture_state import FREE

CJK = re.compile(r"[\u4e00-\u9fff]")
SENTENCE_END = re.compile(r"[.。](?=\s|$)")


def answered(scenario=DEFAULT_SCENARIO, controls: ServingControls = ServingControls()) -> ServingInputs:
    """The scene's inputs once the worker has answered every question of every build (as ``ensure_ready`` does)."""
    served = ServingInputs(controls)
    while True:
        missing = story(ServingStory, scenario, 0, served, key="serving").missing()
        if not missing:
            return served
        served = served.with_answers({r: ANSWERS.ask(r.question, *r.arguments) for r in missing})


def at(build: str, scenario=DEFAULT_SCENARIO, served=None, language: str = "en") -> ServingStory:
    served = answered(scenario) if served is None else served
    return story(ServingStory, scenario, BUILDS.index(build), served, language=language, key="serving")


@pytest.fixture(scope="module")
def default():
    return answered()


def engine_plan(scenario=DEFAULT_SCENARIO, controls=ServingControls(), **options):
    return plan_fleet(dataclasses.replace(scenario, batch=1), controls.traffic, controls.targets, catalog=CATALOG,
                      **options)


def test_the_fleet_build_shows_the_engines_plan_for_this_traffic(default):
    s = at("fleet", served=default)
    plan = engine_plan()
    assert s.plan == plan
    values = s.caption_values()
    assert (values["gpus"], values["nodes"], values["replicas"]) == (format_count(plan.gpus), format_count(plan.nodes),
                                                                     format_count(plan.replicas))
    cells = " ".join(cell.text for row in s.table().rows for cell in row.cells)
    for figure in (format_count(plan.gpus), format_count(plan.batch), format_count(plan.most_sequences),
                   format_number(plan.requests_per_second_per_gpu)):
        assert figure in cells
    assert values["binding_short"] == s.text(f"binding.{plan.binding}")


def test_the_fleet_picture_draws_the_plans_nodes_and_gpus_to_count(default):
    plan = engine_plan()
    state = at("fleet", served=default).fleet_picture()
    assert len(state.nodes) + state.hidden_nodes == plan.nodes
    assert state.drawn_gpus + state.hidden_gpus == plan.gpus
    replicas = {slot for node in state.nodes for slot in node.slots if slot != FREE}
    assert len(replicas) == plan.replicas                          # every replica drawn: a small fleet
    assert all(len(node.slots) == plan.gpus_per_node for node in state.nodes)
    assert "400 GB/s" in state.node_link_label and "100 GB/s" in state.network_label   # the H800's catalogue figures


def test_a_fleet_too_large_to_draw_one_by_one_draws_its_first_nodes_and_counts_the_rest():
    controls = ServingControls(requests_per_second=400.0, ttft_target_seconds=2.0)
    plan = engine_plan(controls=controls)
    assert plan.nodes > pictures.MOST_DRAWN_NODES
    state = at("fleet", served=answered(controls=controls)).fleet_picture()
    assert len(state.nodes) == pictures.MOST_DRAWN_NODES - 1       # and the box that says how many more
    assert len(state.nodes) + state.hidden_nodes == plan.nodes and state.drawn_gpus + state.hidden_gpus == plan.gpus
    assert format_count(state.hidden_nodes) in state.more_label and format_count(state.hidden_gpus) in state.more_label


@pytest.mark.parametrize("per_replica, node, replicas", [(2, 8, 9), (3, 8, 5), (16, 8, 3), (12, 8, 2), (1, 1, 4)])
def test_replicas_fill_nodes_as_the_engine_counts_them_never_split_when_they_fit_in_one(per_replica, node, replicas):
    from engine.plan_costs import fleet_nodes
    plan = dataclasses.replace(engine_plan(), gpus_per_replica=per_replica, replicas=replicas,
                               gpus=per_replica * replicas)
    nodes = pictures.replica_slots(plan, node)
    gpu = CATALOG.gpu("h800")
    assert len(nodes) == fleet_nodes(dataclasses.replace(gpu, node_gpus=node), per_replica, replicas,
                                     math.ceil(per_replica / node))
    for r in range(replicas):
        held = [i for i, slots in enumerate(nodes) if r in slots]
        assert sum(slots.count(r) for slots in nodes) == per_replica
        if per_replica <= node:
            assert len(held) == 1                                   # never split over two nodes


def test_the_latency_plot_is_the_engines_curve_at_the_plans_fleet_with_the_targets_and_the_knee(default):
    s = at("load", served=default)
    plan, c = engine_plan(), ServingControls()
    curve = latency_curve(dataclasses.replace(DEFAULT_SCENARIO, batch=1), c.traffic, plan.replicas, catalog=CATALOG)
    state = s.latency_plot()
    ttft, tpot = state.panels
    assert [r for r, _ in ttft.points] == pytest.approx(list(curve.requests_per_second))
    assert [v for _, v in ttft.points] == pytest.approx(list(curve.ttft_p90_seconds))
    assert [v for _, v in tpot.points] == pytest.approx(list(curve.tpot_p90_seconds))
    assert (ttft.target_seconds, tpot.target_seconds) == (c.ttft_target_seconds, c.tpot_target_seconds)
    assert state.knee_rate == pytest.approx(curve.knee_requests_per_second)
    assert state.rate == c.requests_per_second
    assert ttft.y_top > ttft.target_seconds and tpot.y_top > tpot.target_seconds    # the targets inside their panels
    assert max(v for _, v in ttft.points) > ttft.y_top and ttft.off_chart_label      # it climbs off the top, said
    assert s.caption_values()["knee"] == format_number(curve.knee_requests_per_second)


def test_the_price_per_language_cuts_the_tokens_scenes_corpus_with_the_models_own_tokenizer(default):
    s = at("language", served=default)
    assert s.tokenizer == ("llama-3", True)                          # Llama 3.1 70B's own
    pairs = app_corpus().pairs
    en_chars = sum(len(p.en) for p in pairs)
    zh_tokens = sum(count_tokens("llama-3", p.zh) for p in pairs)
    en_tokens = sum(count_tokens("llama-3", p.en) for p in pairs)
    rates = {"en": en_tokens / en_chars * 1000, "zh": zh_tokens / en_chars * 1000}
    c = ServingControls()
    prices = language_prices(dataclasses.replace(DEFAULT_SCENARIO, batch=1), c.traffic, c.targets, rates,
                             list_usd_per_million_input_tokens=c.list_usd_per_million_input_tokens,
                             list_usd_per_million_output_tokens=c.list_usd_per_million_output_tokens, catalog=CATALOG)
    shown = s.answer(s.prices_request)
    for language in ("en", "zh"):
        assert shown[language].margin == pytest.approx(prices[language].margin)
        assert shown[language].plan.gpus == prices[language].plan.gpus
    cells = {row.label: [cell.text for cell in row.cells] for row in s.table().rows}
    assert cells[s.text("table.cost_output")] == [format_usd(prices[x].usd_per_thousand_output_characters)
                                                 for x in ("en", "zh")]
    assert "Llama" in s.caption_values()["cut_by"] and str(len(pairs)) in s.caption_values()["cut_by"]


def test_a_model_whose_tokenizer_does_not_ship_is_cut_by_the_stand_in_and_says_so():
    mistral = dataclasses.replace(DEFAULT_SCENARIO, model="mistral-7b", gpus=1)
    s = at("language", scenario=mistral)
    assert s.tokenizer == (asked.STAND_IN_TOKENIZER, False)
    assert s.rates_request.arguments == (asked.STAND_IN_TOKENIZER,)
    assert "GPT-4o" in s.caption_values()["cut_by"] and "does not ship" in s.caption_values()["cut_by"]


def test_the_disaggregation_build_shows_both_cases_with_the_engines_signs(default):
    s = at("disaggregation", served=default)
    c = ServingControls()
    gpus = []
    for traffic in (c.traffic, Traffic(c.requests_per_second * SMALL_SERVICE_SHARE)):
        for apart in (False, True):
            gpus.append(plan_fleet(dataclasses.replace(DEFAULT_SCENARIO, batch=1), traffic, c.targets,
                                   disaggregated=apart, catalog=CATALOG).gpus)
    assert gpus[0] > gpus[1] and gpus[2] < gpus[3]     # the default shows one case each way
    assert s.phase() == "disaggregation"
    assert [b.value for b in s.bars().bars] == gpus
    assert s.caption_values()["busy_separate"] == format_count(gpus[1])


def test_until_its_answers_are_in_a_build_says_computing_and_shows_no_figure_of_other_inputs(default):
    faster = ServingControls(requests_per_second=12.0)
    stale = dataclasses.replace(default, controls=faster)           # answers of 10 requests/s, controls at 12
    for build in ("load", "fleet", "language", "disaggregation", "summary"):
        s = at(build, served=stale)
        assert s.phase() == "computing" and s.missing()
        assert all(s.answer(r) is NOT_KNOWN for r in s.missing())
        for state in (s.latency_plot(), s.fleet_picture()):
            assert state.message == s.text("label.computing")
        table, bars = s.table(), s.bars()
        if table is not None:
            assert table.message == s.text("label.computing") and not table.rows
        if bars is not None:
            assert bars.footer == s.text("label.computing") and not bars.bars
    first = at("fleet", served=stale).missing()[0]
    assert first.arguments[1] == Traffic(12.0)                      # this build's question first
    assert at("question", served=ServingInputs(faster)).phase() == "question"   # the question needs no answer


@pytest.mark.parametrize("controls, control, code", [
    (ServingControls(tpot_target_seconds=0.001), "tpot", "plan.tpot_unreachable"),
    (ServingControls(ttft_target_seconds=0.001), "ttft", "plan.ttft_unreachable"),
    (ServingControls(requests_per_second=0.0), "rate", "plan.positive"),
    (ServingControls(requests_per_second=1e5), "rate", "plan.too_many_gpus"),
    (ServingControls(list_usd_per_million_output_tokens=0.0), "list_output", "plan.positive"),
])
def test_a_refusal_is_one_sentence_beside_the_control_it_concerns(controls, control, code):
    served = answered(controls=controls)
    build = "language" if control.startswith("list") else "fleet"
    s = at(build, served=served)
    assert s.phase() == "refused"
    assert s.refusal().code == code
    notes = s.control_notes()
    assert list(notes) == [control]
    assert len(SENTENCE_END.findall(notes[control])) == 1 and SENTENCE_END.search(notes[control].rstrip())
    assert s.fleet_picture().message == notes[control] or build == "language"


@pytest.mark.parametrize("build", BUILDS)
def test_every_build_reads_in_both_languages(default, build):
    english, chinese = at(build, served=default), at(build, served=default, language="zh")
    assert english.phase() == chinese.phase()
    table = chinese.table()
    if table is not None:
        assert CJK.search(table.title)
    bars = chinese.bars()
    if bars is not None:
        assert CJK.search(bars.title)


def test_the_stage_names_one_replica_at_the_batch_the_plan_finds(default):
    big_batch = dataclasses.replace(DEFAULT_SCENARIO, batch=4096)      # does not fit: the plan finds its own batch
    s = at("fleet", scenario=big_batch)
    scenario, report = s.subject()
    assert scenario.batch == 1 and report.fits and s.subject_note()
    assert s.plan == at("fleet", served=default).plan                  # the side panel's batch plays no part


@pytest.mark.parametrize("language", ["en", "zh"])
def test_when_both_languages_need_the_same_fleet_the_cost_reads_the_same_never_a_rounding_leftover(language):
    """At 5 requests/s both languages need 10 GPUs: once the caption said "costs 0.000000000000022% less"."""
    controls = ServingControls(requests_per_second=5.0)
    s = at("language", served=answered(controls=controls), language=language)
    values = s.caption_values()
    same = s.text("value.same")
    assert values["more_text"] == same
    caption = s.text(f"caption.{s.phase()}", **values)
    assert same in caption and "0.0000" not in caption and "0.0000" not in values["more_footer"]
