"""Scene 7's formula cards, without Qt: each "on" figure of the lever table and the belt's idle share is explained
by the engine's formula of the report of the scenario with the lever on, and its result is the number shown."""
from __future__ import annotations

from dataclasses import replace

import pytest

from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.scenes.levers.choices import BUILDS, LeversChoices
from desktop.scenes.levers.story import LeversStory
from desktop.scenes.levers.tables import FIGURES
from engine import compute_report
from engine.levers import lever_outcome
from engine.units import format_seconds
from tests.desktop.stories import CATALOG, story

FORMULA_OF_ROW = {"tpot_seconds": "tpot_seconds", "ttft_seconds": "ttft_seconds",
                  "tokens_per_second_per_gpu": "tokens_per_second_per_gpu",
                  "usd_per_million_output_tokens": "usd_per_million_output_tokens", "sequences_that_fit": "max_batch"}


def levers(build: str, scenario=DEFAULT_SCENARIO, **choices) -> LeversStory:
    return story(LeversStory, scenario, BUILDS.index(build), LeversChoices(**choices), "en", key="levers")


def _plain(text: str) -> str:
    return text.replace("\u00a0", " ").removesuffix("*")


@pytest.mark.parametrize("scenario", [DEFAULT_SCENARIO, replace(DEFAULT_SCENARIO, mode="ideal"),
                                      replace(DEFAULT_SCENARIO, batch=8, prompt_tokens=3000)],
                         ids=["default", "ideal", "batch-8"])
@pytest.mark.parametrize("build", BUILDS)
def test_every_card_ends_in_the_number_its_cell_or_the_belt_shows(scenario, build):
    told = levers(build, scenario)
    formulas = told.formulas()
    if told.figures is not None and told.refusal is None:
        shown = {FORMULA_OF_ROW[figure]: _plain(row.cells[1].text)
                 for (figure, *_), row in zip(FIGURES, told.figures.rows)}
        for key in set(formulas) - {"step_idle_share"}:
            assert formulas[key].result == shown[key], (build, key)
    belt = told.conveyor_state()
    assert ("step_idle_share" in formulas) == (belt is not None)
    if belt is not None:
        assert formulas["step_idle_share"].result in belt.labels["idle"], build


def test_the_weights_cards_are_the_fp8_report_of_the_scenario_with_the_engines_own_figures():
    told = levers("weights")
    formulas = told.formulas()
    engine = lever_outcome(DEFAULT_SCENARIO, "weights", {"weights": "fp8"}, CATALOG).with_levers
    assert set(formulas) == {"step_idle_share", *FORMULA_OF_ROW.values()}
    assert formulas["tpot_seconds"].value == pytest.approx(engine.tpot_seconds)
    assert formulas["ttft_seconds"].value == pytest.approx(engine.ttft_seconds)
    assert formulas["tokens_per_second_per_gpu"].value == pytest.approx(engine.tokens_per_second_per_gpu)
    assert formulas["max_batch"].value == engine.sequences_that_fit > told.outcome.base.sequences_that_fit
    fp8 = compute_report(told.outcome.with_scenario, CATALOG)          # the lever's side, not FP16's
    assert fp8.scenario.weights == "fp8"
    assert formulas["ttft_seconds"].values.startswith(f"max({format_seconds(fp8.prefill.compute_seconds)}, ")
    assert fp8.prefill.compute_seconds < compute_report(DEFAULT_SCENARIO, CATALOG).prefill.compute_seconds


def test_the_stacks_cards_are_all_levers_on_at_the_batch_it_runs():
    told = levers("stack")
    formulas = told.formulas()
    batch = told.outcome.with_levers.batch
    assert batch > 1 and formulas["tokens_per_second_per_gpu"].values.startswith(f"{batch:,} ÷")
    assert formulas["ttft_seconds"].symbols == "t_first = T_prefill + T_draft"    # speculative decoding is stacked


def test_figures_a_what_if_lever_changes_after_the_report_have_no_card():
    offload = levers("offload").formulas()           # reloading changes the first token and what fits
    assert {"ttft_seconds", "max_batch"}.isdisjoint(offload) and "tpot_seconds" in offload
    disaggregated = levers("disaggregation").formulas()
    assert {"ttft_seconds", "tokens_per_second_per_gpu"}.isdisjoint(disaggregated)


def test_a_refused_lever_and_the_empty_stack_offer_no_table_card():
    assert set(levers("prefix_cache", cached_prefix_tokens=10**6).formulas()) <= {"step_idle_share"}
    assert set(levers("stack", stack=frozenset()).formulas()) == {"step_idle_share"}      # the belt of the three kinds
