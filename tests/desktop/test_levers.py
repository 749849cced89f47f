"""Scene 7's view: its controls change the story, refusals show beside them, every build renders."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF, QSize

from desktop.i18n import Language
from desktop.kit.scene import SceneKit, create_scene
from desktop.scenario_store import ScenarioStore
from desktop.scenes.levers.choices import BUILDS, DEFAULT_STACK
from desktop.scenes.levers.view import LeversScene
from desktop.error_text import error_text
from engine import InputError
from engine.levers import LEVERS
from widgets.theme import THEMES, for_screen


@pytest.fixture
def make_scene(qtbot):
    def make(language: str = "en", size=(1000, 560)):
        store = ScenarioStore()
        scene = create_scene(LeversScene, SceneKit(Language(language), store, THEMES["light"]))
        qtbot.addWidget(scene)
        scene.resize(*size)
        scene.show()
        scene.clock.stop()
        return scene
    return make


def at(scene, build: str):
    scene.go_to_build(BUILDS.index(build), animate=False)
    return scene


def figure_texts(scene) -> dict[str, str]:
    scene.figures.grab()
    return {d.key: d.text for d in scene.figures.drawn_texts()}


def test_a_control_changes_the_figures_the_caption_and_nothing_shared(make_scene, qtbot):
    scene = at(make_scene(), "speculative")
    before, shared = figure_texts(scene)["cell.0.1"], scene.kit.store.scenario
    with qtbot.waitSignal(scene.texts_changed):
        scene.panel.acceptance.setValue(0.5)
    assert scene.control_values().acceptance == 0.5 and scene.story().outcome.values["speculative"]["acceptance"] == 0.5
    after = figure_texts(scene)["cell.0.1"]
    assert after != before and after in scene.caption()
    assert scene.kit.store.scenario == shared


def test_each_build_shows_its_own_page_and_switch_and_the_last_one_every_switch(make_scene):
    scene = make_scene()
    panel = scene.panel
    for build in BUILDS[1:-1]:
        at(scene, build)
        assert panel.pages.currentWidget() is panel.page_of[build]
        assert [not s.isHidden() for s in panel.switches.values()] == [name == build for name in LEVERS]
    at(scene, "stack")
    assert all(not s.isHidden() for s in panel.switches.values()) and not panel.stack_heading.isHidden()
    assert {name for name, s in panel.switches.items() if s.isChecked()} == DEFAULT_STACK


def test_switching_levers_changes_what_the_last_build_stacks(make_scene):
    scene = at(make_scene(), "stack")
    for switch in scene.panel.switches.values():
        switch.setChecked(False)
    assert scene.phase() == "stack_empty" and scene.figures.isHidden() and not scene.belt.isHidden()
    scene.panel.switches["weights"].setChecked(True)
    assert scene.story().outcome.levers == ("weights",) and not scene.figures.isHidden()
    at(scene, "kv_allocation").panel.switches["kv_allocation"].setChecked(True)
    assert "kv_allocation" in at(scene, "stack").story().outcome.levers


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("build, edit", [
    ("speculative", lambda p: p.acceptance.setValue(1.0)),
    ("speculative", lambda p: p.draft.setCurrentIndex(p.draft.findData("qwen3-0.6b"))),
    ("prefix_cache", lambda p: p.prefix.setValue(5_000)),
    ("kv_allocation", lambda p: p.reserve.setValue(100)),
    ("offload", lambda p: p.host.setValue(0)),
])
def test_a_refused_setting_shows_its_reason_beside_the_control_never_an_exception(make_scene, language, build, edit):
    scene = at(make_scene(language), build)
    note = scene.panel.notes[build]
    assert note.isHidden()
    edit(scene.panel)
    refusal = scene.story().refusal
    assert isinstance(refusal, InputError) and scene.phase() == "refused"
    reason = error_text(scene.kit.language, refusal)
    assert not note.isHidden() and note.text() == reason
    assert "".join(figure_texts(scene)["message"].split()) == "".join(reason.split())     # wrapped, word for word
    assert scene.belt.isHidden() and scene.curve.isHidden() and scene.caption() and scene.notes()
    scene.reset()
    assert not scene.grab().isNull()


def test_putting_a_refused_setting_right_clears_its_note(make_scene):
    scene = at(make_scene(), "prefix_cache")
    scene.panel.prefix.setValue(5_000)
    scene.panel.prefix.setValue(400)
    assert scene.phase() == "prefix_cache" and scene.panel.notes["prefix_cache"].isHidden()
    assert scene.story().outcome.values["prefix_cache"]["cached_tokens"] == 400


@pytest.mark.parametrize("language, size, theme", [("zh", QSize(1024, 768), "projector"), ("en", QSize(1920, 1080), "light"),
                                                   ("zh", QSize(3840, 2160), "dark")])
def test_every_build_renders_with_the_engines_numbers_on_the_stage(presenting, language, size, theme):
    """Every build, not only the three the generic presenter test samples: no stage text below the floor,
    over another text of its widget, or outside it."""
    frame, scene, _ = presenting(LeversScene, language, size, theme)
    floor = for_screen(THEMES[theme], size.height()).floor_px
    for index in range(scene.build_count):
        scene.go_to_build(index, animate=False)
        scene.clock.set_seconds(scene.clock.seconds() + 1.0)
        frame.set_texts(scene.title(), scene.caption())
        assert not frame.grab().isNull()
        for widget in (scene.belt, scene.curve, scene.figures):
            if widget.isHidden():
                continue
            texts = widget.drawn_texts()
            bounds = QRectF(widget.rect()).adjusted(-1, -1, 1, 1)
            assert all(t.px >= floor and bounds.contains(t.rect) for t in texts), (index, type(widget).__name__)
            assert not any(a.rect.intersected(b.rect).width() > 1 and a.rect.intersected(b.rect).height() > 1
                           for i, a in enumerate(texts) for b in texts[i + 1:]), (index, type(widget).__name__)
        story = scene.story()
        if story.figures is not None:
            shown = {d.text.replace("\n", " ") for d in scene.figures.drawn_texts()}
            assert story.figures.rows[0].cells[1].text in shown, index       # the lever's time per token
            assert all(d.px >= floor for d in scene.figures.drawn_texts())
        if story.conveyor_state() is not None:
            assert not scene.belt.isHidden() and scene.belt.drawn_texts()


def test_the_language_switch_retranslates_the_controls(make_scene):
    scene = at(make_scene("en"), "batching")
    assert scene.panel.batch.specialValueText() == "all that fit"
    scene.kit.language.set_code("zh")
    scene.retranslate()
    assert scene.panel.batch.specialValueText() == "装得下的全部"
    assert scene.panel.switches["batching"].text() == "叠加"
