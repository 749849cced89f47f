"""The roofline: a GPU either waits for bytes or for arithmetic, whichever takes longer.

A pass with ``F`` FLOPs that moves ``B`` bytes through HBM takes at least
``F / peak_flops`` (the worker's speed) and at least ``B / bandwidth`` (the
belt's speed). Its arithmetic intensity ``F / B`` (FLOP per byte) decides which:
below the *ridge point* ``peak / bandwidth`` the belt is the bottleneck
(memory-bound), above it the worker (compute-bound). The attainable rate is
``min(peak, bandwidth * intensity)``. H800 at FP16: 989e12 / 3.35e12 ≈ 295 FLOP/byte.

Which peak: the precision's ``compute_precision`` (FP8 weights run on FP8
tensor cores). Where the GPU has no peak at that precision (FP8 on an A100)
the weights are widened and multiplied on the next unit down that it has,
as ``engine.catalog_types.FLOPS_FALLBACK`` lists (FP8 -> FP16): weight-only
quantisation, where smaller weights still save memory and bandwidth but the
arithmetic runs at the wider format's peak. ``is_weight_only`` says when.

``ridge_point``, ``peak_flops``, ``attainable_flops`` and ``utilisation`` are
the agreed API used by the scenes; the last two accept numpy arrays.
"""
from __future__ import annotations

from engine.arrays import is_real_number, numpy_of
from engine.catalog_types import Gpu, Precision
from engine.errors import InputError



# Bytes of one operand at each compute precision: weights stored narrower than the unit
# that multiplies them must be widened first (dequantised) on every pass.
COMPUTE_BYTES_PER_VALUE = {"fp32": 4.0, "fp16": 2.0, "bf16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5, "fp4": 0.5}


def compute_precision_used(gpu: Gpu, precision: Precision) -> str:
    """The precision id whose peak the matmuls actually run at on ``gpu`` (``InputError`` if none)."""
    return gpu.flops_precision_for(precision.compute_precision)


def is_weight_only(gpu: Gpu, precision: Precision) -> bool:
    """True when ``gpu`` lacks the precision's own peak, so it computes at FP16/BF16."""
    return compute_precision_used(gpu, precision) != precision.compute_precision


def is_dequantised(gpu: Gpu, precision: Precision) -> bool:
    """True when ``precision``'s weights are narrower than the unit ``gpu`` multiplies them on (INT4 on
    FP16 tensor cores, FP8 on an A100), so every pass widens them before its matmuls."""
    return precision.bytes_per_value < COMPUTE_BYTES_PER_VALUE[compute_precision_used(gpu, precision)]


def wide_precision(precision: Precision) -> str:
    """The precision attention and the LM head run at: 16-bit, or FP32 for FP32 weights."""
    return "fp32" if precision.compute_precision == "fp32" else "bf16"


def peak_flops(gpu: Gpu, precision: Precision) -> float:
    """Dense peak FLOP/s of one GPU for matmuls with weights in ``precision``."""
    return gpu.peak_flops_for(precision.compute_precision)


def ridge_point(gpu: Gpu, precision: Precision) -> float:
    """FLOP per byte at which the GPU is equally limited by compute and by HBM bandwidth."""
    return peak_flops(gpu, precision) / gpu.memory_bandwidth_bytes_per_second


def _check_intensity(flops_per_byte) -> None:
    np = numpy_of(flops_per_byte)
    if np is not None:
        if not np.all(np.isfinite(flops_per_byte)) or np.any(flops_per_byte < 0):
            raise InputError("Arithmetic intensity must be a finite number of FLOP per byte, 0 or more.")
    elif not (is_real_number(flops_per_byte) and 0 <= flops_per_byte < float("inf")):
        raise InputError(
            f"Arithmetic intensity {flops_per_byte!r} is not allowed; "
            f"it must be a finite number of FLOP per byte, 0 or more.")


def attainable_flops(gpu: Gpu, precision: Precision, flops_per_byte):
    """FLOP/s reachable at ``flops_per_byte``: ``min(peak, bandwidth * intensity)`` (numpy-friendly)."""
    _check_intensity(flops_per_byte)
    peak = peak_flops(gpu, precision)
    limit = gpu.memory_bandwidth_bytes_per_second * flops_per_byte
    np = numpy_of(limit)
    if np is not None:
        return np.minimum(peak, limit)
    return min(peak, float(limit))


def utilisation(gpu: Gpu, precision: Precision, flops_per_byte):
    """Share of peak reached at ``flops_per_byte`` in the pure roofline, 0..1 (numpy-friendly)."""
    return attainable_flops(gpu, precision, flops_per_byte) / peak_flops(gpu, precision)


def bound(compute_seconds: float, memory_seconds: float) -> str:
    """``"compute"`` when arithmetic takes at least as long as moving the bytes, else ``"memory"``."""
    # Boundary: at the ridge exactly (equal times) the compute never idles, so compute-bound (test_roofline.py).
    return "compute" if compute_seconds >= memory_seconds else "memory"
