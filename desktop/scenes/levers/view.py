"""The view of "what speeds it up": scene 1's conveyor belt, a curve table, the figure table, and the controls.

It hands the story's states to the widgets and places them where the story
says. Its mutable part is the scene's one control value (``LeversChoices``),
changed only by the side panel's controls; the belt moves continuously on the
scene clock while it shows. In idle time after the first frame it asks the
engine for every build's answers and lays the belt out for each, so stepping
through the builds costs no long frame.
"""
from __future__ import annotations

from PySide6.QtWidgets import QWidget

from desktop.kit.scene import Scene
from widgets.conveyor_belt import ConveyorBelt
from widgets.figure_table import FigureTable
from widgets.figure_table_state import FigureTableState

from . import asked
from .choices import LeversChoices
from .controls import LeverControls
from .story import LeversStory

EMPTY = FigureTableState()


class LeversScene(Scene):
    Story = LeversStory

    def __init__(self, kit, parent: QWidget | None = None):
        super().__init__(kit, parent)
        self._choices = LeversChoices()
        self.belt = self.themed(ConveyorBelt(kit.theme, self))
        self.curve = self.themed(FigureTable(kit.theme, self))
        self.figures = self.themed(FigureTable(kit.theme, self))
        self.panel = LeverControls()
        self.panel.changed.connect(self.set_choices)
        self.own_controls(self.panel)
        self.clock.ticked.connect(self.belt.set_seconds)
        self.start()

    def control_values(self) -> LeversChoices:
        return self._choices

    def set_choices(self, choices: LeversChoices) -> None:
        """A control changed: the story follows, and the frame re-reads the caption and notes."""
        self._choices = choices
        self.refresh()
        self.texts_changed.emit()

    # -- the scene contract -------------------------------------------------------------------------
    def present(self, story: LeversStory, animate: bool) -> None:
        belt = story.conveyor_state()
        if belt is not None:
            self.belt.set_state(belt)
        self.figures.set_state(story.figures or EMPTY)
        self.curve.set_state(story.curve or EMPTY)
        self.lay_out()
        self.panel.show_story(story, self.text)

    def figure_places(self) -> dict:
        """The belt's idle share and the table's "on" cells (``LeversStory.formula_labels``)."""
        return {key: (self.belt if key == "step_idle_share" else self.figures, names)
                for key, names in self.story().formula_labels().items()}

    def moving(self, seconds: float) -> bool:
        return self.belt.isVisible()            # its boxes and worker move continuously while it shows

    def lay_out(self) -> None:
        rects = self.story().rects(self.width(), self.height())
        self.place({self.belt: rects["belt"], self.curve: rects["curve"], self.figures: rects["figures"]})
        self.clock.wake()                       # a belt shown again moves again

    def retranslate_controls(self) -> None:
        self.panel.retranslate(self.text, self.kit.ask(asked.narrow_precisions), self.kit.ask(asked.draft_models))

    def idle_jobs(self) -> list:
        story = self.story()
        return [lambda build=build: self._prepare(story.for_build(build)) for build in range(story.build_count)]

    def ensure_ready(self) -> None:
        story = self.story()
        for build in range(story.build_count):
            self._prepare(story.for_build(build))

    def _prepare(self, story: LeversStory) -> None:
        """A build's engine answers, and its belt laid out at the size it will show (each cached)."""
        state, rect = story.conveyor_state(), story.rects(self.width(), self.height())["belt"]
        story.figures, story.curve, story.caption_values()
        if state is not None and rect is not None:
            self.belt.prepare(state, rect[2], rect[3])


SCENE = LeversScene
