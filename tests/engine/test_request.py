"""A request's timeline: TTFT, TPOT as context grows, decode share; the closed-form sum."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from engine.compute import decode_step_of, resolve, setup
from engine.efficiency import IDEAL, REALISTIC, Efficiency
from engine.passes import DecodeStepWork
from engine.request import Machine, decode_seconds_sum, sum_of_max_of_two_lines, time_pass
from engine.scenario import Scenario
from engine.sweep import decode_step_seconds
from tests.engine import fixtures as fx
from tests.engine.fixtures import report

lines = st.floats(-1e3, 1e3, allow_nan=False)


@given(lines, lines, lines, lines, st.integers(0, 2000), st.integers(0, 300))
def test_closed_form_sum_of_max_equals_the_loop(a0, a1, b0, b1, first, count):
    last = first + count - 1
    xs = np.arange(first, last + 1, dtype=float)
    expected = float(np.maximum(a0 + a1 * xs, b0 + b1 * xs).sum()) if count else 0.0
    got = sum_of_max_of_two_lines(a0, a1, b0, b1, first, last)
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-6 * (1 + abs(expected)))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["ideal", "realistic"]), st.integers(1, 512), st.integers(1, 29_000),
       st.integers(1, 3000), st.sampled_from(["llama-3.1-8b", "mixtral-8x7b", "deepseek-v3",
                                               "gpt-oss-120b", "mistral-7b"]))
def test_decode_total_equals_the_sum_of_each_step(mode, batch, prompt, output, model):
    s = setup(*resolve(Scenario(gpu="h800", model=model, weights="fp8", batch=batch, prompt_tokens=prompt,
                                output_tokens=output, mode=mode), fx.CATALOG))
    step = decode_step_of(s)
    contexts = np.arange(prompt, prompt + output - 1, dtype=float)
    per_step = decode_step_seconds(step, s.machine, contexts)
    assert decode_seconds_sum(step, s.machine, prompt, output - 1) == pytest.approx(per_step.sum(), rel=1e-9)
    if output > 1:   # the vectorised step agrees with the scalar one
        assert per_step[0] == pytest.approx(time_pass(step.at(prompt), s.machine).seconds, rel=1e-12)


def test_crossing_from_memory_to_compute_bound_within_one_output():
    # A step that is compute-bound at short context and memory-bound at long context.
    step = DecodeStepWork(flops_fixed=1e12, flops_per_context_token=0.0, bytes_fixed=1e9, bytes_per_context_token=1e6,
                          matmul_flops_per_gpu=1e12, expert_flops_per_gpu=0.0, wide_flops_per_gpu_fixed=0.0,
                          wide_flops_per_gpu_per_context_token=0.0, weight_bytes_per_gpu=1e9,
                          kv_bytes_per_gpu_fixed=0.0, kv_bytes_per_gpu_per_context_token=1e6)
    machine = Machine(peak_flops_per_gpu=1e15, bandwidth_bytes_per_second_per_gpu=1e12, gpus=1, efficiency=IDEAL)
    total = decode_seconds_sum(step, machine, 0, 10_000)
    contexts = np.arange(10_000)
    assert total == pytest.approx(np.maximum(1e-3, (1e9 + 1e6 * contexts) / 1e12).sum())


def test_timeline_adds_up():
    r = report(model="llama-3.1-70b", weights="fp8", prompt_tokens=1000, output_tokens=500)
    assert r.total_seconds == pytest.approx(r.ttft_seconds + r.decode_seconds)
    assert r.tpot_seconds == pytest.approx(r.decode_seconds / 499)
    assert r.decode_share == pytest.approx(r.decode_seconds / r.total_seconds)
    assert r.ttft_seconds == r.prefill.seconds
    assert r.decode_share > 0.95                    # the seed: over 95% of the time is decode


def test_steps_slow_down_as_context_grows():
    short = report(model="llama-3.1-8b", gpu="h800", prompt_tokens=100, output_tokens=100)
    long = report(model="llama-3.1-8b", gpu="h800", prompt_tokens=100_000, output_tokens=100)
    assert long.tpot_seconds > 1.5 * short.tpot_seconds
    assert long.decode.context_tokens == pytest.approx(100_000 + 49)


def test_a_single_output_token_has_no_decode_step():
    r = report(prompt_tokens=128, output_tokens=1, weights="fp8")
    assert r.decode_seconds == 0 and r.decode_share == 0
    assert r.total_seconds == r.ttft_seconds
    assert r.tpot_seconds > 0                       # the next step's time, so prices stay defined


def test_efficiency_modes_are_documented_constants():
    assert IDEAL == Efficiency("ideal", 1.0, 1.0, 1.0, 1.0, 0.0, 0.0)
    assert 0 < REALISTIC.compute_share < 1 and 0 < REALISTIC.bandwidth_share < 1
