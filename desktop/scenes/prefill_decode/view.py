"""The view of "prefill and decode": the request's timeline above, a table below, a batch slider beside.

It hands the story's states to the timeline and the table and eases the
utilisation strips in on the scene clock. Prompt length, output length and
batch are the shared scenario's fields: the slider changes the shared scenario
(``store.update``) and shows a refusal inline; GPU, model and precision come
from the side panel's shared controls. Stepping builds never touches the scenario.
"""
from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSlider, QVBoxLayout, QWidget

from desktop.kit.scene import Scene
from desktop.kit.signals import signals_blocked
from engine.scenario import MAX_BATCH
from widgets.request_timeline import RequestTimeline
from widgets.request_timeline_table import RequestTable
from widgets.transition import Transition

from .story import PrefillDecodeStory, strip_reveal

TIMELINE_SHARE = 0.52             # of the stage's height; the table takes the rest
BATCH_SLIDER_STEPS_PER_DOUBLING = 4


class PrefillDecodeScene(Scene):
    Story = PrefillDecodeStory

    def __init__(self, kit, parent: QWidget | None = None):
        super().__init__(kit, parent)
        self.timeline = self.themed(RequestTimeline(kit.theme, self))
        self.table = self.themed(RequestTable(kit.theme, self))
        self._reveal = Transition(strip_reveal(0))     # the strips' fill eases in as a phase is revealed
        self.own_controls(self._create_controls())
        self.start()

    # -- the scene contract ------------------------------------------------------------------
    def present(self, story: PrefillDecodeStory, animate: bool) -> None:
        target = story.strip_reveal()
        # A new batch leaves the strips' easing alone: aimed again at the same fill, it would start over from
        # where it is, slowly, on every step of the dragged slider, and never show the whole fill while it moves.
        if target != self._reveal.target or not animate:
            self._reveal.retarget(target, self.clock.seconds(), animate)
        self.timeline.set_state(story.timeline(self._reveal.value(self.clock.seconds())))
        table = story.table()
        if table is not None:
            self.table.set_state(table)
        self.table.setVisible(table is not None)
        self._sync_controls()

    def figure_places(self) -> dict:
        """The decode column's time, or each row's time per token (``PrefillDecodeStory.formulas``)."""
        return {key: (self.table, (f"{key.split('.', 1)[1]}.tpot" if "." in key else "decode.time",))
                for key in self.story().formulas()}

    def on_report(self, scenario, report) -> None:
        self.refusal_label.hide()                  # whatever was refused, the scenario has moved on
        super().on_report(scenario, report)

    def on_tick(self, seconds: float) -> None:
        if self._reveal.running(seconds) or self.timeline.state.strip_reveal != self._reveal.target:
            self.timeline.set_state(self.story().timeline(self._reveal.value(seconds)))

    def moving(self, seconds: float) -> bool:
        return self._reveal.running(seconds)

    def lay_out(self) -> None:
        top = round(self.height() * TIMELINE_SHARE)
        self.timeline.setGeometry(0, 0, self.width(), top)
        self.table.setGeometry(0, top, self.width(), self.height() - top)

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
        return box

    def set_field(self, **fields) -> bool:
        """Change the shared scenario's ``fields``; a refusal is shown under the controls, in one sentence."""
        store = self.kit.store
        accepted = store.update(**fields)
        if accepted:
            self.refusal_label.hide()
            if self.story().scenario != store.scenario:      # no deck connected us (a bare scene, a test)
                self.on_report(store.scenario, store.report)
        else:
            self.refusal_label.setText(self.kit.refusal_text(store.last_error))
            self.refusal_label.show()
            self._sync_controls()                  # back to the values the scenario keeps
        return accepted

    def _on_batch_slider(self, value: int) -> None:
        self.set_field(batch=max(1, min(MAX_BATCH, round(2 ** (value / BATCH_SLIDER_STEPS_PER_DOUBLING)))))

    def retranslate_controls(self) -> None:
        self._batch_label.setText(self.text("control.batch"))
        self.batch_slider.setToolTip(self.text("control.batch_tip"))

    def _sync_controls(self) -> None:
        """Show the scenario's values without the controls writing them back."""
        with signals_blocked(self.batch_slider):
            self.batch_slider.setValue(round(math.log2(self.kit.store.scenario.batch) * BATCH_SLIDER_STEPS_PER_DOUBLING))


SCENE = PrefillDecodeScene
