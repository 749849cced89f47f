"""The figures the stage of "Your machine" shows, formatted and labelled (Qt-free).

Two sources, never mixed up on the stage:

- **measured here**: the probe's ``ProbeResult`` (``engine.probe``): this
  machine's memory bandwidth and compute, its ridge, a decode step and a
  prefill pass through a real small model's matrices, each predicted by the
  engine's roofline from the two measured figures and then timed. Every
  measured figure's text carries the words "measured here" (``measured``);
  every prediction's, "predicted".
- **the engine**: the H800 (``GPU_ID``) beside it, from the engine's report of
  the same model on one H800 (``comparison_scenario``: batch 1, the shared
  scenario's precisions and mode), asked through the kit; its datasheet
  figures come with that report. Marked "engine" or "datasheet".

Before a measurement nothing here invents a number: every figure of this
machine is None and the stage shows the invitation instead.
"""
from __future__ import annotations

from functools import cached_property
from typing import Callable

from engine import InputError, Report, Scenario, roofline
from engine.probe_result import PRECISION, DeviceMeasurement, PassMeasurement, ProbeResult
from engine.units import format_bandwidth, format_bytes, format_count, format_flops, format_number, format_percent, \
    format_seconds

GPU_ID = "h800"                 # the GPU of the tutorial, beside this machine
COMPARISON_OUTPUT_TOKENS = 2    # one decode step after the prompt: a step at the prefill's context
FALLBACK_PROMPT_TOKENS = 512    # before a measurement: the probe's largest prefill (engine.probe_sizes)

Text = Callable[..., str]

# The names of the figures the texts may use: this machine's (``Figures.here``, measured) and the H800's
# (``Figures.gpu``, the engine's), and what names the measurement.
HERE_NAMES = ("bandwidth", "flops", "ridge", "precision", "weights_bytes", "decode_predicted", "decode_measured",
              "decode_ratio", "decode_intensity", "decode_rate", "decode_busy", "idle", "decode_flop", "decode_bytes",
              "prefill_tokens", "prefill_predicted", "prefill_measured", "prefill_ratio", "prefill_intensity",
              "prefill_rate", "prefill_busy", "prefill_idle", "prefill_bound", "copy_bandwidth", "matmul_size",
              "probe_seconds", "blas", "blas_threads", "core_share")
GPU_NAMES = ("gpu", "gpu_bandwidth", "gpu_flops", "gpu_precision", "gpu_ridge", "gpu_step", "gpu_idle",
             "gpu_decode_busy", "gpu_decode_intensity", "gpu_decode_bytes", "gpu_prefill_busy", "gpu_prefill_idle",
             "gpu_prefill_seconds", "gpu_mode", "gpu_model")
MEASUREMENT_NAMES = ("machine", "date", "part", "model")


def comparison_scenario(shared: Scenario, model_id: str, prompt_tokens: int) -> Scenario:
    """The H800 case set beside this machine: ``model_id`` on one H800 at batch 1, a prompt of ``prompt_tokens``
    (the probe's prefill), in the shared scenario's precisions, mode and price, with no lever on."""
    return Scenario(gpu=GPU_ID, model=model_id, weights=shared.weights, kv=shared.kv, gpus=1, batch=1,
                    prompt_tokens=prompt_tokens, output_tokens=COMPARISON_OUTPUT_TOKENS,
                    usd_per_gpu_hour=shared.usd_per_gpu_hour, mode=shared.mode)


def achieved_flops_per_second(measured: PassMeasurement) -> float:
    """FLOP per second the timed run reached (its FLOPs over its measured time)."""
    return measured.flops / measured.measured_seconds


def intensity(measured: PassMeasurement) -> float:
    """FLOP per byte of a pass: its FLOPs over the bytes it reads and writes."""
    return measured.flops / measured.bytes


def date_text(measured_at: str) -> str:
    """An ISO 8601 time as the stage shows it, the same in both languages: "2026-12-01 23:20"."""
    return measured_at[:16].replace("T", " ")


class Figures:
    """What the stage shows, formatted: the measurement (``result``, None before one) and the H800's report
    (``comparison``, or the engine's refusal of it), in the scene's texts (``text``) and its language's
    refusals (``refusal_text``)."""

    def __init__(self, result: ProbeResult | None, comparison: Report | InputError | None, text: Text,
                 refusal_text: Callable[[InputError], str] = str):
        self.result = result
        self.comparison = comparison
        self.text = text
        self.refusal_text = refusal_text

    # -- labels ------------------------------------------------------------------------------------------
    def measured(self, value: str) -> str:
        """A figure measured on this machine, with the words that say so."""
        return self.text("label.measured", value=value)

    def predicted(self, value: str) -> str:
        return self.text("label.predicted", value=value)

    def engine(self, value: str) -> str:
        return self.text("label.engine", value=value)

    def datasheet(self, value: str) -> str:
        return self.text("label.datasheet", value=value)

    def intensity_text(self, flops_per_byte: float) -> str:
        return self.text("label.intensity", value=format_number(flops_per_byte))

    # -- this machine --------------------------------------------------------------------------------------
    @property
    def cpu(self) -> DeviceMeasurement | None:
        return None if self.result is None else self.result.cpu

    def machine_name(self) -> str:
        """The CPU as the system names it, and its cores ("Intel(R) Xeon(R) Processor, 2 cores")."""
        machine = self.result.machine
        return self.text("label.machine", count=machine.logical_cores, cpu=machine.cpu_name)

    def identity(self) -> str:
        """The machine and when it was measured: the line over every measured build."""
        return self.text("label.identity", machine=self.machine_name(), date=date_text(self.result.measured_at))

    def part_measured(self) -> str:
        """What the decode step and the prefill ran: "5 of 28 layers of Qwen3 0.6B"."""
        result, sizes = self.result, self.cpu.sizes
        if sizes.layers_measured:
            return self.text("label.layers", count=result.model_layers, layers=sizes.layers_measured,
                             model=result.model_name)
        return self.text("label.part_of_layer", count=result.model_layers, model=result.model_name,
                         roles=", ".join(m.role for m in sizes.matrices))

    @cached_property
    def here(self) -> dict[str, str]:
        """This machine's figures, each formatted and labelled (empty before a measurement)."""
        cpu = self.cpu
        if cpu is None:
            return {}
        decode, prefill = cpu.decode, cpu.prefill
        return {
            "bandwidth": format_bandwidth(cpu.memory_bandwidth_bytes_per_second),
            "flops": format_flops(cpu.flops_per_second),
            "ridge": self.intensity_text(cpu.ridge_flops_per_byte),
            "precision": PRECISION,
            "weights_bytes": format_bytes(cpu.sizes.weights_bytes),
            **self._pass_figures("decode", decode),
            "idle": format_percent(1.0 - decode.measured_utilisation),
            "decode_flop": format_count(decode.flops),
            "decode_bytes": format_bytes(decode.bytes),
            "prefill_tokens": format_count(prefill.tokens),
            **self._pass_figures("prefill", prefill),
            "prefill_idle": format_percent(1.0 - prefill.measured_utilisation),
            "prefill_bound": self.text(f"label.bound_{prefill.bound}"),
            "copy_bandwidth": format_bandwidth(cpu.copy_bandwidth_bytes_per_second),
            "matmul_size": format_count(cpu.matmul_size),
            "probe_seconds": format_seconds(self.result.probe_seconds),
            "blas": " ".join(p for p in (self.result.machine.blas_name, self.result.machine.blas_version) if p),
            "blas_threads": format_count(self.result.machine.blas_threads),
            "core_share": format_percent(cpu.core_share) if cpu.core_share is not None else "—",
        }

    def _pass_figures(self, name: str, measured) -> dict[str, str]:
        """One measured pass (``name``: decode or prefill), predicted against timed, as ``name_predicted`` and so on."""
        return {
            f"{name}_predicted": format_seconds(measured.predicted_seconds),
            f"{name}_measured": format_seconds(measured.measured_seconds),
            f"{name}_ratio": format_number(measured.measured_over_predicted),
            f"{name}_intensity": self.intensity_text(intensity(measured)),
            f"{name}_rate": format_flops(achieved_flops_per_second(measured)),
            f"{name}_busy": format_percent(measured.measured_utilisation),
        }

    @cached_property
    def accelerator(self) -> dict[str, str]:
        """The GPU the probe found and measured on this machine too (CuPy or PyTorch), formatted; empty where
        it measured none."""
        device = None if self.result is None else self.result.accelerator
        if device is None:
            return {}
        return {"device": device.device_name,
                "bandwidth": format_bandwidth(device.memory_bandwidth_bytes_per_second),
                "flops": format_flops(device.flops_per_second), "precision": PRECISION,
                "ridge": self.intensity_text(device.ridge_flops_per_byte)}

    # -- the H800 --------------------------------------------------------------------------------------------
    @property
    def gpu_report(self) -> Report | None:
        return self.comparison if isinstance(self.comparison, Report) else None

    def gpu_name(self) -> str:
        report = self.gpu_report
        return report.gpu.name if report is not None else GPU_ID.upper()

    @cached_property
    def gpu(self) -> dict[str, str]:
        """The H800's figures from the engine's report (empty when it refused)."""
        report = self.gpu_report
        if report is None:
            return {}
        gpu, precision = report.gpu, report.weights_precision
        return {
            "gpu": gpu.name,
            "gpu_bandwidth": format_bandwidth(gpu.memory_bandwidth_bytes_per_second),
            "gpu_flops": format_flops(roofline.peak_flops(gpu, precision)),
            "gpu_precision": precision.name,
            "gpu_ridge": self.intensity_text(report.ridge_flops_per_byte),
            "gpu_step": format_seconds(report.decode.seconds_per_token),
            "gpu_idle": format_percent(1.0 - report.decode.utilisation),
            "gpu_decode_busy": format_percent(report.decode.utilisation),
            "gpu_decode_intensity": self.intensity_text(report.decode.flops_per_byte),
            "gpu_decode_bytes": format_bytes(report.decode.bytes_per_token),
            "gpu_prefill_busy": format_percent(report.prefill.utilisation),
            "gpu_prefill_idle": format_percent(1.0 - report.prefill.utilisation),
            "gpu_prefill_seconds": format_seconds(report.prefill.seconds),
            "gpu_mode": self.text(f"label.mode_{report.scenario.mode}"),
            "gpu_model": report.model.name,
        }

    def refusal(self) -> InputError | None:
        """Why the engine gives no H800 figures (None: it gives them)."""
        return self.comparison if isinstance(self.comparison, InputError) else None

    @cached_property
    def values(self) -> dict[str, str]:
        """Every figure by name, for the texts: this machine's (when measured) and the H800's (when given)."""
        values = {"gpu": self.gpu_name(), **self.gpu, **self.here}
        if self.result is not None:
            values.update(machine=self.machine_name(), date=date_text(self.result.measured_at),
                          part=self.part_measured(), model=self.result.model_name)
        return values
