"""The report carries what it resolved; KV bytes as factors; the decode crossover batch."""
import json
from dataclasses import replace

import pytest

from engine import kv_cache
from engine.compute import decode_crossover_batch
from engine.report import Report
from engine.scenario import MAX_BATCH, Scenario
from engine.units import KiB, MiB
from tests.engine import fixtures as fx


def test_report_carries_its_catalogue_entries_and_scenario():
    r = fx.report(gpu="h800", model="llama-3.1-70b", weights="fp8", kv="fp16", mode="REALISTIC")
    assert r.gpu is fx.H800 and r.model is fx.LLAMA_31_70B
    assert r.weights_precision is fx.FP8 and r.kv_precision is fx.FP16
    assert r.scenario == Scenario(gpu="h800", model="llama-3.1-70b", weights="fp8", kv="fp16", mode="realistic")


def test_json_is_unchanged_by_the_resolved_fields():
    r = fx.report()
    data = r.to_json_dict()
    assert list(data) == list(Report.JSON_KEYS)
    assert list(data["prefill"]) == ["flops", "bytes", "seconds", "bound", "communication_seconds"]
    assert list(data["decode"]) == ["flops_per_token", "bytes_per_token", "seconds_per_token", "bound",
                                    "communication_seconds"]
    json.dumps(data)                                   # nothing un-serialisable leaks in
    assert data["kv_bytes_per_token"] == 327_680 and isinstance(data["weights_bytes"], int)
    bare = replace(r, gpu=None, model=None, weights_precision=None, kv_precision=None, scenario=None)
    assert bare.to_json_dict() == data


def test_report_stays_hashable_and_compares_on_numbers_only():
    r = fx.report()
    same = replace(r, gpu=None, model=None, scenario=None)
    assert hash(r) == hash(same) and r == same
    assert " gpu=" not in repr(r) and "scenario=" not in repr(r)


@pytest.mark.parametrize("model, precision, kind", [
    (fx.LLAMA_31_70B, fx.FP16, "gqa"), (fx.LLAMA_2_7B, fx.BF16, "mha"),
    (fx.MIXTRAL_8X7B, fx.FP8, "gqa"), (fx.DEEPSEEK_V3, fx.BF16, "mla"), (fx.TINY_TIED, fx.INT4, "gqa")])
def test_kv_factors_multiply_to_the_bytes_per_token(model, precision, kind):
    f = kv_cache.kv_factors(model, precision)
    assert f.kind == kind
    assert f.bytes_per_token == kv_cache.kv_bytes_per_token(model, precision)


def test_scene_5_gqa_against_full_multi_head_attention():
    f = kv_cache.kv_factors(fx.LLAMA_31_70B, fx.FP16)
    assert (f.layers, f.kv_heads, f.head_dim, f.bytes_per_value) == (80, 8, 128, 2.0)
    assert f.bytes_per_token == 320 * KiB
    mha = kv_cache.mha_factors(fx.LLAMA_31_70B, fx.FP16)
    assert mha.kind == "mha" and mha.kv_heads == 64
    assert kv_cache.mha_kv_bytes_per_token(fx.LLAMA_31_70B, fx.FP16) == 2.5 * MiB
    mla = kv_cache.kv_factors(fx.DEEPSEEK_V3, fx.BF16)
    assert (mla.latent_dim, mla.rope_dim) == (512, 64)
    assert kv_cache.mha_kv_bytes_per_token(fx.DEEPSEEK_V3, fx.BF16) == 61 * 128 * (192 + 128) * 2
    # A model that already uses MHA is its own MHA form.
    assert kv_cache.mha_kv_bytes_per_token(fx.LLAMA_2_7B, fx.FP16) == kv_cache.kv_bytes_per_token(fx.LLAMA_2_7B, fx.FP16)


@pytest.mark.parametrize("fields", [
    dict(), dict(mode="ideal"), dict(weights="fp8", kv="fp8", prompt_tokens=100, output_tokens=100),
    dict(model="llama-3.1-8b", prompt_tokens=200, output_tokens=200),
    dict(model="mixtral-8x7b", gpus=2, prompt_tokens=50, output_tokens=50, mode="ideal")])
def test_crossover_batch_is_where_the_report_turns_compute_bound(fields):
    scenario = Scenario(**fields)
    batch = decode_crossover_batch(scenario, fx.CATALOG)
    assert batch is not None and 1 < batch <= MAX_BATCH
    assert fx.report(**{**fields, "batch": batch}).decode.bound == "compute"
    assert fx.report(**{**fields, "batch": batch - 1}).decode.bound == "memory"


def test_crossover_batch_at_short_context_is_near_the_ridge_point():
    # Ideal, one GPU, tiny context: compute 2P*b/peak = weights 2P/bandwidth at b = ridge (FP16: 2 bytes a value).
    scenario = Scenario(mode="ideal", prompt_tokens=1, output_tokens=2)
    batch = decode_crossover_batch(scenario, fx.CATALOG)
    assert batch == pytest.approx(fx.report(mode="ideal").ridge_flops_per_byte, rel=0.03)


def test_no_crossover_when_reading_the_kv_cache_outweighs_the_arithmetic():
    # At long context each sequence reads more KV bytes than its FLOPs can hide (70B GQA: 8 FLOP/byte).
    assert decode_crossover_batch(Scenario(prompt_tokens=100_000, output_tokens=100), fx.CATALOG) is None
