"""Scene 7, the summary: the seed's four questions as a self-check.

The learner answers in their head, then reveals the answer (one per build, or
by clicking the card); each answer quotes the current scenario's numbers and
links to the scenes that explain it, as far as those scenes exist. Answers
that quote timing, utilisation or price say which mode (ideal or realistic)
the figures come from, since the two differ.
"""
from __future__ import annotations

from PySide6.QtWidgets import QGridLayout

from desktop.scene import Scene, SceneContext
from desktop.scenes.registry import scene_class
from desktop.scenes.summary_model import BUSY_SERVER_BATCH, QUESTIONS, summary_values
from widgets.question_card import QuestionCard, QuestionCardState

FADE_SECONDS = 0.3          # an answer fades in this fast: quick, but the eye sees where it appeared
TYPE_PER_HEIGHT = 1 / 22    # answer text before fitting: large enough for a room
SMALLEST_TYPE_PX = 9


class SummaryScene(Scene):
    number = 7
    key = "summary"
    build_names = ("questions", *QUESTIONS)

    def __init__(self, context: SceneContext, parent=None):
        super().__init__(context, parent)
        self._clicked: set[int] = set()                 # answers revealed by a click, whatever the build
        self._fade_started: dict[int, float] = {}       # answer -> clock seconds its fade began
        self._values: dict[str, str] = {}
        self._mode = ""                                  # the scenario's mode: "ideal" or "realistic"
        self.cards = [QuestionCard(self) for _ in QUESTIONS]
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        for index, card in enumerate(self.cards):
            grid.addWidget(card, index // 2, index % 2)
            card.reveal_requested.connect(lambda i=index: self.reveal(i))
            card.link_clicked.connect(self.jump_requested)   # the learner followed a link back to a scene
        for row_or_column in (0, 1):
            grid.setRowStretch(row_or_column, 1)
            grid.setColumnStretch(row_or_column, 1)
        self.clock.ticked.connect(self._on_tick)
        self.set_theme(context.theme)

    # -- the contract ---------------------------------------------------------------
    def show_build(self, index: int, animate: bool) -> None:
        now = self.clock.seconds()
        for answer in range(len(self.cards)):
            if self._revealed(answer) and answer not in self._fade_started:
                self._fade_started[answer] = now if animate and self.clock.running else -FADE_SECONDS
            elif not self._revealed(answer):
                self._fade_started.pop(answer, None)
        self._refresh()

    def on_report(self, scenario, report) -> None:
        catalog = self.context.catalog
        self._mode = scenario.mode
        names = {"gpu": catalog.gpu(scenario.gpu).name, "model": catalog.model(scenario.model).name,
                 "weights_precision": catalog.precision(scenario.weights).name}
        self._values = summary_values(scenario, report, self.context.what_if(batch=BUSY_SERVER_BATCH), names)
        self._refresh()

    def note_values(self) -> dict[str, str]:
        language = self.context.language
        return {**self._values, "mode": language.text(f"summary.mode.{self._mode}")} if self._values else {}

    def reset(self) -> None:
        self._clicked.clear()
        self._fade_started.clear()
        super().reset()

    def retranslate(self) -> None:
        self._refresh()

    def set_theme(self, theme) -> None:
        super().set_theme(theme)
        for card in self.cards:
            card.set_theme(theme)

    # -- what the learner does ---------------------------------------------------------
    def reveal(self, answer: int) -> None:
        """Show one answer now, without changing the build."""
        if answer in self._clicked:
            return
        self._clicked.add(answer)
        self.show_build(self.build_index, animate=True)

    def revealed_answers(self) -> list[int]:
        return [answer for answer in range(len(self.cards)) if self._revealed(answer)]

    # -- drawing ---------------------------------------------------------------------
    def _revealed(self, answer: int) -> bool:
        return answer < self.build_index or answer in self._clicked

    def _refresh(self) -> None:
        language = self.context.language
        values = {**self._values, "mode": language.text(f"summary.mode.{self._mode}")} if self._values else {}
        for answer, (name, scene_numbers) in enumerate(QUESTIONS.items()):
            links = tuple(
                (number, language.text("summary.link", number=number, title=language.text(f"{cls.key}.title")))
                for number in scene_numbers if (cls := scene_class(number)) is not None)
            self.cards[answer].set_state(QuestionCardState(
                number=answer + 1,
                question=language.text(f"summary.question.{name}"),
                answer=language.text(f"summary.answer.{name}", **values) if values else "",
                revealed=self._revealed(answer),
                reveal_label=language.text("summary.reveal"),
                links=links))
            self._apply_fade(answer, self.clock.seconds())
        self._fit_type()

    def _apply_fade(self, answer: int, now: float) -> None:
        started = self._fade_started.get(answer)
        if started is not None:
            self.cards[answer].set_answer_opacity(min(1.0, max(0.0, (now - started) / FADE_SECONDS)))

    def _on_tick(self, seconds: float) -> None:
        for answer, started in self._fade_started.items():
            if seconds - started <= FADE_SECONDS + 0.05:
                self._apply_fade(answer, seconds)

    def _fit_type(self) -> None:
        """The largest type at which every card's text fits its quarter of the stage."""
        spacing = self.layout().spacing()
        width = (self.width() - spacing) // 2
        height = (self.height() - spacing) // 2

        def fits(pixels: int) -> bool:
            for card in self.cards:
                card.set_pixel_size(pixels)
            return all(card.height_for_width(width) <= height for card in self.cards)

        low, high = SMALLEST_TYPE_PX, max(SMALLEST_TYPE_PX, round(self.height() * TYPE_PER_HEIGHT))
        while low < high:            # the type that fits shrinks as the text grows: search it
            middle = (low + high + 1) // 2
            if fits(middle):
                low = middle
            else:
                high = middle - 1
        fits(low)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_type()


SCENE = SummaryScene
