"""The speaker view (S): the notes of the build on screen, a preview of the next, the time; same keys."""
from __future__ import annotations

import tomllib
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from engine.units import format_ratio


ROOT = Path(__file__).resolve().parents[2]


def _english(file: str, table: str, name: str) -> str:
    """A text as its file says it, read here, apart from the app's own loading and filling."""
    texts = tomllib.loads((ROOT / "resources" / "text" / f"{file}.toml").read_text(encoding="utf-8"))
    return texts[table][name]["en"]


def test_s_opens_the_speaker_view_with_this_builds_notes(qtbot, window):
    """Scene 5's first two builds at the seed's N (500 tokens): 1 + 2 + ... + 500 = 125,250 token computations
    without a cache, 500 with one, (N + 1) / 2 = 250.5 times fewer."""
    from desktop.scenes.kv_cache.pictures import BUILDS
    position = window.deck.position_of("kv_cache")
    window.deck.show(position)
    qtbot.keyClick(window.slide, Qt.Key.Key_S)
    speaker = window.speaker
    qtbot.addWidget(speaker)
    assert speaker.isVisible()
    now = _english("app", "speaker", "now")
    assert speaker.notes.toPlainText() == _english("kv_cache", "notes", "naive").format(n="500", naive_total="125,250")
    assert speaker.status_label.text() == now.format(number=position + 1, build=1, builds=len(BUILDS))
    window.deck.next()
    notes = speaker.notes.toPlainText()                                          # follows the build
    assert notes == _english("kv_cache", "notes", "cache").format(cached_total="500", naive_total="125,250",
                                                                   ratio=format_ratio(501 / 2), n="500")
    assert speaker.status_label.text() == now.format(number=position + 1, build=2, builds=len(BUILDS))


def test_the_next_build_is_previewed_and_the_speaker_views_keys_drive_the_talk(qtbot, window):
    window.deck.show(0)
    window.run_command("speaker")
    speaker = window.speaker
    qtbot.addWidget(speaker)
    qtbot.waitUntil(lambda: speaker.next_preview.pixmap() is not None and not speaker.next_preview.pixmap().isNull(),
                    timeout=10_000)
    assert speaker.next_step() == (window.deck.entries[0], 1)
    speaker.activateWindow()
    qtbot.keyClick(speaker, Qt.Key.Key_Right)            # the clicker, pressed while the speaker view has focus
    assert window.deck.current.build_index == 1
    assert speaker.next_step() == (window.deck.entries[0], 2)


def test_the_audience_screen_shows_only_the_stage_while_the_speaker_view_is_open(qtbot, window):
    window.run_command("speaker")
    qtbot.addWidget(window.speaker)
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


def test_in_a_narrow_speaker_view_the_notes_keep_most_of_the_width(qtbot, window):
    """One 1024x768 screen: the speaker view is half of it; the previews shrink, the notes stay readable."""
    window.run_command("speaker")
    speaker = window.speaker
    qtbot.addWidget(speaker)
    speaker.resize(512, 768)
    qtbot.waitUntil(lambda: speaker.next_preview.pixmap() is not None and not speaker.next_preview.pixmap().isNull(),
                    timeout=10_000)
    qtbot.waitUntil(lambda: speaker.notes.width() >= 0.5 * speaker.width())
    for preview in (speaker.current_preview, speaker.next_preview):
        assert preview.pixmap().width() <= 0.4 * speaker.width() + 1
    speaker.resize(1600, 900)                           # a second screen: full-size previews again
    qtbot.waitUntil(lambda: speaker.next_preview.pixmap().width() == speaker.preview_width() == 480)
