"""Scene 1, "why the GPU waits" (seed 1.1): the conveyor belt and the roofline.

The worker (compute) is hundreds of times faster than the belt (HBM bandwidth)
can feed him, so at decode he mostly waits. The scene takes every number from
the engine (``engine.roofline`` for peaks, ridge and utilisation, the reports
of its two presets for the decode and prefill intensities) and hands the
widgets plain states.

The picture is the roofline: datasheet peaks, and the worker busy exactly the
roofline's utilisation. The stage and the captions say so. The rest of the app
follows the scenario's mode; in "realistic" mode (efficiency factors real
kernels reach) the engine's decode utilisation is lower, so the scene shows it
beside the gauge as a second, labelled figure, and the captions say why the two
differ. In "ideal" mode the two agree and one figure is shown.

The presets are what their names say: "decode, batch 1" is the scenario at
batch 1, "prefill, 1,000 tokens" the scenario with a 1,000-token prompt at
batch 1, each computed by the engine (cached per scenario).

GPU and precision are the shared scenario's (its panel beside the scene's own
controls); the intensity control and its presets belong to this scene. Each
build sets the intensity (the ridge for the first three, decode from the
fourth). The "fp8" build alone shows the FP8 worker, without touching the
shared scenario (a label among the controls says so; choosing another
precision drops it); every other build, the roofline included, shows the
scenario's own precision, so every number on the stage belongs to one precision.
Build changes ease over ``TRANSITION_SECONDS`` of the scene clock.

The roofline plot is created the first time it is needed (the roofline build,
or export), so start-up does not pay for it. It appears at once, on the key
press, at its final size; no animation frame re-lays it out or repaints it.
"""
from __future__ import annotations

import dataclasses
import functools
import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSpinBox, QDoubleSpinBox, QLabel, QPushButton, QSlider, QVBoxLayout, QWidget

from desktop.scene import Scene, SceneContext
from engine import compute_report
from engine import roofline
from engine.catalog import default_catalog
from engine.report import Report
from engine.units import (
    TERA, format_bandwidth, format_bytes, format_flop, format_flops, format_number, format_percent, format_ratio,
    format_seconds,
)
from widgets.conveyor_belt import TRACE_WINDOW_SECONDS, ConveyorBelt
from widgets.conveyor_state import ConveyorState
from widgets.roofline_plot import RooflinePlot, RooflinePoint, RooflineState

BUILDS = ("stage", "numbers", "ratio", "decode", "fp8", "roofline")
FIRST_NUMBERS_BUILD = BUILDS.index("numbers")
FIRST_GAUGE_BUILD = BUILDS.index("ratio")
FIRST_DECODE_BUILD = BUILDS.index("decode")
FP8_BUILD = BUILDS.index("fp8")
ROOFLINE_BUILD = BUILDS.index("roofline")

TRANSITION_SECONDS = 0.25             # a build change; short, so a room never waits on it
INTENSITY_MIN = 0.1                   # FLOP/byte; FP32 weights decode at ~0.5
INTENSITY_MAX = 1e4
SLIDER_STEPS_PER_DECADE = 100
PREFILL_PRESET_TOKENS = 1000
BOX_BYTES = 2e6                       # one box on the belt
GPU_SECONDS_PER_SCREEN_SECOND = 1e-6  # an H800 belt then brings a box every 0.6 s
ROOFLINE_SHARE = 0.4                 # of the stage's width, once the roofline is in
# Narrower than this beside the roofline, the belt's essential words no longer fit at a readable
# size: on so small a stage the roofline build shows the roofline alone (the caption still names both).
BELT_BESIDE_ROOFLINE_MIN_PX = 240


def intensity_number(flops_per_byte: float) -> str:
    """An intensity without its unit: the texts write "FLOP/byte" or "FLOP/字节" themselves."""
    return format_number(flops_per_byte)


def compute_tick_number(flops_per_second: float) -> str:
    """A y tick of the roofline, in TFLOPS (the unit its axis title names)."""
    return format_number(flops_per_second / TERA)


@functools.lru_cache(maxsize=16)
def preset_reports(scenario) -> tuple[Report, Report]:
    """The engine's reports behind the two presets: decode at batch 1, and a 1,000-token prefill at batch 1."""
    decode = compute_report(dataclasses.replace(scenario, batch=1))
    prefill = compute_report(dataclasses.replace(scenario, prompt_tokens=PREFILL_PRESET_TOKENS, batch=1))
    return decode, prefill


class IntensityBox(QDoubleSpinBox):
    """The intensity typed in: three significant digits (``engine.units``) and the unit as a suffix."""

    def textFromValue(self, value: float) -> str:
        return intensity_number(value)

    def valueFromText(self, text: str) -> float:
        number = text.strip().removesuffix(self.suffix().strip()).strip().replace(",", "")
        try:
            return float(number)
        except ValueError:
            return self.value()


def _eased(progress: float) -> float:
    p = max(0.0, min(1.0, progress))
    return p * p * (3 - 2 * p)


class GpuWaitsScene(Scene):
    number = 1
    key = "gpu_waits"
    build_names = BUILDS

    def __init__(self, context: SceneContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self._catalog = default_catalog()
        self._scenario = context.store.scenario
        self._decode_report, self._prefill_report = preset_reports(self._scenario)
        self._fp8_shown = False
        self._intensity = roofline.ridge_point(*self._gpu_and_precision())
        self._tween: tuple[float, float, float] | None = None    # (from, to, start seconds), FLOP/byte
        self._reveal = 0.0                                         # 1 while the roofline is on the stage
        self.belt = ConveyorBelt(context.theme, self)
        self.plot: RooflinePlot | None = None      # created when first needed (_ensure_plot)
        self._controls = self._create_controls()
        self.clock.ticked.connect(self._on_tick)
        self.clock.ticked.connect(self.belt.set_seconds)
        self.go_to_build(0, animate=False)

    # -- the numbers this scene shows ------------------------------------------------
    def _gpu_and_precision(self):
        """The GPU and the precision the picture shows (FP8 in the fp8 build, else the scenario's)."""
        gpu = self._catalog.gpu(self._scenario.gpu)
        precision = self._catalog.precision("fp8" if self._fp8_shown else self._scenario.weights)
        return gpu, precision

    def decode_intensity(self) -> float:
        """Decode at batch 1 (the preset's name), whatever the scenario's batch."""
        decode = self._decode_report.decode
        return decode.flops_per_token / decode.bytes_per_token

    def realistic(self) -> bool:
        """Whether the scenario's mode applies efficiency factors, so the engine's figures differ from the
        roofline's the picture shows."""
        return self._scenario.mode == "realistic"

    def measured_decode_utilisation(self) -> float:
        """The engine's decode utilisation at batch 1 in the scenario's mode (realistic: below the roofline's)."""
        return self._decode_report.decode.utilisation

    def prefill_intensity(self) -> float:
        prefill = self._prefill_report.prefill
        return prefill.flops / prefill.bytes

    @property
    def intensity(self) -> float:
        """FLOP per byte on the belt now (mid-transition: where the picture is)."""
        return self._intensity

    def utilisation(self) -> float:
        return roofline.utilisation(*self._gpu_and_precision(), self._intensity)

    def _intensity_text(self, value: float) -> str:
        return self._text("label.intensity", value=intensity_number(value))

    def _text(self, key: str, **values) -> str:
        return self.context.language.text(f"{self.key}.{key}", **values)

    def _precision_name(self, gpu, precision) -> str:
        return self._catalog.precision(roofline.compute_precision_used(gpu, precision)).name

    def caption_values(self) -> dict[str, str]:
        """Numbers for captions and labels. Captions use only those that follow the scenario
        and the build (never the intensity control), so a caption is never stale."""
        gpu, precision = self._gpu_and_precision()
        fp16, fp8 = self._catalog.precision("fp16"), self._catalog.precision("fp8")
        decode = self.decode_intensity()
        utilisation = self.utilisation()
        decode_utilisation = roofline.utilisation(gpu, precision, decode)
        return {
            "gpu": gpu.name,
            "capacity": format_bytes(gpu.memory_bytes),
            "bandwidth": format_bandwidth(gpu.memory_bandwidth_bytes_per_second),
            "peak": format_flops(roofline.peak_flops(gpu, precision)),
            "precision": self._precision_name(gpu, precision),
            "ratio": format_ratio(roofline.ridge_point(gpu, precision)),
            "ridge": self._intensity_text(roofline.ridge_point(gpu, precision)),
            "gpu_time": format_seconds(GPU_SECONDS_PER_SCREEN_SECOND),
            "intensity": self._intensity_text(self._intensity),
            "busy": format_percent(utilisation),
            "idle": format_percent(1.0 - utilisation),
            "decode_busy": format_percent(decode_utilisation),
            "decode_idle": format_percent(1.0 - decode_utilisation),
            "decode_intensity": self._intensity_text(decode),
            "prefill_intensity": self._intensity_text(self.prefill_intensity()),
            "peak_fp16": format_flops(roofline.peak_flops(gpu, fp16)),
            "peak_fp8": format_flops(roofline.peak_flops(gpu, fp8)),
            "idle_fp16": format_percent(1.0 - roofline.utilisation(gpu, fp16, decode)),
            "idle_fp8": format_percent(1.0 - roofline.utilisation(gpu, fp8, decode)),
            "measured_decode_busy": format_percent(self.measured_decode_utilisation()),
            "measured_prefill_busy": format_percent(self._prefill_report.prefill.utilisation),
        }

    def caption(self) -> str:
        name = self.build_names[self._build]
        gpu = self._catalog.gpu(self._scenario.gpu)
        if name == "fp8" and roofline.is_weight_only(gpu, self._catalog.precision("fp8")):
            name = "fp8_weight_only"
        if name in ("decode", "roofline") and self.realistic():
            name = f"{name}_realistic"
        return self._text(f"caption.{name}", **self.caption_values())

    # -- states for the widgets -------------------------------------------------------
    def conveyor_state(self) -> ConveyorState:
        gpu, precision = self._gpu_and_precision()
        values = self.caption_values()
        labels = {
            "warehouse": self._text("label.warehouse"),
            "belt": self._text("label.belt"),
            "worker": self._text("label.worker"),
            "waiting": self._text("label.waiting"),
            "backed_up": self._text("label.backed_up"),
            "time_scale": self._text("label.time_scale", gpu_time=values["gpu_time"],
                                     box_bytes=format_bytes(BOX_BYTES)),
            "trace": self._text("label.trace", seconds=format_seconds(TRACE_WINDOW_SECONDS)),
            "basis": self._text("label.basis"),
        }
        if self.realistic():
            labels["measured"] = self._text("label.measured", busy=values["measured_decode_busy"])
        if self._build >= FIRST_NUMBERS_BUILD:
            labels.update(
                capacity=values["capacity"], bandwidth=values["bandwidth"],
                peak=self._text("label.peak", peak=values["peak"], precision=values["precision"]),
                box=self._text("label.box", box_flop=format_flop(BOX_BYTES * self._intensity),
                               intensity=values["intensity"]))
        if self._build >= FIRST_GAUGE_BUILD:
            labels.update(ratio=self._text("label.ratio", ratio=values["ratio"]),
                          busy=self._text("label.busy", busy=values["busy"]),
                          idle=self._text("label.idle", idle=values["idle"]))
        return ConveyorState(
            bandwidth_bytes_per_second=gpu.memory_bandwidth_bytes_per_second,
            peak_flops_per_second=roofline.peak_flops(gpu, precision),
            flops_per_byte=self._intensity,
            utilisation=self.utilisation(),
            box_bytes=BOX_BYTES,
            gpu_seconds_per_screen_second=GPU_SECONDS_PER_SCREEN_SECOND,
            labels=labels,
            # The engine's realistic figure is for decode at the scenario's own precision: shown where the
            # belt shows that (the place is kept in every build, so the drawing does not jump).
            hidden=frozenset() if self._build in (FIRST_DECODE_BUILD, ROOFLINE_BUILD) else frozenset({"measured"}),
            show_gauge=self._build >= FIRST_GAUGE_BUILD,
            compact=self._build >= ROOFLINE_BUILD,
        )

    def roofline_state(self) -> RooflineState:
        gpu, precision = self._gpu_and_precision()
        ridge = roofline.ridge_point(gpu, precision)
        decode, prefill = self.decode_intensity(), self.prefill_intensity()
        # The roof starts a little left of decode (or of 1 FLOP/byte), and of the whole control range only
        # when the control goes below that: the x axis, and with it the plot's layout, changes when the
        # control crosses that edge, not on every step of the slider or frame of a transition.
        start = min(1.0, decode) / 1.5
        if self._intensity < start:
            start = INTENSITY_MIN / 1.5
        corners = tuple((x, roofline.attainable_flops(gpu, precision, x)) for x in (start, ridge, INTENSITY_MAX))

        def point(key: str, x: float) -> RooflinePoint:
            value = self._intensity_text(x)
            label = self._text(f"label.point_{key}", value=value)
            return RooflinePoint(key, label, x, roofline.attainable_flops(gpu, precision, x), value=value)

        return RooflineState(
            roof=corners, ridge_flops_per_byte=ridge,
            ridge_label=self._text("label.ridge", ridge=self._intensity_text(ridge)),
            x_label=self._text("label.x_axis"), y_label=self._text("label.y_axis"),
            x_tick_text=intensity_number, y_tick_text=compute_tick_number,
            points=(point("decode", decode), point("prefill", prefill), point("control", self._intensity)),
            memory_bound_label=self._text("label.memory_bound"),
            compute_bound_label=self._text("label.compute_bound"),
        )

    def _refresh(self) -> None:
        self.belt.set_state(self.conveyor_state())
        if self._reveal > 0:
            self.plot.set_state(self.roofline_state())
        self._sync_controls()

    def _ensure_plot(self) -> RooflinePlot:
        if self.plot is None:
            self.plot = RooflinePlot(self.context.theme, self)
            self.plot.hide()
        return self.plot

    # -- the scene contract ------------------------------------------------------------
    def show_build(self, index: int, animate: bool) -> None:
        self._fp8_shown = index == FP8_BUILD
        target = self.decode_intensity() if index >= FIRST_DECODE_BUILD \
            else roofline.ridge_point(*self._gpu_and_precision())
        self._start_intensity(target, animate)
        reveal = 1.0 if index >= ROOFLINE_BUILD else 0.0
        # The plot appears at once, at its final size: sliding or growing it would repaint
        # (or re-lay out) the whole plot and the slide behind it every frame, ~20 ms each.
        self._set_reveal(reveal)
        self._refresh()

    def on_report(self, scenario, report) -> None:
        if scenario.weights != self._scenario.weights:
            self._fp8_shown = False          # the person's own choice of precision wins over the fp8 build's
        self._scenario = scenario
        self._decode_report, self._prefill_report = preset_reports(scenario)
        self._refresh()

    def retranslate(self) -> None:
        self._retranslate_controls()
        self._refresh()

    def set_theme(self, theme) -> None:
        super().set_theme(theme)
        self.belt.set_theme(theme)
        if self.plot is not None:
            self.plot.set_theme(theme)

    def controls(self) -> QWidget:
        return self._controls

    def prepare_for_export(self) -> None:
        super().prepare_for_export()
        # A still picture: the belt mid-cycle, every transition finished.
        self.clock.set_seconds(self.clock.seconds() + 1.0)

    # -- transitions --------------------------------------------------------------------
    def set_intensity(self, flops_per_byte: float, animate: bool = False) -> None:
        """The scene's intensity control (clamped to the control's range)."""
        self._start_intensity(flops_per_byte, animate)
        self._refresh()

    def _start_intensity(self, target: float, animate: bool) -> None:
        target = max(INTENSITY_MIN, min(INTENSITY_MAX, target))
        if animate and not math.isclose(target, self._intensity):
            self._tween = (self._intensity, target, self.clock.seconds())
        else:
            self._tween = None
            self._intensity = target

    def _on_tick(self, seconds: float) -> None:
        if self._tween is not None:
            start_value, end_value, start = self._tween
            progress = _eased((seconds - start) / TRANSITION_SECONDS)
            self._intensity = 10 ** (math.log10(start_value) + progress * math.log10(end_value / start_value))
            if progress >= 1.0 or seconds < start:
                self._intensity, self._tween = end_value, None
            self._refresh()

    def _set_reveal(self, reveal: float) -> None:
        shown_before = self._reveal > 0
        self._reveal = reveal
        if reveal > 0:
            plot = self._ensure_plot()
            if not shown_before:
                plot.set_state(self.roofline_state())
        if self.plot is not None:
            self.plot.setVisible(reveal > 0)
        self._place_stage()

    def _place_stage(self) -> None:
        plot_width = round(self.width() * ROOFLINE_SHARE) if self._reveal > 0 else 0
        if plot_width and self.width() - plot_width < BELT_BESIDE_ROOFLINE_MIN_PX:
            plot_width = self.width()
        self.belt.setVisible(plot_width < self.width())
        self.belt.setGeometry(0, 0, self.width() - plot_width, self.height())
        if self.plot is not None:
            self.plot.setGeometry(self.width() - plot_width, 0, plot_width, self.height())

    def resizeEvent(self, event) -> None:
        self._place_stage()
        super().resizeEvent(event)

    # -- controls -------------------------------------------------------------------------
    def _create_controls(self) -> QWidget:
        """The intensity control and its presets. GPU and precision are the shared scenario panel's (one
        way to do each thing); the fp8 build's own FP8 worker is named by a label, not a second picker."""
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)        # the panel's group around it has margins already
        self._intensity_label = QLabel()
        self.intensity_slider = QSlider(Qt.Orientation.Horizontal)
        self.intensity_slider.setRange(round(math.log10(INTENSITY_MIN) * SLIDER_STEPS_PER_DECADE),
                                       round(math.log10(INTENSITY_MAX) * SLIDER_STEPS_PER_DECADE))
        self.intensity_box = IntensityBox()
        self.intensity_box.setRange(INTENSITY_MIN, INTENSITY_MAX)
        self.intensity_box.setDecimals(2)            # what is kept; three significant digits are shown
        self.intensity_box.setStepType(QAbstractSpinBox.StepType.AdaptiveDecimalStepType)
        self.decode_button, self.prefill_button = QPushButton(), QPushButton()
        self.override_label = QLabel()
        self.override_label.setWordWrap(True)
        for widget in (self._intensity_label, self.intensity_slider, self.intensity_box,
                       self.decode_button, self.prefill_button, self.override_label):
            layout.addWidget(widget)
        self.intensity_slider.valueChanged.connect(self._on_slider_moved)
        self.intensity_box.valueChanged.connect(self._on_box_changed)
        self.decode_button.clicked.connect(lambda: self.set_intensity(self.decode_intensity(), animate=True))
        self.prefill_button.clicked.connect(lambda: self.set_intensity(self.prefill_intensity(), animate=True))
        self._retranslate_controls()
        return box

    def _retranslate_controls(self) -> None:
        self._intensity_label.setText(self._text("control.intensity"))
        for widget in (self._intensity_label, self.intensity_slider, self.intensity_box):
            widget.setToolTip(self._text("control.intensity_tip"))
        self.intensity_box.setSuffix(" " + self._text("control.intensity_unit"))
        self.decode_button.setText(self._text("control.preset_decode"))
        self.prefill_button.setText(self._text("control.preset_prefill"))

    def _sync_controls(self) -> None:
        """Show the current values without the controls writing them back."""
        widgets = (self.intensity_slider, self.intensity_box)
        for widget in widgets:
            widget.blockSignals(True)
        self.intensity_slider.setValue(round(math.log10(self._intensity) * SLIDER_STEPS_PER_DECADE))
        self.intensity_box.setValue(self._intensity)
        for widget in widgets:
            widget.blockSignals(False)
        self.override_label.setVisible(self._fp8_shown)
        if self._fp8_shown:
            self.override_label.setText(self._text(
                "control.fp8_override", shown=self._catalog.precision("fp8").name,
                scenario=self._catalog.precision(self._scenario.weights).name))

    def _on_slider_moved(self, value: int) -> None:
        self.set_intensity(10 ** (value / SLIDER_STEPS_PER_DECADE))

    def _on_box_changed(self, value: float) -> None:
        self.set_intensity(value)


SCENE = GpuWaitsScene
