"""Measure the machine at hand and put it on the roofline: ``python -m engine probe [--json]``.

Method, on the CPU with numpy (and on a GPU too, where CuPy or PyTorch finds one):

1. **Memory bandwidth**: a streaming read (the maximum of float64 ones) of one
   array and a copy between two, each as large as the decode step's weights,
   sliced over every usable core; the best of several runs. The working set
   (``engine.probe_sizes``) is four times the last-level cache, between 256 and
   384 MB, and never more than a quarter of the free memory.
2. **Compute**: a float32 n x n matrix product on the BLAS's threads, n doubled
   until one product is slow enough to be at the BLAS's peak; the best run.
3. **Decode step**: one token (a vector) through the weight matrices of a real
   small model's decoder layers (Qwen3-0.6B or Llama 3.2 1B where the catalogue
   has them, else its smallest dense model): random float32 weights of the real
   shapes, as many whole layers as the working set holds. Predicted first, by
   the engine's own roofline in ideal mode (``engine.request.time_pass``:
   ``max(FLOPs / compute, bytes / bandwidth)`` with the two figures just
   measured), then timed.
4. **Prefill pass**: the same matrices against up to 512 tokens at once
   (fewer where the machine is slow or the budget small), predicted, then timed.

Float32, because numpy multiplies float32 on the BLAS while float16 runs
through slow generic loops; the physics needs the bytes, and those are counted.

Why the measured times differ from the predicted ones:

- *caches*: what is read again soon may still be in a cache; the decode step
  reads as many bytes as the bandwidth read, so both meet the caches alike, but
  where the cache is not much smaller than that both are partly cache figures
  (a virtual machine often reports its host's whole cache);
- *turbo clocks and heat*: a core's clock changes with load, temperature and
  how many cores are busy, so compute measured in one stage is not quite the
  compute of the next;
- *other programs* take cores and memory bandwidth at any moment (best of
  several runs keeps only the least disturbed one);
- *the BLAS's shapes*: a transformer's matrices are not the square the peak
  was measured on: a decode step's matrix-vector products may reach the
  bandwidth better or worse than a plain read, and a prefill's thin matrices
  (hundreds of tokens by thousands) reach the peak less well;
- *overhead per call*: every product is one call from Python (microseconds on a
  CPU, a kernel launch on a GPU), which a small matrix does not hide; on a GPU
  this dominates a decode step, as it does in real serving without CUDA graphs.

What the probe never does: download anything, show a number it did not measure
(or predict from what it measured), or take more than a quarter of free memory.
A probe that cannot run raises ``ProbeError`` with one sentence from
``resources/text/errors.toml``; a caller's ``cancelled()`` returning True
raises ``ProbeCancelled``. ``progress(stage, fraction)`` hears each stage
("bandwidth", "compute", "decode", "prefill") and the share of the whole probe
done, 0 to 1, never decreasing. Everything runs on the calling thread (the
app calls it from its worker helper).
"""
from __future__ import annotations

import time
from datetime import datetime
from typing import Callable

from engine.catalog_types import Catalog, Model
from engine.efficiency import IDEAL
from engine.passes import PassWork
from engine.probe_backends import Backend, close_backend, cpu_backend, find_accelerator
from engine.probe_kernels import (
    ProbeCancelled, Stage, matrices_work, measure_bandwidth, measure_compute, time_matrices,
)
from engine.probe_machine import MachineInfo, available_memory_bytes, describe_machine
from engine.probe_result import DeviceMeasurement, PassMeasurement, ProbeResult
from engine.probe_sizes import (
    FEWEST_PREFILL_TOKENS, LARGEST_WORKING_SET_BYTES, SMALLEST_WORKING_SET_BYTES, ProbeError, ProbeSizes,
    probe_error, probe_model, probe_sizes, working_set_bytes,
)
from engine.request import Machine, time_pass
from engine.units import format_bytes

__all__ = ["probe_machine", "probe_device", "device_stages", "ProbeError", "ProbeCancelled", "ProbeResult",
           "DeviceMeasurement", "PassMeasurement", "MachineInfo", "STAGES"]

STAGES = ("bandwidth", "compute", "decode", "prefill")
ACCELERATOR_WORKING_SET_BYTES = 2_000_000_000     # a GPU reads this in well under a millisecond per GB
PREFILL_SECONDS = 1.0                             # a prefill run predicted longer takes fewer tokens
_STAGE_SHARES = (0.2, 0.2, 0.2, 0.4)              # of one device's progress: the prefill runs longest


def check_memory_budget(memory_budget_bytes) -> int | None:
    """``memory_budget_bytes`` as a whole number of bytes in the allowed range (None: the default)."""
    if memory_budget_bytes is None:
        return None
    ok = isinstance(memory_budget_bytes, int) and not isinstance(memory_budget_bytes, bool)
    if not ok or not SMALLEST_WORKING_SET_BYTES <= memory_budget_bytes <= LARGEST_WORKING_SET_BYTES:
        raise probe_error("probe.budget", {"low": SMALLEST_WORKING_SET_BYTES // 1_000_000,
                                       "high": LARGEST_WORKING_SET_BYTES // 1_000_000,
                                       "got": _megabytes(memory_budget_bytes)})
    return memory_budget_bytes


def _megabytes(value):
    """A budget in bytes as the refusal shows it, in MB (whole where it is whole); anything else as given."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value // 1_000_000 if value % 1_000_000 == 0 else value / 1_000_000
    return value


def device_stages(start: float = 0.0, end: float = 1.0, progress: Callable[[str, float], None] | None = None,
                  cancelled: Callable[[], bool] | None = None) -> list[Stage]:
    """The four stages of one device, sharing the progress from ``start`` to ``end``."""
    stages, at = [], start
    for name, share in zip(STAGES, _STAGE_SHARES):
        width = (end - start) * share
        stages.append(Stage(name, at, at + width, progress, cancelled))
        at += width
    return stages


def _prediction(work, peak: float, bandwidth: float):
    machine = Machine(peak_flops_per_gpu=peak, bandwidth_bytes_per_second_per_gpu=bandwidth, gpus=1,
                      efficiency=IDEAL)
    return time_pass(PassWork.plain(work.flops, work.bytes), machine)


def _pass(backend: Backend, weights: list, sizes: ProbeSizes, tokens: int, peak: float, bandwidth: float,
          stage: Stage) -> PassMeasurement:
    work = matrices_work(sizes.matrices, tokens)
    predicted = _prediction(work, peak, bandwidth)
    timing = time_matrices(backend, weights, sizes.matrices, tokens, stage)
    return PassMeasurement(tokens=tokens, flops=work.flops, bytes=work.bytes, predicted_seconds=predicted.seconds,
                           measured_seconds=timing.seconds, bound=predicted.bound, runs=timing.runs,
                           peak_flops_per_second=peak, core_share=timing.core_share)


def _prefill_tokens(sizes: ProbeSizes, peak: float) -> int:
    """The most tokens (halving from ``sizes.prefill_tokens``) whose prefill is predicted within PREFILL_SECONDS."""
    tokens = sizes.prefill_tokens
    per_token = matrices_work(sizes.matrices, 1).flops
    while tokens > FEWEST_PREFILL_TOKENS and tokens * per_token / peak > PREFILL_SECONDS:
        tokens //= 2
    return tokens


def device_failure(backend: Backend, error: Exception, working_set: int) -> ProbeError:
    """The one sentence for what stopped a device: its memory ran out, or its BLAS or driver failed."""
    if isinstance(error, MemoryError):
        return probe_error("probe.out_of_memory", {"device": backend.device_name, "needed": format_bytes(working_set)})
    reason = " ".join(str(error).split()) or type(error).__name__
    return probe_error("probe.failed", {"device": backend.device_name, "reason": reason})


def probe_device(backend: Backend, sizes: ProbeSizes, stages: list[Stage]) -> DeviceMeasurement:
    """Measure one device: bandwidth, compute, then a decode step and a prefill pass, predicted and timed.

    Raises ``ProbeError`` (``probe.out_of_memory``, ``probe.failed``) or ``ProbeCancelled``; keeps nothing then.
    """
    weights: list = []
    try:
        bandwidth = measure_bandwidth(backend, sizes, stages[0])
        compute = measure_compute(backend, sizes, stages[1])
        peak, read = compute.flops_per_second, bandwidth.read_bytes_per_second
        weights = [backend.random_matrix(m.rows, m.columns) for m in sizes.matrices]
        decode = _pass(backend, weights, sizes, 1, peak, read, stages[2])
        prefill = _pass(backend, weights, sizes, _prefill_tokens(sizes, peak), peak, read, stages[3])
    except (ProbeCancelled, ProbeError):
        raise
    except Exception as error:
        raise device_failure(backend, error, sizes.working_set_bytes) from None
    finally:
        weights.clear()
        backend.release()
    return DeviceMeasurement(device=backend.device, device_name=backend.device_name, library=backend.library,
                             memory_bandwidth_bytes_per_second=read,
                             copy_bandwidth_bytes_per_second=bandwidth.copy_bytes_per_second,
                             flops_per_second=peak, matmul_size=compute.matmul_size, sizes=sizes,
                             decode=decode, prefill=prefill, compute_core_share=compute.core_share)


def probe_machine(model: str | None = None, *, catalog: Catalog | None = None,
                  memory_budget_bytes: int | None = None, accelerators: bool = True,
                  progress: Callable[[str, float], None] | None = None,
                  cancelled: Callable[[], bool] | None = None) -> ProbeResult:
    """Measure this machine (module docstring): the CPU, and a GPU too where ``accelerators`` finds one.

    ``model``: a catalogue id whose shapes to run (default: ``engine.probe_sizes.probe_model``);
    ``memory_budget_bytes``: the most the probe's arrays may take at once (default: from the cache,
    and never more than a quarter of the free memory).
    """
    from engine.catalog import default_catalog

    started, measured_at = time.perf_counter(), datetime.now().astimezone().isoformat(timespec="seconds")
    budget = check_memory_budget(memory_budget_bytes)
    chosen: Model = probe_model(default_catalog() if catalog is None else catalog, model)
    machine = describe_machine()
    sizes = probe_sizes(chosen, working_set_bytes(budget, machine.available_memory_bytes,
                                                  machine.last_level_cache_bytes))
    accelerator = find_accelerator() if accelerators else None
    cpu_end = 0.7 if accelerator is not None else 1.0
    backend = cpu_backend(machine.cpu_name, machine.usable_cores, available_memory_bytes, machine.blas_threads)
    try:
        cpu = probe_device(backend, sizes, device_stages(0.0, cpu_end, progress, cancelled))
    finally:
        close_backend(backend)
    measured, problem = None, None
    if accelerator is not None:
        measured, problem = _probe_accelerator(accelerator, chosen, budget, progress, cancelled, cpu_end)
    return ProbeResult(measured_at=measured_at,
                       probe_seconds=time.perf_counter() - started, machine=machine, model_id=chosen.id,
                       model_name=chosen.name, model_layers=chosen.layers, cpu=cpu, accelerator=measured,
                       accelerator_error=problem)


def _probe_accelerator(backend: Backend, model: Model, budget: int | None, progress, cancelled, start: float):
    """(the GPU's measurement, None), or (None, the ProbeError that stopped it): the CPU's figures stand."""
    try:
        free = backend.free_memory_bytes()
        working_set = working_set_bytes(budget or ACCELERATOR_WORKING_SET_BYTES, free, None)
        sizes = probe_sizes(model, working_set, largest_matmul=16384)
        return probe_device(backend, sizes, device_stages(start, 1.0, progress, cancelled)), None
    except ProbeError as error:
        return None, error
    except ProbeCancelled:
        raise
    except Exception as error:       # the driver failed before the first stage (asking for free memory)
        return None, device_failure(backend, error, budget or ACCELERATOR_WORKING_SET_BYTES)
    finally:
        close_backend(backend)
