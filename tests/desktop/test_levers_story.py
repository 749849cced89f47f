"""Scene 7's story, without Qt, against the engine's outcomes: what each lever buys, costs, and where it stops.

The story is made as its view makes it (``tests.desktop.stories``); the engine is asked here directly
(``engine.levers``) for the figures the stage must show, so a story that showed other numbers, or
another lever, or the lever at other settings, fails.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.scenes.levers.choices import BUILDS, DEFAULT_STACK, HEADS, LeversChoices
from desktop.scenes.levers.story import LeversStory
from engine.levers import LEVERS, lever_outcome, stacked
from engine.levers.settings import GROUPS
from engine.levers.speculative import tokens_per_pass
from engine.units import format_count, format_number, format_seconds, glue_units
from tests.desktop.stories import CATALOG, scene_text, story

SMALL_DRAFT = {"draft": "llama-3.2-1b", "draft_tokens": 4, "acceptance": 0.8}


def levers(build: str, scenario=DEFAULT_SCENARIO, language: str = "en", **choices) -> LeversStory:
    return story(LeversStory, scenario, BUILDS.index(build), LeversChoices(**choices), language, key="levers")


def cells(table) -> dict[str, tuple[str, ...]]:
    return {row.label: tuple(cell.text for cell in row.cells) for row in table.rows}


def caption(s: LeversStory, language: str = "en") -> str:
    return scene_text("levers", language)(f"caption.{s.phase()}", **s.caption_values())


def notes(s: LeversStory, language: str = "en") -> str:
    return scene_text("levers", language)(f"notes.{s.phase()}", **s.note_values())


def test_one_build_per_lever_in_the_tutorials_three_groups_then_the_stack():
    assert BUILDS == ("kinds", *(name for group in GROUPS.values() for name in group), "stack")
    assert sorted(BUILDS[1:-1]) == sorted(LEVERS)
    for name in BUILDS[1:-1]:
        s = levers(name)
        assert s.lever == name and s.outcome.levers == (name,)


# -- speculative decoding -------------------------------------------------------------------------------

def test_speculative_decoding_with_a_small_draft_gains_at_batch_1():
    s = levers("speculative", **SMALL_DRAFT)
    engine = lever_outcome(DEFAULT_SCENARIO, "speculative",
                           {"draft_model": "llama-3.2-1b", "draft_tokens": 4, "acceptance": 0.8}, CATALOG)
    assert s.phase() == "speculative" and engine.with_levers.tpot_seconds < 0.5 * engine.base.tpot_seconds
    row = cells(s.figures)["Time per output token"]
    assert row[:2] == tuple(glue_units(format_seconds(x)) for x in (engine.base.tpot_seconds,
                                                                     engine.with_levers.tpot_seconds))
    assert row[2].endswith("faster") and glue_units("Llama 3.2 1B") in notes(s)
    assert format_number(tokens_per_pass(0.8, 4)) in notes(s)           # E = (1 - a^(k+1)) / (1 - a), with a, k


def test_speculative_decoding_loses_at_a_large_batch_and_says_so():
    gain = levers("speculative", **SMALL_DRAFT)
    loss_batch = gain.outcome.stops_paying["speculative"]["loss_batch"]
    assert loss_batch is not None and loss_batch > 64
    assert format_count(loss_batch) in gain.figures.notes[-1].text            # where it stops paying, on the stage
    large = min(4096, 2 * loss_batch)
    s = levers("speculative", **SMALL_DRAFT, speculative_batch=large)
    engine = lever_outcome(replace(DEFAULT_SCENARIO, batch=large), "speculative",
                           {"draft_model": "llama-3.2-1b", "draft_tokens": 4, "acceptance": 0.8}, CATALOG)
    assert engine.with_levers.tpot_seconds > engine.base.tpot_seconds
    assert s.phase() == "speculative_loss" and cells(s.figures)["Time per output token"][2].endswith("slower")
    assert format_count(large) in caption(s)


def test_the_draft_is_the_small_llama_where_it_shares_the_tokenizer_else_self_drafting_heads():
    assert levers("speculative").draft == "llama-3.2-1b"
    assert levers("speculative", scenario=replace(DEFAULT_SCENARIO, model="qwen3-32b")).draft == HEADS


# -- prefix caching -------------------------------------------------------------------------------------

def test_prefix_caching_brings_the_first_token_close_to_the_uncached_part_alone():
    scenario = replace(DEFAULT_SCENARIO, prompt_tokens=10_000)
    s = levers("prefix_cache", scenario, cached_prefix_tokens=9_000)
    o = s.outcome
    floor = o.stops_paying["prefix_cache"]["uncached_alone_ttft_seconds"]
    uncached = lever_outcome(replace(scenario, prompt_tokens=1_000), "flash_attention", None, CATALOG).with_levers
    assert floor == pytest.approx(uncached.ttft_seconds, rel=1e-9)         # the uncached part as its own prompt
    assert o.with_levers.ttft_seconds < 0.2 * o.base.ttft_seconds and o.with_levers.ttft_seconds <= 1.2 * floor
    assert glue_units(format_seconds(floor)) in caption(s)
    now = next(row for row in s.curve.rows if "(now)" in row.label)
    assert now.cells[0].text == glue_units(format_seconds(o.with_levers.ttft_seconds))
    assert now.cells[1].text == glue_units(format_seconds(floor))


def test_by_default_half_the_prompt_is_cached():
    assert levers("prefix_cache").outcome.values["prefix_cache"]["cached_tokens"] == DEFAULT_SCENARIO.prompt_tokens // 2


# -- KV allocation --------------------------------------------------------------------------------------

def test_pages_fit_several_times_the_short_conversations_that_reserving_the_maximum_fits():
    short = replace(DEFAULT_SCENARIO, model="llama-3.1-8b", gpus=1, prompt_tokens=500, output_tokens=500)
    s = levers("kv_allocation", short)
    reserved, paged = s.outcome.base.sequences_that_fit, s.outcome.with_levers.sequences_that_fit
    assert reserved >= 1 and paged >= 5 * reserved
    assert s.outcome.values["kv_allocation"]["reserved_tokens_per_sequence"] == CATALOG.model("llama-3.1-8b").max_context_tokens
    assert cells(s.figures)["Sequences that fit"][:2] == (format_count(reserved), format_count(paged))


def test_on_the_default_scenario_no_maximum_reservation_fits_and_its_times_are_not_shown():
    s = levers("kv_allocation")
    assert s.outcome.base.sequences_that_fit == 0 < s.outcome.with_levers.sequences_that_fit
    figures = cells(s.figures)
    assert figures["Time per output token"][0] == "—" and figures["Sequences that fit"][2] == "from none"


def test_the_shelf_shows_pages_or_reservations_as_chosen():
    paged = levers("kv_allocation").conveyor_state().shelf
    reserved = levers("kv_allocation", shelf_paged=False).conveyor_state().shelf
    assert paged.paged and not reserved.paged
    assert reserved.held_share > 1 > paged.held_share           # one reservation is larger than the whole room
    assert paged.used_share > 0.99 and reserved.used_share < 0.02


# -- the other levers, the pictures and the stack ----------------------------------------------------------

def test_each_pictured_lever_changes_the_belt_as_the_tutorial_says():
    plain = levers("kinds").conveyor_state()
    weights = levers("weights").conveyor_state()
    assert weights.box_size_share == pytest.approx(0.5 ** 0.5) and weights.box_bytes == pytest.approx(plain.box_bytes / 2)
    batching = levers("batching", batch=24)
    assert batching.conveyor_state().sequences_per_box == 24 == batching.outcome.with_levers.batch
    guessing = levers("speculative", draft_tokens=6, acceptance=0.6).conveyor_state()
    assert guessing.guesses_per_box == 6 and guessing.acceptance == 0.6
    assert guessing.flops_per_byte > 5 * plain.flops_per_byte         # the check of k + 1 tokens per box


def test_the_figures_are_the_engines_for_every_lever():
    for name in LEVERS:
        s = levers(name)
        engine = lever_outcome(DEFAULT_SCENARIO, name, dict(s.settings(name)), CATALOG)
        shown = cells(s.figures)
        assert shown["Sequences that fit"][1] == format_count(engine.with_levers.sequences_that_fit), name
        if engine.with_levers.sequences_that_fit:
            assert shown["First token after"][1].rstrip("*") == glue_units(format_seconds(engine.with_levers.ttft_seconds))


def test_the_stack_stacks_exactly_the_levers_switched_on():
    s = levers("stack")
    assert set(s.outcome.levers) == DEFAULT_STACK
    engine = stacked(DEFAULT_SCENARIO, {n: dict(s.settings(n)) for n in DEFAULT_STACK}, CATALOG)
    assert s.outcome.with_levers == engine.with_levers
    two = levers("stack", stack=frozenset({"weights", "kv_precision"}))
    assert two.outcome.levers == ("weights", "kv_precision") and "2 levers" in caption(two)
    empty = levers("stack", stack=frozenset())
    assert empty.phase() == "stack_empty" and empty.figures is None and empty.conveyor_state() is not None


@pytest.mark.parametrize("build, choices, code", [
    ("speculative", {"acceptance": 1.0}, "levers.acceptance"),
    ("speculative", {"draft": "qwen3-0.6b"}, "levers.vocabulary"),
    ("speculative", {"draft_tokens": 20}, "scenario.whole_number"),
    ("prefix_cache", {"cached_prefix_tokens": 5_000}, "levers.prefix"),
    ("kv_allocation", {"reserve_tokens": 100}, "levers.reserve_short"),
    ("kv_allocation", {"reserve_tokens": 500_000}, "levers.reserve_long"),
    ("offload", {"reloaded_tokens": 5_000}, "levers.reloaded"),
    ("offload", {"host_gb": 0.0}, "levers.host_memory"),
])
def test_a_refused_setting_is_a_value_shown_in_the_table_and_beside_the_control(build, choices, code):
    s = levers(build, **choices)
    assert s.phase() == "refused" and s.refusal.code == code
    assert s.figures.message == str(s.refusal) and s.control_note(build) == str(s.refusal)
    assert s.curve is None and s.conveyor_state() is None
    assert scene_text("levers")(f"lever.{build}") in caption(s)
    for language in ("en", "zh"):
        assert notes(s, language)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_builds_notes_carry_a_formula_with_this_scenarios_values_and_where_it_stops(language):
    formula, stops = {"en": ("Formula:", "Stops paying:"), "zh": ("公式：", "何时不再划算：")}[language]
    for build in BUILDS:
        s = levers(build, language=language)
        text = notes(s, language)
        assert formula in text and stops in text, build
        if s.lever is not None:
            assert s._values["stops"] in text and "{" not in text
            tpot = s.outcome.with_levers.tpot_seconds
            assert glue_units(format_seconds(tpot)) in text or build in ("kv_allocation", "prefix_cache", "offload",
                                                                         "flash_attention"), build


def test_measured_levers_name_their_source_and_the_calibration_test():
    for build in ("weights", "kv_precision", "batching", "speculative", "kv_allocation", "prefix_cache", "offload"):
        text = notes(levers(build))
        assert "Source:" in text and "calibration.py" in text, build


def test_the_stage_splits_between_the_picture_and_the_figures():
    assert levers("kinds").rects(1000, 560) == {"belt": (0, 0, 1000, 560), "curve": None, "figures": None}
    pictured = levers("weights").rects(1000, 560)
    assert pictured["curve"] is None and pictured["belt"][2] + pictured["figures"][2] < 1000
    curved = levers("flash_attention").rects(1000, 560)
    assert curved["belt"] is None and curved["curve"][0] == 0 and curved["figures"][0] > curved["curve"][2]
