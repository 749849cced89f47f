"""What floats over the stage: blank screen, key help, notes, the presenter clock."""
from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

from widgets.blank_screen import BlankScreen
from widgets.help_overlay import HelpOverlay
from widgets.inline_note import InlineNote
from widgets.presenter_clock import PresenterClock, TalkClock, format_elapsed


def parent_widget(qtbot, width=1024, height=768) -> QWidget:
    parent = QWidget()
    qtbot.addWidget(parent)
    parent.resize(width, height)
    parent.show()
    qtbot.waitExposed(parent)
    return parent


def test_the_blank_screen_covers_its_parent_and_follows_its_size(qtbot):
    parent = parent_widget(qtbot)
    blank = BlankScreen(parent)
    assert blank.shade is None
    blank.blank("white")
    assert blank.geometry() == parent.rect()
    parent.resize(640, 480)
    qtbot.waitUntil(lambda: blank.geometry() == parent.rect())
    image = parent.grab().toImage()
    assert {image.pixelColor(x, y).name() for x in (0, 320, 639) for y in (0, 240, 479)} == {"#ffffff"}


def test_the_key_help_fits_a_small_projector(qtbot):
    parent = parent_widget(qtbot, 1024, 768)
    help_overlay = HelpOverlay(parent)
    rows = [(f"Key {i}", "a description of what the key does in a talk") for i in range(20)]
    help_overlay.set_content("Keys", rows)
    help_overlay.show()
    body, _title = help_overlay._fonts()
    assert body.pixelSize() >= 14          # still readable with twenty rows at 1024x768


def test_a_note_goes_away_by_itself(qtbot):
    parent = parent_widget(qtbot)
    note = InlineNote(parent)
    note.show_note("Saved", seconds=2.5)
    assert note.isVisible() and note.text() == "Saved"
    assert note.geometry().bottom() <= parent.rect().bottom()
    timers = [timer for timer in note.findChildren(QTimer) if timer.isActive()]
    assert [(timer.interval(), timer.isSingleShot()) for timer in timers] == [(2500, True)]
    timers[0].timeout.emit()                 # its time is up, without waiting for it
    assert not note.isVisible()


def test_the_clock_sits_in_the_top_right_corner_and_reads_minutes_and_seconds(qtbot):
    parent = parent_widget(qtbot)
    clock = PresenterClock(parent, TalkClock(parent))
    clock.show()
    assert clock.text() == "0:00"
    assert clock.geometry().right() > parent.width() * 0.8 and clock.geometry().top() < parent.height() * 0.1
    assert format_elapsed(125) == "2:05" and format_elapsed(3725) == "1:02:05"
