"""What the probe found: plain frozen dataclasses, their JSON (SI units) and their text for a terminal.

``ProbeResult.to_json_dict`` keeps the contract of DESIGN.md at the top level,
for the CPU: ``memory_bandwidth_bytes_per_second, flops_per_second,
ridge_flops_per_byte, decode{predicted_seconds, measured_seconds},
prefill{predicted_seconds, measured_seconds}``, then what a reader needs to
trust them: the device, the machine, the model, the sizes, the date, and the
same block for a GPU when one was measured.
"""
from __future__ import annotations


from engine.frozen import frozen
from engine.probe_machine import MachineInfo
from engine.probe_sizes import READ_VALUE_BYTES, ProbeError, ProbeSizes
from engine.units import (
    format_bandwidth, format_bytes, format_count, format_flop, format_intensity, format_percent, format_ratio,
    format_seconds,
)

PRECISION = "float32"          # the weights' and the matrix products' number format on every device
BUSY_CORE_SHARE = 0.7          # quiet: 0.9 to 1; one other busy program on two cores: about 0.5


@frozen
class PassMeasurement:
    """A decode step (one token) or a prefill pass (``tokens`` tokens) over the probe's weight matrices."""
    tokens: int
    flops: float
    bytes: float                 # weights read once, plus the tokens' inputs and outputs
    predicted_seconds: float     # the engine's roofline (ideal mode) at the measured bandwidth and compute
    measured_seconds: float      # the best of ``runs`` timed runs
    bound: str                   # what the prediction says limits it: "memory" or "compute"
    runs: int
    peak_flops_per_second: float
    core_share: float | None = None    # the share of the BLAS's cores its runs had (None: a GPU)

    @property
    def measured_over_predicted(self) -> float:
        return self.measured_seconds / self.predicted_seconds

    @property
    def measured_utilisation(self) -> float:
        """The share of the measured peak compute the measured run used, 0..1 (1 - the share it sat idle)."""
        return min(1.0, self.flops / self.measured_seconds / self.peak_flops_per_second)

    def to_json_dict(self) -> dict:
        return {"predicted_seconds": self.predicted_seconds, "measured_seconds": self.measured_seconds,
                "tokens": self.tokens, "flops": self.flops, "bytes": round(self.bytes), "bound": self.bound,
                "measured_utilisation": self.measured_utilisation, "runs": self.runs, "core_share": self.core_share}


@frozen
class DeviceMeasurement:
    """Everything measured on one device."""
    device: str                  # "cpu", "cuda:0"
    device_name: str
    library: str                 # "numpy", "cupy", "torch"
    memory_bandwidth_bytes_per_second: float   # the streaming read
    copy_bandwidth_bytes_per_second: float     # the copy: bytes read plus bytes written
    flops_per_second: float                    # the float32 matrix product
    matmul_size: int
    sizes: ProbeSizes
    decode: PassMeasurement
    prefill: PassMeasurement
    compute_core_share: float | None = None    # the compute stage's share of the BLAS's cores (None: a GPU)

    @property
    def ridge_flops_per_byte(self) -> float:
        return self.flops_per_second / self.memory_bandwidth_bytes_per_second

    @property
    def core_share(self) -> float | None:
        """The smallest share of the BLAS's cores that the compute stage, the decode or the prefill had
        (1: every thread kept its core; None on a GPU)."""
        shares = (self.compute_core_share, self.decode.core_share, self.prefill.core_share)
        return None if None in shares else min(shares)

    def to_json_dict(self) -> dict:
        return {"memory_bandwidth_bytes_per_second": self.memory_bandwidth_bytes_per_second,
                "flops_per_second": self.flops_per_second, "ridge_flops_per_byte": self.ridge_flops_per_byte,
                "decode": self.decode.to_json_dict(), "prefill": self.prefill.to_json_dict(),
                "device": {"kind": self.device, "name": self.device_name, "library": self.library,
                           "precision": PRECISION},
                "copy_bandwidth_bytes_per_second": self.copy_bandwidth_bytes_per_second,
                "core_share": self.core_share,
                "sizes": {**self.sizes.to_json_dict(), "matmul_size": self.matmul_size,
                          "prefill_tokens": self.prefill.tokens}}


@frozen
class ProbeResult:
    """The whole probe: the CPU always, a GPU where one was found."""
    measured_at: str                          # when the probe started: ISO 8601, local time with its offset
    probe_seconds: float                      # how long the whole probe took
    machine: MachineInfo
    model_id: str
    model_name: str
    model_layers: int
    cpu: DeviceMeasurement
    accelerator: DeviceMeasurement | None
    accelerator_error: ProbeError | None      # why a GPU that was found could not be measured

    @property
    def busy(self) -> bool:
        """Other programs took cores from the CPU's BLAS while it was timed: its figures may be disturbed."""
        share = self.cpu.core_share
        return share is not None and share < BUSY_CORE_SHARE

    def to_json_dict(self) -> dict:
        return {**self.cpu.to_json_dict(), "machine": self.machine.to_json_dict(),
                "model": {"id": self.model_id, "name": self.model_name, "layers": self.model_layers},
                "measured_at": self.measured_at, "probe_seconds": self.probe_seconds,
                "busy": self.busy,
                "accelerator": self.accelerator.to_json_dict() if self.accelerator else None,
                "accelerator_problem": str(self.accelerator_error) if self.accelerator_error else None}


def _pass_line(label: str, measured: PassMeasurement) -> str:
    ratio = measured.measured_over_predicted
    return (f"  {label}: predicted {format_seconds(measured.predicted_seconds)} ({measured.bound}-bound), "
            f"measured {format_seconds(measured.measured_seconds)} ({format_ratio(ratio)} the prediction; "
            f"{format_flop(measured.flops)}, {format_bytes(measured.bytes)})")


def _layers_text(device: DeviceMeasurement, layers: int) -> str:
    sizes = device.sizes
    if sizes.layers_measured:
        return f"{sizes.layers_measured} of {layers} layers"
    return f"{', '.join(m.role for m in sizes.matrices)} of one layer of {layers}"


def device_lines(device: DeviceMeasurement, result: ProbeResult) -> list[str]:
    """The lines that describe one device's figures."""
    return [
        f"{device.device_name} ({device.device}, {device.library}, {PRECISION}):",
        f"  memory bandwidth: {format_bandwidth(device.memory_bandwidth_bytes_per_second)} streaming read, "
        f"{format_bandwidth(device.copy_bandwidth_bytes_per_second)} copy "
        f"(over {format_bytes(device.sizes.read_values * READ_VALUE_BYTES)})",
        f"  compute: {format_flop(device.flops_per_second)}/s "
        f"({format_count(device.matmul_size)} x {format_count(device.matmul_size)} matrix product)",
        f"  ridge point: {format_intensity(device.ridge_flops_per_byte)}",
        f"  {result.model_name} shapes, random weights: {_layers_text(device, result.model_layers)}",
        _pass_line("decode step, 1 token", device.decode),
        _pass_line(f"prefill, {format_count(device.prefill.tokens)} tokens", device.prefill),
    ]


def result_as_text(result: ProbeResult) -> str:
    """The probe's figures for a terminal, every one measured here (or predicted from those)."""
    machine = result.machine
    cores = f"{machine.logical_cores} logical cores"
    if machine.physical_cores:
        cores += f" ({machine.physical_cores} physical)"
    blas = " ".join(part for part in (machine.blas_name, machine.blas_version) if part)
    lines = [f"Measured here on {result.measured_at} in {format_seconds(result.probe_seconds)}",
             f"{machine.cpu_name}, {cores}, {machine.system}; {blas} with {machine.blas_threads} threads "
             f"({machine.blas_threads_from}), numpy {machine.numpy_version}",
             *device_lines(result.cpu, result)]
    if result.busy:
        lines.insert(2, f"Other programs took cores: at times the probe had only {format_percent(result.cpu.core_share)} "
                        f"of the {machine.blas_threads} its BLAS uses, so the figures may be disturbed; "
                        f"measure again when the machine is quiet.")
    if result.accelerator is not None:
        lines += device_lines(result.accelerator, result)
    if result.accelerator_error is not None:
        lines.append(str(result.accelerator_error))
    return "\n".join(lines)
