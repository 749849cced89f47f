"""The speaker view (S) as PowerPoint's presenter view: one talk clock, the current and next builds, notes that
grow and shrink, on the other screen or beside the stage; the same keys."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtWidgets import QApplication

from desktop import export
from desktop.speaker_layout import GAP_PX, MIN_SPEAKER_WIDTH_PX, arrange, panels
from desktop.speaker_previews import CACHE_SIZE, PreviewCache, PreviewKey
from engine import Scenario

ROOT = Path(__file__).resolve().parents[2]
SCREENS_SCRIPT = Path(__file__).with_name("speaker_screens.py")


@pytest.fixture
def fake_time(monkeypatch):
    """The talk clock's time source, moved on by the test: ``fake_time.now += 191``."""
    import widgets.presenter_clock as presenter_clock

    class Now:
        now = 1000.0
    monkeypatch.setattr(presenter_clock, "monotonic_seconds", lambda: Now.now)
    return Now


def open_speaker(qtbot, window):
    window.run_command("speaker")
    qtbot.addWidget(window.speaker)
    return window.speaker


def wait_for_next_picture(qtbot, speaker):
    qtbot.waitUntil(lambda: speaker.next_preview_key is not None and speaker.next_picture() is not None,
                    timeout=15_000)


def test_s_opens_the_speaker_view_with_this_builds_notes(qtbot, window):
    window.deck.show(window.deck.position_of("summary"))
    qtbot.keyClick(window.slide, Qt.Key.Key_S)
    speaker = window.speaker
    qtbot.addWidget(speaker)
    assert speaker.isVisible()
    assert speaker.notes.toPlainText() == window.deck.current.notes()
    assert any(ch.isdigit() for ch in speaker.notes.toPlainText())               # this scenario's numbers
    window.deck.next()
    assert speaker.notes.toPlainText() == window.deck.current.notes()          # follows the build
    assert "2" in speaker.current_label.text()


def test_the_talk_clock_never_restarts_when_s_opens_or_closes_or_the_talk_resumes(qtbot, window, fake_time):
    speaker = open_speaker(qtbot, window)                 # the talk starts with the first S (or F5)
    fake_time.now += 191
    assert window.presenter.talk_clock.text() == "3:11"
    for _ in range(2):                                    # closed and opened again, twice
        window.run_command("speaker")
        assert not speaker.isVisible()
        fake_time.now += 10
        window.run_command("speaker")
    assert window.presenter.talk_clock.text() == "3:31" and "3:31" in speaker.time_label.text()
    window.presentation.start(from_start=True)            # presenting, leaving, presenting again: still one talk
    fake_time.now += 9
    window.presentation.leave()
    window.presentation.start(from_start=False)
    assert window.presenter.talk_clock.text() == "3:40"


def test_the_stage_clock_and_the_speaker_view_show_the_same_time(qtbot, window, fake_time):
    window.presentation.start(from_start=True)
    speaker = open_speaker(qtbot, window)
    assert not window.presenter.clock.isVisible()          # by default the room does not see the time
    qtbot.keyClick(window.slide, Qt.Key.Key_T)             # T: the presenter shows it on the stage
    assert window.presenter.clock.isVisible() and window.settings.stage_clock_visible
    fake_time.now += 3725
    speaker.refresh()
    window.presenter.clock.clock.changed.emit()            # both views redraw (their once-a-second tick)
    assert window.presenter.clock.text() == "1:02:05"
    assert speaker.time_label.text() == "1:02:05"


def test_the_talk_clock_pauses_and_resets_by_key_and_by_button(qtbot, window, fake_time):
    speaker = open_speaker(qtbot, window)
    clock = window.presenter.talk_clock
    fake_time.now += 10
    qtbot.keyClick(window.slide, Qt.Key.Key_T, Qt.KeyboardModifier.ShiftModifier)      # Shift+T: pause
    assert clock.paused and "(paused)" in speaker.time_label.text() and "0:10" in speaker.time_label.text()
    fake_time.now += 50
    assert clock.text() == "0:10"                          # paused: the time stands still
    assert speaker.pause_button.text() == "Resume"
    qtbot.mouseClick(speaker.pause_button, Qt.MouseButton.LeftButton)                  # the button resumes it
    fake_time.now += 5
    assert not clock.paused and clock.text() == "0:15"
    qtbot.keyClick(window.slide, Qt.Key.Key_T, Qt.KeyboardModifier.AltModifier)        # Alt+T: reset, still running
    assert clock.text() == "0:00" and speaker.time_label.text() == "0:00"
    fake_time.now += 3
    assert clock.text() == "0:03"
    clock.toggle_pause()
    qtbot.mouseClick(speaker.reset_button, Qt.MouseButton.LeftButton)                  # reset while paused: stays
    fake_time.now += 7
    assert clock.paused and clock.text() == "0:00"


def test_the_buttons_never_take_the_clickers_keys(qtbot, window):
    speaker = open_speaker(qtbot, window)
    window.deck.show(0)
    qtbot.mouseClick(speaker.pause_button, Qt.MouseButton.LeftButton)
    paused = window.presenter.talk_clock.paused
    speaker.activateWindow()
    qtbot.keyClick(speaker, Qt.Key.Key_Space)              # a clicker's "next": the talk steps, the clock stays
    assert window.deck.current.build_index == 1
    assert window.presenter.talk_clock.paused == paused
    for button in (speaker.pause_button, speaker.reset_button, speaker.smaller_button, speaker.larger_button,
                   speaker.next_button):
        assert button.focusPolicy() == Qt.FocusPolicy.NoFocus


def test_the_notes_grow_and_shrink_within_bounds_and_the_size_is_remembered(qtbot, window):
    speaker = open_speaker(qtbot, window)
    start = speaker.notes.font().pointSize()
    qtbot.keyClick(window.slide, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)   # Ctrl+=
    assert speaker.notes.font().pointSize() > start and window.settings.speaker_notes_pt > start
    for _ in range(30):
        qtbot.mouseClick(speaker.smaller_button, Qt.MouseButton.LeftButton) if speaker.smaller_button.isEnabled() \
            else None
    smallest = speaker.notes.font().pointSize()
    assert smallest >= 10 and not speaker.smaller_button.isEnabled()
    qtbot.keyClick(window.slide, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert speaker.notes.font().pointSize() == smallest


def test_hide_folds_the_next_builds_picture_away_for_the_notes_and_is_remembered(qtbot, window):
    speaker = open_speaker(qtbot, window)
    notes_height, text = speaker.notes.height(), speaker.next_button.text()
    qtbot.mouseClick(speaker.next_button, Qt.MouseButton.LeftButton)
    assert not window.settings.speaker_next_shown and not speaker.next_preview.isVisible()
    assert speaker.notes.height() > notes_height
    assert speaker.next_button.text() != text and speaker.next_label.isVisible()     # Show brings it back
    qtbot.mouseClick(speaker.next_button, Qt.MouseButton.LeftButton)
    assert window.settings.speaker_next_shown and speaker.next_preview.isVisible()
    assert speaker.notes.height() == notes_height


def test_the_preview_is_the_next_build_of_this_scene_in_this_language(qtbot, window):
    window.deck.show(0)
    speaker = open_speaker(qtbot, window)
    wait_for_next_picture(qtbot, speaker)
    entry = window.deck.entries[0]
    assert (speaker.next_preview_key.scene, speaker.next_preview_key.build, speaker.next_preview_key.language) == \
        (entry.key, 1, "en")
    size = QSize(speaker.next_preview_key.width, speaker.next_preview_key.height)
    expected = export.render_slide(entry.load(), window.language, window.store, window.theme, size, build=1,
                                   with_texts=False).image
    assert speaker.next_picture().convertToFormat(expected.format()) == expected
    speaker.activateWindow()
    qtbot.keyClick(speaker, Qt.Key.Key_Right)            # the clicker, pressed while the speaker view has focus
    assert window.deck.current.build_index == 1
    assert speaker.next_step() == (entry, 2)


def test_a_preview_of_another_scene_or_language_is_never_shown(qtbot, window):
    """Issue 25 item 13: once a stale picture of another scene, in the other language, stood for the next build."""
    window.deck.show(0)
    speaker = open_speaker(qtbot, window)
    wait_for_next_picture(qtbot, speaker)
    old = speaker.next_preview_key
    window.run_command("speaker")                         # closed; meanwhile another scene, the other language
    window.deck.show(window.deck.position_of("kv_cache"))
    window.deck.next()
    window.language.set_code("zh")
    window.run_command("speaker")                         # opened again: the old picture is gone at once
    assert speaker.next_preview_key is None and speaker.next_picture() is None
    wait_for_next_picture(qtbot, speaker)
    key = speaker.next_preview_key
    assert (key.scene, key.build, key.language) == ("kv_cache", 2, "zh") and key != old
    window.language.set_code("en")                        # switched while open: cleared before it is redrawn
    assert speaker.next_preview_key is None
    wait_for_next_picture(qtbot, speaker)
    assert speaker.next_preview_key.language == "en"
    window.store.update(batch=4)                          # another scenario: another picture
    assert speaker.next_preview_key is None
    wait_for_next_picture(qtbot, speaker)
    assert speaker.next_preview_key.scenario.batch == 4


def test_the_last_build_of_the_talk_says_so_instead_of_a_preview(qtbot, window):
    window.deck.show(len(window.deck.entries) - 1, "last")
    speaker = open_speaker(qtbot, window)
    qtbot.waitUntil(lambda: speaker.next_label.text() == "End of the talk", timeout=10_000)
    assert speaker.next_step() is None and speaker.next_picture() is None


def test_the_preview_cache_keeps_a_picture_per_key_and_only_a_few():
    made = []

    def render(key):
        made.append(key)
        return f"picture of {key.scene} {key.build} {key.language}"
    cache = PreviewCache(render)
    keys = [PreviewKey("kv_cache", build, Scenario(), language, "light", 1920, 1080)
            for build in range(CACHE_SIZE) for language in ("en", "zh")]
    assert cache.picture(keys[0]) == "picture of kv_cache 0 en"
    assert cache.picture(keys[1]) == "picture of kv_cache 0 zh"      # same scene and build, other language
    cache.picture(keys[0])
    assert made == keys[:2]                                          # the same key is rendered once
    for key in keys:
        cache.picture(key)
    assert not cache.has(keys[2]) and cache.has(keys[-1])             # bounded: the oldest go


def test_the_audience_screen_shows_only_the_stage_while_the_speaker_view_is_open(qtbot, window):
    open_speaker(qtbot, window)
    window.presentation.start(from_start=True)
    assert window.speaker.isVisible() and window.speaker.window() is not window
    assert not window.side_panel.isVisible() and not window.menuBar().isVisible()
    window.run_command("speaker")
    assert not window.speaker.isVisible()
    QApplication.processEvents()


def test_closing_the_window_leaves_no_window_behind(qtbot):
    """The speaker view is a separate window owned by the main one: deleted with it, by Qt."""
    from PySide6.QtCore import QEvent
    from desktop.i18n import Language
    from desktop.scenario_store import ScenarioStore
    from desktop.scenes.registry import scene_entries
    from desktop.settings import Settings
    from desktop.window import MainWindow
    settings, language = Settings(), Language("en")
    store = ScenarioStore(settings.scenario, language=language)
    window = MainWindow(language, store, settings, store.catalog, scene_entries())
    window.show()
    window.run_command("speaker")
    speaker = window.speaker
    assert speaker.isVisible() and speaker.isWindow() and speaker.parent() is window
    gone = []
    speaker.destroyed.connect(lambda: gone.append(True))
    window.close()
    window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert gone


# -- where the windows go ---------------------------------------------------------------------------------
LAPTOP, PROJECTOR = QRect(0, 0, 1920, 1080), QRect(1920, 0, 1024, 768)


def test_with_two_screens_the_stage_goes_to_the_projector_and_the_speaker_view_to_the_laptop():
    presenting = arrange([LAPTOP, PROJECTOR], primary=0, window_screen=0, presenting=True)
    assert (presenting.audience_screen, presenting.speaker_screen, presenting.speaker_fullscreen) == (1, 0, True)
    assert presenting.speaker_rect == LAPTOP and presenting.audience_rect is None
    already = arrange([LAPTOP, PROJECTOR], primary=0, window_screen=1, presenting=True)
    assert (already.audience_screen, already.speaker_screen) == (1, 0)
    primary_second = arrange([PROJECTOR, LAPTOP], primary=1, window_screen=1, presenting=True)
    assert (primary_second.audience_screen, primary_second.speaker_screen) == (0, 1)
    windowed = arrange([LAPTOP, PROJECTOR], primary=0, window_screen=0, presenting=False)
    assert (windowed.audience_screen, windowed.speaker_screen) == (0, 1)    # the window stays; S takes the other


@pytest.mark.parametrize("area", [QRect(0, 0, 1024, 768), QRect(0, 0, 1920, 1080), QRect(0, 30, 1366, 738)])
@pytest.mark.parametrize("presenting", [True, False])
def test_on_one_screen_the_speaker_view_stands_beside_the_stage(area, presenting):
    places = arrange([area], primary=0, window_screen=0, presenting=presenting)
    stage, speaker = places.audience_rect, places.speaker_rect
    assert not stage.intersects(speaker) and area.contains(stage) and area.contains(speaker)
    assert speaker.width() >= MIN_SPEAKER_WIDTH_PX and stage.width() >= area.width() / 2
    if presenting:                                       # a smaller copy of the slide, not a tall strip of it
        assert abs(stage.width() / stage.height() - area.width() / area.height()) < 0.01


@pytest.mark.parametrize("size", [QSize(389, 768), QSize(1920, 1080)])
def test_with_the_next_build_folded_away_the_notes_start_under_its_heading(size):
    shown, folded = panels(size, 4 / 3, 26), panels(size, 4 / 3, 26, next_shown=False)
    assert folded.next.isEmpty() and folded.next_label == shown.next_label
    assert folded.notes_bar.top() == folded.next_label.bottom() + 1 + GAP_PX
    assert folded.notes.bottom() == shown.notes.bottom() and folded.notes.height() > shown.notes.height() + 200


def test_beside_a_window_that_cannot_be_narrower_the_speaker_view_takes_less():
    places = arrange([QRect(0, 0, 1024, 768)], primary=0, window_screen=0, presenting=False, audience_min_width=780)
    assert places.audience_rect.width() == 780 and places.speaker_rect.left() == 780
    assert places.speaker_rect.width() == 1024 - 780


def run_screens(tmp_path, screens, *arguments) -> dict:
    config = tmp_path / "screens.json"
    config.write_text(json.dumps({"screens": [
        {"name": name, "x": x, "y": y, "width": w, "height": h, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}
        for name, (x, y, w, h) in screens.items()]}))
    environment = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(SCREENS_SCRIPT), str(tmp_path), *arguments], cwd=ROOT,
                          env=environment, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_two_screens_the_room_sees_the_stage_and_the_presenter_a_large_current_and_next_build(tmp_path):
    seen = run_screens(tmp_path, {"laptop": (0, 0, 1920, 1080), "projector": (1920, 0, 1024, 768)}, "--present")
    assert seen["window"] == [1920, 0, 1024, 768] and seen["window_fullscreen"]       # the projector: stage only
    assert seen["speaker"] == [0, 0, 1920, 1080] and seen["speaker_fullscreen"]       # the laptop: the speaker view
    assert seen["current"][2] >= 0.5 * 1920                                            # the current build, large
    assert seen["next"][2] >= 600 and seen["next"][3] >= 450                           # the next, large enough to read
    assert seen["next_key"][:3] == ["prefill_decode", 2, "en"]
    assert seen["next_key"][5:] == [1024, 768]        # rendered at the projector's own size: laid out as the room sees
    assert seen["notes_width"] >= 0.3 * 1920 and seen["notes_pt"] == 18
    assert seen["after_close"]["window"] == [1920, 0, 1024, 768] and seen["after_close"]["window_fullscreen"]


def test_one_screen_at_1024x768_the_speaker_view_never_covers_the_stage(tmp_path):
    seen = run_screens(tmp_path, {"only": (0, 0, 1024, 768)}, "--present")
    stage, speaker = QRect(*seen["window_frame"]), QRect(*seen["speaker_frame"])
    assert not stage.intersects(speaker), (stage, speaker)
    assert QRect(0, 0, 1024, 768).contains(stage) and QRect(0, 0, 1024, 768).contains(speaker)
    assert seen["current"] is None and seen["next"][2] >= 300        # the stage itself is beside it
    assert seen["after_close"]["window"] == [0, 0, 1024, 768] and seen["after_close"]["window_fullscreen"]


def test_one_screen_at_1024x768_hiding_the_next_build_gives_the_notes_twice_the_room(tmp_path):
    shown = run_screens(tmp_path, {"only": (0, 0, 1024, 768)}, "--present")
    folded = run_screens(tmp_path, {"only": (0, 0, 1024, 768)}, "--present", "--hide-next")
    assert shown["next_visible"] and not folded["next_visible"]
    assert folded["notes_height"] >= 2 * shown["notes_height"] and folded["notes_width"] == shown["notes_width"]


def test_one_screen_not_presenting_the_window_moves_aside_and_comes_back(tmp_path):
    seen = run_screens(tmp_path, {"only": (0, 0, 1024, 768)})
    assert not QRect(*seen["window_frame"]).intersects(QRect(*seen["speaker_frame"]))
    assert seen["after_close"]["window"] == seen["before"]["window"]
