"""Fixtures for the desktop tests: a main window as the app builds it, offscreen."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QApplication

from desktop.i18n import Language
from desktop.scenario_store import ScenarioStore
from desktop.scenes.registry import scene_entries
from desktop.settings import Settings


@pytest.fixture
def make_window(qtbot):
    """Build, show and return a MainWindow; closed (and its settings saved to the test's folder) afterwards."""
    from desktop.window import MainWindow

    def make(language: str = "en", settings: Settings | None = None, store: ScenarioStore | None = None):
        settings = settings or Settings()
        language = Language(language)
        store = store or ScenarioStore(settings.scenario, language=language)   # as the app builds it
        window = MainWindow(language, store, settings, store.catalog, scene_entries())
        qtbot.addWidget(window)
        window.resize(1400, 900)
        window.show()
        qtbot.waitExposed(window)
        window.activateWindow()
        window.slide.setFocus()
        return window

    return make


@pytest.fixture
def window(make_window):
    return make_window()


@pytest.fixture
def language():
    return Language("en")


@pytest.fixture
def presenting(qtbot):
    """A factory of slide frames as the projector shows them; each is kept alive until the test ends and then
    closed and deleted by Qt before Python lets go of it (a frame collected later, while its scene's widgets
    still exist, would call into half-destroyed Python objects)."""
    frames = []

    def make(cls, code: str, size: QSize, theme_id: str = "light"):
        from tests.desktop.test_presenter_standard import _presenting
        made = _presenting(cls, code, size, theme_id)
        frames.append(made[0])
        return made

    yield make
    for frame in frames:
        frame.close()
        frame.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    frames.clear()
