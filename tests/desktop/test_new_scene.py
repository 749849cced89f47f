"""Adding a scene is a folder, a text file and one line in the registry, and nothing else changes.

A throw-away scene is made from the template (``desktop/scenes/template/`` and
``resources/text/template.toml``, copied under a new key), put before the
summary in the running order, and held to the generic tests every registered
scene inherits. The summary moves one place on: its number, label and export
name follow, its saved setting (a key) still finds it, and its links still go
to the scenes that explain its answers.
"""
from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest
from PySide6.QtCore import QSize

import desktop.i18n
import desktop.scenes
from desktop.i18n import LANGUAGES, Language
from desktop.kit.scene import SceneKit, create_scene
from desktop.scenario_store import ScenarioStore
from desktop.scenes import registry
from desktop.settings import Settings
from engine.units import format_percent
from tests.desktop import test_presenter_standard as presenter_standard
from tests.desktop import test_scene_kit as scene_kit
from widgets.theme import THEMES

ROOT = Path(__file__).resolve().parents[2]
KEY = "throwaway_scene"


_stems = desktop.i18n.text_stems


@pytest.fixture
def throwaway(tmp_path, monkeypatch):
    """The template copied as the package ``desktop.scenes.<KEY>``, its texts under its key, registered before
    the summary; returns its class."""
    shutil.copytree(ROOT / "desktop" / "scenes" / "template", tmp_path / KEY,
                    ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(desktop.scenes, "__path__", [*desktop.scenes.__path__, str(tmp_path)])
    template_texts = tomllib.loads((ROOT / "resources" / "text" / "template.toml").read_text(encoding="utf-8"))
    extra: dict = {}
    desktop.i18n._flatten(KEY, template_texts, extra)
    file_texts = desktop.i18n.text_file
    monkeypatch.setattr(desktop.i18n, "text_file", lambda stem: extra if stem == KEY else file_texts(stem))
    monkeypatch.setattr(desktop.i18n, "text_stems", lambda: [*_stems(), KEY])
    monkeypatch.setattr(registry, "SCENES", (*registry.SCENES[:-1], KEY, registry.SCENES[-1]))
    return registry.find_entry(KEY).load()


def test_the_new_scene_takes_its_place_and_the_summary_moves_on(throwaway):
    entries = registry.scene_entries()
    assert [entry.key for entry in entries][-2:] == [KEY, "summary"]
    summary = entries[-1]
    assert summary.number == len(registry.SCENES) and summary.export_name == f"{summary.number:02d}-summary"
    assert throwaway.key == KEY                      # from its folder: no file of the copy names it
    assert registry.find_entry(str(summary.number)) == summary == registry.find_entry("summary")
    label = summary.label(Language("en"))
    assert label.startswith(f"{summary.number}  ")


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_new_scene_passes_the_generic_scene_tests(qtbot, presenting, throwaway, code):
    scene_kit.test_every_phase_has_a_caption_and_notes(qtbot, throwaway, code)
    scene_kit.test_qt_deletes_everything_a_scene_made_when_it_deletes_the_scene(qtbot, throwaway)
    for size in (QSize(1024, 768), QSize(1920, 1080)):
        presenter_standard.test_every_caption_fits_in_two_lines(presenting, throwaway, code, size)
        presenter_standard.test_no_stage_text_is_below_the_floor_overlapping_or_cut(presenting, throwaway, code,
                                                                                    size, "light")


def test_any_accepted_scenario_renders_in_every_build_of_the_new_scene(qtbot, throwaway):
    scene_kit.test_any_scenario_the_engine_accepts_renders_in_every_build(qtbot=qtbot, cls=throwaway)


def test_the_window_shows_the_new_scene_and_remembers_the_summary_by_key(qtbot, make_window, throwaway):
    window = make_window("zh", Settings(last_scene="summary"))
    assert window.deck.current_key == "summary"
    assert window.scene_list.count() == len(registry.SCENES)
    window.deck.previous()                         # from the summary's first build: the new scene's last
    assert window.deck.current_key == KEY and window.settings.last_scene == KEY
    story = window.deck.scene(window.deck.position_of("summary")).story()
    for index in range(4):                         # each answer still links to the scene that explains it
        card = story.card(index)
        linked = registry.find_entry(card.link_scene)
        assert linked is not None and linked.key != KEY and f" {linked.number}" in card.link


def test_the_template_renders_with_the_engines_numbers(qtbot):
    from desktop.scenes.template.view import SCENE
    store = ScenarioStore()
    scene = create_scene(SCENE, SceneKit(Language("en"), store, THEMES["light"]))
    qtbot.addWidget(scene)
    scene.resize(800, 450)
    scene.show()
    scene.go_to_build(1, animate=False)
    scene.grab()
    texts = {drawn.key: drawn.text for drawn in scene.bars.drawn_texts()}
    idle = format_percent(1.0 - store.report.decode.utilisation)
    assert idle in scene.caption()
    assert texts.get("headline") == f"idle {idle}"
