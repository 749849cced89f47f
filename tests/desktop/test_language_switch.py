"""L in the middle of a talk: every registered scene, at a middle build, switches language through the window.

The title, the caption and every text the stage draws are then those of the new language: the same as a scene
made in that language from the start and stepped to the same build (so nothing keeps a text from before),
and the talk stays where it was.
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.i18n import Language
from desktop.kit.scene import SceneKit, create_scene
from desktop.scenario_store import ScenarioStore
from desktop.scenes.registry import scene_entries
from desktop.slide import keep_units_whole
from tests.desktop.stage import drawn_texts

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u4e00-\u9fff]")


def _title(key: str, code: str) -> str:
    """The scene's title as its text file says it, read here."""
    return tomllib.loads((ROOT / "resources" / "text" / f"{key}.toml").read_text(encoding="utf-8"))["title"][code]


def _stage_texts(scene) -> list[str]:
    scene.ensure_ready()                                        # work the scene does off the thread (a cut), done
    for _ in range(600):                                        # transitions and a build's own playback finished
        scene.clock.set_seconds(scene.clock.seconds() + 1.0)
        if not scene.moving(scene.clock.seconds()):
            break
    scene.grab()
    return drawn_texts(scene)


@pytest.mark.parametrize("entry", scene_entries(), ids=lambda entry: entry.key)
def test_l_at_a_middle_build_switches_title_caption_and_stage(qtbot, make_window, entry):
    window = make_window("en")
    window.deck.show(window.deck.position_of(entry.key))
    scene = window.deck.current
    middle = scene.build_count // 2
    for _ in range(middle):
        qtbot.keyClick(window.slide, Qt.Key.Key_Right)
    assert scene.build_index == middle and window.slide.title_label.text() == _title(entry.key, "en")
    english = _stage_texts(scene)
    caption_before = window.slide.caption_label.text()

    qtbot.keyClick(window.slide, Qt.Key.Key_L)
    scene.ensure_ready()        # what it makes in the background for the new language (scene 3's cut), now

    assert window.language.code == "zh" and window.deck.current is scene and scene.build_index == middle
    assert window.slide.title_label.text() == _title(entry.key, "zh")
    fresh = create_scene(type(scene), SceneKit(Language("zh"), ScenarioStore(scene.kit.store.scenario),
                                               scene.kit.theme))
    qtbot.addWidget(fresh)
    fresh.resize(scene.size())
    fresh.go_to_build(middle, animate=False)
    assert window.slide.caption_label.text() == keep_units_whole(fresh.caption()) != caption_before
    assert CJK.search(window.slide.caption_label.text())
    chinese = _stage_texts(scene)
    assert chinese == _stage_texts(fresh)
    assert chinese != english and any(CJK.search(text) for text in chinese)
