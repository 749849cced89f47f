"""What every registered scene inherits from the scene kit (docs/scene-kit.md), checked for all of them.

A scene is added by registering it; these tests then hold it to the kit and
the presenter standard without a line of its own: any scenario the engine
accepts renders in every build; every phase has a caption and notes in both
languages; scenes leave physics to the engine and their models leave Qt alone.
"""
from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication
from shiboken6 import isValid
from hypothesis import HealthCheck, example, given, settings, strategies as st

from desktop.i18n import LANGUAGES, Language
from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.scenario_store import ScenarioStore
from desktop.kit import questions
from desktop.kit.answers import refused
from desktop.kit.scene import SceneKit, create_scene
from desktop.scenes.registry import scene_classes
from engine import Scenario
from engine.catalog import default_catalog
from engine.parallel import allowed_gpu_counts
from engine.scenario import MAX_CONTEXT_TOKENS
from tests.desktop.stage import drawn_texts
from widgets.theme import THEMES

ROOT = Path(__file__).resolve().parents[2]
SCENES = scene_classes()
CATALOG = default_catalog()


def _scenarios():
    """Scenarios over the whole catalogue and the whole allowed range of every number."""
    def for_model(model_id: str):
        counts = [n for n in allowed_gpu_counts(CATALOG.model(model_id)) if n <= 8]
        lengths = st.one_of(st.integers(1, 4096), st.integers(1, MAX_CONTEXT_TOKENS // 2))
        return st.builds(
            Scenario, gpu=st.sampled_from(sorted(CATALOG.gpus)), model=st.just(model_id),
            weights=st.sampled_from(sorted(CATALOG.precisions)), kv=st.sampled_from(sorted(CATALOG.precisions)),
            gpus=st.sampled_from(counts), batch=st.one_of(st.integers(1, 8), st.integers(1, 4096)),
            prompt_tokens=lengths, output_tokens=lengths,
            usd_per_gpu_hour=st.floats(0, 10_000, allow_nan=False), mode=st.sampled_from(("ideal", "realistic")))
    return st.sampled_from(sorted(CATALOG.models)).flatmap(for_model)


def _accepted(scenario: Scenario) -> bool:
    return not refused(ScenarioStore(DEFAULT_SCENARIO).answers.ask(questions.report, scenario))


@pytest.mark.parametrize("cls", SCENES, ids=lambda cls: cls.key)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(scenario=_scenarios())
@example(scenario=dataclasses.replace(DEFAULT_SCENARIO, prompt_tokens=1, output_tokens=9_999_999))
@example(scenario=DEFAULT_SCENARIO)
def test_any_scenario_the_engine_accepts_renders_in_every_build(qtbot, cls, scenario):
    from hypothesis import assume
    assume(_accepted(scenario))
    store = ScenarioStore(scenario)
    assert store.scenario == scenario
    scene = create_scene(cls, SceneKit(Language("en"), store, THEMES["light"]))
    qtbot.addWidget(scene)
    scene.resize(960, 540)
    scene.ensure_ready()                   # every build of the loaded scene, not only its "loading" one
    for index in range(scene.build_count):
        scene.go_to_build(index)
        scene.clock.set_seconds(scene.clock.seconds() + 0.1)
        assert scene.caption() and scene.notes()
        for text in (scene.caption(), scene.notes()):
            assert not _BROKEN_TEXT.search(text), (index, text)
    scene.grab()
    drawn = drawn_texts(scene)
    assert drawn, "the last build's stage draws no text"
    broken = [text for text in drawn if _BROKEN_TEXT.search(text)]
    assert not broken, broken


# What no text of any scene may show: a number that is not one, a name left unfilled, a replacement character.
_BROKEN_TEXT = re.compile(r"\b(nan|NaN|inf)\b|\{[a-z_]+\}|\ufffd")


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize("cls", SCENES, ids=lambda cls: cls.key)
def test_every_phase_has_a_caption_and_notes(qtbot, cls, code):
    language = Language(code)
    scene = create_scene(cls, SceneKit(language, ScenarioStore(), THEMES["light"]))
    qtbot.addWidget(scene)
    scene.ensure_ready()
    keys = set(language.keys())
    for index in range(scene.build_count):
        scene.go_to_build(index, animate=False)
        for kind in ("caption", "notes"):
            assert f"{cls.key}.{kind}.{scene.phase()}" in keys, (index, kind)


@pytest.mark.parametrize("cls", SCENES, ids=lambda cls: cls.key)
def test_qt_deletes_everything_a_scene_made_when_it_deletes_the_scene(qtbot, cls):
    """Controls not yet in the side panel are the scene's Qt children: deleting a scene (an export, a speaker
    preview) deletes them with it. A parentless widget would linger until Python's cycle collector deleted
    it at an arbitrary moment, possibly in the middle of Qt's event dispatch (a crash)."""
    before = set(map(id, QApplication.topLevelWidgets()))
    scene = create_scene(cls, SceneKit(Language("zh"), ScenarioStore(), THEMES["light"]))
    controls = scene.controls()
    assert controls is None or controls.parent() is scene
    scene.resize(960, 540)
    scene.show()
    qtbot.waitExposed(scene)
    for index in range(scene.build_count):
        scene.go_to_build(index)
    gone = []
    if controls is not None:
        controls.destroyed.connect(lambda: gone.append(True))
    scene.close()
    scene.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert gone or controls is None
    left = [w for w in QApplication.topLevelWidgets() if id(w) not in before and isValid(w) and w.parent() is None]
    assert not left, [(type(w).__name__, w.objectName(), [type(c).__name__ for c in w.children()][:8]) for w in left]


def test_every_build_shows_the_engines_scenario_and_never_changes_it(qtbot):
    store = ScenarioStore()
    before = store.scenario
    for cls in SCENES:
        scene = create_scene(cls, SceneKit(Language("zh"), store, THEMES["light"]))
        qtbot.addWidget(scene)
        for index in range(scene.build_count):
            scene.go_to_build(index, animate=False)
        scene.reset()
    assert store.scenario == before


_SOURCES = sorted((ROOT / "desktop" / "scenes").rglob("*.py"))
# A scene's modules that may use Qt: its view and its controls; everything else in its package is its story.
_QT_MODULES = {"view", "controls", "__init__"}


@pytest.mark.parametrize("path", _SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_scenes_never_call_the_engine_or_load_the_catalogue_themselves(path):
    source = path.read_text(encoding="utf-8")
    assert not re.search(r"\b(compute_report|default_catalog|load_catalog)\b", source), path.name


def _qt_free_modules() -> list[str]:
    stories = [".".join(p.relative_to(ROOT).with_suffix("").parts) for p in _SOURCES
               if p.parent.name != "scenes" and p.stem not in _QT_MODULES]
    states = [f"widgets.{p.stem}" for p in sorted((ROOT / "widgets").glob("*_state.py"))]
    kit = ["desktop.kit.answers", "desktop.kit.questions", "desktop.kit.story", "desktop.scenes.registry"]
    return [*kit, "widgets.transition", "widgets.playback", *stories, *states]


def test_every_scene_package_has_a_story_module():
    packages = sorted(p.parent.name for p in (ROOT / "desktop" / "scenes").glob("*/__init__.py"))
    assert packages and all((ROOT / "desktop" / "scenes" / name / "story.py").exists() for name in packages)


def test_scene_models_and_widget_states_import_no_qt():
    program = textwrap.dedent(f"""
        import importlib, sys
        class Refuse:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph"):
                    raise ImportError("a Qt-free module imported " + name)
        sys.meta_path.insert(0, Refuse())
        for name in {_qt_free_modules()!r}:
            importlib.import_module(name)
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
