"""What a scene asks of the levers: five figures without and with each lever, alone and stacked."""
from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from engine import InputError, Scenario, compute_report
from engine.compute import setup_of
from engine.efficiency import REALISTIC
from engine.levers import LEVERS, lever_outcome, stacked
from engine.levers.curves import long_context_rows
from engine.levers.disaggregation import kv_transfer_seconds
from engine.levers.settings import GROUPS
from tests.engine.lever_fixtures import LEVER_CATALOG, LLAMA_32_1B, lever_report

SCENARIO = Scenario(gpus=2)                                # Llama 3.1 70B FP16 on two H800s, batch 1
ROOT = Path(__file__).resolve().parents[2]


def outcome(lever, settings=None, scenario=SCENARIO):
    return lever_outcome(scenario, lever, settings, LEVER_CATALOG)


def test_the_three_groups_hold_every_lever_once():
    assert sorted(n for names in GROUPS.values() for n in names) == sorted(LEVERS)


@pytest.mark.parametrize("lever", LEVERS)
def test_every_lever_gives_five_finite_figures_on_both_sides(lever):
    o = outcome(lever)
    assert o.levers == (lever,)
    for side in (o.base, o.with_levers):
        assert side.tpot_seconds > 0 and side.ttft_seconds > 0 and side.tokens_per_second_per_gpu > 0
        assert side.usd_per_million_output_tokens > 0 and side.sequences_that_fit >= 0 and side.batch >= 1
    assert set(o.values) == set(o.costs) == set(o.stops_paying) == {lever}


def test_quantised_weights_halve_the_bytes_and_nearly_halve_the_time_per_token():
    o = outcome("weights")
    counts = setup_of(SCENARIO, LEVER_CATALOG).counts
    sixteen_bit = (counts.embedding + counts.lm_head + counts.norms) * 2 / 2     # 2 bytes each, over 2 GPUs
    half_of_the_rest = (o.values["weights"]["weights_bytes_per_gpu_base"] - sixteen_bit) / 2
    # FP8 halves the layers' matrices; the embedding, LM head and norms stay in 16 bits (engine.deployment)
    assert o.values["weights"]["weights_bytes_per_gpu"] == pytest.approx(half_of_the_rest + sixteen_bit)
    assert 0.5 < o.gain("tpot_seconds") < 0.65 and o.with_levers.sequences_that_fit > 4 * o.base.sequences_that_fit


def test_a_narrow_kv_cache_pays_little_at_short_context_and_much_at_long_context():
    short = outcome("kv_precision")
    assert short.stops_paying["kv_precision"]["kv_share_of_step_bytes"] < 0.01 and short.gain("tpot_seconds") > 0.99
    rows = {(r.kv, r.context_tokens): r for r in long_context_rows(replace(SCENARIO, model="llama-3.1-8b"),
                                                                   catalog=LEVER_CATALOG)}
    assert rows["fp16", 131072].kv_share_of_step_bytes > 10 * rows["fp16", 2048].kv_share_of_step_bytes
    # at long context the time saved is the half of the KV read that FP8 no longer moves
    long16 = compute_report(replace(SCENARIO, model="llama-3.1-8b", prompt_tokens=131072 - 500), LEVER_CATALOG)
    kv_read_seconds = rows["fp16", 131072].kv_share_of_step_bytes * long16.decode.memory_seconds
    saved = rows["fp16", 131072].tpot_seconds - rows["fp8", 131072].tpot_seconds
    assert saved == pytest.approx(kv_read_seconds / 2, rel=0.02)
    assert saved > 0.1 * rows["fp16", 131072].tpot_seconds > 10 * (rows["fp16", 2048].tpot_seconds
                                                                    - rows["fp8", 2048].tpot_seconds)
    assert rows["fp8", 32768].sequences_that_fit >= 2 * rows["fp16", 32768].sequences_that_fit - 1


def test_batching_buys_tokens_per_gpu_and_costs_time_per_token():
    o = outcome("batching", {"batch": 32})
    assert o.with_levers.batch == 32 and o.with_levers.tokens_per_second_per_gpu > 20 * o.base.tokens_per_second_per_gpu
    assert o.with_levers.tpot_seconds > o.base.tpot_seconds


def test_speculative_decoding_gains_at_batch_1_and_names_the_batch_where_it_loses():
    o = outcome("speculative", {"draft_model": LLAMA_32_1B.id, "draft_tokens": 4, "acceptance": 0.8})
    assert o.gain("tpot_seconds") < 0.5
    loss = o.stops_paying["speculative"]["loss_batch"]
    big = outcome("speculative", {"draft_model": LLAMA_32_1B.id, "draft_tokens": 4, "acceptance": 0.8},
                  replace(SCENARIO, batch=loss))
    assert big.with_levers.tpot_seconds > big.base.tpot_seconds


def test_without_a_drafter_named_speculation_uses_self_drafting_heads():
    assert outcome("speculative").values["speculative"]["draft_head_cost"] == 0.05


def test_prefix_caching_cuts_the_first_token_to_about_the_uncached_part():
    o = outcome("prefix_cache", {"cached_prefix_tokens": 9000}, replace(SCENARIO, prompt_tokens=10_000))
    floor = o.stops_paying["prefix_cache"]["uncached_alone_ttft_seconds"]
    assert o.values["prefix_cache"]["computed_tokens"] == 1000
    assert o.with_levers.ttft_seconds < 0.2 * o.base.ttft_seconds
    assert floor <= o.with_levers.ttft_seconds <= 1.5 * floor


def test_paged_allocation_fits_several_times_the_sequences_and_fills_them():
    o = outcome("kv_allocation", {"reserve_tokens": 8192}, replace(SCENARIO, model="llama-3.1-8b", gpu="h100-sxm",
                                                                   prompt_tokens=500, output_tokens=500))
    assert o.with_levers.sequences_that_fit >= 5 * o.base.sequences_that_fit > 0
    assert o.with_levers.batch == o.with_levers.sequences_that_fit and o.with_levers.fits
    # eight times the sequences, but the larger batch is compute-bound: throughput grows less than the batch
    assert 1.5 * o.base.tokens_per_second_per_gpu < o.with_levers.tokens_per_second_per_gpu


def test_without_flash_attention_the_first_token_costs_more_as_prompts_grow():
    slow = [outcome("flash_attention", scenario=replace(SCENARIO, model="llama-3.1-8b", prompt_tokens=n))
            for n in (1000, 8000, 32000)]
    slowdowns = [o.base.ttft_seconds / o.with_levers.ttft_seconds for o in slow]
    assert 1 < slowdowns[0] < slowdowns[1] < slowdowns[2]
    assert slow[2].values["flash_attention"]["score_bytes_per_gpu"] == pytest.approx(
        16 * 32000 ** 2 * 2)                                       # 32 heads over 2 GPUs, one layer, 16-bit


def test_offloading_keeps_many_more_conversations_and_reloads_faster_than_it_recomputes():
    o = outcome("offload", {"reloaded_tokens": 900})
    values, stops = o.values["offload"], o.stops_paying["offload"]
    assert o.with_levers.sequences_that_fit == o.base.sequences_that_fit + values["host_sequences"]
    assert values["reload_seconds"] < values["recompute_seconds"] / 10
    assert o.with_levers.ttft_seconds < o.base.ttft_seconds
    assert stops["step_over_host_link_seconds"] > stops["step_seconds"]
    long = outcome("offload", scenario=replace(SCENARIO, model="llama-3.1-8b", batch=32, prompt_tokens=30_000))
    assert long.stops_paying["offload"]["step_over_host_link_seconds"] > 5 * long.stops_paying["offload"]["step_seconds"]


def test_disaggregation_steadies_the_time_per_token_and_pays_a_transfer():
    o = outcome("disaggregation", scenario=replace(SCENARIO, batch=32))
    assert o.with_levers.tpot_seconds < o.base.tpot_seconds
    assert o.with_levers.ttft_seconds - o.base.ttft_seconds == pytest.approx(
        32 * o.costs["disaggregation"]["kv_transfer_seconds"], rel=0.05)
    assert o.with_levers.tokens_per_second_per_gpu == pytest.approx(o.base.tokens_per_second_per_gpu)


def test_the_kv_transfer_is_the_prompts_kv_over_the_link():
    nvlink = kv_transfer_seconds(SCENARIO, LEVER_CATALOG)
    network = kv_transfer_seconds(SCENARIO, LEVER_CATALOG, link="network")
    kv_per_gpu = 1000 * 327_680 / 2                                # each of the two GPUs sends its half
    h800 = LEVER_CATALOG.gpu("h800")
    # one message each way over the link it crosses, at that link's share and latency in the realistic mode
    network_one_way = h800.network_bytes_per_second / 2            # the catalogue gives both directions
    assert network == pytest.approx(kv_per_gpu / (network_one_way * REALISTIC.network_link_share)
                                    + REALISTIC.network_latency_seconds)
    assert nvlink == pytest.approx(kv_per_gpu / (h800.interconnect_bytes_per_second / 2 * REALISTIC.link_share)
                                   + REALISTIC.allreduce_latency_seconds) and nvlink < network


def test_stacked_levers_start_from_all_of_them_off_and_end_with_all_on():
    names = ["weights", "kv_allocation", "prefix_cache"]
    o = stacked(SCENARIO, names, LEVER_CATALOG)
    off = lever_report(gpus=2, kv_allocation="reserved", batch=o.base.batch)
    assert o.levers == ("weights", "prefix_cache", "kv_allocation")
    assert o.base.sequences_that_fit == off.max_batch == 0
    assert o.with_levers.sequences_that_fit > lever_outcome(SCENARIO, "kv_allocation", None,
                                                            LEVER_CATALOG).with_levers.sequences_that_fit


@pytest.mark.parametrize("levers, settings, code", [
    ("warp_drive", None, "levers.unknown"), ("speculative", {"draft_count": 3}, "levers.setting"),
    ("flash_attention", {"on": True}, "levers.no_settings"), ("offload", {"host_bytes_per_gpu": -1}, "levers.host_memory"),
    ("offload", {"reloaded_tokens": 5000}, "levers.reloaded"), ("disaggregation", {"link": "pigeon"}, "levers.link"),
    ("speculative", {"acceptance": 1.5}, "levers.acceptance"), ("weights", {"weights": "fp7"}, "catalog.unknown"),
])
def test_a_lever_refuses_what_it_cannot_use_with_a_code(levers, settings, code):
    with pytest.raises(InputError) as caught:
        lever_outcome(SCENARIO, levers, settings, LEVER_CATALOG)
    assert caught.value.code == code


def test_no_levers_at_all_is_refused():
    with pytest.raises(InputError) as caught:
        stacked(SCENARIO, [], LEVER_CATALOG)
    assert caught.value.code == "levers.none"


# ----------------------------------------------------------------------------- the CLI and its JSON

def _run(*args):
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_report_json_gives_max_batch_always_and_speculative_only_when_on():
    plain = json.loads(_run("report", "--gpus", "2", "--json").stdout)
    assert type(plain["max_batch"]) is int and plain["speculative"] is None
    done = _run("report", "--gpus", "2", "--draft-head-cost", "0.05", "--draft-tokens", "4", "--acceptance", "0.8",
                "--cached-prefix", "500", "--kv-allocation", "reserved", "--reserve-tokens", "4096", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert list(data["speculative"]) == ["tokens_per_pass", "speedup", "loss_batch", "draft_seconds_per_pass",
                                         "verify_seconds_per_pass"]
    assert data["speculative"]["tokens_per_pass"] == pytest.approx(3.3616)
    assert data["max_batch"] < plain["max_batch"] and data["ttft_seconds"] < plain["ttft_seconds"]


@pytest.mark.parametrize("args, words", [
    (["--acceptance", "1"], "acceptance rate"), (["--acceptance", "most"], "--acceptance must be"),
    (["--cached-prefix", "5000"], "cached prefix"), (["--kv-allocation", "pooled"], "KV allocation"),
    (["--draft-model", "qwen2.5-7b"], "tokenizer"), (["--draft-tokens"], "needs a value"),
])
def test_report_refuses_bad_lever_flags_with_one_sentence_and_exit_2(args, words):
    done = _run("report", *args)
    assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1


def test_the_readable_report_has_a_levers_block():
    done = _run("report", "--gpus", "2", "--draft-head-cost", "0.05", "--cached-prefix", "500")
    assert "Levers" in done.stdout and "speed-up" in done.stdout and "cached prefix" in done.stdout


def test_the_curves_grow_with_the_prompt_and_stop_at_the_models_maximum():
    from engine.levers.curves import flash_attention_curve, reload_curve
    flash = flash_attention_curve(replace(SCENARIO, model="qwen3-32b"), catalog=LEVER_CATALOG)
    assert [p.prompt_tokens for p in flash] == [1024, 4096, 16384]          # Qwen3 32B reads 40,960 at most
    assert flash[0].slowdown < flash[1].slowdown < flash[2].slowdown
    assert flash[2].score_traffic_bytes_per_gpu == pytest.approx(16 * flash[1].score_traffic_bytes_per_gpu)
    reload = reload_curve(SCENARIO, catalog=LEVER_CATALOG)
    assert all(p.reload_seconds < p.recompute_seconds / 10 for p in reload)
    ratios = [p.recompute_seconds / p.reload_seconds for p in reload]
    assert ratios[-1] > ratios[1]                                    # at long context recomputing pays attention's square


@pytest.mark.parametrize("lever", LEVERS)
def test_the_on_side_names_its_scenario_and_which_figures_are_that_reports_own(lever):
    """Scene 7's formula cards explain an "on" figure by the report of ``with_scenario``: only a figure that
    report gives as it is may be named its own (offloading reloads, disaggregation moves the KV: theirs differ)."""
    from dataclasses import fields
    from engine.levers.outcome import FIGURES, LeverFigures
    o = outcome(lever)
    assert set(FIGURES) == {f.name for f in fields(LeverFigures)} - {"batch", "fits"}
    report = compute_report(o.with_scenario, LEVER_CATALOG)
    plain = {"tpot_seconds": report.tpot_seconds, "ttft_seconds": report.ttft_seconds,
             "tokens_per_second_per_gpu": report.scenario.batch / (report.tpot_seconds * report.scenario.gpus),
             "usd_per_million_output_tokens": report.usd_per_million_output_tokens,
             "sequences_that_fit": report.max_batch}
    assert o.report_figures == {f for f in FIGURES if getattr(o.with_levers, f) == plain[f]}
    assert o.with_levers.batch == report.scenario.batch
    if lever == "offload":
        assert {"ttft_seconds", "sequences_that_fit"}.isdisjoint(o.report_figures)
    if lever in ("weights", "batching", "speculative", "kv_allocation", "prefix_cache"):
        assert o.report_figures == set(FIGURES)            # scenario fields: the report is the whole "on" side
