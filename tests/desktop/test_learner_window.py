"""The learner's window at 1366x768: builds found without a key, a panel that changes nothing by accident,
a refused value kept in view with its reason."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QSlider
from pytestqt.qtbot import QtBot

LAPTOP = (1366, 768)


@pytest.fixture
def laptop(make_window, qtbot):
    window = make_window("en")
    window.resize(*LAPTOP)
    qtbot.waitUntil(lambda: window.width() == LAPTOP[0])
    window.deck.show(0)
    return window


def _wheel(widget, notches: int = -1) -> None:
    """One notch of the wheel over the middle of ``widget`` (negative: towards the user, scrolling down)."""
    centre = QPointF(widget.width() / 2, widget.height() / 2)
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0), QPoint(0, 120 * notches),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


# -- builds can be found ---------------------------------------------------------------------------
def test_the_stage_says_which_build_it_shows_and_its_buttons_step_through_them(laptop, qtbot):
    builds = laptop.slide.builds
    assert builds.isVisible()
    count = laptop.deck.current.build_count
    assert builds.marker_text() == f"1 / {count}" and count > 1
    assert not builds.previous_button.isEnabled()          # nothing before the first build of the first scene
    qtbot.mouseClick(builds.next_button, Qt.MouseButton.LeftButton)
    assert laptop.deck.current.build_index == 1 and builds.marker_text() == f"2 / {count}"
    assert builds.marker.accessibleName() == f"Build 2 of {count}"
    qtbot.mouseClick(builds.previous_button, Qt.MouseButton.LeftButton)
    assert laptop.deck.current.build_index == 0


def test_after_a_click_on_a_build_button_the_keys_still_step_the_talk(laptop, qtbot):
    qtbot.mouseClick(laptop.slide.builds.next_button, Qt.MouseButton.LeftButton)
    QtBot.keyClick(QApplication.focusWidget() or laptop.slide, Qt.Key.Key_Right)
    assert laptop.deck.current.build_index == 2


def test_past_the_last_build_the_next_button_goes_on_to_the_next_scene(laptop, qtbot):
    scene = laptop.deck.current
    scene.go_to_build(scene.build_count - 1, animate=False)
    qtbot.mouseClick(laptop.slide.builds.next_button, Qt.MouseButton.LeftButton)
    assert laptop.deck.position == 1
    assert laptop.slide.builds.marker_text() == f"1 / {laptop.deck.current.build_count}"


def test_presenting_keeps_the_stage_clean_of_the_marker(laptop, qtbot):
    laptop.presentation.start(from_start=False)
    assert not laptop.slide.builds.isVisible()
    laptop.presentation.stop()
    assert laptop.slide.builds.isVisible()


def test_the_marker_speaks_the_language(laptop):
    laptop.language.set_code("zh")
    assert laptop.slide.builds.marker.accessibleName().startswith("第 1 步")
    assert "上一步" in laptop.slide.builds.previous_button.toolTip()


# -- the wheel scrolls the panel -----------------------------------------------------------------
def test_the_wheel_over_a_box_not_clicked_into_changes_nothing(laptop, qtbot):
    controls, slider = laptop.controls, laptop.deck.current.controls().findChild(QSlider)   # scene 1's own too
    before, intensity = laptop.store.scenario, slider.value()
    for box in (controls.counts["output_tokens"], controls.choices["model"], controls.counts["batch"],
                controls.choices["gpu"], controls.price, slider):
        _wheel(box, -1)
    assert laptop.store.scenario == before and slider.value() == intensity


def test_the_wheel_over_a_box_scrolls_the_panel_instead(laptop, qtbot):
    # Under a desktop's title bar and task bar, a 768-pixel screen leaves the panel too short for its
    # controls (the report's case); here the window is made that short.
    laptop.resize(LAPTOP[0], 480)
    qtbot.waitUntil(lambda: laptop.side_panel.verticalScrollBar().maximum() > 0)
    bar = laptop.side_panel.verticalScrollBar()
    before = laptop.store.scenario
    box = laptop.controls.counts["output_tokens"]
    laptop.side_panel.ensureWidgetVisible(box)
    bar.setValue(0)
    _wheel(box, -1)
    assert bar.value() > 0 and laptop.store.scenario == before


def test_a_box_left_again_no_longer_takes_the_wheel(laptop, qtbot):
    """Once the guard followed the keyboard focus, a box the focus had left lost its wheel guard with it: one
    notch over "Output tokens" after clicking the stage took it from 500 to 499."""
    box = laptop.controls.counts["output_tokens"]
    laptop.side_panel.ensureWidgetVisible(box)
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton)
    assert box.hasFocus()
    laptop.slide.setFocus()
    qtbot.waitUntil(lambda: not box.hasFocus())
    before = laptop.store.scenario
    _wheel(box, -1)
    assert laptop.store.scenario == before


def test_a_box_clicked_into_takes_the_wheel(laptop, qtbot):
    box = laptop.controls.counts["output_tokens"]
    laptop.side_panel.ensureWidgetVisible(box)
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton)
    assert box.hasFocus()
    _wheel(box, -1)
    assert laptop.store.scenario.output_tokens == 499


def test_the_wheel_never_gives_a_panel_control_the_keyboard(laptop):
    for box in [*laptop.controls.counts.values(), *laptop.controls.choices.values()]:
        assert box.focusPolicy() == Qt.FocusPolicy.StrongFocus


# -- the keys come back to the talk -----------------------------------------------------------------
def _click_into(qtbot, laptop, box) -> None:
    laptop.side_panel.ensureWidgetVisible(box)
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton)
    assert box.hasFocus()


def test_inside_a_box_the_arrows_are_the_boxs_then_esc_gives_them_back_to_the_talk(laptop, qtbot):
    box = laptop.controls.counts["batch"]
    _click_into(qtbot, laptop, box)
    QtBot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Up)
    assert laptop.store.scenario.batch == 2 and laptop.deck.current.build_index == 0
    QtBot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    for key in (Qt.Key.Key_Right, Qt.Key.Key_Space, Qt.Key.Key_Down):
        QtBot.keyClick(QApplication.focusWidget() or laptop.slide, key)
    assert laptop.deck.current.build_index == 3 and laptop.store.scenario.batch == 2


def test_a_click_on_the_stage_gives_the_keys_back_to_the_talk(laptop, qtbot):
    box = laptop.controls.choices["gpu"]
    box.setFocus(Qt.FocusReason.MouseFocusReason)       # as a click that chose an entry leaves it
    assert box.hasFocus()
    scene = laptop.deck.current
    qtbot.mouseClick(scene, Qt.MouseButton.LeftButton, pos=QPoint(scene.width() // 2, scene.height() // 2))
    assert not box.hasFocus()
    QtBot.keyClick(QApplication.focusWidget() or laptop.slide, Qt.Key.Key_Down)
    assert laptop.store.scenario.gpu == "h800" and laptop.deck.current.build_index == 1


def test_a_clickers_page_down_steps_the_talk_even_from_inside_a_box_and_keeps_what_was_typed(laptop, qtbot):
    box = laptop.controls.counts["batch"]
    _click_into(qtbot, laptop, box)
    box.lineEdit().selectAll()
    QtBot.keyClicks(box.lineEdit(), "45")
    QtBot.keyClick(QApplication.focusWidget(), Qt.Key.Key_PageDown)
    assert laptop.deck.current.build_index == 1
    assert laptop.store.scenario.batch == 45                  # typed, kept, not paged down to 35
    QtBot.keyClick(QApplication.focusWidget() or laptop.slide, Qt.Key.Key_PageUp)
    assert laptop.deck.current.build_index == 0 and laptop.store.scenario.batch == 45


# -- a refused value stays visible -------------------------------------------------------------------
def _type_into(qtbot, laptop, box, text: str) -> None:
    _click_into(qtbot, laptop, box)
    box.lineEdit().selectAll()
    QtBot.keyClicks(box.lineEdit(), text)
    QtBot.keyClick(box.lineEdit(), Qt.Key.Key_Return)


def test_a_refused_value_stays_in_its_box_with_the_reason_right_under_it_inside_the_panel(laptop, qtbot):
    controls, box = laptop.controls, laptop.controls.counts["prompt_tokens"]
    _type_into(qtbot, laptop, box, "200000")
    note = controls.refusal_notes["prompt_tokens"]
    assert box.value() == 200_000 and laptop.store.scenario.prompt_tokens == 1000
    assert note.isVisible() and "200,000" in note.text() and "Still in use: 1,000." in note.text()
    assert controls.refused_field() == "prompt_tokens"
    qtbot.waitUntil(lambda: note.height() >= note.heightForWidth(note.width()))    # laid out
    # right under its control, and wrapped inside the panel's column: nothing cut off
    box_bottom = box.mapTo(controls, QPoint(0, box.height())).y()
    note_top = note.mapTo(controls, QPoint(0, 0)).y()
    assert 0 <= note_top - box_bottom < 2 * box.height()
    viewport = laptop.side_panel.viewport()
    right = note.mapTo(viewport, QPoint(note.width(), 0)).x()
    assert right <= viewport.width() and note.height() > 2 * note.fontMetrics().height()   # wrapped to lines


def test_the_refusal_stays_until_the_next_accepted_change_then_every_box_shows_the_scenario(laptop, qtbot):
    controls, box = laptop.controls, laptop.controls.counts["prompt_tokens"]
    _type_into(qtbot, laptop, box, "200000")
    laptop.deck.next()                                     # stepping the talk changes no value: it stays
    assert controls.refusal_notes["prompt_tokens"].isVisible()
    laptop.store.update(batch=3)
    assert not controls.refusal_notes["prompt_tokens"].isVisible() and box.value() == 1000
    assert controls.error_text() == ""


def test_a_refused_choice_says_which_model_is_still_in_use(laptop):
    controls = laptop.controls
    box = controls.choices["model"]
    laptop.store.update(prompt_tokens=8000)
    box.setCurrentIndex(box.findData("llama-2-7b"))          # 4,096 tokens of context: 8,500 do not fit
    box.activated.emit(box.currentIndex())
    assert box.currentData() == "llama-2-7b" and laptop.store.scenario.model == "llama-3.1-70b"
    assert controls.refusal_notes["model"].text().endswith("Still in use: Llama 3.1 70B.")


def test_the_refusal_is_reworded_when_the_language_changes(laptop, qtbot):
    _type_into(qtbot, laptop, laptop.controls.counts["prompt_tokens"], "200000")
    laptop.language.set_code("zh")
    assert laptop.controls.refusal_notes["prompt_tokens"].text().endswith("仍在使用：1,000。")
