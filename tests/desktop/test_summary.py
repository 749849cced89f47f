"""Scene 7: one question at a time, each answer revealed as a picture then words, a recap, links back to scenes."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QSize, Qt
from PySide6.QtWidgets import QApplication

from desktop.i18n import LANGUAGES, Language
from desktop.scenario_store import ScenarioStore
from desktop.kit.scene import SceneKit, create_scene
from desktop.scenes.registry import find_entry
from desktop.scenes.summary.story import QUESTIONS, RECAP_BUILD, REVEAL_SECONDS, linked_scene
from desktop.scenes.summary.view import SummaryScene
from engine.units import format_percent, format_usd
from tests.desktop.test_presenter_standard import _stage_texts
from widgets.theme import THEMES, for_screen


@pytest.fixture
def summary(qtbot, language):
    store = ScenarioStore()
    scene = create_scene(SummaryScene, SceneKit(language, store, THEMES["light"]))
    store.changed.connect(scene.on_report)
    qtbot.addWidget(scene)
    scene.resize(1280, 720)
    scene.show()
    qtbot.waitExposed(scene)
    scene.clock.stop()                    # the tests move the time
    scene.reset()
    return scene


def finish(scene):
    scene.clock.set_seconds(scene.clock.seconds() + REVEAL_SECONDS + 0.01)


def texts_of(widget) -> list[str]:
    widget.grab()
    return [drawn.text for drawn in widget.drawn_texts()]


def test_the_first_build_shows_the_first_question_alone_without_its_answer(summary):
    assert summary.shown_cards() == [0] and summary.revealed_answers() == []
    card = summary.cards[0]
    assert card.geometry() == summary.rect()
    assert texts_of(card) == [card.state.question]
    assert summary.kit.language.text("summary.question.slow") in card.state.question


def test_each_question_then_its_answer_then_the_recap(summary):
    for question in range(len(QUESTIONS)):
        assert summary.shown_cards() == [question] and summary.revealed_answers() == []
        assert summary.next_build()
        finish(summary)
        assert summary.shown_cards() == [question] and summary.revealed_answers() == [question]
        assert summary.cards[question].answer_shown()
        assert summary.next_build()
    assert summary.build_index == RECAP_BUILD
    assert summary.shown_cards() == [0, 1, 2, 3] == summary.revealed_answers()
    assert all(card.state.compact and not card.answer_shown() for card in summary.cards)
    assert not summary.next_build()
    assert summary.previous_build()
    finish(summary)
    assert summary.shown_cards() == [3] and summary.revealed_answers() == [3]


def test_a_reveal_shows_the_picture_first_then_the_words(summary):
    summary.go_to_build(1)
    card, now = summary.cards[0], summary.clock.seconds()
    assert summary.revealed_answers() == [] and not card.answer_shown()      # the question starts to move up
    summary.clock.set_seconds(now + 0.55 * REVEAL_SECONDS)
    assert summary.revealed_answers() == [0] and not card.answer_shown()     # the picture, growing in
    assert 0 < summary.pictures[0].state.grow < 1
    finish(summary)
    assert card.answer_shown() and summary.pictures[0].state.grow == 1.0
    assert card.state.answer in texts_of(card)


def test_a_build_never_depends_on_how_fast_the_builds_before_it_were_stepped(summary):
    for _ in range(3):
        summary.next_build()                # clicked through without any time passing
    finish(summary)
    fast = (summary.shown_cards(), summary.revealed_answers(), summary.pictures[1].state)
    summary.reset()
    summary.go_to_build(3, animate=False)
    assert (summary.shown_cards(), summary.revealed_answers(), summary.pictures[1].state) == fast


def test_the_stage_shows_the_engines_numbers(summary):
    report = summary.kit.store.report
    summary.go_to_build(1, animate=False)
    idle = format_percent(1.0 - report.decode.utilisation)
    assert any(idle in text for text in texts_of(summary.pictures[0]))
    assert any(format_percent(report.decode_share) in text for text in texts_of(summary.pictures[0]))
    summary.go_to_build(7, animate=False)
    drawn = " ".join(texts_of(summary.pictures[3]) + texts_of(summary.cards[3]))
    assert format_usd(report.usd_per_million_output_tokens) in drawn
    assert format_usd(report.usd_per_million_input_tokens) in drawn
    summary.kit.store.update(usd_per_gpu_hour=7.0)
    report = summary.kit.store.report
    assert format_usd(report.usd_per_million_output_tokens) in " ".join(texts_of(summary.pictures[3]))


def test_a_click_on_a_revealed_answer_jumps_to_its_scene_and_not_before(summary, qtbot):
    card = summary.cards[0]
    with qtbot.assertNotEmitted(summary.jump_requested):
        qtbot.mouseClick(card, Qt.MouseButton.LeftButton, pos=QPoint(10, 10))
    summary.go_to_build(1, animate=False)
    picture = summary.pictures[0]
    with qtbot.waitSignal(summary.jump_requested) as signal:     # a click on the picture counts too
        qtbot.mouseClick(picture, Qt.MouseButton.LeftButton, pos=picture.rect().center())
    assert signal.args == [linked_scene("slow", summary.story().registered).key]


def test_every_link_goes_to_a_registered_scene(summary):
    summary.prepare_for_export()
    for question, card in zip(QUESTIONS, summary.cards):
        key = card.state.link_scene
        linked = linked_scene(question, summary.story().registered)
        assert key == (linked.key if linked else "")
        assert key == "" or find_entry(key) is not None
        assert key == "" or key in ("gpu_waits", "kv_cache", "model_memory", "tokens", "prefill_decode")


def test_a_click_in_presentation_mode_jumps_and_g_with_the_number_does_too(make_window, qtbot):
    window = make_window()
    window.presentation.start(from_start=False)
    deck = window.deck
    deck.show(deck.position_of("summary"))
    deck.current.go_to_build(5, animate=False)             # the memory answer: links to the memory scene
    card = deck.current.cards[2]
    qtbot.mouseClick(card, Qt.MouseButton.LeftButton, pos=card.rect().center())
    assert deck.current_key == "model_memory"
    deck.show(deck.position_of("summary"), "last")
    number = find_entry("kv_cache").number
    qtbot.keyClick(window, getattr(Qt.Key, f"Key_{number}"))
    qtbot.keyClick(window, Qt.Key.Key_Return)
    assert deck.current_key == "kv_cache"


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_handout_page_is_the_recap_with_notes_for_a_reader(qtbot, code):
    from desktop.export import render_slide
    slide = render_slide(SummaryScene, Language(code), ScenarioStore(), THEMES["light"], QSize(1024, 768))
    assert len(slide.notes) == len(slide.captions) == 1           # the recap only
    for notes in slide.notes:                       # no instructions for the presenter's hands
        for instruction in ("click", "Enter", "reveal", "点击", "回车", "揭晓"):
            assert instruction not in notes
    recap = slide.notes[-1]
    assert "Say:" not in recap and "讲法" not in recap
    scene = create_scene(SummaryScene, SceneKit(Language(code), ScenarioStore(), THEMES["light"]))
    qtbot.addWidget(scene)
    scene.prepare_for_export()
    assert scene.phase() == "recap" and scene.notes() == recap
    for value in ("decode_share", "idle", "work_ratio", "weights", "kv_per_gpu", "out_price", "in_price", "ratio",
                  "busy_ratio"):
        assert scene.story().note_values()[value] in recap


def test_a_language_switch_rewrites_every_card(summary):
    summary.prepare_for_export()
    summary.kit.language.set_code("zh")
    summary.retranslate()
    assert summary.cards[0].state.question.endswith("大模型为什么慢？")
    assert "场景" in summary.cards[0].state.link


@pytest.mark.parametrize("theme_id", ["light", "projector"])
@pytest.mark.parametrize("size", [QSize(1024, 768), QSize(1920, 1080)], ids=lambda s: f"{s.width()}x{s.height()}")
@pytest.mark.parametrize("code", LANGUAGES)
def test_every_build_keeps_its_texts_above_the_floor_apart_and_inside(presenting, code, size, theme_id):
    """The presenter standard's check on every build, not only the first, middle and last."""
    frame, scene, _ = presenting(SummaryScene, code, size, theme_id)
    floor = for_screen(THEMES[theme_id], size.height()).text_floor_px
    problems = []
    for index in range(scene.build_count):
        scene.go_to_build(index)
        finish(scene)
        frame.set_texts(scene.title(), scene.caption())
        frame.layout().activate()
        QApplication.processEvents()
        frame.grab()
        texts = [(w, d) for w, d in _stage_texts(frame.stage) if hasattr(d, "key")]
        keys = {(type(w).__name__, d.key) for w, d in texts}
        question, revealed = divmod(index, 2)
        if index < scene.build_count - 1 and revealed:
            assert ("QuestionCard", "answer") in keys and ("QuestionCard", "link") in keys, (index, keys)
        for widget, drawn in texts:
            if drawn.px < floor - 0.5 or not widget.rect().adjusted(-1, -1, 1, 1).contains(drawn.rect.toRect()):
                problems.append(f"build {index}: {type(widget).__name__} {drawn.key} {drawn.px} {drawn.rect}")
        for n, (wa, a) in enumerate(texts):
            for wb, b in texts[n + 1:]:
                overlap = a.rect.intersected(b.rect)
                if wa is wb and overlap.width() > 1 and overlap.height() > 1:
                    problems.append(f"build {index}: {type(wa).__name__} {a.key} overlaps {b.key}")
    assert not problems, "\n".join(problems[:20])


def test_the_memory_bars_are_handed_one_state_for_a_whole_reveal(summary, monkeypatch):
    """Growing the bars would be a new state, and a new layout of the bars, on every tick of the reveal."""
    memory = summary.pictures[QUESTIONS.index("memory")]
    handed = []
    real = memory.set_state
    monkeypatch.setattr(memory, "set_state", lambda state: handed.append(state) or real(state))
    summary.go_to_build(2 * QUESTIONS.index("memory") + 1)
    now = summary.clock.seconds()
    for tick in range(1, 25):
        summary.clock.set_seconds(now + tick * REVEAL_SECONDS / 20)
    assert len(handed) <= 1 and summary.revealed_answers() == [QUESTIONS.index("memory")]


def test_share_bars_on_their_own_build_draw_above_the_floor_and_at_it_in_the_recap(summary):
    floor = summary.kit.theme.text_floor_px
    summary.go_to_build(1, animate=False)
    assert summary.pictures[0].theme.text_floor_px > 1.3 * floor
    summary.pictures[0].grab()
    assert all(text.px > 1.3 * floor for text in summary.pictures[0].drawn_texts())
    summary.go_to_build(RECAP_BUILD, animate=False)
    assert summary.pictures[0].theme.text_floor_px == floor


def test_a_click_on_the_price_ratio_in_the_answers_words_opens_its_card_above_them(summary, qtbot):
    """The ratio sits in a line of words across the card: no room beside it, so the card goes above, uncovered."""
    summary.go_to_build(QUESTIONS.index("output_price") * 2 + 1, animate=False)
    finish(summary)
    summary.grab()
    figure = summary.formula_cards.rects()["output_to_input_price_ratio"]
    qtbot.mouseClick(summary, Qt.MouseButton.LeftButton, pos=figure.center())
    card = summary.formula_cards.card
    assert card.isVisible() and summary.formula_cards.shown_key == "output_to_input_price_ratio"
    ratio = format_usd(summary.kit.store.report.usd_per_million_output_tokens)
    assert any(text.replace("\u00a0", " ").startswith(f"= {ratio} ÷ ") for text in card.texts())   # glued units
    assert summary.rect().contains(card.geometry()) and not card.geometry().intersects(figure)
