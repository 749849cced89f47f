"""Prices of input and output tokens from GPU time."""
import pytest

from tests.engine.fixtures import report


def test_prices_follow_from_gpu_time():
    r = report(model="llama-3.1-70b", weights="fp8", gpus=2, batch=4, prompt_tokens=1000, output_tokens=500,
               usd_per_gpu_hour=3.0)
    usd_per_second = 2 * 3.0 / 3600
    assert r.usd_per_million_input_tokens == pytest.approx(r.ttft_seconds * usd_per_second / 4000 * 1e6)
    assert r.usd_per_million_output_tokens == pytest.approx(r.tpot_seconds * usd_per_second / 4 * 1e6)
    assert r.output_to_input_price_ratio == pytest.approx(
        r.usd_per_million_output_tokens / r.usd_per_million_input_tokens)


def test_output_costs_more_than_input_and_batching_narrows_the_gap():
    alone = report(model="llama-3.1-70b", weights="fp8", batch=1)
    shared = report(model="llama-3.1-70b", weights="fp8", batch=64, prompt_tokens=1000, output_tokens=500)
    assert alone.output_to_input_price_ratio > 10
    assert 1 < shared.output_to_input_price_ratio < alone.output_to_input_price_ratio / 5


def test_price_scales_linearly_and_zero_price_keeps_the_ratio():
    one = report(usd_per_gpu_hour=1.0, weights="fp8")
    two = report(usd_per_gpu_hour=2.0, weights="fp8")
    free = report(usd_per_gpu_hour=0.0, weights="fp8")
    assert two.usd_per_million_output_tokens == pytest.approx(2 * one.usd_per_million_output_tokens)
    assert free.usd_per_million_input_tokens == 0 == free.usd_per_million_output_tokens
    assert free.output_to_input_price_ratio == pytest.approx(one.output_to_input_price_ratio)
