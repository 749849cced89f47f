"""The presenter's keys, pressed on the window as a clicker or keyboard would."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop.presenter import BINDINGS, command_for

K = Qt.Key


def press(qtbot, window, key, modifier=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(QApplication.focusWidget() or window.slide, key, modifier)


def where(window) -> tuple[int, int]:
    return window.deck.position, window.deck.current.build_index


def test_every_binding_parses_to_its_command():
    for command, keys in BINDINGS.items():
        assert keys, command
    assert command_for(K.Key_PageDown, Qt.KeyboardModifier.NoModifier) == "next"
    assert command_for(K.Key_Question, Qt.KeyboardModifier.ShiftModifier) == "help"
    assert command_for(K.Key_F5, Qt.KeyboardModifier.ShiftModifier) == "present_current"
    assert command_for(K.Key_F5, Qt.KeyboardModifier.NoModifier) == "present_start"
    assert command_for(K.Key_R, Qt.KeyboardModifier.AltModifier) == "reset"
    assert command_for(K.Key_R, Qt.KeyboardModifier.NoModifier) is None


def test_next_keys_step_builds_then_scenes(qtbot, window):
    window.deck.first()
    first = window.deck.current
    for key in (K.Key_Right, K.Key_Down, K.Key_PageDown, K.Key_Space, K.Key_N):
        if first.build_index + 1 >= first.build_count:
            break
        before = first.build_index
        press(qtbot, window, key)
        assert where(window) == (0, before + 1), key
    while window.deck.position == 0:
        press(qtbot, window, K.Key_PageDown)
    if len(window.deck.entries) > 1:
        assert where(window) == (1, 0)     # the next scene starts at its first build


def test_previous_keys_step_back_to_the_last_build_of_the_previous_scene(qtbot, window):
    if len(window.deck.entries) < 2:
        return
    window.deck.show(1)
    press(qtbot, window, K.Key_PageUp)
    previous = window.deck.scene(0)
    assert where(window) == (0, previous.build_count - 1)
    for key in (K.Key_Left, K.Key_Up, K.Key_P):
        if previous.build_index == 0:
            break
        before = previous.build_index
        press(qtbot, window, key)
        assert where(window) == (0, before - 1)


def test_home_and_end_go_to_the_first_and_last_scene(qtbot, window):
    press(qtbot, window, K.Key_End)
    assert where(window) == (len(window.deck.entries) - 1, 0)
    press(qtbot, window, K.Key_Home)
    assert where(window) == (0, 0)


def test_next_at_the_very_end_stays_put(qtbot, window):
    last = len(window.deck.entries) - 1
    window.deck.show(last, "last")
    press(qtbot, window, K.Key_Right)
    assert where(window) == (last, window.deck.current.build_count - 1)


def test_digits_and_enter_jump_to_a_scene_by_its_number(qtbot, window):
    window.deck.first()
    last = len(window.deck.entries)
    for digit in str(last):                       # the last scene's number, digit by digit
        qtbot.keyClick(window.slide, getattr(K, f"Key_{digit}"))
    assert window.presenter.jump_prompt.isVisible()
    qtbot.keyClick(window.slide, K.Key_Return)
    assert window.deck.entries[window.deck.position].number == last
    assert not window.presenter.jump_prompt.isVisible()


def test_g_opens_the_prompt_and_an_unknown_number_gives_a_note(qtbot, window):
    qtbot.keyClick(window.slide, K.Key_G)
    assert window.presenter.jump_prompt.isVisible()
    unknown = str(len(window.deck.entries) + 1)            # one past the last scene, however many there are
    for digit in unknown:
        qtbot.keyClick(window.slide, getattr(K, f"Key_{digit}"))
    qtbot.keyClick(window.slide, K.Key_Enter)
    assert unknown in window.statusBar().currentMessage()


def test_escape_closes_the_prompt_without_jumping(qtbot, window):
    window.deck.first()
    qtbot.keyClick(window.slide, K.Key_7)
    qtbot.keyClick(window.slide, K.Key_Escape)
    assert not window.presenter.jump_prompt.isVisible()
    assert window.deck.position == 0


def test_b_and_period_blank_to_black_and_any_key_brings_the_stage_back(qtbot, window):
    position = where(window)
    qtbot.keyClick(window.slide, K.Key_B)
    assert window.presenter.blank_shade == "black"
    image = window.grab().toImage()
    assert image.pixelColor(image.width() // 2, image.height() // 2).name() == "#000000"
    qtbot.keyClick(window.slide, K.Key_B)
    assert window.presenter.blank_shade is None
    qtbot.keyClick(window.slide, K.Key_Period)
    assert window.presenter.blank_shade == "black"
    qtbot.keyClick(window.slide, K.Key_W)
    assert window.presenter.blank_shade == "white"
    qtbot.keyClick(window.slide, K.Key_Right)        # a clicker press while blank only unblanks
    assert window.presenter.blank_shade is None
    assert where(window) == position


def test_help_overlay_opens_with_question_mark_and_f1_and_closes_with_escape(qtbot, window):
    qtbot.keyClick(window.slide, K.Key_Question, Qt.KeyboardModifier.ShiftModifier)
    assert window.presenter.help.isVisible()
    title, rows = window.presenter.help.content()
    assert title == "Keys" and any("PgDn" in keys for keys, _ in rows)
    qtbot.keyClick(window.slide, K.Key_Escape)
    assert not window.presenter.help.isVisible()
    qtbot.keyClick(window.slide, K.Key_F1)
    assert window.presenter.help.isVisible()
    qtbot.keyClick(window.slide, K.Key_F1)
    assert not window.presenter.help.isVisible()


def test_alt_r_resets_the_scene_to_its_first_build(qtbot, window):
    window.deck.show(0)
    window.deck.next()
    assert window.deck.current.build_index == 1
    qtbot.keyClick(window.slide, K.Key_R, Qt.KeyboardModifier.AltModifier)
    assert window.deck.current.build_index == 0


def test_l_switches_the_language_and_the_visible_text_follows(qtbot, window):
    title_before = window.slide.title_label.text()
    caption_before = window.slide.caption_label.text()
    menu_before = window.menus["file"].title()
    qtbot.keyClick(window.slide, K.Key_L)
    assert window.language.code == "zh"
    assert window.slide.title_label.text() != title_before
    assert window.slide.caption_label.text() != caption_before
    assert window.menus["file"].title() != menu_before
    assert window.settings.language == "zh"     # remembered as a choice


def test_f5_presents_from_the_start_and_escape_leaves(qtbot, window):
    window.deck.show(len(window.deck.entries) - 1)
    qtbot.keyClick(window.slide, K.Key_F5)
    assert window.presentation.active and window.isFullScreen()
    assert window.deck.position == 0
    assert not window.scene_list.isVisible() and not window.side_panel.isVisible()
    assert not window.menuBar().isVisible()
    assert window.slide.caption_label.isVisible()
    screen_height = window.screen().geometry().height()
    assert window.slide.caption_label.font().pixelSize() == round(screen_height / 30)
    qtbot.keyClick(window.slide, K.Key_Escape)
    assert not window.presentation.active and not window.isFullScreen()
    # the window comes back at most as wide as the (800 px offscreen) screen: the list in its compact form
    assert window.scene_picker.isVisible() != window.scene_list.isVisible()
    assert window.side_panel.isVisible() and window.menuBar().isVisible()
    window.resize(1400, 900)
    assert window.scene_list.isVisible()


def test_shift_f5_presents_from_the_current_scene(qtbot, window):
    last = len(window.deck.entries) - 1
    window.deck.show(last)
    qtbot.keyClick(window.slide, K.Key_F5, Qt.KeyboardModifier.ShiftModifier)
    assert window.presentation.active and window.deck.position == last


def test_the_room_sees_the_elapsed_time_only_when_t_shows_it(qtbot, window):
    assert not window.presenter.clock.isVisible()
    window.presentation.start(from_start=False)
    assert not window.presenter.clock.isVisible()          # by default only the speaker view shows the time
    assert window.presenter.talk_clock.started             # though the talk clock runs from the first F5
    qtbot.keyClick(window.slide, K.Key_T)
    assert window.presenter.clock.isVisible() and window.settings.stage_clock_visible
    qtbot.keyClick(window.slide, K.Key_T)
    assert not window.presenter.clock.isVisible() and not window.settings.stage_clock_visible


def test_export_keys_in_presentation_show_a_note_and_never_a_dialog(qtbot, window, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    def no_dialog(*_args, **_kwargs):
        raise AssertionError("a dialog opened in presentation mode")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", no_dialog)
    window.presentation.start(from_start=False)
    qtbot.keyClick(window.slide, K.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert window.presenter.note.isVisible()
    assert "Esc" in window.presenter.note.text()


def test_a_spin_box_with_focus_keeps_its_arrow_keys(qtbot, window):
    spin = window.controls.counts["batch"]
    spin.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is spin)
    before = where(window)
    qtbot.keyClick(spin, K.Key_Up)
    assert spin.value() == 2 and window.store.scenario.batch == 2
    qtbot.keyClick(spin, K.Key_Right)
    qtbot.keyClick(spin, K.Key_N)
    assert where(window) == before
    qtbot.keyClick(spin, K.Key_Escape)                # Esc hands the keys back to the talk
    assert QApplication.focusWidget() is window.slide
    qtbot.keyClick(window.slide, K.Key_Right)
    assert where(window) != before


def test_the_keys_are_watched_on_the_window_and_its_focused_widget_not_on_every_object(qtbot, window):
    """An application-wide filter in Python was called for every event of every object, each call taking Python's
    lock from the engine's worker threads first: a scene's first visit stalled 100-200 ms longer."""
    import sys

    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QLabel, QLineEdit

    from desktop.focus_guard import FocusGuard
    from desktop.presenter import KeyController

    filters = {KeyController.eventFilter.__code__, FocusGuard.eventFilter.__code__}
    seen = []

    def calls(frame, event, _arg):        # the filters' calls, seen without replacing Qt's virtual method
        if event == "call" and frame.f_code in filters:
            seen.append(frame.f_locals["watched"])

    bystander, box = QObject(), QLineEdit(window)
    label = window.side_panel.widget().findChild(QLabel)     # the panel's guard watches its controls, not this
    box.show()
    box.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is box)
    sys.setprofile(calls)
    try:
        for _ in range(5):
            QApplication.sendEvent(bystander, QEvent(QEvent.Type.User))
            QApplication.sendEvent(label, QEvent(QEvent.Type.User))
        qtbot.keyClick(box, K.Key_A)                         # typed in a box: the talk looks, the box keeps it
    finally:
        sys.setprofile(None)
    assert bystander not in seen and label not in seen and box in seen and box.text() == "a"
    box.deleteLater()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not box)
    window.deck.first()
    press(qtbot, window, K.Key_Right)                        # the focus moved on: the keys still reach the talk
    assert where(window) == (0, 1)
