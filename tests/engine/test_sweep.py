"""Vectorised curves over context length agree with the report."""
import numpy as np
import pytest

from engine import Scenario, compute_report, sweep
from engine.units import GiB


def test_context_axis():
    contexts = sweep.context_tokens()
    assert contexts[0] == 1 and contexts[-1] == 131072 and len(contexts) == 131072


def test_kv_curve_hits_the_seed_values():
    contexts = np.array([2048, 32768, 131072])
    sizes = sweep.kv_bytes_for_contexts(Scenario(model="llama-3.1-70b", kv="fp16"), contexts)
    np.testing.assert_allclose(sizes / GiB, [0.625, 10, 40])


def test_step_curve_matches_the_report_at_the_mean_context():
    scenario = Scenario(model="llama-3.1-8b", gpu="h800", batch=16, prompt_tokens=3000, output_tokens=1001)
    report = compute_report(scenario)
    seconds = sweep.decode_step_seconds_for_contexts(scenario, np.array([report.decode.context_tokens]))
    assert seconds[0] == pytest.approx(report.decode.seconds_per_token, rel=1e-12)
    steps = sweep.decode_step_seconds_for_contexts(scenario, np.arange(3000, 4000))
    assert steps.mean() == pytest.approx(report.tpot_seconds, rel=1e-9)


def test_free_memory_falls_as_context_grows_and_crosses_zero_at_the_longest_context():
    scenario = Scenario(model="llama-3.1-70b", weights="fp8", gpu="h800", batch=1)
    report = compute_report(scenario)
    free = sweep.free_bytes_per_gpu_for_contexts(scenario, np.array([report.max_context_tokens,
                                                                     report.max_context_tokens + 1]))
    assert free[0] >= 0 > free[1]


def test_most_sequences_curve_matches_the_report():
    scenario = Scenario(model="llama-3.1-8b", gpu="a100-80gb", prompt_tokens=1000, output_tokens=1000)
    report = compute_report(scenario)
    counts = sweep.max_sequences_for_contexts(scenario, np.array([2000, 4000, 128_000]))
    assert counts[0] == report.max_sequences
    assert counts[0] >= 2 * counts[1] - 1 and counts[2] < counts[0] / 50


def test_a_long_prompt_curve_uses_the_reports_chunked_allowance():
    # 12 prompts of 32,000 tokens: the sweep's room for KV is the report's, with the prefill chunked.
    scenario = Scenario(model="llama-3.1-8b", gpu="h800", batch=12, prompt_tokens=32000, output_tokens=1000)
    report = compute_report(scenario)
    assert report.fits
    assert sweep.max_sequences_for_contexts(scenario, np.array([33000]))[0] == report.max_sequences
    free = sweep.free_bytes_per_gpu_for_contexts(scenario, np.array([33000, report.max_context_tokens,
                                                                     report.max_context_tokens + 1]))
    assert free[0] == pytest.approx(report.free_bytes_per_gpu) and free[1] >= 0 > free[2]


@pytest.mark.parametrize("bad", [[1.0, float("nan")], [-1], [1e12], "long", [[1, "x"]], None])
def test_bad_contexts_are_one_input_error(bad):
    from engine import InputError
    for curve in (sweep.decode_step_seconds_for_contexts, sweep.kv_bytes_for_contexts,
                  sweep.free_bytes_per_gpu_for_contexts, sweep.max_sequences_for_contexts):
        with pytest.raises(InputError, match="Context lengths must be"):
            curve(Scenario(), bad)


@pytest.mark.parametrize("bad", [0, -5, 10 ** 12, 2.5, "100", True])
def test_bad_sweep_length_is_one_input_error(bad):
    from engine import InputError
    with pytest.raises(InputError, match="longest context of a sweep"):
        sweep.context_tokens(bad)
