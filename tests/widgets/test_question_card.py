"""The question card: the question alone, then the picture, then the words and the link; a click jumps."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QWidget

from widgets.question_card import QuestionCard
from widgets.question_card_state import QuestionCardState, reveal_phases
from widgets.theme import THEMES, for_screen

STATE = QuestionCardState("1 · Why is an LLM slow?", "Decode is 99% of the request.", "→ Scene 1: Why the GPU waits", "gpu_waits")


@pytest.fixture
def card(qtbot):
    card = QuestionCard(for_screen(THEMES["light"], 768))
    qtbot.addWidget(card)
    card.set_picture(QWidget())
    card.set_state(STATE)
    card.resize(960, 560)
    card.show()
    qtbot.waitExposed(card)
    return card


def keys(card):
    card.grab()
    return [t.key for t in card.drawn_texts()]


def test_the_reveal_has_three_steps_in_order():
    assert reveal_phases(0.0) == reveal_phases(float("nan"))
    steps = [reveal_phases(p / 20) for p in range(21)]
    assert [s.move for s in steps] == sorted(s.move for s in steps)
    first_picture = next(n for n, s in enumerate(steps) if s.picture > 0)
    first_text = next(n for n, s in enumerate(steps) if s.text > 0)
    assert steps[first_picture].move == 1.0 and steps[first_text].picture == 1.0
    assert reveal_phases(1.0).text == 1.0


def test_before_the_reveal_only_the_question_centred(card):
    card.set_reveal(0.0)
    assert keys(card) == ["question"] and not card.picture.isVisibleTo(card)
    rect = card.drawn_texts()[0].rect
    assert abs(rect.center().y() - card.height() / 2) < 2


def test_after_the_reveal_question_picture_answer_and_link_do_not_overlap(card):
    card.set_reveal(1.0)
    assert keys(card) == ["question", "answer", "link"] and card.picture.isVisibleTo(card)
    picture = card.picture.geometry().toRectF()
    texts = card.drawn_texts()
    for n, a in enumerate(texts):
        assert not a.rect.intersects(picture) and card.rect().toRectF().contains(a.rect)
        assert a.px >= card.theme.text_floor_px
        for b in texts[n + 1:]:
            assert not a.rect.intersects(b.rect)


def test_a_click_jumps_only_once_the_link_is_shown(card, qtbot):
    card.set_reveal(0.0)
    with qtbot.assertNotEmitted(card.link_clicked):
        qtbot.mouseClick(card, Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
    card.set_reveal(1.0)
    with qtbot.waitSignal(card.link_clicked) as signal:
        qtbot.mouseClick(card.picture, Qt.MouseButton.LeftButton, pos=card.picture.rect().center())
    assert signal.args == ["gpu_waits"]


def test_compact_shows_question_picture_and_link_but_no_answer(card):
    card.set_state(QuestionCardState(STATE.question, STATE.answer, STATE.link, "gpu_waits", compact=True))
    card.set_reveal(0.0)
    assert keys(card) == ["question", "link"] and card.picture.isVisibleTo(card)


def test_a_card_without_a_link_never_jumps(card, qtbot):
    card.set_state(QuestionCardState(STATE.question, STATE.answer))
    card.set_reveal(1.0)
    assert not card.activate_link() and "link" not in keys(card)


def test_a_new_picture_replaces_the_old_one(card):
    old, new = card.picture, QWidget()
    card.set_picture(new)
    card.set_reveal(1.0)
    assert new.parent() is card and new.isVisibleTo(card) and not old.isVisibleTo(card)


def test_the_card_lays_out_once_per_size_state_and_floor_as_every_state_widget(card, monkeypatch):
    from widgets.state_widget import StateWidget
    assert isinstance(card, StateWidget)
    made = []
    real = card._compute_layout
    monkeypatch.setattr(card, "_compute_layout", lambda state: made.append(state) or real(state))
    card.set_state(QuestionCardState("2 · Why?", "Because.", "", ""))
    for progress in (0.1, 0.5, 0.9, 1.0):
        card.set_reveal(progress)
        card.grab()
    assert len(made) == 1
    card.set_theme(for_screen(THEMES["light"], 1080))        # a new floor: laid out again
    card.grab()
    assert len(made) == 2 and all(text.px >= card.theme.floor_px for text in card.drawn_texts())
