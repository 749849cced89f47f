"""A measurement read back from ``python -m engine probe --json``: the same ``ProbeResult`` the probe returns.

The scene keeps its measurement for the session only (never on disk). This is
the one way to show a measurement that was not taken in this session: a file
the probe's own ``--json`` wrote, named by the environment variable
``INFERENCE_PHYSICS_PROBE_JSON`` (``measurement.session_result``), so that an
export or a test shows the measured builds deterministically without running
the probe::

    python -m engine probe --json > here.json
    INFERENCE_PHYSICS_PROBE_JSON=here.json python -m desktop --export out --scene your_machine

Every field the stage shows is in the JSON (SI units). The weight matrices come
back in the order the probe ran them (``engine.probe_sizes``: q, k, v, o, gate,
up, down, layer after layer); the largest matrix product the sizes allowed is
not in the JSON and is taken to be the one measured. Qt-free. A file that cannot be read as a probe's
JSON is refused in one sentence (``probe.file``).
"""
from __future__ import annotations

import json
from pathlib import Path

from engine.probe_machine import MachineInfo
from engine.probe_result import DeviceMeasurement, PassMeasurement, ProbeResult
from engine.probe_sizes import READ_VALUE_BYTES, ProbeError, ProbeSizes, WeightMatrix, probe_error


def read_probe_file(path: str | Path) -> ProbeResult:
    """The measurement in ``path`` (``engine probe --json``); raises ``ProbeError`` (``probe.file``) when it is
    missing, not JSON, or not a probe's figures."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return result_from_json(data)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as problem:
        reason = " ".join(str(problem).split()) or type(problem).__name__
        raise probe_error("probe.file", {"path": str(path), "reason": reason}) from None


def result_from_json(data: dict) -> ProbeResult:
    """``ProbeResult.to_json_dict()`` read back (KeyError, TypeError or ValueError where it is not one)."""
    machine = data["machine"]
    blas = machine["blas"]
    info = MachineInfo(
        cpu_name=str(machine["cpu"]), logical_cores=int(machine["logical_cores"]),
        usable_cores=int(machine["usable_cores"]), physical_cores=_optional_int(machine.get("physical_cores")),
        system=str(machine["system"]), memory_bytes=_optional_int(machine.get("memory_bytes")),
        available_memory_bytes=_optional_int(machine.get("available_memory_bytes")),
        last_level_cache_bytes=_optional_int(machine.get("last_level_cache_bytes")),
        blas_name=str(blas["name"]), blas_version=str(blas["version"]), blas_threads=int(blas["threads"]),
        blas_threads_from=str(blas["threads_from"]), numpy_version=str(machine["numpy_version"]))
    model = data["model"]
    accelerator = data.get("accelerator")
    problem = data.get("accelerator_problem")
    return ProbeResult(
        measured_at=str(data["measured_at"]), probe_seconds=float(data["probe_seconds"]), machine=info,
        model_id=str(model["id"]), model_name=str(model["name"]), model_layers=int(model["layers"]),
        cpu=device_from_json(data), accelerator=device_from_json(accelerator) if accelerator else None,
        accelerator_error=ProbeError(str(problem)) if problem else None)


def device_from_json(data: dict) -> DeviceMeasurement:
    """One device's block of the probe's JSON read back."""
    peak = float(data["flops_per_second"])
    sizes = data["sizes"]
    layers = int(sizes["layers_measured"])
    roles = [(str(m["role"]), int(m["rows"]), int(m["columns"]), int(m["count"])) for m in sizes["matrices"]]
    if layers:
        matrices = tuple(WeightMatrix(layer, role, rows, columns)
                         for layer in range(layers) for role, rows, columns, _count in roles)
    else:
        matrices = tuple(WeightMatrix(0, role, rows, columns) for role, rows, columns, _count in roles)
    if sum(count for *_, count in roles) != len(matrices):
        raise ValueError("the matrices' counts do not match the layers measured")
    read_bytes, copy_bytes = int(sizes["read_bytes"]), int(sizes["copy_bytes"])
    shapes = ProbeSizes(working_set_bytes=int(sizes["working_set_bytes"]), read_values=read_bytes // READ_VALUE_BYTES,
                        copy_values=copy_bytes // (2 * READ_VALUE_BYTES), largest_matmul_size=int(sizes["matmul_size"]),
                        matrices=matrices, layers_measured=layers, prefill_tokens=int(sizes["prefill_tokens"]))
    device = data["device"]
    core_share = data.get("core_share")
    return DeviceMeasurement(
        device=str(device["kind"]), device_name=str(device["name"]), library=str(device["library"]),
        memory_bandwidth_bytes_per_second=float(data["memory_bandwidth_bytes_per_second"]),
        copy_bandwidth_bytes_per_second=float(data["copy_bandwidth_bytes_per_second"]),
        flops_per_second=peak, matmul_size=int(sizes["matmul_size"]), sizes=shapes,
        decode=_pass(data["decode"], peak), prefill=_pass(data["prefill"], peak),
        compute_core_share=None if core_share is None else float(core_share))


def _pass(data: dict, peak: float) -> PassMeasurement:
    share = data.get("core_share")
    measured = PassMeasurement(
        tokens=int(data["tokens"]), flops=float(data["flops"]), bytes=float(data["bytes"]),
        predicted_seconds=float(data["predicted_seconds"]), measured_seconds=float(data["measured_seconds"]),
        bound=str(data["bound"]), runs=int(data["runs"]), peak_flops_per_second=peak,
        core_share=None if share is None else float(share))
    if not (measured.predicted_seconds > 0 and measured.measured_seconds > 0 and peak > 0 and measured.flops > 0):
        raise ValueError("a time, a count of FLOP or the compute is not a positive number")
    return measured


def _optional_int(value) -> int | None:
    return None if value is None else int(value)

