"""The view of "why the GPU waits": the conveyor belt, and beside it in the last build the roofline.

It hands the story's states to the belt and the plot and places them where the
story says. Its mutable parts are the scene's control values
(``GpuWaitsControls``), the intensity's motion (a ``Transition`` on the scene
clock, eased to where the build or the control puts it) and the plot, made in
idle time. During a transition the belt moves every frame; the roofline's
control point goes straight to the transition's end, so the plot is not
repainted every frame. The belt's boxes move continuously while it shows.

Work done after the first frame, one job per turn of the event loop
(``idle_jobs``): the roofline plot is created, laid out and painted once
hidden, and the belt lays out every build ahead, so stepping through the builds
costs no long frame. A render never shown on screen (export, tests) does none
of it and makes the plot when a build shows it.

The presets are what-ifs of the shared scenario; a refused one disables its
button with the reason as a tooltip. The fp8 build shows FP8 weights without
touching the shared scenario (a label among the controls says so; choosing
another precision in the shared panel drops it).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSpinBox, QDoubleSpinBox, QLabel, QPushButton, QSlider, QVBoxLayout, QWidget

from desktop.kit.scene import Scene
from desktop.kit.signals import signals_blocked
from engine.units import format_number
from widgets.conveyor_belt import ConveyorBelt
from widgets.transition import TRANSITION_SECONDS, Transition

if TYPE_CHECKING:
    from widgets.roofline_plot import RooflinePlot

from .pictures import INTENSITY_MAX, INTENSITY_MIN, clamp_intensity
from .story import GpuWaitsControls, GpuWaitsStory

SLIDER_STEPS_PER_DECADE = 100


class IntensityBox(QDoubleSpinBox):
    """The intensity typed in: three significant digits (``engine.units``) and the unit as a suffix."""

    def textFromValue(self, value: float) -> str:
        return format_number(value)

    def valueFromText(self, text: str) -> float:
        number = text.strip().removesuffix(self.suffix().strip()).strip().replace(",", "")
        try:
            return float(number)
        except ValueError:
            return self.value()


class GpuWaitsScene(Scene):
    Story = GpuWaitsStory

    def __init__(self, kit, parent: QWidget | None = None):
        super().__init__(kit, parent)
        self._controls_values = GpuWaitsControls()
        self._intensity = Transition(1.0, seconds=TRANSITION_SECONDS, log=True)   # set by the first build
        self.belt = self.themed(ConveyorBelt(kit.theme, self))
        self.plot: RooflinePlot | None = None       # made in idle time after the first show, or when a build shows it
        self._plot_painted_at = None                # the size it was last painted at while hidden
        self.own_controls(self._create_controls())
        self.clock.ticked.connect(self.belt.set_seconds)
        self.start()

    def control_values(self) -> GpuWaitsControls:
        return self._controls_values

    @property
    def intensity(self) -> float:
        """FLOP per byte on the belt now (mid-transition: where the picture is)."""
        return self._intensity.value(self.clock.seconds())

    # -- the formula behind a figure ------------------------------------------------------------------
    def formulas(self) -> dict:
        return self.story().formulas(self._intensity.target)

    def figure_places(self) -> dict:
        return {"idle_share": (self.belt, ("idle", "busy", "basis")),
                "ridge_point": (self.plot, ("ridge",)) if self.story().shows_roofline and self.plot is not None
                and self.plot.isVisible() else (self.belt, ("ratio",))}

    # -- the scene contract -------------------------------------------------------------------------
    def build_started(self, story: GpuWaitsStory, animate: bool) -> None:
        # Forgetting a precision chosen in the fp8 build changes nothing in the build now shown.
        self._controls_values = story.controls_on_arrival()
        self._intensity.retarget(clamp_intensity(story.target_intensity()), self.clock.seconds(), animate=animate)

    def present(self, story: GpuWaitsStory, animate: bool) -> None:
        if story.shows_roofline:
            self._create_plot()
        self.belt.set_state(story.conveyor_state(self.intensity))
        self.lay_out()
        if self.plot is not None:
            self.plot.set_state(story.plot_state(self._intensity.target))
        self._sync_controls(story)

    def on_report(self, scenario, report) -> None:
        self._controls_values = self.story().controls_after(scenario)
        super().on_report(scenario, report)

    def on_tick(self, seconds: float) -> None:
        intensity = self._intensity.value(seconds)
        if intensity != self.belt.state.flops_per_byte:
            story = self.story()
            self.belt.set_state(story.conveyor_state(intensity))
            if not self._intensity.running(seconds):
                self._sync_controls(story)       # the side panel once, at the transition's end

    def moving(self, seconds: float) -> bool:
        # The belt's boxes and worker move continuously while it shows; without it, only the intensity eases.
        return self.belt.isVisible() or self._intensity.running(seconds)

    def lay_out(self) -> None:
        story, width, height = self.story(), self.width(), self.height()
        self.belt.setGeometry(*story.belt_rect(width, height))
        rects = story.rects(width, height, lambda: self.belt.label_rects().keys())
        for widget, (rect, shows) in ((self.belt, rects["belt"]), (self.plot, rects["roofline"])):
            if widget is not None:
                widget.setGeometry(*rect)
                widget.setVisible(shows)
        self.clock.wake()                        # a belt shown again moves again

    def idle_jobs(self) -> list:
        # The plot's construction and its first layout are separate turns: each stays one short frame.
        story = self.story()
        belts = [lambda build=build: self._prepare_belt(story.for_build(build)) for build in range(story.build_count)]
        return [self._create_plot, self._lay_out_plot, self._paint_plot_once, *belts]

    # -- idle work ------------------------------------------------------------------------------------------
    def _create_plot(self) -> RooflinePlot:
        """The plot widget, hidden and not yet laid out (the costliest part of it: pyqtgraph's items)."""
        if self.plot is None:
            from widgets.roofline_plot import RooflinePlot   # pyqtgraph loads here, after the first frame
            self.plot = self.themed(RooflinePlot(self.kit.theme, self))
            self.plot.hide()
        return self.plot

    def _lay_out_plot(self) -> None:
        """The plot at the size it will be shown, holding what the roofline build will show."""
        self._create_plot()
        self.lay_out()
        self.plot.set_state(self.story().plot_state(self._intensity.target))

    def _paint_plot_once(self) -> None:
        """Painted once per size, hidden: its first showing reuses what pyqtgraph drew and cached (axes, fonts)."""
        if self.plot is not None and self.plot.isHidden() and self._plot_painted_at != self.plot.size():
            self._plot_painted_at = self.plot.size()
            self.plot.grab()

    def _prepare_belt(self, story: GpuWaitsStory) -> None:
        _, _, width, height = story.belt_rect(self.width(), self.height())
        self.belt.prepare(story.conveyor_state(story.target_intensity()), width, height)

    # -- the intensity ------------------------------------------------------------------------------------
    def set_intensity(self, flops_per_byte: float, animate: bool = False) -> None:
        """The scene's intensity control (clamped to the control's range)."""
        self._intensity.retarget(clamp_intensity(flops_per_byte), self.clock.seconds(), animate=animate)
        self.present(self.story(), animate)
        self.clock.wake()

    def _on_decode_preset(self) -> None:
        self.set_intensity(self.story().decode_intensity, animate=True)

    def _on_prefill_preset(self) -> None:
        prefill = self.story().prefill_intensity
        if prefill is not None:
            self.set_intensity(prefill, animate=True)

    def _on_slider_moved(self, value: int) -> None:
        self.set_intensity(10 ** (value / SLIDER_STEPS_PER_DECADE))

    # -- controls ---------------------------------------------------------------------------------------
    def _create_controls(self) -> QWidget:
        """The intensity control and its presets. GPU and precision are the shared scenario panel's (one
        way to do each thing); the fp8 build's FP8 weights are named by a label, not a second picker."""
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
        self.intensity_box.valueChanged.connect(self.set_intensity)
        self.decode_button.clicked.connect(self._on_decode_preset)
        self.prefill_button.clicked.connect(self._on_prefill_preset)
        return box

    def retranslate_controls(self) -> None:
        self._intensity_label.setText(self.text("control.intensity"))
        for widget in (self._intensity_label, self.intensity_slider, self.intensity_box):
            widget.setToolTip(self.text("control.intensity_tip"))
        self.intensity_box.setSuffix(" " + self.text("control.intensity_unit"))
        self.decode_button.setText(self.text("control.preset_decode"))
        self.prefill_button.setText(self.text("control.preset_prefill"))

    def _sync_controls(self, story: GpuWaitsStory) -> None:
        """Show the story's values without the controls writing them back; a control is touched only when what
        it shows changes (a transition updates the side panel once, at its end)."""
        value = self.intensity
        step = round(math.log10(value) * SLIDER_STEPS_PER_DECADE)
        if self.intensity_slider.value() != step:
            with signals_blocked(self.intensity_slider):
                self.intensity_slider.setValue(step)
        if self.intensity_box.value() != round(value, self.intensity_box.decimals()):
            with signals_blocked(self.intensity_box):
                self.intensity_box.setValue(value)
        tip = story.prefill_preset_tip()
        self.prefill_button.setEnabled(not tip)
        if self.prefill_button.toolTip() != tip:
            self.prefill_button.setToolTip(tip)
        label = story.fp8_label()
        if self.override_label.isHidden() != (label is None):
            self.override_label.setVisible(label is not None)
        if label is not None and self.override_label.text() != label:
            self.override_label.setText(label)


SCENE = GpuWaitsScene
