"""The view of "serving many users": the latency plot, the fleet, a figure table and bars, and the controls.

It hands the story's states to the widgets and places them where the story
says. Its mutable parts are the scene's inputs (``ServingInputs``: the
controls' values and the engine's answers so far) and the request the
worker is answering. The slow questions (``story.missing()``) are asked one at
a time through the kit's cache on the kit's ``Worker`` thread, this build's
first; each answer that arrives is shown at once and the next question asked.
A control change asks anew: the answer to the old values is dropped (the
worker's), and what the cache already knows shows without waiting. Nothing
moves: the clock rests.
"""
from __future__ import annotations

import threading

from PySide6.QtWidgets import QWidget

from desktop.kit.answers import NOT_KNOWN
from desktop.kit.scene import Scene
from desktop.kit.story import Inputs
from desktop.kit.worker import Worker
from widgets.figure_table import FigureTable
from widgets.fleet_picture import FleetPicture
from widgets.latency_plot import LatencyPlot
from widgets.ratio_bars import RatioBars

from .choices import Request, ServingControls, ServingInputs
from .controls import ServingControlsPanel
from .story import ServingStory


def _answer(answers, request: Request):
    """The worker's job: ``request`` asked through the kit's cache ``answers`` (an ``Answers``)."""
    return answers, request, answers.ask(request.question, *request.arguments)


def _warm(kit) -> None:
    """Ask every question of the default controls through the kit's cache (a thread of its own, after the first
    frame), so the scene's first visit finds its figures there. It ends quietly when the tokenizer process stops
    under it (the app quitting): the visit asks again and says why."""
    from desktop.kit.tokenizer_process import ProcessStopped

    served = ServingInputs()
    store = kit.store
    while True:
        story = ServingStory(Inputs(store.scenario, store.report, 0, kit.ask, lambda *_a, **_k: "", controls=served))
        missing = story.missing()
        if not missing:
            return
        try:
            served = served.with_answers({r: kit.ask(r.question, *r.arguments) for r in missing})
        except ProcessStopped:
            return


class ServingScene(Scene):
    Story = ServingStory

    def __init__(self, kit, parent: QWidget | None = None):
        super().__init__(kit, parent)
        self._served = ServingInputs()
        self._asking: Request | None = None       # what the worker is answering now
        self.worker = Worker(self)
        self.worker.finished.connect(self._on_answer)
        self.worker.failed.connect(self._on_failed)
        theme = kit.theme
        self.plot = self.themed(LatencyPlot(theme, self))
        self.fleet = self.themed(FleetPicture(theme, self))
        self.table = self.themed(FigureTable(theme, self))
        self.bars = self.themed(RatioBars(theme, self))
        self.panel = ServingControlsPanel()
        self.panel.changed.connect(self.set_controls)
        self.own_controls(self.panel)
        self.start()
        self._ask()

    @classmethod
    def prepare_before_first_visit(cls, kit) -> None:
        threading.Thread(target=_warm, args=(kit,), daemon=True, name="inference-physics-serving").start()

    def control_values(self) -> ServingInputs:
        return self._served

    def set_controls(self, controls: ServingControls) -> None:
        """A control changed: the story follows at once with what is known, the rest is asked for."""
        self._served = self._served.with_controls(controls)
        self._story = None
        self._ask()
        self.refresh()
        self.texts_changed.emit()

    # -- the engine's answers -------------------------------------------------------------------------
    def _known(self) -> bool:
        """Take what the kit's cache already knows of the story's questions (a chain: a plan, then its curve) and
        drop the answers it no longer wants; returns whether anything changed."""
        changed = False
        while True:
            story = self.story()
            wanted = story.wanted()
            kept = {r: story.answer(r) for r in wanted if story.answer(r) is not NOT_KNOWN}
            found = {r: a for r in wanted
                     if r not in kept and (a := self.kit.known(r.question, *r.arguments)) is not NOT_KNOWN}
            if not found and len(kept) == len(self._served.answers):
                return changed
            self._served = ServingInputs(self._served.controls).with_answers({**kept, **found})
            self._story = None
            changed = True
            if not found:
                return changed

    def _ask(self) -> bool:
        """Show what is known; ask the worker for the first question still missing. Returns whether what is known
        changed."""
        changed = self._known()
        missing = self.story().missing()
        if not missing:
            self._asking = None
            self.worker.cancel()
        elif missing[0] != self._asking or not self.worker.busy:
            self._asking = missing[0]
            self.worker.run(_answer, self.kit.store.answers, missing[0])
        return changed

    def _on_answer(self, result) -> None:
        answers, request, answer = result
        if answers is not self.kit.store.answers or request != self._asking:
            return                                  # asked of another catalogue, or no longer wanted
        self._asking = None
        self._served = self._served.with_answers({request: answer})
        self._story = None
        self._ask()
        self.refresh()
        self.texts_changed.emit()                   # a result the frame did not make: the caption reads anew

    def _on_failed(self, message: str) -> None:
        self._asking = None
        self.show_note(message)

    def ensure_ready(self) -> None:
        """Every question of every build answered now, on this thread (an export, a test)."""
        self.worker.cancel()
        self._asking = None
        while True:
            self._known()
            missing = self.story().missing()
            if not missing:
                break
            self._served = self._served.with_answers({r: self.kit.ask(r.question, *r.arguments) for r in missing})
            self._story = None
        self.refresh()

    # -- the scene contract ----------------------------------------------------------------------------
    def go_to_build(self, index: int, animate: bool = True) -> None:
        super().go_to_build(index, animate)
        if self._ask():                             # this build's questions first
            self.refresh()

    def on_report(self, scenario, report) -> None:
        self._served = ServingInputs(self._served.controls)       # answers of another scenario or catalogue
        self._asking = None
        self._story = None
        super().on_report(scenario, report)
        if self._ask():
            self.refresh()

    def present(self, story: ServingStory, animate: bool) -> None:
        rects = story.rects(self.width(), self.height())
        if rects["plot"] is not None:
            self.plot.set_state(story.latency_plot())
        if rects["fleet"] is not None:
            self.fleet.set_state(story.fleet_picture())
        if rects["table"] is not None:
            self.table.set_state(story.table())
        if rects["bars"] is not None:
            self.bars.set_state(story.bars())
        self._place(rects)
        self.panel.show_story(story)

    def figure_places(self) -> dict:
        """The fleet's headline and the tables' cells, and the plot's knee (``ServingStory.formula_labels``)."""
        widgets = {"table": self.table, "fleet": self.fleet, "plot": self.plot}
        return {key: (widgets[widget], names) for key, (widget, names) in self.story().formula_labels().items()}

    def _place(self, rects) -> None:
        self.place({self.plot: rects["plot"], self.fleet: rects["fleet"], self.table: rects["table"],
                    self.bars: rects["bars"]})

    def lay_out(self) -> None:
        self._place(self.story().rects(self.width(), self.height()))

    def retranslate_controls(self) -> None:
        self.panel.retranslate(self.text)


SCENE = ServingScene
