"""Scene 7, the summary: the seed's four questions, one at a time, each answered by a picture from its scene.

A thin view over ``desktop.scenes.summary_model`` (Qt-free). Each question has
two builds: the question alone, large, on the stage; then its answer, revealed
in three steps on the scene clock (the question moves up, the picture grows in,
one or two lines of words appear: one ``Transition``, so a build never depends
on how fast the last one was clicked). The last build shows all four answers
side by side, small, as a recap (the handout's page, with the recap's notes).

The pictures are the scenes' own widgets fed with the shared scenario's
numbers: share bars for scene 1's idle gauge and for scene 5's two totals (on
one scale), scene 2's memory bars (shown whole: growing them would lay them
out again every frame), scene 6's price bars. On its own build a share-bars
picture draws its words at ``FOCUS_FLOOR_SCALE`` times the text floor (a
room reads them from the back); in the recap at the floor. A click on a revealed answer (or G and
the scene's number) jumps to the scene that explains it; links go only to
registered scenes.
"""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QWidget

from desktop.scene import Scene, SceneContext
from desktop.scenes.registry import scene_entries
from desktop.scenes.summary_model import BUILDS, QUESTIONS, RECAP_BUILD, SummaryModel, busy_server, focus, linked_scene
from engine.units import format_count
from widgets.memory_bars import MemoryBars
from widgets.question_card import QuestionCard
from widgets.question_card_state import reveal_phases
from widgets.ratio_bars import RatioBars
from widgets.share_bars import ShareBars
from widgets.transition import Transition

# A reveal: the question's move, the picture and the words in turn. Under a second, so a build's picture
# is complete before the presenter's next sentence (and in any still picture taken a second later).
REVEAL_SECONDS = 0.8
GRID_GAP_SHARE = 0.02        # of the stage's height, between the recap's cards
FOCUS_FLOOR_SCALE = 1.4      # a share-bars picture alone on the stage: its smallest words this much above the floor


class SummaryScene(Scene):
    number = 7
    key = "summary"
    build_names = BUILDS

    def __init__(self, context: SceneContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self._reveal = Transition(0.0, seconds=REVEAL_SECONDS)
        self._revealing = False
        theme = context.theme
        self.cards = [self.themed(QuestionCard(theme, self)) for _ in QUESTIONS]
        # Share bars get their theme from ``_theme_pictures`` (a higher floor on their own build).
        self._share_bars = [ShareBars(theme), ShareBars(theme)]
        pictures = [self._share_bars[0], self._share_bars[1], self.themed(MemoryBars(theme)),
                    self.themed(RatioBars(theme))]
        for card, picture in zip(self.cards, pictures):
            card.set_picture(picture)
            card.link_clicked.connect(self.jump_requested)      # a click on an answer: to the scene explaining it
        self._handed: dict[int, object] = {}     # picture -> the state last handed to it
        self._model: SummaryModel | None = None
        self._report = context.store.report
        self.clock.ticked.connect(self._on_tick)
        self.on_report(context.store.scenario, context.store.report)
        self.go_to_build(0, animate=False)

    # -- the model ------------------------------------------------------------------------------
    def _make_model(self) -> SummaryModel:
        language = self.context.language
        titles = {entry.number: language.text(f"{entry.key}.title") for entry in scene_entries()
                  if entry.number != self.number}
        busy = busy_server(self.context.store.scenario, self._report, self.context.what_if)
        return SummaryModel(self._report, busy, titles, language.text, self.context.refusal_text)

    @property
    def model(self) -> SummaryModel:
        return self._model

    def caption_values(self) -> dict[str, str]:
        return self._model.values if self._model else {}

    def note_values(self) -> dict[str, str]:
        if self._model is None:
            return {}
        scenes = {f"{question}_scene": format_count(linked_scene(question, self._model.titles))
                  for question in QUESTIONS}
        return {**self._model.values, **scenes}

    # -- the contract ---------------------------------------------------------------------------
    def handout_texts(self) -> list[tuple[str, str]]:
        """The handout's summary page is the recap with its notes (the four full answers), nothing else."""
        self.go_to_build(RECAP_BUILD, animate=False)
        return [(self.caption(), self.notes())]

    def show_build(self, index: int, animate: bool) -> None:
        question, revealed = focus(index)
        now = self.clock.seconds()
        self._reveal.retarget(0.0, now, animate=False)
        if question is not None and revealed:
            self._reveal.retarget(1.0, now, animate=animate)
        self._revealing = self._reveal.running(now)
        self._theme_pictures()
        self._place_cards()
        self._refresh()

    def on_report(self, scenario, report) -> None:
        self._report = report
        self._model = self._make_model()
        self._refresh()

    def retranslate(self) -> None:
        self._model = self._make_model()
        self._refresh()

    def set_theme(self, theme) -> None:
        super().set_theme(theme)
        self._theme_pictures()

    def _theme_pictures(self) -> None:
        """Share bars on their own build draw their words at ``FOCUS_FLOOR_SCALE`` times the floor."""
        theme = self.context.theme
        if focus(self.build_index)[0] is not None:
            theme = replace(theme, text_floor_px=theme.text_floor_px * FOCUS_FLOOR_SCALE)
        for bars in self._share_bars:
            bars.set_theme(theme)

    # -- what tests and the frame read ------------------------------------------------------------
    def focused_question(self) -> int | None:
        return focus(self.build_index)[0]

    def shown_cards(self) -> list[int]:
        return [n for n, card in enumerate(self.cards) if card.isVisibleTo(self)]

    @property
    def pictures(self) -> list[QWidget]:
        """Each answer's picture as it is hosted now (the recap shows the work counter's small form)."""
        return [card.picture for card in self.cards]

    def revealed_answers(self) -> list[int]:
        """The answers whose picture is on the stage now."""
        return [n for n in self.shown_cards() if self.pictures[n].isVisibleTo(self)]

    # -- drawing ----------------------------------------------------------------------------------
    def _refresh(self) -> None:
        model = self._model
        if model is None:
            return
        question, _ = focus(self.build_index)
        if question is None:
            for n, card in enumerate(self.cards):
                card.set_state(model.card(n, compact=True))
                card.set_reveal(1.0)
                self._hand(card.picture, model.picture(n, compact=True))
            return
        progress = self._reveal.value(self.clock.seconds())
        card = self.cards[question]
        card.set_state(model.card(question))
        card.set_reveal(progress)
        self._hand(card.picture, model.picture(question, reveal_phases(progress).picture))

    def _hand(self, picture: QWidget, state) -> None:
        """``state`` to ``picture``, unless it holds that very state already (the memory bars' is made once per
        model: handing it again every tick of a reveal would be work for nothing)."""
        if self._handed.get(id(picture)) is not state:
            self._handed[id(picture)] = state
            picture.set_state(state)

    def _place_cards(self) -> None:
        question, _ = focus(self.build_index)
        if self.build_index == RECAP_BUILD:
            gap = max(8, round(GRID_GAP_SHARE * self.height()))
            width, height = (self.width() - gap) // 2, (self.height() - gap) // 2
            for n, card in enumerate(self.cards):
                card.setGeometry(QRect((n % 2) * (width + gap), (n // 2) * (height + gap), width, height))
                card.show()
            return
        for n, card in enumerate(self.cards):
            if n == question:
                card.setGeometry(self.rect())
            card.setVisible(n == question)

    def _on_tick(self, seconds: float) -> None:
        if self._revealing:
            self._revealing = self._reveal.running(seconds)
            self._refresh()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_cards()


SCENE = SummaryScene
