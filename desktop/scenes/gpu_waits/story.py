"""The story of "why the GPU waits" (seed 1.1): what the stage shows, Qt-free, tested without Qt.

In: the shared scenario and its report, the build, ``GpuWaitsControls`` (the
person's precision choice during the fp8 build), and through the kit's ``ask``
the presets' what-ifs (``figures``: each asked only when a figure needs it).
Out: the belt's ``ConveyorState`` and the roofline's ``RooflineState`` at any
intensity (the view eases the intensity on the scene clock; every frame of
that only goes into the widget states), where each widget goes on the stage,
the phase (which caption and notes) and their values, what the controls say
(a refused preset's reason, the fp8 build's label) and what the stage's corner
names. Every number is the engine's (``figures``) and every number-and-unit
text ``engine.units``'s.
"""
from __future__ import annotations

from collections.abc import Callable, Collection
from functools import cached_property

from desktop.kit.answers import refused
from desktop.kit.story import Story, Values
from engine import InputError, Report, Scenario, roofline
from engine.frozen import frozen
from engine.units import (
    format_bandwidth, format_bytes, format_count, format_flop, format_flops, format_number, format_percent,
    format_seconds, glue_units,
)
from widgets.conveyor_state import ESSENTIAL_LABELS, ConveyorState, box_at_peak_screen_seconds, box_interval_screen_seconds
from widgets.roofline_state import RooflineState

from . import pictures
from .figures import PREFILL_PRESET_TOKENS, Figures, preset_changes
from .pictures import BOX_BYTES, GPU_SECONDS_PER_SCREEN_SECOND

BUILDS = ("stage", "numbers", "ratio", "decode", "fp8", "roofline")
FIRST_NUMBERS_BUILD = BUILDS.index("numbers")
FIRST_GAUGE_BUILD = BUILDS.index("ratio")
FIRST_DECODE_BUILD = BUILDS.index("decode")
FP8_BUILD = BUILDS.index("fp8")
ROOFLINE_BUILD = BUILDS.index("roofline")

ROOFLINE_SHARE = 0.4                  # of the stage's width, once the roofline is in
# Narrower than this beside the roofline, the belt's essential words no longer fit at a readable
# size: on so small a stage the roofline build shows the roofline alone (the caption still names both).
BELT_BESIDE_ROOFLINE_MIN_PX = 240

Rect = tuple[int, int, int, int]      # x, y, width, height in the stage's pixels


@frozen
class GpuWaitsControls:
    """The scene's own control values besides the intensity (a motion: the view eases it to where the
    control or the build puts it). ``precision_chosen``: the person picked a precision in the shared panel
    while the fp8 build showed FP8 weights; their choice then wins until the build is left."""
    precision_chosen: bool = False


def precision_name(catalog, precision_id: str) -> str:
    """The catalogue's name of a precision (a question for the kit's ``ask``)."""
    return catalog.precision(precision_id).name


class GpuWaitsStory(Story):
    builds = BUILDS

    # -- the scene's own controls --------------------------------------------------------------
    @property
    def control_values(self) -> GpuWaitsControls:
        """The scene's own control values (the defaults for a story made without them)."""
        return self.controls or GpuWaitsControls()

    def controls_on_arrival(self) -> GpuWaitsControls:
        """The control values once this build is shown: a precision chosen during the fp8 build is
        forgotten when another build is shown (the next visit shows FP8 weights again)."""
        return GpuWaitsControls(self.control_values.precision_chosen and self.build == FP8_BUILD)

    def controls_after(self, scenario: Scenario) -> GpuWaitsControls:
        """The control values after the shared scenario became ``scenario``: a new precision picked during the
        fp8 build wins over its FP8 picture."""
        chosen = self.build == FP8_BUILD and scenario.weights != self.scenario.weights
        return GpuWaitsControls(self.control_values.precision_chosen or chosen)

    def for_build(self, build: int) -> "GpuWaitsStory":
        """The story of another build of the same inputs (the view prepares later builds in idle time)."""
        return type(self)(self.inputs.at_build(build))

    # -- the engine's figures -------------------------------------------------------------------
    def what_if_of(self, key: str) -> Report | InputError:
        """The engine's answer for the what-if ``key`` of ``figures.preset_changes`` (cached by the kit)."""
        return self.what_if(**preset_changes(self.scenario)[key])

    def preset(self, key: str) -> Report | None:
        """The preset's report, or None when the engine refused it (see ``refusal``)."""
        result = self.what_if_of(key)
        return None if refused(result) else result

    def refusal(self, key: str) -> InputError | None:
        result = self.what_if_of(key)
        return result if refused(result) else None

    @property
    def fp8_shown(self) -> bool:
        """The fp8 build's FP8 picture (dropped when the person picks a precision during it)."""
        return self.build == FP8_BUILD and not self.control_values.precision_chosen

    @cached_property
    def figures(self) -> Figures:
        return Figures(self.report, self.preset, self.fp8_shown, self.scenario.mode == "realistic")

    @property
    def decode_intensity(self) -> float:
        return self.figures.decode_intensity

    @property
    def prefill_intensity(self) -> float | None:
        return self.figures.prefill_intensity

    def target_intensity(self) -> float:
        """Where the build puts the intensity control: the ridge for the first three, decode from the fourth."""
        return self.figures.decode_intensity if self.build >= FIRST_DECODE_BUILD else self.figures.ridge

    @property
    def shows_roofline(self) -> bool:
        return self.build >= ROOFLINE_BUILD

    def phase(self) -> str:
        name = self.build_name
        if name == "fp8":
            if self.preset("fp8") is None or self.preset("fp16") is None:
                return "fp8_unavailable"
            if roofline.is_weight_only(self.figures.gpu, self.preset("fp8").weights_precision):
                return "fp8_weight_only"
        if name == "roofline" and self.prefill_intensity is None:
            return "roofline_without_prefill"
        return name

    def subject(self):
        """The FP8 what-if while the fp8 build shows it (the corner names what the belt shows), else the shared."""
        shown = self.figures.shown
        if self.fp8_shown and shown is not self.report:
            return shown.scenario, shown
        return super().subject()

    def formulas(self, intensity: float | None = None) -> dict:
        """From the ratio build: the ridge (the belt's ratio, the roofline's ridge) and the worker's idle share
        at ``intensity`` (where the control is; default where the build puts it), in the form the belt shows it:
        the engine's decode utilisation at the decode preset in realistic mode, else the roofline's."""
        if self.build < FIRST_GAUGE_BUILD:
            return {}
        figures = self.figures
        shown = figures.shown.scenario
        intensity = self.target_intensity() if intensity is None else intensity
        if figures.busy(intensity)[1] == "realistic":
            idle = self.formula(figures.decode_report.scenario, "idle_share")
        else:
            idle = self.formula(shown, "idle_share", intensity)
        return {**self.formula(shown, "ridge_point"), **idle}

    # -- what the controls say ------------------------------------------------------------------
    def prefill_preset_tip(self) -> str:
        """The prefill preset's tooltip: empty while available, else the engine's reason it is not."""
        refusal = self.refusal("prefill")
        return "" if refusal is None else self.text("control.preset_refused", reason=self.inputs.refusal_text(refusal))

    def fp8_label(self) -> str | None:
        """The line among the controls while the fp8 build shows FP8 weights (None: not shown)."""
        if not self.fp8_shown:
            return None
        return self.text("control.fp8_override", scenario=self.report.weights_precision.name)

    # -- captions and notes -----------------------------------------------------------------------
    def intensity_text(self, value: float) -> str:
        return pictures.intensity_text(self.text, value)

    def _precision_name(self, precision) -> str:
        return self.ask(precision_name, roofline.compute_precision_used(self.figures.gpu, precision))

    def caption_values(self) -> Values:
        return self._values

    @cached_property
    def _values(self) -> Values:
        """Numbers for captions, notes and fixed labels: they follow the scenario and the build, never the
        intensity control (so a caption is never stale); each made when a text first names it, once per story,
        and every number kept with its unit (``engine.units.glue_units``)."""
        f, scenario, report = self.figures, self.scenario, self.report
        decode_belt = lambda: self._belt_numbers(f.decode_intensity)  # noqa: E731  (the belt at decode)
        values: dict[str, Callable[[], str]] = {
            "gpu": lambda: f.gpu.name,
            "gpus": lambda: format_count(scenario.gpus),
            "model": lambda: report.model.name if report.model is not None else scenario.model,
            "capacity": lambda: format_bytes(f.gpu.memory_bytes),
            "bandwidth": lambda: format_bandwidth(f.gpu.memory_bandwidth_bytes_per_second),
            "peak": lambda: format_flops(f.peak),
            "precision": lambda: self._precision_name(f.precision),
            "weights": lambda: f.precision.name,
            "ridge": lambda: self.intensity_text(f.ridge),
            "ridge_number": lambda: format_number(f.ridge),
            "decode_intensity": lambda: self.intensity_text(f.decode_intensity),
            "busy": lambda: format_percent(f.busy(f.decode_intensity)[0]),
            "idle": lambda: format_percent(1.0 - f.busy(f.decode_intensity)[0]),
            "roofline_busy": lambda: format_percent(f.roofline_busy(f.decode_intensity)),
            "roofline_idle": lambda: format_percent(1.0 - f.roofline_busy(f.decode_intensity)),
            "realistic_busy": lambda: format_percent(f.realistic_decode().decode.utilisation),
            "gpu_time": lambda: format_seconds(GPU_SECONDS_PER_SCREEN_SECOND),
            "box_bytes": lambda: format_bytes(BOX_BYTES),
            "prefill_tokens": lambda: format_count(PREFILL_PRESET_TOKENS),
            "weights_total": lambda: format_bytes(f.shown.weights_bytes),
            "kv_precision": lambda: f.shown.kv_precision.name,
            "decode_flop": lambda: format_flop(f.decode_report.decode.flops_per_token),
            "decode_bytes": lambda: format_bytes(f.decode_report.decode.bytes_per_token),
            "step": lambda: format_seconds(f.decode_report.decode.seconds_per_token),
            "belt_seconds": lambda: format_seconds(box_interval_screen_seconds(decode_belt())),
            "worker_seconds": lambda: format_seconds(box_at_peak_screen_seconds(decode_belt())),
        }
        prefill = self.preset("prefill")
        if prefill is not None:
            values.update(prefill_intensity=lambda: self.intensity_text(f.prefill_intensity),
                          prefill_busy=lambda: format_percent(prefill.prefill.utilisation))
        if self.build == FP8_BUILD:               # only the fp8 build's texts compare FP16 and FP8
            values.update(self._fp8_values())
        return Values({key: _glued(value) for key, value in values.items()})

    def _fp8_values(self) -> dict[str, Callable[[], str]]:
        """The FP16 and FP8 what-ifs compared (the fp8 build's texts), where the engine gives both."""
        fp16, fp8 = self.preset("fp16"), self.preset("fp8")
        if fp16 is None or fp8 is None:
            return {}
        f = self.figures
        return dict(step_fp16=lambda: format_seconds(fp16.decode.seconds_per_token),
                    step_fp8=lambda: format_seconds(fp8.decode.seconds_per_token),
                    bytes_fp16=lambda: format_bytes(fp16.decode.bytes_per_token),
                    bytes_fp8=lambda: format_bytes(fp8.decode.bytes_per_token),
                    idle_fp16=lambda: format_percent(1.0 - f.decode_busy_of(fp16)),
                    idle_fp8=lambda: format_percent(1.0 - f.decode_busy_of(fp8)),
                    peak_fp8=lambda: format_flops(fp8.peak_flops_per_gpu))

    # -- the pictures --------------------------------------------------------------------------------
    def _belt_numbers(self, intensity: float) -> ConveyorState:
        return pictures.belt_numbers(self.figures, intensity, show_gauge=self.build >= FIRST_GAUGE_BUILD,
                                     compact=self.shows_roofline)

    @cached_property
    def _fixed_labels(self) -> tuple[dict[str, str], frozenset[str]]:
        """The belt's labels that do not follow the intensity, and those not revealed yet: once per story.
        Every label is handed in every build, those not revealed yet hidden: they keep their place, so the
        picture does not jump when they appear, and the first builds share one layout."""
        labels = pictures.fixed_belt_labels(self.figures, self.text, self._precision_name(self.figures.precision),
                                            self._belt_numbers(self.target_intensity()))
        hidden = set()
        if self.build < FIRST_NUMBERS_BUILD:
            hidden |= {"capacity", "bandwidth", "peak", "box", "belt_time", "worker_time"}
        if self.build < FIRST_GAUGE_BUILD:
            hidden.add("ratio")
        if self.build == FP8_BUILD and self.phase() in ("fp8", "fp8_weight_only"):
            values = self._values
            labels.pop("ratio", None)             # the step times take its place over the belt
            labels["step"] = self.text("label.step", before=values["step_fp16"], after=values["step_fp8"])
        return labels, frozenset(hidden)

    def conveyor_state(self, intensity: float) -> ConveyorState:
        """The belt at ``intensity`` (mid-transition: where the picture is). Only the box, the worker's time,
        busy, idle and their basis follow the intensity; the other labels are the story's, made once."""
        fixed, hidden = self._fixed_labels
        return pictures.belt_state(self._belt_numbers(intensity), fixed, hidden, self.figures, self.text)

    def roofline_state(self, intensity: float) -> RooflineState:
        return pictures.roofline_state(self.figures, self.text, intensity)

    def plot_state(self, control_intensity: float) -> RooflineState:
        """What the roofline plot holds: with the control at ``control_intensity`` (where a transition ends:
        moving the point every frame would repaint the whole plot) while the build shows it; before that,
        hidden, what the roofline build will show, so stepping into it only moves the control's point."""
        return self.roofline_state(control_intensity) if self.shows_roofline else self._roofline_ahead

    @cached_property
    def _roofline_ahead(self) -> RooflineState:
        final = self.for_build(ROOFLINE_BUILD)
        return final.roofline_state(final.target_intensity())

    # -- the stage --------------------------------------------------------------------------------------
    def _roofline_width(self, width: int) -> int:
        """The roofline's share of the stage; all of it where the belt beside it would be too narrow."""
        plot_width = round(width * ROOFLINE_SHARE)
        return width if width - plot_width < BELT_BESIDE_ROOFLINE_MIN_PX else plot_width

    def belt_rect(self, width: int, height: int) -> Rect:
        """Where the belt is laid out: the whole stage, or beside the roofline."""
        return 0, 0, width - (self._roofline_width(width) if self.shows_roofline else 0), height

    def rects(self, width: int, height: int, belt_labels: Callable[[], Collection[str]]) -> dict[str, tuple[Rect, bool]]:
        """Where the belt and the roofline go on a stage of ``width`` x ``height``, and whether each shows.
        ``belt_labels()``: the labels the belt laid out at ``belt_rect`` (asked only beside the roofline). On a
        stage too small for the belt's essential words there at the text floor, the roofline build shows the
        roofline alone (its caption still names both). The roofline keeps its place while hidden: laid out
        ahead, it shows without a layout."""
        plot_width = self._roofline_width(width)
        if self.shows_roofline and plot_width < width:
            essential = ESSENTIAL_LABELS & set(self.conveyor_state(self.target_intensity()).labels)
            if not essential <= set(belt_labels()):
                plot_width = width
        belt_shows = not self.shows_roofline or plot_width < width
        return {"belt": (self.belt_rect(width, height), belt_shows),
                "roofline": ((width - plot_width, 0, plot_width, height), self.shows_roofline)}


def _glued(value: str | Callable[[], str]) -> Callable[[], str]:
    return lambda: glue_units(value() if callable(value) else value)
