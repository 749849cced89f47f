"""The window fits its screen: first size from the screen, a restored one kept on a screen, nothing cut off."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QScrollArea

from desktop.i18n import Language
from desktop.scenario_store import ScenarioStore
from desktop.scenes.registry import scene_entries
from desktop.settings import Settings
from desktop.window_geometry import clamp_onto_screens, first_window_rect
from engine.catalog import default_catalog


def test_the_first_window_takes_most_of_the_available_area_centred():
    for available in (QRect(0, 0, 1024, 768), QRect(0, 27, 1920, 1053), QRect(1920, 0, 3840, 2160)):
        rect = first_window_rect(available)
        assert available.contains(rect)
        assert rect.width() >= 0.85 * available.width() and rect.height() >= 0.85 * available.height()
        assert abs(rect.center().x() - available.center().x()) <= 1
        assert abs(rect.center().y() - available.center().y()) <= 1


def test_a_restored_rectangle_is_moved_and_shrunk_onto_a_screen():
    laptop, projector = QRect(0, 0, 1366, 768), QRect(1366, 0, 1024, 768)
    # saved on a 4K screen that is no longer there: back on the primary screen, at most its size
    assert clamp_onto_screens(QRect(5000, 3000, 2400, 1600), [laptop, projector]) == laptop
    # mostly on the projector and hanging off its right edge: pulled inside the projector
    moved = clamp_onto_screens(QRect(1500, 100, 1000, 600), [laptop, projector])
    assert projector.contains(moved) and moved.size() == QRect(0, 0, 1000, 600).size()
    inside = QRect(100, 100, 800, 500)
    assert clamp_onto_screens(inside, [laptop, projector]) == inside


def _window(qtbot, settings: Settings, code: str = "en"):
    from desktop.window import MainWindow
    language = Language(code)
    window = MainWindow(language, ScenarioStore(settings.scenario, language=language), settings,
                        default_catalog(), scene_entries())
    qtbot.addWidget(window)
    return window


def test_the_first_window_is_sized_from_the_screen(qtbot):
    window = _window(qtbot, Settings())
    available = QGuiApplication.primaryScreen().availableGeometry()
    assert window.geometry() == first_window_rect(available)


def test_a_saved_geometry_off_every_screen_comes_back_onto_one(qtbot):
    away = _window(qtbot, Settings())
    away.setGeometry(QRect(9000, 9000, 700, 500))
    saved = bytes(away.saveGeometry().toBase64()).decode("ascii")
    window = _window(qtbot, Settings(geometry=saved))
    assert QGuiApplication.primaryScreen().availableGeometry().contains(window.geometry())


@pytest.mark.parametrize("code", ["zh", "en"])
def test_the_scene_list_is_narrow_and_the_scene_controls_sit_in_the_side_panel(make_window, code):
    window = make_window(code)
    window.deck.show(0)
    assert window.scene_list.width() <= 160
    controls = window.deck.current.controls()
    if controls is None:
        pytest.skip("scene 1 has no controls of its own")
    assert window.side_panel.isAncestorOf(controls) and controls.isVisible()
    assert window.side_panel.scene_group.isVisible()
    group, scenario = window.side_panel.scene_group, window.controls
    assert group.geometry().bottom() < scenario.geometry().top()      # the scene's group above the scenario
    window.deck.show(window.deck.position_of("summary"))
    assert not window.side_panel.scene_group.isVisible()             # the summary has no controls of its own


@pytest.mark.parametrize("code", ["zh", "en"])
def test_at_1024_by_768_nothing_needs_a_horizontal_scroll_bar(make_window, qtbot, code):
    window = make_window(code)
    window.resize(first_window_rect(QRect(0, 0, 1024, 768)).size())
    for position in range(len(window.deck.entries)):
        window.deck.show(position)
        qtbot.waitUntil(lambda: window.width() <= 1024)
        assert window.minimumSizeHint().width() <= 1024
        panel = window.side_panel
        assert panel.viewport().width() >= panel.widget().minimumSizeHint().width()
        for area in window.findChildren(QScrollArea):
            assert not area.horizontalScrollBar().isVisible()
        assert window.slide.width() >= 400      # the stage keeps room to draw


SMALL_WINDOW = first_window_rect(QRect(0, 0, 1024, 768)).size()      # about 920x690
LARGE_WINDOW = first_window_rect(QRect(0, 0, 1920, 1080)).size()     # about 1730x970
STAGE_MIN_WIDTH_AT_1024_PX = 600      # it was about 450 with the scene list and a wide panel beside it
PANEL_MAX_WIDTH_AT_1024_PX = 260


@pytest.mark.parametrize("code", ["zh", "en"])
def test_at_1024_by_768_the_stage_gets_the_width(make_window, qtbot, code):
    window = make_window(code)
    window.resize(SMALL_WINDOW)
    for position in range(len(window.deck.entries)):
        window.deck.show(position)
        qtbot.waitUntil(lambda: window.width() <= 1024)
        assert not window.scene_list.isVisible() and window.scene_picker.isVisible()
        assert window.controls.labels_above()
        assert window.side_panel.width() <= PANEL_MAX_WIDTH_AT_1024_PX
        assert window.slide.stage.width() >= STAGE_MIN_WIDTH_AT_1024_PX
        assert window.slide.stage.height() >= window.height() // 2
        for area in window.findChildren(QScrollArea):
            assert not area.horizontalScrollBar().isVisible()


def _picker_texts(window) -> list[str]:
    return [window.scene_picker.itemText(row) for row in range(window.scene_picker.count())]


@pytest.mark.parametrize("code", ["zh", "en"])
def test_the_compact_picker_lists_the_registered_scenes_and_switches_them(make_window, code):
    window = make_window(code)
    window.resize(SMALL_WINDOW)
    classes = window.deck.entries
    assert _picker_texts(window) == [f"{cls.number}  {window.deck.title_of(p)}" for p, cls in enumerate(classes)]
    assert window.scene_picker.currentIndex() == window.deck.position
    last = len(classes) - 1
    window.scene_picker.setCurrentIndex(last)
    window.scene_picker.activated.emit(last)          # as a choice in the open list does
    assert window.deck.position == last and window.settings.last_scene == classes[last].key
    window.deck.first()                                # keys and menus move it too
    assert window.scene_picker.currentIndex() == 0
    before = _picker_texts(window)
    window.language.toggle()
    assert _picker_texts(window) != before and len(_picker_texts(window)) == len(classes)


def test_at_1920_by_1080_the_scene_list_is_shown(make_window):
    window = make_window("en")
    window.resize(LARGE_WINDOW)
    assert window.scene_list.isVisible() and not window.scene_picker.isVisible()
    assert window.scene_list.count() == len(window.deck.entries)
    assert not window.controls.labels_above()       # room for each label beside its field
    window.resize(SMALL_WINDOW)
    assert not window.scene_list.isVisible() and window.scene_picker.isVisible()
    window.resize(LARGE_WINDOW)
    assert window.scene_list.isVisible()


def test_the_view_menu_hides_the_list_and_the_panel_and_remembers(make_window, qtbot):
    from PySide6.QtCore import Qt
    window = make_window("en")
    window.resize(LARGE_WINDOW)
    window.actions["scene_list"].trigger()
    assert not window.scene_list.isVisible() and window.scene_picker.isVisible()
    assert window.settings.scene_list_visible is False
    stage_before = window.slide.stage.width()
    qtbot.keyClick(window.slide, Qt.Key.Key_Backslash, Qt.KeyboardModifier.ControlModifier)
    assert not window.side_panel.isVisible() and window.settings.side_panel_visible is False
    assert not window.actions["side_panel"].isChecked()
    qtbot.waitUntil(lambda: window.slide.stage.width() > stage_before)
    window.run_command("present_start")
    window.run_command("leave")
    assert not window.side_panel.isVisible() and not window.scene_list.isVisible()   # still the user's choice
    window.actions["side_panel"].trigger()
    window.actions["scene_list"].trigger()
    window.resize(LARGE_WINDOW)
    assert window.side_panel.isVisible() and window.scene_list.isVisible()


def test_a_window_started_with_the_list_and_panel_hidden_keeps_them_hidden(make_window):
    window = make_window("en", settings=Settings(scene_list_visible=False, side_panel_visible=False))
    window.resize(LARGE_WINDOW)
    assert not window.scene_list.isVisible() and not window.side_panel.isVisible()
    assert window.scene_picker.isVisible()
    assert not window.actions["side_panel"].isChecked() and not window.actions["scene_list"].isChecked()
