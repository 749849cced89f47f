"""Scene 1, "why the GPU waits" (seed 1.1): the conveyor belt and the roofline, a thin view.

Everything the stage shows comes from ``desktop.scenes.gpu_waits_model`` (Qt-free): the
belt's and the roofline's states at the intensity the control is at, the phase, and the
caption and note values. This view owns the widgets, the intensity control with its presets,
the intensity's transition (``widgets.transition.Transition`` on the scene clock) and the
work done in idle time after the scene is shown (zero-time timer, one job per turn of the
event loop): the roofline plot is created, laid out and painted once hidden, and the belt
lays out every build ahead, so stepping through the builds costs no long frame. (A scene
never shown, as in export and tests, makes the plot when a build needs it.) During a
transition the belt moves every frame; the roofline's control point goes straight to the
transition's end, so the plot is not repainted every frame.

The presets are what-ifs of the shared scenario (``context.what_if``); a refused one
(a scenario of 9,999,999 output tokens has no 1,000-token prefill) disables its button
with the reason as a tooltip and leaves its point off the roofline. The "fp8" build shows
FP8 weights without touching the shared scenario (a label among the controls says so;
choosing another precision drops it).
"""
from __future__ import annotations

import math
from functools import partial

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QAbstractSpinBox, QDoubleSpinBox, QLabel, QPushButton, QSlider, QVBoxLayout, QWidget

from desktop.scene import Scene, SceneContext
from desktop.scenes.gpu_waits_model import (
    BUILDS, FP8_BUILD, INTENSITY_MAX, INTENSITY_MIN, ROOFLINE_BUILD, GpuWaitsModel, clamp_intensity,
    intensity_number, preset_changes,
)
from widgets.conveyor_belt import ConveyorBelt
from widgets.conveyor_state import ESSENTIAL_LABELS
from widgets.roofline_plot import RooflinePlot
from widgets.transition import TRANSITION_SECONDS, Transition

SLIDER_STEPS_PER_DECADE = 100
ROOFLINE_SHARE = 0.4                 # of the stage's width, once the roofline is in
# Narrower than this beside the roofline, the belt's essential words no longer fit at a readable
# size: on so small a stage the roofline build shows the roofline alone (the caption still names both).
BELT_BESIDE_ROOFLINE_MIN_PX = 240
# The idle work (the roofline plot, each build's layout) starts this long after the scene is shown or changed:
# after its first frame is on screen, and after the key press's own transition has had its frames.
IDLE_WORK_DELAY_MS = 300


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


class GpuWaitsScene(Scene):
    number = 1
    key = "gpu_waits"
    build_names = BUILDS

    def __init__(self, context: SceneContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self._scenario, self._report = context.store.scenario, context.store.report
        self._fp8_dropped = False          # the person chose a precision during the fp8 build: theirs wins
        self._model = self._make_model(0)
        self._intensity = Transition(self._model.ridge, seconds=TRANSITION_SECONDS, log=True)
        self._moving = False               # a transition ran at the last tick: one more refresh at its end
        self.belt = self.themed(ConveyorBelt(context.theme, self))
        self.plot: RooflinePlot | None = None       # created in idle time after the first show (_ensure_plot)
        self._plot_laid_out = False
        self._plot_painted_at = None                 # the size it was last painted at while hidden
        self._controls = self.own_controls(self._create_controls())
        self._idle_jobs: list = []
        self._idle_timer = QTimer(self)              # zero-time: runs when the event loop is idle
        self._idle_timer.setSingleShot(True)
        self._idle_timer.timeout.connect(self._run_idle_job)
        self.clock.ticked.connect(self._on_tick)
        self.clock.ticked.connect(self.belt.set_seconds)
        self.go_to_build(0, animate=False)

    # -- the model ----------------------------------------------------------------------
    def _make_model(self, build: int) -> GpuWaitsModel:
        presets = {key: self.context.what_if(**changes) for key, changes in preset_changes(self._scenario).items()}
        return GpuWaitsModel(self._scenario, self._report, presets, build, self.context.catalog, self.text,
                             fp8_shown=build == FP8_BUILD and not self._fp8_dropped)

    @property
    def model(self) -> GpuWaitsModel:
        return self._model

    @property
    def intensity(self) -> float:
        """FLOP per byte on the belt now (mid-transition: where the picture is)."""
        return self._intensity.value(self.clock.seconds())

    def decode_intensity(self) -> float:
        return self._model.decode_intensity

    def prefill_intensity(self) -> float | None:
        return self._model.prefill_intensity

    def phase(self) -> str:
        return self._model.phase()

    def stage_subject(self):
        """The FP8 what-if while the fp8 build shows it (the corner names what the belt shows), else the shared."""
        if self._model.fp8_shown and self._model.shown is not self._model.report:
            return self._model.shown.scenario, self._model.shown
        return super().stage_subject()

    def caption_values(self) -> dict[str, str]:
        return self._model.caption_values

    def conveyor_state(self):
        return self._model.conveyor_state(self.intensity)

    def roofline_state(self):
        return self._model.roofline_state(self.intensity)

    def _refresh(self, controls: bool = True) -> None:
        self.belt.set_state(self.conveyor_state())
        if self.plot is not None and self._build >= ROOFLINE_BUILD:
            # The control's point goes straight to where a transition ends (the belt shows the way there):
            # moving it every frame would repaint the whole plot every frame.
            self.plot.set_state(self._model.roofline_state(self._intensity.target))
        if controls:
            self._sync_controls()

    def _prepare_plot(self) -> None:
        """Before the roofline build, the plot holds (and has laid out) what that build will show, so
        stepping into it only moves the control's point."""
        if self.plot is not None and self._build < ROOFLINE_BUILD:
            final = self._make_model(ROOFLINE_BUILD)
            self.plot.set_state(final.roofline_state(final.target_intensity()))

    # -- the scene contract ------------------------------------------------------------
    def show_build(self, index: int, animate: bool) -> None:
        if index != FP8_BUILD:
            self._fp8_dropped = False
        self._model = self._make_model(index)
        self._start_intensity(self._model.target_intensity(), animate)
        if index >= ROOFLINE_BUILD:
            self._ensure_plot()
        self._refresh()
        self._place_stage()

    def on_report(self, scenario, report) -> None:
        if scenario.weights != self._scenario.weights and self._build == FP8_BUILD:
            self._fp8_dropped = True         # the person's own choice of precision wins over the fp8 build's
        self._scenario, self._report = scenario, report
        self._model = self._make_model(self._build)
        self._update_presets()
        self._prepare_plot()
        self._refresh()
        if self.isVisible():
            self._schedule_idle_work()

    def retranslate(self) -> None:
        self._model = self._make_model(self._build)
        self._retranslate_controls()
        self._prepare_plot()
        self._refresh()
        if self.isVisible():
            self._schedule_idle_work()

    def set_theme(self, theme) -> None:
        super().set_theme(theme)             # the base class hands it to the belt and the plot
        if self.isVisible():
            self._schedule_idle_work()       # a new text floor: the builds' layouts again, in idle time

    def controls(self) -> QWidget:
        return self._controls

    # -- the roofline plot, created when the scene is idle ---------------------------------
    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._schedule_idle_work()

    def _never_on_screen(self) -> bool:
        """A throw-away render (export, the speaker view's preview): nothing will be stepped through later."""
        window = self.window()
        return any(widget.testAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen) for widget in (self, window))

    def _schedule_idle_work(self) -> None:
        """After the first frame (``IDLE_WORK_DELAY_MS``), and after a change of size, scenario or language: the plot,
        then each build's belt layout, one per turn of the event loop (no key press waits on more than one),
        so that stepping through the builds later costs no layout. None in a render never shown on screen."""
        if self._never_on_screen():
            self._idle_jobs = []
            self._idle_timer.stop()
            return
        # The plot's construction and its first layout are separate turns: each stays one short frame.
        self._idle_jobs = [self._create_plot, self._ensure_plot, self._paint_plot_once]
        self._idle_jobs += [partial(self._prepare_belt, build) for build in range(self.build_count)]
        self._idle_timer.start(IDLE_WORK_DELAY_MS)

    def _run_idle_job(self) -> None:
        if self._idle_jobs and self.isVisible() and not self._never_on_screen():
            self._idle_jobs.pop(0)()
            if self._idle_jobs:
                self._idle_timer.start(0)

    def _prepare_belt(self, build: int) -> None:
        model = self._make_model(build)
        width = self.width() - (self._plot_width() if build >= ROOFLINE_BUILD else 0)
        self.belt.prepare(model.conveyor_state(model.target_intensity()), width, self.height())

    def _create_plot(self) -> RooflinePlot:
        """The plot widget, hidden and not yet laid out (the costliest part of it: pyqtgraph's items)."""
        if self.plot is None:
            self.plot = self.themed(RooflinePlot(self.context.theme, self))
            self.plot.hide()
            self._plot_laid_out = False
        return self.plot

    def _ensure_plot(self) -> RooflinePlot:
        """The plot, created if need be and laid out at the size it will be shown."""
        plot = self._create_plot()
        if not self._plot_laid_out:
            self._plot_laid_out = True
            self._place_stage()
            self._prepare_plot()
        return plot

    def _paint_plot_once(self) -> None:
        """Painted once per size, hidden: its first showing reuses what pyqtgraph drew and cached (axes, fonts)."""
        if self.plot is not None and self.plot.isHidden() and self._plot_painted_at != self.plot.size():
            self._plot_painted_at = self.plot.size()
            self.plot.grab()

    def _place_stage(self) -> None:
        """The belt alone, or beside the roofline; on a stage too small for the belt's essential words at the
        text floor, the roofline build shows the roofline alone (its caption still names both)."""
        shown = self._build >= ROOFLINE_BUILD
        plot_width = self._plot_width()
        self.belt.setGeometry(0, 0, self.width() - (plot_width if shown else 0), self.height())
        state = self.belt.state
        if shown and state is not None and not ESSENTIAL_LABELS & set(state.labels) <= set(self.belt.label_rects()):
            plot_width = self.width()
        self.belt.setVisible(not shown or plot_width < self.width())
        if self.plot is not None:
            self.plot.setGeometry(self.width() - plot_width, 0, plot_width, self.height())
            self.plot.setVisible(shown)

    def _plot_width(self) -> int:
        plot_width = round(self.width() * ROOFLINE_SHARE)
        return self.width() if self.width() - plot_width < BELT_BESIDE_ROOFLINE_MIN_PX else plot_width

    def resizeEvent(self, event) -> None:
        self._place_stage()
        super().resizeEvent(event)
        if self.isVisible():
            self._schedule_idle_work()

    # -- transitions --------------------------------------------------------------------
    def set_intensity(self, flops_per_byte: float, animate: bool = False) -> None:
        """The scene's intensity control (clamped to the control's range)."""
        self._start_intensity(flops_per_byte, animate)
        self._refresh()

    def _start_intensity(self, target: float, animate: bool) -> None:
        now = self.clock.seconds()
        self._intensity.retarget(clamp_intensity(target), now, animate=animate)
        self._moving = self._intensity.running(now)

    def _on_tick(self, seconds: float) -> None:
        if self._moving:
            self._moving = self._intensity.running(seconds)
            self._refresh(controls=not self._moving)      # the side panel once, at the transition's end

    # -- controls -------------------------------------------------------------------------
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
        self.decode_button.clicked.connect(lambda: self.set_intensity(self.decode_intensity(), animate=True))
        self.prefill_button.clicked.connect(self._on_prefill_preset)
        self._retranslate_controls()
        return box

    def _retranslate_controls(self) -> None:
        self._intensity_label.setText(self.text("control.intensity"))
        for widget in (self._intensity_label, self.intensity_slider, self.intensity_box):
            widget.setToolTip(self.text("control.intensity_tip"))
        self.intensity_box.setSuffix(" " + self.text("control.intensity_unit"))
        self.decode_button.setText(self.text("control.preset_decode"))
        self.prefill_button.setText(self.text("control.preset_prefill"))
        self._update_presets()

    def _update_presets(self) -> None:
        """A preset the engine refuses for this scenario is unavailable, with the engine's reason."""
        refusal = self._model.refusal("prefill")
        self.prefill_button.setEnabled(refusal is None)
        self.prefill_button.setToolTip("" if refusal is None else self.text(
            "control.preset_refused", reason=self.context.refusal_text(refusal)))

    def _on_prefill_preset(self) -> None:
        if self.prefill_intensity() is not None:
            self.set_intensity(self.prefill_intensity(), animate=True)

    def _sync_controls(self) -> None:
        """Show the current values without the controls writing them back; a control is touched only when what
        it shows changes (a transition updates the side panel once, at its end)."""
        value = self.intensity
        step = round(math.log10(value) * SLIDER_STEPS_PER_DECADE)
        if self.intensity_slider.value() != step:
            self.intensity_slider.blockSignals(True)
            self.intensity_slider.setValue(step)
            self.intensity_slider.blockSignals(False)
        if self.intensity_box.value() != round(value, self.intensity_box.decimals()):
            self.intensity_box.blockSignals(True)
            self.intensity_box.setValue(value)
            self.intensity_box.blockSignals(False)
        shown = self._model.fp8_shown
        if self.override_label.isHidden() == shown:
            self.override_label.setVisible(shown)
        if shown:
            text = self.text("control.fp8_override", scenario=self._model.report.weights_precision.name)
            if self.override_label.text() != text:
                self.override_label.setText(text)

    def _on_slider_moved(self, value: int) -> None:
        self.set_intensity(10 ** (value / SLIDER_STEPS_PER_DECADE))


SCENE = GpuWaitsScene
