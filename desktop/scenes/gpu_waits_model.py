"""Scene 1's model, "why the GPU waits" (seed 1.1): Qt-free, tested without Qt.

In: the shared scenario and its report, the what-if reports of the presets
(``PRESETS``, asked of the scene's context), the build, the catalogue (for
precision names) and a ``text(key, **values)`` callable. Out: the belt's
``ConveyorState`` and the roofline's ``RooflineState`` for an intensity, the
phase (which caption and notes), and the caption and note values, computed once
when the model is made (one per scenario, build or language; the intensity,
which moves every frame of a transition, only goes into the widget states).

Every number is the engine's: the report's resolved GPU and precision, its
ridge and peak, the presets' decode and prefill, the FP8 what-if's step time;
``engine.roofline`` for the busy share at an intensity the control chose. The
stage shows one figure per idea, in the scenario's mode: at a preset's
intensity in "realistic" mode the busy share is that report's utilisation
(the engine's efficiencies), elsewhere the roofline's (datasheet peaks); the
basis label says which, and the notes give the other.

A refused what-if (a scenario of 9,999,999 output tokens has no 1,000-token
prefill preset) is a value, never raised: that preset is unavailable (the
view disables its button with the reason; the roofline leaves its point out).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Callable, Mapping

from desktop.what_if import refused
from engine import InputError, Report, Scenario, roofline
from engine.catalog_types import Catalog
from engine.units import (
    TERA, format_bandwidth, format_bytes, format_count, format_flop, format_flops, format_number, format_percent,
    format_seconds,
)
from widgets.conveyor_state import (
    TRACE_WINDOW_SECONDS, ConveyorState, box_at_peak_screen_seconds, box_interval_screen_seconds,
)
from widgets.roofline_state import RooflinePoint, RooflineState

BUILDS = ("stage", "numbers", "ratio", "decode", "fp8", "roofline")
FIRST_NUMBERS_BUILD = BUILDS.index("numbers")
FIRST_GAUGE_BUILD = BUILDS.index("ratio")
FIRST_DECODE_BUILD = BUILDS.index("decode")
FP8_BUILD = BUILDS.index("fp8")
ROOFLINE_BUILD = BUILDS.index("roofline")

INTENSITY_MIN = 0.1                   # FLOP/byte; FP32 weights decode at ~0.5
INTENSITY_MAX = 1e4
PREFILL_PRESET_TOKENS = 1000
# The what-ifs the scene shows, as changes to the shared scenario (``context.what_if(**changes)``).
PRESETS: dict[str, dict] = {
    "decode": {"batch": 1},
    "prefill": {"prompt_tokens": PREFILL_PRESET_TOKENS, "batch": 1},
    "fp16": {"weights": "fp16", "batch": 1},
    "fp8": {"weights": "fp8", "batch": 1},
}
OTHER_MODE = {"realistic": "ideal", "ideal": "realistic"}
BOX_BYTES = 2e6                       # one box on the belt
GPU_SECONDS_PER_SCREEN_SECOND = 1e-6  # an H800 belt then brings a box every 0.6 s

Text = Callable[..., str]


def intensity_number(flops_per_byte: float) -> str:
    """An intensity without its unit: the texts write "FLOP/byte" or "FLOP/字节" themselves."""
    return format_number(flops_per_byte)


def compute_tick_number(flops_per_second: float) -> str:
    """A y tick of the roofline, in TFLOPS (the unit its axis title names)."""
    return format_number(flops_per_second / TERA)


def preset_changes(scenario: Scenario) -> dict[str, dict]:
    """Every what-if the model reads, as changes to ``scenario``: the presets, and decode at batch 1 in the
    other mode (its figure goes into the notes: one figure per idea on the stage)."""
    return {**PRESETS, "other_mode": {"batch": 1, "mode": OTHER_MODE.get(scenario.mode, "ideal")}}


def whole_numbers(text: str) -> str:
    """``text`` with a no-break space after every digit followed by a space: a number keeps its unit."""
    return re.sub(r"(?<=\d) (?=\S)", "\u00a0", text)


def intensity_of_decode(report: Report) -> float:
    return report.decode.flops_per_byte


def intensity_of_prefill(report: Report) -> float:
    return report.prefill.flops_per_byte


@dataclass(frozen=True)
class GpuWaitsModel:
    """What scene 1 shows for one scenario, build and language; ask it for states at any intensity."""
    scenario: Scenario
    report: Report
    presets: Mapping[str, Report | InputError]     # ``preset_changes`` key -> the engine's answer
    build: int
    catalog: Catalog
    text: Text                             # text("label.busy", busy=...) in the current language
    fp8_shown: bool = field(default=False)  # the fp8 build's FP8 picture (dropped when the person picks a precision)

    # -- what is shown -----------------------------------------------------------------
    def preset(self, key: str) -> Report | None:
        """The preset's report, or None when the engine refused it (see ``refusal``)."""
        result = self.presets.get(key)
        return None if result is None or refused(result) else result

    def refusal(self, key: str) -> InputError | None:
        result = self.presets.get(key)
        return result if refused(result) else None

    @cached_property
    def shown(self) -> Report:
        """The report whose GPU and precision the belt shows: FP8 weights in the fp8 build, else the scenario's."""
        fp8 = self.preset("fp8")
        return fp8 if self.fp8_shown and fp8 is not None else self.report

    @property
    def gpu(self):
        return self.shown.gpu

    @property
    def precision(self):
        return self.shown.weights_precision

    @cached_property
    def ridge(self) -> float:
        return roofline.ridge_point(self.gpu, self.precision)

    @cached_property
    def peak(self) -> float:
        return roofline.peak_flops(self.gpu, self.precision)

    @cached_property
    def decode_intensity(self) -> float:
        """Decode at batch 1 (the preset's name) in the shown precision, whatever the scenario's batch."""
        if self.shown is not self.report:
            return intensity_of_decode(self.shown)
        return intensity_of_decode(self.preset("decode") or self.report)

    @cached_property
    def prefill_intensity(self) -> float | None:
        prefill = self.preset("prefill")
        return None if prefill is None else intensity_of_prefill(prefill)

    def target_intensity(self) -> float:
        """Where the build puts the intensity control: the ridge for the first three, decode from the fourth."""
        return self.decode_intensity if self.build >= FIRST_DECODE_BUILD else self.ridge

    def realistic(self) -> bool:
        return self.scenario.mode == "realistic"

    def roofline_busy(self, intensity: float) -> float:
        return roofline.utilisation(self.gpu, self.precision, intensity)

    def _engine_busy(self, intensity: float) -> float | None:
        """The engine's utilisation in the scenario's mode, where the intensity is a shown preset's."""
        if math.isclose(intensity, self.decode_intensity, rel_tol=1e-9):
            return self._decode_report().decode.utilisation
        prefill = self.preset("prefill")
        if not self.fp8_shown and prefill is not None and math.isclose(intensity, self.prefill_intensity,
                                                                       rel_tol=1e-9):
            return prefill.prefill.utilisation
        return None

    def busy(self, intensity: float) -> tuple[float, str]:
        """The busy share the stage shows at ``intensity``, and its basis ("realistic" or "roofline")."""
        engine = self._engine_busy(intensity) if self.realistic() else None
        if engine is not None:
            return engine, "realistic"
        return self.roofline_busy(intensity), "roofline"

    def phase(self) -> str:
        name = BUILDS[self.build]
        if name == "fp8":
            if self.preset("fp8") is None or self.preset("fp16") is None:
                return "fp8_unavailable"
            if roofline.is_weight_only(self.gpu, self.preset("fp8").weights_precision):
                return "fp8_weight_only"
        if name == "roofline" and self.prefill_intensity is None:
            return "roofline_without_prefill"
        return name

    # -- words and numbers -------------------------------------------------------------
    def intensity_text(self, value: float) -> str:
        return self.text("label.intensity", value=intensity_number(value))

    def _precision_name(self, precision) -> str:
        return self.catalog.precision(roofline.compute_precision_used(self.gpu, precision)).name

    @cached_property
    def caption_values(self) -> dict[str, str]:
        """Numbers for captions, notes and fixed labels: they follow the scenario and the build, never the
        intensity control (so a caption is never stale); computed once per model."""
        decode_busy, _ = self.busy(self.decode_intensity)
        values = {
            "gpu": self.gpu.name,
            "gpus": format_count(self.scenario.gpus),
            "model": self.report.model.name if self.report.model is not None else self.scenario.model,
            "capacity": format_bytes(self.gpu.memory_bytes),
            "bandwidth": format_bandwidth(self.gpu.memory_bandwidth_bytes_per_second),
            "peak": format_flops(self.peak),
            "precision": self._precision_name(self.precision),
            "weights": self.precision.name,
            "ridge": self.intensity_text(self.ridge),
            "ridge_number": intensity_number(self.ridge),
            "decode_intensity": self.intensity_text(self.decode_intensity),
            "busy": format_percent(decode_busy),
            "idle": format_percent(1.0 - decode_busy),
            "roofline_busy": format_percent(self.roofline_busy(self.decode_intensity)),
            "roofline_idle": format_percent(1.0 - self.roofline_busy(self.decode_intensity)),
            "realistic_busy": format_percent(self._realistic_decode().decode.utilisation),
            "gpu_time": format_seconds(GPU_SECONDS_PER_SCREEN_SECOND),
            "box_bytes": format_bytes(BOX_BYTES),
            "prefill_tokens": format_count(PREFILL_PRESET_TOKENS),
            "weights_total": format_bytes(self.shown.weights_bytes),
            "kv_precision": self.shown.kv_precision.name,
        }
        decode = self._decode_report().decode
        values.update(decode_flop=format_flop(decode.flops_per_token), decode_bytes=format_bytes(decode.bytes_per_token),
                      step=format_seconds(decode.seconds_per_token))
        state = self._bare_state(self.decode_intensity)
        values.update(belt_seconds=format_seconds(box_interval_screen_seconds(state)),
                      worker_seconds=format_seconds(box_at_peak_screen_seconds(state)))
        prefill = self.preset("prefill")
        if prefill is not None:
            values.update(prefill_intensity=self.intensity_text(self.prefill_intensity),
                          prefill_busy=format_percent(prefill.prefill.utilisation))
        fp16, fp8 = self.preset("fp16"), self.preset("fp8")
        if fp16 is not None and fp8 is not None:
            values.update(step_fp16=format_seconds(fp16.decode.seconds_per_token),
                          step_fp8=format_seconds(fp8.decode.seconds_per_token),
                          bytes_fp16=format_bytes(fp16.decode.bytes_per_token),
                          bytes_fp8=format_bytes(fp8.decode.bytes_per_token),
                          idle_fp16=format_percent(1.0 - self._decode_busy_of(fp16)),
                          idle_fp8=format_percent(1.0 - self._decode_busy_of(fp8)),
                          peak_fp8=format_flops(fp8.peak_flops_per_gpu))
        return {key: whole_numbers(value) for key, value in values.items()}

    def _decode_busy_of(self, report: Report) -> float:
        """Decode's busy share in ``report`` as the stage would show it: the engine's in realistic mode, else the
        roofline's."""
        if self.realistic():
            return report.decode.utilisation
        return roofline.utilisation(report.gpu, report.weights_precision, intensity_of_decode(report))

    def _realistic_decode(self) -> Report:
        """Decode at batch 1 in the realistic mode, whichever mode the scenario is in (for the notes)."""
        if self.realistic() or self.preset("other_mode") is None:
            return self._decode_report()
        return self.preset("other_mode")

    def _decode_report(self) -> Report:
        return self.shown if self.shown is not self.report else (self.preset("decode") or self.report)

    # -- states for the widgets --------------------------------------------------------
    def _bare_state(self, intensity: float) -> ConveyorState:
        return ConveyorState(
            bandwidth_bytes_per_second=self.gpu.memory_bandwidth_bytes_per_second,
            peak_flops_per_second=self.peak, flops_per_byte=intensity, utilisation=self.busy(intensity)[0],
            box_bytes=BOX_BYTES, gpu_seconds_per_screen_second=GPU_SECONDS_PER_SCREEN_SECOND,
            show_gauge=self.build >= FIRST_GAUGE_BUILD, compact=self.build >= ROOFLINE_BUILD)

    @cached_property
    def _fixed_labels(self) -> tuple[dict[str, str], frozenset[str]]:
        """The belt's labels that do not follow the intensity, and those not revealed yet: once per model."""
        text = self.text
        state = self._bare_state(self.target_intensity())
        labels = {"warehouse": text("label.warehouse"), "belt": text("label.belt"), "worker": text("label.worker"),
                  "waiting": text("label.waiting"), "backed_up": text("label.backed_up"),
                  "time_scale": text("label.time_scale", gpu_time=format_seconds(GPU_SECONDS_PER_SCREEN_SECOND),
                                     box_bytes=format_bytes(BOX_BYTES)),
                  "trace": text("label.trace", seconds=format_seconds(TRACE_WINDOW_SECONDS))}
        # Every label is handed in every build, those not revealed yet hidden: they keep their place, so the
        # picture does not jump when they appear, and the first builds share one layout.
        labels.update(
            capacity=format_bytes(self.gpu.memory_bytes),
            bandwidth=format_bandwidth(self.gpu.memory_bandwidth_bytes_per_second),
            peak=text("label.peak", peak=format_flops(self.peak), precision=self._precision_name(self.precision)),
            belt_time=text("label.belt_time", seconds=format_seconds(box_interval_screen_seconds(state))),
            ratio=text("label.ratio", ridge=intensity_number(self.ridge)))
        hidden = set()
        if self.build < FIRST_NUMBERS_BUILD:
            hidden |= {"capacity", "bandwidth", "peak", "box", "belt_time", "worker_time"}
        if self.build < FIRST_GAUGE_BUILD:
            hidden.add("ratio")
        if self.build == FP8_BUILD and self.phase() in ("fp8", "fp8_weight_only"):
            values = self.caption_values
            labels.pop("ratio", None)
            labels["step"] = text("label.step", before=values["step_fp16"], after=values["step_fp8"])
        return labels, frozenset(hidden)

    def conveyor_state(self, intensity: float) -> ConveyorState:
        """The belt at ``intensity`` (mid-transition: where the picture is). Only the box, the worker's time,
        busy, idle and their basis follow the intensity; the other labels are the model's, made once."""
        busy, basis = self.busy(intensity)
        state = self._bare_state(intensity)
        text = self.text
        fixed, hidden = self._fixed_labels
        labels = dict(fixed)
        labels.update(
            box=text("label.box", box_flop=format_flop(BOX_BYTES * intensity), intensity=self.intensity_text(intensity)),
            worker_time=text("label.worker_time", seconds=format_seconds(box_at_peak_screen_seconds(state))),
            busy=text("label.busy", busy=format_percent(busy)), idle=text("label.idle", idle=format_percent(1.0 - busy)),
            basis=text(f"label.basis_{basis}"))
        return replace(state, labels=labels, hidden=hidden)

    def roofline_state(self, intensity: float) -> RooflineState:
        """The roofline in the scenario's own precision, with decode, the prefill preset (when the engine
        gives one) and the control."""
        gpu, precision = self.gpu, self.precision
        decode = self.decode_intensity
        # The roof starts a little left of decode (or of 1 FLOP/byte), and of the whole control range only
        # when the control goes below that: the x axis, and with it the plot's layout, changes when the
        # control crosses that edge, not on every step of the slider or frame of a transition.
        start = min(1.0, decode) / 1.5
        if intensity < start:
            start = INTENSITY_MIN / 1.5
        corners = tuple((x, roofline.attainable_flops(gpu, precision, x)) for x in (start, self.ridge, INTENSITY_MAX))

        def point(key: str, x: float, in_legend: bool = True) -> RooflinePoint:
            value = self.intensity_text(x)
            return RooflinePoint(key, self.text(f"label.point_{key}", value=value), x,
                                 roofline.attainable_flops(gpu, precision, x), value=value, in_legend=in_legend)

        points = [point("decode", decode)]
        if self.prefill_intensity is not None:
            points.append(point("prefill", self.prefill_intensity))
        # On decode's point the control's legend entry would repeat decode's: its hollow marker alone says so.
        points.append(point("control", intensity, in_legend=not math.isclose(intensity, decode, rel_tol=1e-9)))
        return RooflineState(
            roof=corners, ridge_flops_per_byte=self.ridge,
            ridge_label=self.text("label.ridge", ridge=self.intensity_text(self.ridge)),
            x_label=self.text("label.x_axis"), y_label=self.text("label.y_axis"),
            x_tick_text=intensity_number, y_tick_text=compute_tick_number, points=tuple(points),
            memory_bound_label=self.text("label.memory_bound"), compute_bound_label=self.text("label.compute_bound"))


def clamp_intensity(flops_per_byte: float) -> float:
    return max(INTENSITY_MIN, min(INTENSITY_MAX, flops_per_byte))
