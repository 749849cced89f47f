"""Scene 4, "prefill and decode" (seed 1.4): one request's timeline, the phases compared, batching and price.

The thin view: it asks ``prefill_decode_model`` for the states and hands them
to the timeline (top) and the table (below). Prompt length, output length and
batch are the shared scenario's fields, so its controls change the shared
scenario (``store.update``) and show a refusal inline; GPU, model and precision
come from the side panel's shared controls. Stepping builds never touches the
scenario.

The batch sweep is a handful of cached what-ifs; the crossover batch (the
smallest batch whose decode step is compute-bound) is the engine's, asked of
the kit (``context.crossover_batch()``: cached once per scenario apart from its
batch, a refusal as a value).
"""
from __future__ import annotations

import dataclasses
import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSlider, QVBoxLayout, QWidget

from desktop.scene import Scene, SceneContext
from desktop.scenes import prefill_decode_model as model
from desktop.what_if import refused
from engine.scenario import MAX_BATCH
from widgets.request_timeline import RequestTimeline
from widgets.request_timeline_table import RequestTable
from widgets.transition import Transition

TIMELINE_SHARE = 0.52             # of the stage's height; the table takes the rest
BATCH_SLIDER_STEPS_PER_DOUBLING = 4


class PrefillDecodeScene(Scene):
    number = 4
    key = "prefill_decode"
    build_names = model.BUILDS

    def __init__(self, context: SceneContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self.timeline = self.themed(RequestTimeline(context.theme, self))
        self.table = self.themed(RequestTable(context.theme, self))
        self._inputs = self._inputs_for(context.store.scenario, context.store.report, 0)
        self._values: dict[str, str] | None = None           # formatted when a caption or notes are read
        self._notes: dict[str, str] | None = None
        self._reveal = Transition(model.strip_reveal(0))     # the strips' fill eases in as a phase is revealed
        self._controls = self.own_controls(self._create_controls())
        self.clock.ticked.connect(self._on_tick)
        self.go_to_build(0, animate=False)

    # -- the numbers ----------------------------------------------------------------------
    def crossover_batch(self, scenario) -> int | None:
        """The engine's crossover batch for ``scenario`` (its own batch aside), cached by the kit; a scenario
        the engine refuses has no crossover to show (None)."""
        store = self.context.store
        result = self.context.crossover_batch() if scenario == store.scenario \
            else store.what_ifs.crossover_batch(scenario)
        return None if refused(result) else result

    def _inputs_for(self, scenario, report, build: int) -> model.SceneInputs:
        crossover = self.crossover_batch(scenario)
        sweep = {batch: self.context.what_if_for(dataclasses.replace(scenario, batch=batch))
                 for batch in model.sweep_batches(scenario.batch, crossover) if batch != scenario.batch}
        return model.SceneInputs(scenario, report, sweep, crossover, build)

    @property
    def inputs(self) -> model.SceneInputs:
        return self._inputs

    def phase(self) -> str:
        return model.phase(self._inputs)

    def caption_values(self) -> dict[str, str]:
        if self._values is None:
            self._values = model.caption_values(self._inputs)
        return self._values

    def note_values(self) -> dict[str, str]:
        """The captions' values and the other mode's figures (asked only when notes are read: not per drag step)."""
        if self._notes is None:
            scenario = self._inputs.scenario
            other = dataclasses.replace(scenario, mode=model.OTHER_MODE.get(scenario.mode, "ideal"))
            self._notes = model.note_values(self._inputs, self.context.what_if_for(other),
                                            self.crossover_batch(other), self.text)
        return self._notes

    def _refresh(self) -> None:
        self._refresh_timeline()
        self.table.set_state(model.table_state(self._inputs, self.text))

    def _refresh_timeline(self) -> None:
        reveal = self._reveal.value(self.clock.seconds())
        self.timeline.set_state(model.timeline_state(self._inputs, self.text, reveal))

    def _on_tick(self, seconds: float) -> None:
        if self._reveal.running(seconds) or self.timeline.state.strip_reveal != self._reveal.target:
            self._refresh_timeline()

    # -- the scene contract ------------------------------------------------------------------
    def show_build(self, index: int, animate: bool) -> None:
        self._inputs = dataclasses.replace(self._inputs, build=index)
        self._reveal.retarget(model.strip_reveal(index), self.clock.seconds(), animate)
        self.table.setVisible(index >= model.PREFILL)      # the first build is the request alone
        self._refresh()

    def on_report(self, scenario, report) -> None:
        self._inputs = self._inputs_for(scenario, report, self._build)
        self._values = self._notes = None
        self.refusal_label.hide()                  # whatever was refused, the scenario has moved on
        self._sync_controls()
        self._refresh()

    def retranslate(self) -> None:
        self._notes = None                     # they name the other mode in words
        self._retranslate_controls()
        self._refresh()

    def controls(self) -> QWidget:
        return self._controls

    def resizeEvent(self, event) -> None:
        top = round(self.height() * TIMELINE_SHARE)
        self.timeline.setGeometry(0, 0, self.width(), top)
        self.table.setGeometry(0, top, self.width(), self.height() - top)
        super().resizeEvent(event)

    # -- controls: a log-scale batch slider (prompt, output and batch boxes are the shared panel's) -------------
    def _create_controls(self) -> QWidget:
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        self._batch_label = QLabel()
        self._batch_label.setWordWrap(True)        # the panel stays as narrow as its other controls
        self.batch_slider = QSlider(Qt.Orientation.Horizontal)
        self.batch_slider.setRange(0, round(math.log2(MAX_BATCH) * BATCH_SLIDER_STEPS_PER_DOUBLING))
        self.refusal_label = QLabel()
        self.refusal_label.setWordWrap(True)
        self.refusal_label.hide()
        for widget in (self._batch_label, self.batch_slider, self.refusal_label):
            layout.addWidget(widget)
        self.batch_slider.valueChanged.connect(self._on_batch_slider)
        self._retranslate_controls()
        self._sync_controls()
        return box

    def set_field(self, **fields) -> bool:
        """Change the shared scenario's ``fields``; a refusal is shown under the controls, in one sentence."""
        store = self.context.store
        accepted = store.update(**fields)
        if accepted:
            self.refusal_label.hide()
            if self._inputs.scenario != store.scenario:      # no deck connected us (a bare scene, a test)
                self.on_report(store.scenario, store.report)
        else:
            self.refusal_label.setText(self.context.refusal_text(store.last_error))
            self.refusal_label.show()
            self._sync_controls()                  # back to the values the scenario keeps
        return accepted

    def _on_batch_slider(self, value: int) -> None:
        self.set_field(batch=max(1, min(MAX_BATCH, round(2 ** (value / BATCH_SLIDER_STEPS_PER_DOUBLING)))))

    def _retranslate_controls(self) -> None:
        self._batch_label.setText(self.text("control.batch"))
        self.batch_slider.setToolTip(self.text("control.batch_tip"))

    def _sync_controls(self) -> None:
        """Show the scenario's values without the controls writing them back."""
        s = self.context.store.scenario
        self.batch_slider.blockSignals(True)
        self.batch_slider.setValue(round(math.log2(s.batch) * BATCH_SLIDER_STEPS_PER_DOUBLING))
        self.batch_slider.blockSignals(False)


SCENE = PrefillDecodeScene
