"""The KV cache scene's story without Qt: every figure it hands the widgets is the engine's."""
from __future__ import annotations

import dataclasses
import math
import re
import tomllib
from pathlib import Path

import pytest

from desktop.scenes.kv_cache import memory
from desktop.scenes.kv_cache import pictures as model
from desktop.scenes.kv_cache.memory import sharing_changes
from desktop.scenes.kv_cache.pictures import MARKS, PLAYBACK_TOKENS, SHARING_GPU_COUNTS, Architectures
from desktop.scenes.kv_cache.story import KvCacheStory, KvControls
from tests.desktop.stories import context_sweep as swept, story, what_if
from engine import InputError, Scenario, compute_report
from engine.catalog import default_catalog
from engine.kv_cache import kv_factors
from engine.parallel import allowed_gpu_counts
from engine.units import GiB, format_bytes, format_count
from widgets.memory_bars_state import overflows as bar_overflows
from widgets.work_counter_state import cached_computations, naive_computations

CATALOG = default_catalog()
DEFAULT = Scenario(gpus=2)
TEXTS = tomllib.loads((Path(__file__).resolve().parents[2] / "resources" / "text" / "kv_cache.toml")
                      .read_text(encoding="utf-8"))
ENTRIES = Architectures(CATALOG.precision("fp8"), CATALOG.model("deepseek-v3"))


def make_text(language: str = "en"):
    """The Language's lookup and plural choice, without Qt."""
    def text(key: str, count: int | None = None, **values) -> str:
        table, name = key.split(".")
        form = TEXTS[table][name][language]
        if isinstance(form, dict):
            form = form["one"] if count == 1 and "one" in form else form["other"]
        if count is not None:
            values["count"] = count
        return form.format(**values)
    return text


TEXT = make_text()


def report_for(**changes):
    return compute_report(dataclasses.replace(DEFAULT, **changes), CATALOG)


def context_sweep(scenario, longest: int):
    """The kit's sweep over the contexts the plot draws, as the scene asks for it."""
    return swept(dataclasses.replace(scenario, output_tokens=1), model.sweep_contexts(longest))


def growth_state(sweep, report, tokens: int, text=None):
    """The plot with its point at ``tokens`` (the engine's KV bytes there from a one-context sweep)."""
    text = text or TEXT
    point = swept(dataclasses.replace(report.scenario, output_tokens=1), (tokens,))
    base = model.growth_base(sweep, report, model.longest_context(report.model), text)
    return model.growth_at(base, tokens, float(point.kv_bytes[0]), text)


def growth_bar(sweep, report, tokens: int):
    point = swept(dataclasses.replace(report.scenario, output_tokens=1), (tokens,))
    return memory.growth_bar(report, point, memory.bar_scale_bytes(report, sweep), TEXT)


# -- work ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 250, 499, 500])
def test_counters_are_the_closed_forms(n):
    state = model.work_state(n, True, TEXT)
    assert naive_computations(state) == n * (n + 1) / 2
    assert cached_computations(state) == n
    assert state.labels["naive_count"].startswith(format_count(n * (n + 1) / 2))
    assert state.labels["cached_count"].startswith(format_count(n))


def test_at_500_tokens_the_ratio_reads_about_250():
    state = model.work_state(PLAYBACK_TOKENS, True, TEXT)
    assert naive_computations(state) == 125_250
    assert "250×" in state.labels["ratio"]


def test_the_first_build_shows_no_cache_yet():
    state = model.work_state(PLAYBACK_TOKENS, False, TEXT)
    assert "cached_count" not in state.labels and not state.show_cached


def test_playback_counts_one_token_after_another_up_to_n():
    tokens = [model.tokens_at(k / 60) for k in range(0, 400)]
    assert tokens[0] == 1 and tokens[-1] == PLAYBACK_TOKENS
    assert all(b >= a for a, b in zip(tokens, tokens[1:]))
    assert model.tokens_at(float("nan")) == 1 and model.tokens_at(-3) == 1


# -- bytes per token --------------------------------------------------------------------------------------
MODELS = ["llama-3.1-70b", "llama-2-7b", "llama-3.1-8b", "mixtral-8x7b", "qwen2.5-72b", "deepseek-v3"]


@pytest.mark.parametrize("kv", ["fp16", "fp8", "fp32"])
@pytest.mark.parametrize("model_id", MODELS)
def test_each_factor_and_the_product_are_the_engines(model_id, kv):
    gpus = 8 if model_id == "deepseek-v3" else 2
    report = report_for(model=model_id, kv=kv, gpus=gpus, weights="fp8")
    factors = kv_factors(report.model, report.kv_precision)
    tiles = {tile.key: tile.value for tile in model.factor_tiles(factors, TEXT)}
    if factors.kind == "mla":
        assert tiles == {"layers": factors.layers, "latent": factors.latent_dim + factors.rope_dim,
                         "bytes": factors.bytes_per_value}
    else:
        assert tiles == {"kv": 2, "layers": factors.layers, "kv_heads": factors.kv_heads,
                         "head_dim": factors.head_dim, "bytes": factors.bytes_per_value}
    assert math.prod(tiles.values()) == report.kv_bytes_per_token
    assert model.tile_count(report.model, report.kv_precision) == len(tiles)


def test_llama_70b_fp16_builds_up_to_320_kib_and_compares_as_the_seed_says():
    report = report_for()
    state = model.factors_state(report.model, report.kv_precision, ENTRIES, 6.0, 1.0, TEXT)
    assert [t.value_text for t in state.factors] == ["2", "80", "8", "128", "2"]
    assert state.result_text == "= 320 KiB per token"
    rows = {row.key: row for row in state.comparisons}
    assert rows["mha"].value_text == "2.5 MiB" and rows["mha"].bytes_per_token == 2_621_440
    assert rows["this"].current and rows["this"].bytes_per_token == report.kv_bytes_per_token
    assert rows["fp8"].bytes_per_token == report.kv_bytes_per_token / 2
    assert rows["mla"].bytes_per_token == compute_report(Scenario(model="deepseek-v3", gpus=8), CATALOG).kv_bytes_per_token
    assert rows["mla"].value_text == "68.6 KiB"


def test_a_model_that_already_is_mha_or_mla_or_an_fp8_cache_gets_no_duplicate_row():
    mha = report_for(model="llama-2-7b")
    assert "mha" not in {r.key for r in model.comparisons(mha.model, mha.kv_precision, ENTRIES, TEXT)}
    mla = report_for(model="deepseek-v3", gpus=8, weights="fp8")
    assert "mla" not in {r.key for r in model.comparisons(mla.model, mla.kv_precision, ENTRIES, TEXT)}
    fp8 = report_for(kv="fp8")
    assert "fp8" not in {r.key for r in model.comparisons(fp8.model, fp8.kv_precision, ENTRIES, TEXT)}


def test_tiles_appear_one_after_another_and_all_at_once_without_animation():
    shown = [model.factors_revealed(k * 0.1, 5, True) for k in range(40)]
    assert shown[0] == 1 and shown[-1] == 6 and sorted(shown) == shown
    assert model.factors_revealed(0.0, 5, False) == 6


# -- growth with context ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sweep_70b():
    report = report_for()
    return report, context_sweep(report.scenario, model.longest_context(report.model))


def test_the_growth_curve_passes_through_the_engines_values_at_the_seeds_marks(sweep_70b):
    report, sweep = sweep_70b
    state = growth_state(sweep, report, 1000)
    curve = dict(state.curve)
    for key, name, tokens in MARKS:
        engine = report_for(prompt_tokens=tokens - 1, output_tokens=1).kv_bytes
        assert curve[tokens] == engine
        assert next(m.bytes for m in state.marks if m.key == key) == engine
    assert [m.bytes / GiB for m in state.marks] == [0.625, 10.0, 40.0]
    # whole caches in the units of the bytes per token (320 KiB x 32,768 = 10 GiB: the seed's 0.6/10/40 GB)
    assert [m.label for m in state.marks] == ["2K: 640 MiB", "32K: 10 GiB", "128K: 40 GiB"]
    assert state.curve[0][0] == 1 and state.curve[-1][0] == 131072    # 1 token to the model's longest
    assert len(state.curve) <= model.CURVE_POINTS + len(MARKS) + 2     # what is drawn, not every token
    assert state.context_bytes == report_for(prompt_tokens=999, output_tokens=1).kv_bytes
    assert all(text.endswith("iB") for _, text in state.y_ticks) and state.y_ticks     # one kind of unit
    assert state.labels["current"] == "1,000 tokens: 312 MiB"


@pytest.mark.parametrize("changes", [{}, {"gpus": 4}, {"kv": "fp8"}, {"batch": 4}, {"weights": "fp8", "gpus": 1},
                                     {"model": "llama-3.1-8b", "gpus": 1, "batch": 16}])
def test_overflow_begins_where_the_engine_says_memory_runs_out(changes):
    report = report_for(**changes)
    longest = model.longest_context(report.model)
    sweep = context_sweep(report.scenario, longest)
    limit = report.max_context_tokens
    assert 0 < limit
    for tokens in (limit - 1, limit, limit + 1):
        if not 1 <= tokens <= longest:
            continue
        bar = growth_bar(sweep, report, tokens)
        plot = growth_state(sweep, report, tokens)
        over = tokens > limit
        assert bar_overflows(bar.bars[0]) == over, tokens
        assert (plot.context_tokens > plot.limit_tokens) == over
        if tokens == limit:
            # the engine's own report at this context and batch fits, and one token more does not
            at = report_for(**changes, prompt_tokens=tokens - 1, output_tokens=1)
            assert at.kv_bytes_per_gpu == pytest.approx(bar.bars[0].segments[1].bytes)


def test_the_level_line_meets_the_curve_at_the_limit(sweep_70b):
    report, sweep = sweep_70b
    state = growth_state(sweep, report, 1)
    limit = swept(report.scenario, (report.max_context_tokens,))
    assert state.room_bytes == pytest.approx(float(limit.kv_bytes[0]))
    assert state.limit_tokens == report.max_context_tokens == 50486


def test_past_the_models_maximum_the_room_is_the_cards_not_the_models():
    """Llama 3.1 8B on one H800: its 131,072 tokens fit with memory to spare (the engine caps the longest context
    at the model's maximum). The level line is the room the card has, and no context on the plot or in the texts
    passes the maximum."""
    report = report_for(model="llama-3.1-8b", gpus=1)
    assert report.longest_context_capped and report.memory_context_tokens > report.max_context_tokens
    maximum = CATALOG.model("llama-3.1-8b").max_context_tokens
    room = model.room_bytes(report)
    assert room == pytest.approx(report.kv_bytes_per_token * report.memory_context_tokens)
    assert room > report.kv_bytes_per_token * maximum          # not "full" at the model's maximum
    told = story(KvCacheStory, report.scenario, model.GROWTH_BUILD, KvControls(), "en", "kv_cache")
    assert told.phase() == "growth_fits"
    values = told.caption_values()
    shown = [TEXTS[table][told.phase()]["en"].format_map(values) for table in ("caption", "notes")]
    contexts = [int(n.replace(",", "")) for text in shown for n in re.findall(r"\b\d{1,3}(?:,\d{3})+\b", text)]
    assert maximum in contexts and all(tokens <= maximum for tokens in contexts)
    assert format_bytes(room, binary=True) in shown[1]


def test_playback_of_the_context_runs_from_one_token_to_the_longest():
    values = [model.context_at(k / 60, 131072) for k in range(0, 400)]
    assert values[0] == 1 and values[-1] == 131072 and sorted(values) == values


def test_a_model_without_a_longest_context_stops_at_131072():
    entry = dataclasses.replace(CATALOG.model("llama-3.1-70b"), max_context_tokens=0)
    assert model.longest_context(entry) == 131072
    assert model.longest_context(CATALOG.model("mixtral-8x7b")) == 32768


# -- sharing the card ------------------------------------------------------------------------------------
@pytest.mark.parametrize("scenario", [DEFAULT, Scenario(gpus=1, weights="fp8"), Scenario(model="deepseek-v3", gpus=8,
                                                                                        weights="fp8"),
                                      Scenario(model="qwen2.5-7b", gpus=1)])
@pytest.mark.parametrize("context", [2048, 32768])
def test_the_number_of_conversations_is_the_engines(scenario, context):
    changes = sharing_changes(scenario, context)
    assert changes["prompt_tokens"] + changes["output_tokens"] == context
    results = {}
    for gpus in SHARING_GPU_COUNTS:
        try:
            results[gpus] = compute_report(dataclasses.replace(scenario, gpus=gpus, **changes), CATALOG)
        except InputError as refusal:
            results[gpus] = refusal
    state = memory.sharing_state(results, scenario.gpus, context, 1.0, TEXT)
    allowed = [g for g in SHARING_GPU_COUNTS if g in allowed_gpu_counts(CATALOG.model(scenario.model))]
    assert [row.gpus for row in state.rows] == allowed
    for row in state.rows:
        assert row.sequences == results[row.gpus].max_sequences
        assert row.current == (row.gpus == scenario.gpus)
    bar = memory.sharing_bar(results[scenario.gpus], TEXT)
    sequences = results[scenario.gpus].max_sequences
    assert bar.kv_sequences == sequences
    current = results[scenario.gpus]
    assert bar_overflows(bar.bars[0]) == (current.max_context_tokens == 0)   # filled, never past the line


def test_70b_fp16_conversations_of_32k_on_one_to_eight_h800s():
    results = {g: report_for(gpus=g, **sharing_changes(DEFAULT, 32768)) for g in (1, 2, 4, 8)}
    state = memory.sharing_state(results, 2, 32768, 1.0, TEXT)
    by_gpus = {row.gpus: row for row in state.rows}
    assert not by_gpus[1].fits and by_gpus[1].value_text == "weights alone do not fit"
    assert by_gpus[2].sequences == results[2].max_sequences >= 1
    # twice the GPUs, more than twice the conversations: the weights' share of each card shrinks
    assert by_gpus[4].sequences > 2 * by_gpus[2].sequences and by_gpus[8].sequences > 2 * by_gpus[4].sequences


# -- phases and texts --------------------------------------------------------------------------------------
def kv_story(build: int, context: int = 32768, language: str = "en", **changes) -> KvCacheStory:
    return story(KvCacheStory, dataclasses.replace(DEFAULT, **changes), build, KvControls(context), language,
                 "kv_cache")


def test_phases_follow_the_scenario():
    assert kv_story(model.GROWTH_BUILD).phase() == "growth"
    assert kv_story(model.GROWTH_BUILD, gpus=8).phase() == "growth_fits"
    assert kv_story(model.GROWTH_BUILD, gpus=1).phase() == "growth_none"
    assert kv_story(model.SHARING_BUILD, gpus=1).phase() == "sharing_none"
    assert kv_story(model.SHARING_BUILD, context=2048).phase() == "sharing"


def test_the_first_build_asks_the_engine_for_nothing_but_its_report():
    """The naive build's caption and picture need no sweep and no what-if (they used to ask for nine)."""
    from desktop.kit.answers import Answers
    from desktop.kit.story import Inputs
    asked = []
    answers = Answers(CATALOG)

    def ask(question, *arguments):
        asked.append(question.__name__)
        return answers.ask(question, *arguments)

    report = report_for()
    shown = KvCacheStory(Inputs(DEFAULT, report, 0, ask, make_text(), controls=KvControls()))
    shown.caption_values()["naive_total"], shown.states(None, 0.0)
    assert asked == []


@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_caption_and_note_fills_from_the_values(language):
    values = kv_story(model.SHARING_BUILD, language=language).caption_values()
    for table in ("caption", "notes"):
        for name, entry in TEXTS[table].items():
            filled = entry[language].format_map(values)
            assert "{" not in filled, (table, name)
    values = kv_story(model.SHARING_BUILD).caption_values()
    report = report_for()
    assert values["kv_per_token"] == "320 KiB"
    assert values["formula"] == "2 × 80 × 8 × 128 × 2 bytes"
    assert values["mha"] == "2.5 MiB" and values["fp8"] == "160 KiB" and values["mla"] == "68.6 KiB"
    assert values["ratio"] == "250×" and values["naive_total"] == "125,250"
    assert values["limit"] == "50,486"
    assert values["marks"] == "2K: 640 MiB, 32K: 10 GiB, 128K: 40 GiB"
    assert values["room"] == format_bytes(report.kv_bytes_per_token * report.max_context_tokens, binary=True)


def test_chinese_texts_use_full_width_punctuation():
    for table in ("caption", "notes"):
        for name, entry in TEXTS[table].items():
            zh = entry["zh"]
            assert not re.search(r"[\u4e00-\u9fff][,:?]", zh), (table, name)


def test_the_sharing_bar_says_its_cache_is_this_cards_part():
    result = what_if(DEFAULT, **memory.sharing_changes(DEFAULT, model.SHARING_CONTEXT_TOKENS))
    state = memory.sharing_bar(result, TEXT)
    kv = next(s for s in state.bars[0].segments if s.key == "kv")
    assert "per card" in kv.label and format_bytes(kv.bytes, binary=True) in kv.label
    assert state.bars[0].name == f"each of 2 × {result.gpu.name}"
    zh = memory.sharing_bar(result, make_text("zh"))
    assert "本卡" in next(s for s in zh.bars[0].segments if s.key == "kv").label
    assert "共 2 张" in zh.bars[0].name
