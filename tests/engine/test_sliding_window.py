"""Sliding-window attention: windowed layers cache, read and attend to at most their window.

Each figure is checked against a layer-by-layer count written out here (a windowed layer holds
min(c, W) tokens of a sequence, a full one c), not against the engine's own closed forms.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from engine import Scenario, compute_report, sweep
from engine.catalog import load_catalog
from engine.compute import decode_step_of, resolve, setup
from engine.kv_cache import (
    attention_flops_decode, attention_flops_per_position, attention_flops_prefill, kv_bytes, kv_bytes_per_token,
    kv_window_bytes_per_token,
)
from engine.request import decode_seconds_sum, time_pass
from tests.engine import fixtures as fx
from tests.engine.test_catalog_user_file import GOOD_MODEL, write

OSS = fx.CATALOG.model("gpt-oss-120b")
MISTRAL = fx.CATALOG.model("mistral-7b")


def held_tokens_layer_by_layer(model, context: int) -> list[int]:
    """Tokens of one sequence each layer holds: gpt-oss windows its even layers, Mistral v0.1 all of them."""
    windowed = model.sliding_window_layers
    return [min(context, model.sliding_window_tokens) if i < windowed else context for i in range(model.layers)]


def test_gpt_oss_keeps_72_kib_per_token_in_its_window_and_half_of_it_beyond():
    per_layer = 2 * OSS.kv_heads * OSS.head_dim * fx.BF16.bytes_per_value       # K and V, 8 heads of 64
    assert kv_bytes_per_token(OSS, fx.BF16) == 36 * per_layer == 73_728
    assert kv_window_bytes_per_token(OSS, fx.BF16) == 18 * per_layer
    for context in (1, 127, 128, 129, 1000, 131_072):
        expected = sum(held_tokens_layer_by_layer(OSS, context)) * per_layer
        assert kv_bytes(OSS, fx.BF16, 1, context) == expected, context
    growth = kv_bytes(OSS, fx.BF16, 1, 100_001) - kv_bytes(OSS, fx.BF16, 1, 100_000)
    assert growth == 18 * per_layer == 36 * 1024                                 # 36 KiB per token past the window


def test_mistral_v01s_cache_stops_growing_at_its_window():
    per_layer = 2 * MISTRAL.kv_heads * MISTRAL.head_dim * 2
    assert kv_bytes(MISTRAL, fx.FP16, 1, 4096) == kv_bytes(MISTRAL, fx.FP16, 1, 32_000) == 32 * 4096 * per_layer
    assert kv_bytes(MISTRAL, fx.FP16, 1, 4096) == 512 * 1024 ** 2
    r = compute_report(Scenario(model="mistral-7b", gpu="h800", prompt_tokens=30_000, output_tokens=2000), fx.CATALOG)
    assert r.kv_bytes == 512 * 1024 ** 2
    assert r.max_context_tokens == MISTRAL.max_context_tokens          # memory never limits it: the model does


def test_the_longest_context_counts_only_full_layers_past_the_window():
    r = compute_report(Scenario(model="gpt-oss-120b", gpu="h200", weights="fp8", kv="fp16", batch=8,
                                prompt_tokens=1000, output_tokens=1000), fx.CATALOG)
    room = r.hbm_bytes_per_gpu - r.weights_bytes_per_gpu - r.overhead_bytes_per_gpu
    assert kv_bytes(OSS, fx.FP16, 8, r.max_context_tokens) <= room < kv_bytes(OSS, fx.FP16, 8, r.max_context_tokens + 1)
    assert r.fits and r.max_context_tokens > 128 and r.max_sequences >= 8


def test_attention_work_counts_at_most_the_window_in_windowed_layers():
    per_layer_position = attention_flops_per_position(OSS) / OSS.layers
    for context in (0, 50, 127, 128, 129, 5000):          # the new token: itself plus its cached window
        positions = sum(min(held, OSS.sliding_window_tokens) if i < 18 else held
                        for i, held in enumerate([context] * OSS.layers)) + OSS.layers
        assert attention_flops_decode(OSS, context) == pytest.approx(per_layer_position * positions), context
    for prompt in (1, 128, 129, 130, 3000):               # token i attends to itself and min(i - 1, W) before it
        positions = sum(1 + min(i - 1, OSS.sliding_window_tokens) if layer < 18 else i
                        for layer in range(OSS.layers) for i in range(1, prompt + 1))
        assert attention_flops_prefill(OSS, prompt) == pytest.approx(per_layer_position * positions), prompt


def test_a_decode_step_reads_only_the_window_of_windowed_layers():
    s = setup(*resolve(Scenario(model="gpt-oss-120b", gpu="h800", weights="fp8", batch=4), fx.CATALOG))
    step = decode_step_of(s)
    read = [step.at(c).bytes_per_gpu for c in (1000, 1001, 1002)]
    assert read[1] - read[0] == pytest.approx(read[2] - read[1])
    assert read[1] - read[0] == pytest.approx(4 * kv_bytes_per_token(OSS, fx.FP16) / 2)   # 4 sequences, full layers
    early = [step.at(c).bytes_per_gpu for c in (10, 11)]
    assert early[1] - early[0] == pytest.approx(4 * kv_bytes_per_token(OSS, fx.FP16))     # inside the window: all


@pytest.mark.parametrize("model, prompt, output", [("gpt-oss-120b", 60, 200), ("gpt-oss-120b", 128, 2),
                                                   ("mistral-7b", 4000, 300), ("gpt-oss-20b", 500, 500)])
def test_the_decode_sum_across_the_window_equals_the_sum_of_each_step(model, prompt, output):
    for mode in ("ideal", "realistic"):
        s = setup(*resolve(Scenario(model=model, gpu="h800", weights="fp8", batch=16, prompt_tokens=prompt,
                                    output_tokens=output, mode=mode), fx.CATALOG))
        step = decode_step_of(s)
        each = sum(time_pass(step.at(c), s.machine).seconds for c in range(prompt, prompt + output - 1))
        assert decode_seconds_sum(step, s.machine, prompt, output - 1) == pytest.approx(each, rel=1e-9)
        contexts = np.arange(prompt, prompt + output - 1, dtype=float)
        assert sweep.decode_step_seconds(step, s.machine, contexts).sum() == pytest.approx(each, rel=1e-9)


def test_windows_make_long_contexts_cheaper_than_the_same_model_without_them():
    plain = replace(OSS, sliding_window_tokens=0, sliding_window_layers=0)
    assert kv_bytes(plain, fx.BF16, 1, 100_000) == pytest.approx(2 * kv_bytes(OSS, fx.BF16, 1, 100_000), rel=0.01)
    assert attention_flops_prefill(plain, 100_000) > 1.9 * attention_flops_prefill(OSS, 100_000)


def test_the_sweeps_follow_the_window():
    scenario = Scenario(model="mistral-7b", gpu="h800", batch=2, prompt_tokens=1000, output_tokens=100)
    sizes = sweep.kv_bytes_for_contexts(scenario, np.array([1000, 4096, 20_000]), catalog=fx.CATALOG)
    np.testing.assert_allclose(sizes, [kv_bytes(MISTRAL, fx.FP16, 2, c) for c in (1000, 4096, 20_000)])
    assert sizes[1] == sizes[2]


@pytest.mark.parametrize("extra, field, problem", [
    ("sliding_window_tokens = 128\n", "sliding_window_layers", "when sliding_window_tokens > 0"),
    ("sliding_window_layers = 1\n", "sliding_window_tokens", "when sliding_window_layers > 0"),
    ("sliding_window_tokens = 128\nsliding_window_layers = 3\n", "sliding_window_layers", "at most layers (2)"),
])
def test_a_user_model_gives_both_window_fields_or_neither(tmp_path, extra, field, problem):
    catalog = load_catalog(user_file=write(tmp_path, GOOD_MODEL + extra))
    [warning] = catalog.warnings
    assert f"field {field} " in warning and problem in warning and "tiny" not in catalog.models
