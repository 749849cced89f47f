"""Roofline: ridge point, attainable FLOPS, which bound applies to each phase."""
import numpy as np
import pytest

from engine import roofline
from engine.errors import InputError
from tests.engine import fixtures as fx
from tests.engine.fixtures import report


def test_h800_ridge_point_is_about_300():
    assert roofline.ridge_point(fx.H800, fx.FP16) == pytest.approx(989.4e12 / 3.35e12)
    assert 280 < roofline.ridge_point(fx.H800, fx.FP16) < 310       # the seed's "x300"
    assert roofline.ridge_point(fx.H800, fx.FP8) == pytest.approx(2 * roofline.ridge_point(fx.H800, fx.FP16), rel=1e-3)


def test_attainable_and_utilisation_follow_min_of_peak_and_bandwidth():
    ridge = roofline.ridge_point(fx.H800, fx.FP16)
    assert roofline.attainable_flops(fx.H800, fx.FP16, 1.0) == pytest.approx(3.35e12)
    assert roofline.attainable_flops(fx.H800, fx.FP16, 10 * ridge) == pytest.approx(989.4e12)
    assert roofline.utilisation(fx.H800, fx.FP16, ridge / 2) == pytest.approx(0.5)
    intensities = np.array([0.0, ridge / 4, ridge, 4 * ridge])
    np.testing.assert_allclose(roofline.utilisation(fx.H800, fx.FP16, intensities), [0, 0.25, 1, 1])


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf"), "10", None, np.array([1.0, -2.0])])
def test_bad_intensity_is_an_input_error(bad):
    with pytest.raises(InputError):
        roofline.attainable_flops(fx.H800, fx.FP16, bad)


def test_fp8_on_a100_falls_back_to_fp16_weight_only():
    assert roofline.compute_precision_used(fx.A100_80GB, fx.FP8) == "fp16"
    assert roofline.is_weight_only(fx.A100_80GB, fx.FP8)
    assert not roofline.is_weight_only(fx.H800, fx.FP8)
    assert roofline.peak_flops(fx.A100_80GB, fx.FP8) == 312e12
    r = report(gpu="a100-80gb", weights="fp8", model="llama-3.1-8b")
    assert r.weight_only and r.compute_precision == "fp16"


def test_decode_at_batch_1_is_memory_bound_and_prefill_of_1000_tokens_compute_bound():
    for mode in ("ideal", "realistic"):
        r = report(gpu="h800", model="llama-3.1-70b", weights="fp8", prompt_tokens=1000, batch=1, mode=mode)
        assert r.decode.bound == "memory"
        assert r.prefill.bound == "compute"
        assert r.decode.utilisation < 0.05                  # the seed's 1-5%
        # FP8 matmuls measurably reach about half of the FP8 peak (engine.efficiency: narrow_compute_share)
        assert r.prefill.utilisation > (0.5 if mode == "ideal" else 0.4)


def test_ideal_mode_is_exactly_the_roofline_on_one_gpu():
    r = report(gpu="h800", model="llama-3.1-70b", weights="fp16", mode="ideal")
    flops, bytes_ = r.prefill.flops, r.prefill.bytes
    assert r.prefill.seconds == pytest.approx(max(flops / 989.4e12, bytes_ / 3.35e12), rel=1e-12)
    step = max(r.decode.flops_per_token / 989.4e12, r.decode.bytes_per_token / 3.35e12)
    assert r.decode.seconds_per_token == pytest.approx(step, rel=1e-12)
    intensity = r.prefill.flops / r.prefill.bytes
    assert r.prefill.utilisation == pytest.approx(roofline.utilisation(fx.H800, fx.FP16, intensity))


def test_with_fp8_weights_attention_and_the_lm_head_stay_at_the_16_bit_peak_even_in_ideal_mode():
    r = report(gpu="h800", model="llama-3.1-70b", weights="fp8", prompt_tokens=8000, output_tokens=1, mode="ideal")
    assert r.prefill.flops / 1978.9e12 < r.prefill.compute_seconds < r.prefill.flops / 989.4e12


def test_realistic_is_never_faster_than_ideal():
    for fields in (dict(), dict(batch=64), dict(gpus=8, weights="fp8"), dict(prompt_tokens=10, output_tokens=2)):
        ideal, real = report(mode="ideal", **fields), report(mode="realistic", **fields)
        assert real.ttft_seconds > ideal.ttft_seconds
        assert real.tpot_seconds > ideal.tpot_seconds


def test_batching_moves_decode_towards_the_ridge():
    small = report(model="llama-3.1-8b", gpu="h800", batch=1, prompt_tokens=100, output_tokens=100, mode="ideal")
    big = report(model="llama-3.1-8b", gpu="h800", batch=1024, prompt_tokens=100, output_tokens=100, mode="ideal")
    assert big.decode.utilisation > 50 * small.decode.utilisation
    assert big.tpot_seconds < 20 * small.tpot_seconds            # 1024x the tokens for far less than 1024x the time


def test_int8_is_w8a8_at_the_int8_peak_as_the_catalogue_says():
    assert fx.INT8.compute_precision == "int8"
    assert roofline.peak_flops(fx.H800, fx.INT8) == 1978.9e12
    assert roofline.peak_flops(fx.A100_80GB, fx.INT8) == 624e12
    assert roofline.peak_flops(fx.A100_80GB, fx.INT4) == 312e12       # weight-only INT4: FP16 matmuls


def test_every_peak_comes_from_the_one_fallback_rule():
    from engine.catalog_types import FLOPS_FALLBACK
    for gpu in fx.CATALOG.gpus.values():
        for precision in fx.CATALOG.precisions.values():
            chain = [p for p in FLOPS_FALLBACK[precision.compute_precision] if p in gpu.flops_per_second]
            if not chain:
                with pytest.raises(InputError):
                    roofline.peak_flops(gpu, precision)
                continue
            assert roofline.compute_precision_used(gpu, precision) == chain[0]
            assert roofline.peak_flops(gpu, precision) == gpu.flops_per_second[chain[0]]
            r = report(gpu=gpu.id, model="llama-3.1-8b", weights=precision.id)
            assert r.peak_flops_per_gpu == gpu.flops_per_second[chain[0]] and r.compute_precision == chain[0]


def test_at_the_ridge_point_exactly_a_pass_is_compute_bound():
    """The boundary: a pass whose arithmetic takes exactly as long as its bytes (its intensity is the ridge
    point) keeps the compute busy all the time, utilisation 1, as ``utilisation`` says from the ridge on: it is
    compute-bound. A little less arithmetic per byte and the compute waits: memory-bound."""
    from engine.efficiency import IDEAL
    from engine.passes import PassWork
    from engine.request import Machine, time_pass
    assert roofline.bound(1.0, 1.0) == "compute" and roofline.bound(1.0, 1.0 + 1e-9) == "memory"
    machine = Machine(peak_flops_per_gpu=1e15, bandwidth_bytes_per_second_per_gpu=1e12, gpus=1, efficiency=IDEAL)
    at_ridge = time_pass(PassWork.plain(1e15, 1e12), machine)
    assert at_ridge.compute_seconds == at_ridge.memory_seconds == 1.0           # 1,000 FLOP per byte, the ridge
    assert at_ridge.bound == "compute" and at_ridge.utilisation == 1.0
    below = time_pass(PassWork.plain(0.999e15, 1e12), machine)
    assert below.bound == "memory" and below.utilisation < 1.0
    ridge = roofline.ridge_point(fx.H800, fx.FP16)
    assert roofline.utilisation(fx.H800, fx.FP16, ridge) == 1.0 > roofline.utilisation(fx.H800, fx.FP16, 0.999 * ridge)


def test_fp4_weights_run_at_blackwells_fp4_peak_and_are_widened_to_fp16_before_it():
    b200 = report(gpu="b200", model="llama-3.1-70b", weights="fp4", kv="fp8")
    h100 = report(gpu="h100-sxm", model="llama-3.1-70b", weights="fp4", kv="fp8")
    assert (b200.compute_precision, b200.weight_only) == ("fp4", False)
    assert (h100.compute_precision, h100.weight_only) == ("fp16", True)
    assert b200.peak_flops_per_gpu == 2 * fx.CATALOG.gpu("b200").flops_per_second["fp8"]
    assert b200.weights_bytes == h100.weights_bytes < report(model="llama-3.1-70b", weights="fp8").weights_bytes / 1.7
