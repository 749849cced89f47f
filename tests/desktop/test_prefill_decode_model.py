"""Scene 4's model, without Qt: every block, share, bound, crossover and price ratio is the engine's."""
from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

import pytest

from desktop.kit import questions
from desktop.scenes.prefill_decode import story as model
from tests.desktop.stories import ANSWERS, story, texts, what_if
from engine import Scenario
from engine.catalog import default_catalog
from engine.compute import decode_crossover_batch
from engine.units import format_count, format_percent, format_ratio, format_seconds

CATALOG = default_catalog()
DEFAULT = Scenario(gpus=2)
TEXTS = tomllib.loads((Path(__file__).resolve().parents[2] / "resources/text/prefill_decode.toml").read_text("utf-8"))


def text(key: str, count=None, **values) -> str:
    """The English label, filled in as the app fills it (plural forms by ``count``)."""
    section, name = key.split(".")
    form = TEXTS[section][name]["en"]
    if isinstance(form, dict):
        form = form["one"] if count == 1 else form["other"]
    return form.format(**values, count=count)


def inputs(scenario: Scenario = DEFAULT, build: int = 0) -> model.PrefillDecodeStory:
    return story(model.PrefillDecodeStory, scenario, build, text=text)


SCENARIOS = [DEFAULT, dataclasses.replace(DEFAULT, batch=16, prompt_tokens=4000, output_tokens=200),
             Scenario(gpu="h200", model="llama-3.1-8b", weights="fp8", kv="fp8", prompt_tokens=10, output_tokens=1),
             Scenario(gpu="b200", model="llama-3.1-8b", batch=2048, prompt_tokens=100, output_tokens=50)]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_block_times_are_the_engines(scenario):
    i = inputs(scenario)
    state = model.timeline_state(i, text)
    r = i.report
    assert state.prefill_seconds == r.ttft_seconds
    assert state.decode_steps == scenario.output_tokens - 1
    if state.decode_steps:
        assert state.decode_step_seconds == r.tpot_seconds
    assert state.total_seconds == pytest.approx(r.total_seconds, rel=1e-9)
    assert state.prefill_utilisation == r.prefill.utilisation and state.decode_utilisation == r.decode.utilisation


def test_the_stage_reveals_utilisation_and_bounds_phase_by_phase():
    shown = [model.timeline_state(inputs(build=b), text) for b in range(len(model.BUILDS))]
    assert [s.strip_phases for s in shown[:3]] == [frozenset(), {"prefill"}, {"prefill", "decode"}]
    assert [s.highlight for s in shown[:4]] == [None, "prefill", "decode", None]
    assert "decode_bound" not in shown[1].labels and shown[2].labels["decode_bound"].startswith("memory-bound")


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_decode_share_shown_is_the_engines(scenario):
    i = inputs(scenario, build=model.SHARE)
    t = model.table_state(i, text)
    assert t.figure_value == format_percent(i.report.decode_share)
    assert t.cell("decode.busy").text == format_percent(i.report.decode.utilisation)
    assert t.cell("decode.bound").text == text(f"label.bound_{i.report.decode.bound}")
    assert t.cell("prefill.tokens").text == format_count(scenario.prompt_tokens * scenario.batch)
    assert model.table_state(inputs(scenario, build=model.DECODE), text).figure_value == ""


def test_the_comparison_table_fills_in_column_by_column():
    hidden = [model.table_state(inputs(build=b), text).hidden_columns for b in range(model.SHARE + 1)]
    assert hidden == [{1, 2}, {2}, frozenset(), frozenset()]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_crossover_shown_is_the_engines_and_the_what_ifs_agree(scenario):
    i = inputs(scenario, build=model.BATCHING)
    t = model.table_state(i, text)
    crossover = decode_crossover_batch(scenario, CATALOG)
    if crossover is None:
        assert t.figure_value == text("label.crossover_never_value")
        return
    assert t.figure_value == format_count(crossover)
    assert what_if(scenario, batch=crossover).decode.bound == "compute"
    if crossover > 1:
        assert what_if(scenario, batch=crossover - 1).decode.bound == "memory"
    row = t.cell(f"{crossover}.bound")
    assert row.text == "compute-bound"
    assert crossover in model.sweep_batches(scenario.batch, crossover)


def test_batching_raises_tokens_per_second_far_faster_than_it_slows_each_step():
    """What the caption says: a step slows as the batch grows (each sequence's KV cache is read too), while it
    makes a token for every sequence, so throughput climbs far faster (29.8 -> 42.1 ms at batch 64: 45x the tokens/s)."""
    i = inputs(build=model.BATCHING)
    busy = [i.at_batch(b).decode.utilisation for b in (1, 8, 64)]
    tpot = [i.at_batch(b).tpot_seconds for b in (1, 8, 64)]
    assert busy[1] > 7 * busy[0] and busy[2] > busy[1]
    assert tpot[0] < tpot[1] < tpot[2]                                   # every step is slower
    assert 64 / tpot[2] > 20 * (1 / tpot[0])                             # and tokens per second far higher
    assert "slow" in text("caption.batching", crossover="987")
    t = model.table_state(i, text)
    assert t.cell("8.busy").text == format_percent(busy[1]) and t.cell("8.tpot").text == format_seconds(tpot[1])
    assert 4 in t.hidden_columns                         # the price column waits for the price build


def test_the_price_ratio_is_the_engines_and_falls_with_the_batch():
    i = inputs(build=model.PRICE)
    t = model.table_state(i, text)
    ratios = [i.at_batch(b).output_to_input_price_ratio for b in model.SWEEP_BATCHES]
    assert ratios == sorted(ratios, reverse=True) and ratios[0] > 10 * ratios[-1]
    for b, ratio in zip(model.SWEEP_BATCHES, ratios):
        assert t.cell(f"{b}.price_ratio").text == format_ratio(ratio)
    assert t.figure_value == format_ratio(i.report.output_to_input_price_ratio)
    assert not t.hidden_columns


def test_rows_that_do_not_fit_are_marked_hypothetical():
    t = model.table_state(inputs(build=model.BATCHING), text)
    assert t.cell("256.batch").text == "256*" and t.cell("1.batch").text == "1"
    assert t.footnote.startswith("*")


def test_phases_follow_the_scenario_where_the_usual_story_turns_around():
    short = dataclasses.replace(DEFAULT, prompt_tokens=1)
    assert model.phase(inputs(short, build=model.PREFILL)) == "prefill_memory"
    crossover = decode_crossover_batch(DEFAULT, CATALOG)
    big = dataclasses.replace(DEFAULT, batch=crossover)
    assert model.phase(inputs(big, build=model.DECODE)) == "decode_compute"
    assert model.phase(inputs(build=model.DECODE)) == "decode"


def test_every_placeholder_of_captions_and_notes_has_a_value():
    i = inputs()
    other = dataclasses.replace(DEFAULT, mode="ideal")
    values = model.note_values(i)
    assert values["other_decode_share"] == format_percent(ANSWERS.ask(questions.report, other).decode_share)
    assert set(model.caption_values(i)) < set(values)
    for section in ("caption", "notes"):
        for name, entry in TEXTS[section].items():
            for language in ("en", "zh"):
                for placeholder in re.findall(r"{(\w+)}", entry[language]):
                    assert values.get(placeholder), (section, name, language, placeholder)
    assert values["decode_share"] == format_percent(inputs().report.decode_share)


def test_each_compute_gauge_takes_the_colour_of_its_bound():
    i = inputs(build=model.BATCHING)
    t = model.table_state(i, text)
    for row in t.rows:
        busy = next(c for c in row if c.key.endswith(".busy"))
        batch = int(busy.key.split(".")[0])
        assert busy.bar_role == ("compute" if i.at_batch(batch).decode.bound == "compute" else "memory")


def test_the_sweep_speaks_the_language_asked_for_even_for_a_remembered_row():
    """The sweep's rows are kept by their report and words (a dragged batch reuses the fixed batches'): the same
    reports in Chinese give Chinese rows, then English ones again."""
    scenario = Scenario()
    english = story(model.PrefillDecodeStory, scenario, build=model.BATCHING, key="prefill_decode").table()
    chinese = story(model.PrefillDecodeStory, scenario, build=model.BATCHING, key="prefill_decode",
                    language="zh").table()
    again = story(model.PrefillDecodeStory, scenario, build=model.BATCHING, key="prefill_decode").table()
    bound = texts("prefill_decode")["label"]["bound_memory"]
    assert english.cell("1.bound").text == bound["en"] and chinese.cell("1.bound").text == bound["zh"]
    assert again == english and chinese.cell("1.tpot") == english.cell("1.tpot")
