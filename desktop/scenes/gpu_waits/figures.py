"""Which of the engine's numbers scene 1 shows, for one scenario and build (Qt-free).

Every number is the engine's: the report's resolved GPU and precision, its
ridge and peak, the presets' decode and prefill (what-ifs of the shared
scenario, ``PRESETS``), the FP8 what-if's step time; ``engine.roofline`` for
the busy share at an intensity the control chose. The stage shows one figure
per idea, in the scenario's mode: at a preset's intensity in "realistic" mode
the busy share is that report's utilisation (the engine's efficiencies),
elsewhere the roofline's (datasheet peaks); the basis label says which, and
the notes give the other.

A refused what-if (a scenario of 9,999,999 output tokens has no 1,000-token
prefill) is a value, never raised: that preset is unavailable.
"""
from __future__ import annotations

import math
from functools import cached_property
from typing import Callable

from engine import Report, Scenario, roofline

PREFILL_PRESET_TOKENS = 1000
# The what-ifs the scene shows, as changes to the shared scenario (the story's ``what_if(**changes)``).
PRESETS: dict[str, dict] = {
    "decode": {"batch": 1},
    "prefill": {"prompt_tokens": PREFILL_PRESET_TOKENS, "batch": 1},
    "fp16": {"weights": "fp16", "batch": 1},
    "fp8": {"weights": "fp8", "batch": 1},
}
OTHER_MODE = {"realistic": "ideal", "ideal": "realistic"}

Preset = Callable[[str], "Report | None"]     # preset(key) -> the what-if's report, None when refused


def preset_changes(scenario: Scenario) -> dict[str, dict]:
    """Every what-if the scene reads, as changes to ``scenario``: the presets, and decode at batch 1 in the
    other mode (its figure goes into the notes: one figure per idea on the stage)."""
    return {**PRESETS, "other_mode": {"batch": 1, "mode": OTHER_MODE.get(scenario.mode, "ideal")}}


def intensity_of_decode(report: Report) -> float:
    return report.decode.flops_per_byte


def intensity_of_prefill(report: Report) -> float:
    return report.prefill.flops_per_byte


class Figures:
    """The engine's figures the stage shows: ``report`` (the shared scenario's), ``preset`` (a what-if by its
    ``preset_changes`` key, asked only when a figure needs it), ``fp8_shown`` (the fp8 build's FP8 picture),
    ``realistic`` (the scenario's mode)."""

    def __init__(self, report: Report, preset: Preset, fp8_shown: bool, realistic: bool):
        self.report = report
        self.preset = preset
        self.fp8_shown = fp8_shown
        self.realistic = realistic

    @cached_property
    def shown(self) -> Report:
        """The report whose GPU and precision the belt shows: FP8 weights in the fp8 build, else the scenario's."""
        fp8 = self.preset("fp8") if self.fp8_shown else None
        return fp8 if fp8 is not None else self.report

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
    def decode_report(self) -> Report:
        """Decode at batch 1 (the preset's name) in the shown precision, whatever the scenario's batch."""
        return self.shown if self.shown is not self.report else (self.preset("decode") or self.report)

    @cached_property
    def decode_intensity(self) -> float:
        return intensity_of_decode(self.decode_report)

    @cached_property
    def prefill_intensity(self) -> float | None:
        prefill = self.preset("prefill")
        return None if prefill is None else intensity_of_prefill(prefill)

    def roofline_busy(self, intensity: float) -> float:
        return roofline.utilisation(self.gpu, self.precision, intensity)

    def _engine_busy(self, intensity: float) -> float | None:
        """The engine's utilisation in the scenario's mode, where the intensity is a shown preset's."""
        if math.isclose(intensity, self.decode_intensity, rel_tol=1e-9):
            return self.decode_report.decode.utilisation
        prefill = self.preset("prefill")
        if not self.fp8_shown and prefill is not None and math.isclose(intensity, self.prefill_intensity,
                                                                       rel_tol=1e-9):
            return prefill.prefill.utilisation
        return None

    def busy(self, intensity: float) -> tuple[float, str]:
        """The busy share the stage shows at ``intensity``, and its basis ("realistic" or "roofline")."""
        engine = self._engine_busy(intensity) if self.realistic else None
        if engine is not None:
            return engine, "realistic"
        return self.roofline_busy(intensity), "roofline"

    def decode_busy_of(self, report: Report) -> float:
        """Decode's busy share in ``report`` as the stage would show it: the engine's in realistic mode, else the
        roofline's."""
        if self.realistic:
            return report.decode.utilisation
        return roofline.utilisation(report.gpu, report.weights_precision, intensity_of_decode(report))

    def realistic_decode(self) -> Report:
        """Decode at batch 1 in the realistic mode, whichever mode the scenario is in (for the notes)."""
        if self.realistic or self.preset("other_mode") is None:
            return self.decode_report
        return self.preset("other_mode")
