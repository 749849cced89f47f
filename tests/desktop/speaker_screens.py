"""Run by tests/desktop/test_speaker_view.py in a process of its own, on the screens that
QT_QPA_PLATFORM="offscreen:configfile=..." gives it: the window (presenting with --present), then the speaker
view opened at scene 4's second build (``--hide-next``: its next build's picture then folded away) and closed
again. Prints the geometry it saw as one line of JSON and leaves
pictures of both windows in the folder named first (to look at)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from PySide6.QtCore import QEventLoop, QTimer


def rect(r) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def spin(milliseconds: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(milliseconds, loop.quit)
    loop.exec()


def main() -> None:
    out = Path(sys.argv[1])
    from desktop.app import create_application
    from desktop.i18n import Language
    from desktop.scenario_store import ScenarioStore
    from desktop.scenes.registry import scene_entries
    from desktop.settings import Settings
    from desktop.window import MainWindow
    create_application()
    settings, language = Settings(), Language("en")
    store = ScenarioStore(settings.scenario, language=language)
    window = MainWindow(language, store, settings, store.catalog, scene_entries())
    window.show()
    spin(100)
    seen = {"before": {"window": rect(window.geometry())}}
    window.deck.show(window.deck.position_of("prefill_decode"))
    window.deck.next()
    if "--present" in sys.argv:
        window.presentation.start(from_start=False)
    window.run_command("speaker")
    speaker = window.speaker
    for _ in range(150):
        spin(100)
        if speaker.next_preview_key is not None:
            break
    spin(200)
    if "--hide-next" in sys.argv:
        speaker.toggle_next()
        spin(100)
    key = speaker.next_preview_key
    seen.update(window=rect(window.geometry()), window_frame=rect(window.frameGeometry()),
                window_fullscreen=window.isFullScreen(), speaker=rect(speaker.geometry()),
                speaker_frame=rect(speaker.frameGeometry()), speaker_fullscreen=speaker.isFullScreen(),
                next=rect(speaker.next_preview.geometry()),
                current=rect(speaker.current_preview.geometry()) if speaker.current_preview.isVisible() else None,
                next_key=None if key is None else [key.scene, key.build, key.language, key.theme, None,
                                                   key.width, key.height],
                notes_width=speaker.notes.width(), notes_height=speaker.notes.height(),
                notes_pt=speaker.notes.font().pointSize(), next_visible=speaker.next_preview.isVisible())
    speaker.grab().save(str(out / "speaker.png"))
    window.grab().save(str(out / "stage.png"))
    window.run_command("speaker")
    spin(100)
    seen["after_close"] = {"window": rect(window.geometry()), "window_fullscreen": window.isFullScreen()}
    print(json.dumps(seen))
    window.close()


if __name__ == "__main__":
    main()
