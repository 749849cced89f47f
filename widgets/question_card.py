"""One self-check question: the question, its answer (hidden until revealed), links to scenes.

Handed a plain ``QuestionCardState``; it emits what the learner asks for
(``reveal_requested``, ``link_clicked(scene number)``) and decides nothing.
The hidden answer keeps its place (drawn fully transparent), so revealing it
never moves the other cards. The line under the answer is one wrapped row of
links: "show the answer" while hidden, the scenes that explain it once shown.
"""
from __future__ import annotations

import html
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QFrame, QGraphicsOpacityEffect, QLabel, QVBoxLayout, QWidget

from widgets.theme import THEMES, Theme

REVEAL_LINK = "reveal"
SCENE_LINK_PREFIX = "scene:"


@dataclass(frozen=True)
class QuestionCardState:
    number: int
    question: str
    answer: str
    revealed: bool
    reveal_label: str                           # the link that shows the answer
    links: tuple[tuple[int, str], ...] = ()     # (scene number, link text), only scenes that exist


class QuestionCard(QFrame):
    reveal_requested = Signal()
    link_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("question_card")
        self._state: QuestionCardState | None = None
        self._theme = THEMES["light"]
        self.question_label = QLabel(self)
        self.answer_label = QLabel(self)
        self.links_label = QLabel(self)
        for label in (self.question_label, self.answer_label, self.links_label):
            label.setWordWrap(True)
            label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.question_label.setTextFormat(Qt.TextFormat.PlainText)
        self.answer_label.setTextFormat(Qt.TextFormat.PlainText)
        self.links_label.setTextFormat(Qt.TextFormat.RichText)
        self.links_label.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.links_label.linkActivated.connect(self.activate_link)
        self._answer_opacity = QGraphicsOpacityEffect(self.answer_label)
        self.answer_label.setGraphicsEffect(self._answer_opacity)
        layout = QVBoxLayout(self)
        layout.addWidget(self.question_label)
        layout.addWidget(self.answer_label, stretch=1)
        layout.addWidget(self.links_label)

    @property
    def state(self) -> QuestionCardState | None:
        return self._state

    def set_state(self, state: QuestionCardState) -> None:
        previous = self._state
        self._state = state
        self.question_label.setText(f"{state.number}. {state.question}")
        self.answer_label.setText(state.answer)
        self._show_links()
        if previous is None or previous.revealed != state.revealed:
            self.set_answer_opacity(1.0 if state.revealed else 0.0)

    def activate_link(self, link: str) -> None:
        """What a click on a link does (also what tests call)."""
        if link == REVEAL_LINK:
            self.reveal_requested.emit()
        elif link.startswith(SCENE_LINK_PREFIX):
            self.link_clicked.emit(int(link[len(SCENE_LINK_PREFIX):]))

    def set_answer_opacity(self, opacity: float) -> None:
        """0 hides the answer, 1 shows it; in between while it fades in."""
        self._answer_opacity.setOpacity(opacity)
        # A full-opacity effect still renders through an offscreen pixmap: switch it off.
        self._answer_opacity.setEnabled(opacity < 1.0)

    def answer_visible(self) -> bool:
        return not self._answer_opacity.isEnabled() or self._answer_opacity.opacity() > 0

    def set_pixel_size(self, pixels: int) -> None:
        question, answer, links = QFont(self.font()), QFont(self.font()), QFont(self.font())
        question.setPixelSize(round(pixels * 1.15))
        question.setBold(True)
        answer.setPixelSize(pixels)
        links.setPixelSize(max(8, round(pixels * 0.9)))
        self.question_label.setFont(question)
        self.answer_label.setFont(answer)
        self.links_label.setFont(links)
        margin = max(4, pixels // 2)
        self.layout().setContentsMargins(margin, margin, margin, margin)
        self.layout().setSpacing(margin)
        self.layout().invalidate()

    def height_for_width(self, width: int) -> int:
        """The height this card needs at ``width`` with its current type."""
        return self.layout().totalHeightForWidth(width)

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        width = max(1, round(theme.line_width / 2))
        self.setStyleSheet(
            f"QFrame#question_card {{ background: {theme.surface}; border: {width}px solid {theme.muted};"
            f" border-radius: 8px; }}"
            f" QFrame#question_card QLabel {{ color: {theme.text}; background: transparent; border: none; }}")
        self._show_links()

    def _show_links(self) -> None:
        state = self._state
        if state is None:
            return
        style = f"color: {self._theme.accent}; text-decoration: none; font-weight: bold;"
        if state.revealed:
            items = [(f"{SCENE_LINK_PREFIX}{number}", f"→ {text}") for number, text in state.links]
        else:
            items = [(REVEAL_LINK, f"▸ {state.reveal_label}")]
        self.links_label.setText("&nbsp;&nbsp;&nbsp; ".join(
            f'<a href="{href}" style="{style}">{html.escape(text)}</a>' for href, text in items))
