"""The summary's view: four question cards, one at a time, then all four as a recap.

Each question has two builds: the question alone, large; then its answer,
revealed in three steps on the scene clock (the question moves up, the picture
grows in, one or two lines of words appear: one ``Transition``, so a build never
depends on how fast the last one was clicked). The pictures are the scenes' own
widgets fed with the story's states. A click on a revealed answer (or G and the
scene's number) jumps to the scene that explains it.
"""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import QWidget

from desktop.kit.scene import Scene
from widgets.memory_bars import MemoryBars
from widgets.question_card import QuestionCard
from widgets.question_card_state import reveal_phases
from widgets.ratio_bars import RatioBars
from widgets.share_bars import ShareBars
from widgets.transition import Transition

from .story import QUESTIONS, RECAP_BUILD, REVEAL_SECONDS, SummaryStory


class SummaryScene(Scene):
    Story = SummaryStory

    def __init__(self, kit, parent: QWidget | None = None):
        super().__init__(kit, parent)
        self._reveal = Transition(0.0, seconds=REVEAL_SECONDS)
        theme = kit.theme
        self.cards = [self.themed(QuestionCard(theme, self)) for _ in QUESTIONS]
        # Share bars get their theme from ``_theme_pictures`` (a higher floor on their own build).
        self._share_bars = [ShareBars(theme), ShareBars(theme)]
        pictures = [self._share_bars[0], self._share_bars[1], self.themed(MemoryBars(theme)),
                    self.themed(RatioBars(theme))]
        for card, picture in zip(self.cards, pictures):
            card.set_picture(picture)
            card.link_clicked.connect(self.jump_requested)      # a click on an answer: to the scene explaining it
        self._handed: dict[int, object] = {}     # picture -> the state last handed to it
        self.start()

    def inputs(self):
        """The summary quotes other scenes' texts: its story's ``text`` takes full keys."""
        return replace(super().inputs(), text=self.kit.language.text)

    # -- the contract ---------------------------------------------------------------------------
    def handout_texts(self) -> list[tuple[str, str]]:
        """The handout's summary page is the recap with its notes (the four full answers), nothing else."""
        self.go_to_build(RECAP_BUILD, animate=False)
        return [(self.caption(), self.notes())]

    def build_started(self, story: SummaryStory, animate: bool) -> None:
        now = self.clock.seconds()
        self._reveal.retarget(0.0, now, animate=False)
        self._reveal.retarget(story.reveal_target(), now, animate=animate)
        self._theme_pictures(story)

    def present(self, story: SummaryStory, animate: bool) -> None:
        self.lay_out()
        self._show(story, self.clock.seconds())

    def on_tick(self, seconds: float) -> None:
        self._show(self.story(), seconds)

    def moving(self, seconds: float) -> bool:
        return self._reveal.running(seconds)

    def set_theme(self, theme) -> None:
        super().set_theme(theme)
        self._theme_pictures(self.story())

    def _theme_pictures(self, story: SummaryStory) -> None:
        theme = self.kit.theme
        theme = replace(theme, text_floor_px=theme.text_floor_px * story.picture_floor_scale())
        for bars in self._share_bars:
            bars.set_theme(theme)

    def figure_places(self) -> dict:
        """Each shown figure's label on its answer's picture, or (the answer's words) on its question card."""
        places = {}
        for key, (n, label) in self.story().shown_figures().items():
            places[key] = (self.cards[n] if label == "answer" else self.pictures[n], (label,))
        return places

    # -- what tests and the frame read ------------------------------------------------------------
    def focused_question(self) -> int | None:
        return self.story().focus()[0]

    def shown_cards(self) -> list[int]:
        return [n for n, card in enumerate(self.cards) if card.isVisibleTo(self)]

    @property
    def pictures(self) -> list[QWidget]:
        """Each answer's picture as it is hosted now."""
        return [card.picture for card in self.cards]

    def revealed_answers(self) -> list[int]:
        """The answers whose picture is on the stage now."""
        return [n for n in self.shown_cards() if self.pictures[n].isVisibleTo(self)]

    # -- drawing ----------------------------------------------------------------------------------
    def _show(self, story: SummaryStory, seconds: float) -> None:
        question, _ = story.focus()
        if question is None:
            for n, card in enumerate(self.cards):
                card.set_state(story.card(n, compact=True))
                card.set_reveal(1.0)
                self._hand(card.picture, story.picture(n, compact=True))
            return
        progress = self._reveal.value(seconds)
        card = self.cards[question]
        card.set_state(story.card(question))
        card.set_reveal(progress)
        self._hand(card.picture, story.picture(question, reveal_phases(progress).picture))

    def _hand(self, picture: QWidget, state) -> None:
        """``state`` to ``picture``, unless it holds an equal state already (a reveal hands the memory bars the
        same state every frame: laying them out again would be work for nothing)."""
        if self._handed.get(id(picture)) != state:
            self._handed[id(picture)] = state
            picture.set_state(state)

    def lay_out(self) -> None:
        self.place(dict(zip(self.cards, self.story().card_rects(self.width(), self.height()))))


SCENE = SummaryScene
