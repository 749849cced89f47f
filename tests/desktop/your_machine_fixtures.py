"""A measurement of a made-up machine, for the tests of scene "Your machine" (no probe is run to make it).

The figures are of the kind a two-core machine measures (its memory at 25 GB/s, its compute at 0.29 TFLOPS,
five of Qwen3 0.6B's 28 layers), chosen so that every number the stage shows can be told apart: the decode
step's measured time is not its prediction, and its utilisation is its own (0.0462, idle 95.4%). The model is
the catalogue's qwen3-0.6b, whose report on an H800 the stage sets beside it.
"""
from __future__ import annotations

from dataclasses import replace

from engine.catalog import default_catalog
from engine.probe_machine import MachineInfo
from engine.probe_result import DeviceMeasurement, PassMeasurement, ProbeResult
from engine.probe_sizes import layer_matrices, probe_sizes

MODEL_ID = "qwen3-0.6b"
BANDWIDTH = 25.2e9
PEAK = 2.86e11
DECODE_UTILISATION = 0.0462
PREFILL_UTILISATION = 0.883


def machine_info(**changes) -> MachineInfo:
    info = MachineInfo(cpu_name="Test CPU 9000 @ 3.1GHz", logical_cores=8, usable_cores=8, physical_cores=4,
                       system="Linux x86_64", memory_bytes=16_000_000_000, available_memory_bytes=12_000_000_000,
                       last_level_cache_bytes=12_582_912, blas_name="openblas", blas_version="0.3.27",
                       blas_threads=8, blas_threads_from="threadpoolctl", numpy_version="2.0.0")
    return replace(info, **changes)


def _pass(sizes, tokens: int, utilisation: float, bound: str, over: float, share: float = 0.98) -> PassMeasurement:
    flops = sum(2.0 * m.rows * m.columns * tokens for m in sizes.matrices)
    moved = float(sum(m.bytes + tokens * (m.rows + m.columns) * 4 for m in sizes.matrices))
    measured = flops / (utilisation * PEAK)
    return PassMeasurement(tokens=tokens, flops=flops, bytes=moved, predicted_seconds=measured / over,
                           measured_seconds=measured, bound=bound, runs=12, peak_flops_per_second=PEAK,
                           core_share=share)


def sample_accelerator() -> DeviceMeasurement:
    """A GPU the probe measured too (through PyTorch): its float32 figures, the same matrices."""
    model = default_catalog().model(MODEL_ID)
    sizes = replace(probe_sizes(model, 2_000_000_000, largest_matmul=16384), largest_matmul_size=8192)
    decode = _pass(sizes, 1, 0.011, "memory", 0.5, None)
    prefill = _pass(sizes, 512, 0.41, "compute", 1.6, None)
    peak = 4.9e13                               # its float32 matrix product, as PyTorch ran it
    decode, prefill = (replace(p, peak_flops_per_second=peak, measured_seconds=p.flops / (u * peak),
                               predicted_seconds=p.flops / (u * peak) * f)
                       for p, u, f in ((decode, 0.011, 0.5), (prefill, 0.41, 0.6)))
    return DeviceMeasurement(device="cuda:0", device_name="NVIDIA H200", library="torch",
                             memory_bandwidth_bytes_per_second=4.1e12, copy_bandwidth_bytes_per_second=3.9e12,
                             flops_per_second=peak, matmul_size=8192, sizes=sizes, decode=decode, prefill=prefill)


def sample_result(core_share: float = 0.98, **changes) -> ProbeResult:
    """A measurement of "Test CPU 9000" on 2026-03-14 at 09:26 (local time), as ``probe_machine`` returns one."""
    model = default_catalog().model(MODEL_ID)
    sizes = replace(probe_sizes(model, 320_000_000), largest_matmul_size=2048)   # the size measured, as JSON keeps it
    assert sizes.layers_measured and len(sizes.matrices) == sizes.layers_measured * len(layer_matrices(model))
    cpu = DeviceMeasurement(
        device="cpu", device_name="Test CPU 9000 @ 3.1GHz", library="numpy",
        memory_bandwidth_bytes_per_second=BANDWIDTH, copy_bandwidth_bytes_per_second=23.4e9,
        flops_per_second=PEAK, matmul_size=2048, sizes=sizes,
        decode=_pass(sizes, 1, DECODE_UTILISATION, "memory", 0.96, core_share),
        prefill=_pass(sizes, 512, PREFILL_UTILISATION, "compute", 1.14, core_share),
        compute_core_share=core_share)
    result = ProbeResult(measured_at="2026-03-14T09:26:53+08:00", probe_seconds=5.4, machine=machine_info(),
                         model_id=MODEL_ID, model_name=model.name, model_layers=model.layers, cpu=cpu,
                         accelerator=None, accelerator_error=None)
    return replace(result, **changes)
