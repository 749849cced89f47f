"""Fixtures for the desktop tests: a main window as the app builds it, offscreen."""
from __future__ import annotations

import pytest

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
