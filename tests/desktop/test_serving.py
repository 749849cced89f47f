"""Scene "Serving many users" with Qt: the worker's answers reach the stage, a control change supersedes the answer
to the old values, the language can switch while the simulation runs, refusals stand beside their control, and the
knee, the targets and the fleet are drawn where the engine's figures say.

Each test plans a scenario of its own (a prompt length no other test uses): the kit's cache is shared by every
store of the process, and a plan another test made would arrive without the worker.
"""
from __future__ import annotations

import dataclasses
import re

import pytest
from PySide6.QtCore import QRectF

from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.i18n import Language
from desktop.kit.scene import SceneKit, create_scene
from desktop.scenario_store import ScenarioStore
from desktop.scenes.serving.choices import ServingControls
from desktop.scenes.serving.story import BUILDS
from desktop.scenes.serving.view import ServingScene
from engine.plan import Traffic, plan_fleet
from engine.catalog import load_catalog
from engine.units import format_count
from widgets.theme import THEMES, for_screen

CJK = re.compile(r"[\u4e00-\u9fff]")
WAIT_MS = 30_000            # a plan is ~0.1 s alone; two shared cores under a full test run are slower


def own_scenario(prompt_tokens: int):
    return dataclasses.replace(DEFAULT_SCENARIO, prompt_tokens=prompt_tokens)


@pytest.fixture
def make_scene(qtbot):
    def make(scenario, language: str = "en", size=(1000, 560)):
        store = ScenarioStore(scenario)
        theme = for_screen(THEMES["light"], size[1])
        scene = create_scene(ServingScene, SceneKit(Language(language), store, theme))
        qtbot.addWidget(scene)
        scene.resize(*size)
        scene.show()
        return scene
    return make


def at(scene, build: str):
    scene.go_to_build(BUILDS.index(build), animate=False)
    return scene


def ready(qtbot, scene, phase: str) -> None:
    qtbot.waitUntil(lambda: scene.phase() == phase, timeout=WAIT_MS)


def direct_plan(scenario, rate: float, controls=ServingControls()):
    return plan_fleet(dataclasses.replace(scenario, batch=1), Traffic(rate), controls.targets,
                      catalog=load_catalog())


def test_the_first_visit_says_computing_then_shows_the_workers_plan(make_scene, qtbot):
    scenario = own_scenario(1011)
    scene = at(make_scene(scenario), "fleet")
    assert scene.phase() == "computing" and scene.worker.busy
    assert scene.fleet.isHidden() and scene.table.state.message == scene.text("label.computing")   # no old figure
    with qtbot.waitSignal(scene.texts_changed, timeout=WAIT_MS):
        pass
    ready(qtbot, scene, "fleet")
    plan = direct_plan(scenario, ServingControls().requests_per_second)
    state = scene.fleet.state
    assert len(state.nodes) + state.hidden_nodes == plan.nodes and state.drawn_gpus + state.hidden_gpus == plan.gpus
    assert format_count(plan.gpus) in scene.caption()
    scene.fleet.grab()
    assert len(scene.fleet.node_rects) == len(state.nodes) + (1 if state.hidden_nodes else 0)


def test_a_control_change_shows_the_new_plan_and_drops_the_answer_to_the_old_values(make_scene, qtbot):
    scenario = own_scenario(1012)
    scene = at(make_scene(scenario), "fleet")
    ready(qtbot, scene, "fleet")
    box = scene.panel.boxes["rate"]
    box.setValue(20.0)
    superseded = scene.story().fleet_request()
    box.setValue(30.0)
    assert scene.phase() == "computing"                   # 30 is not known yet: no figure of 20 or 10 shows
    ready(qtbot, scene, "fleet")
    qtbot.waitUntil(lambda: not scene.worker.busy, timeout=WAIT_MS)       # every build's questions answered
    # The answer to 20 requests/s arriving late (the worker drops it itself; so does the scene): nothing changes.
    stale = direct_plan(scenario, 20.0)
    scene.worker.finished.emit((scene.kit.store.answers, superseded, stale))
    story = scene.story()
    assert story.choices.requests_per_second == 30.0 and story.plan.traffic.requests_per_second == 30.0
    assert superseded not in scene.control_values().answers
    assert story.plan == direct_plan(scenario, 30.0)
    assert f"{format_count(story.plan.gpus)} GPUs" in scene.caption() and "30 requests/s" in scene.caption()


def test_the_language_switches_while_the_simulation_runs(make_scene, qtbot):
    scenario = own_scenario(1013)
    scene = at(make_scene(scenario), "fleet")
    assert scene.phase() == "computing"
    scene.kit.language.set_code("zh")
    scene.retranslate()
    assert CJK.search(scene.caption()) and scene.table.state.message == scene.text("label.computing")
    ready(qtbot, scene, "fleet")
    fresh = create_scene(ServingScene, SceneKit(Language("zh"), ScenarioStore(scenario), scene.kit.theme))
    qtbot.addWidget(fresh)
    at(fresh, "fleet")
    assert scene.caption() == fresh.caption() and CJK.search(scene.caption())
    assert CJK.search(scene.fleet.state.headline) and CJK.search(scene.panel.labels["rate"].text())


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_refused_target_is_one_sentence_beside_its_control_until_a_value_is_accepted(make_scene, qtbot, language):
    scene = at(make_scene(own_scenario(1014 if language == "en" else 1015), language), "fleet")
    ready(qtbot, scene, "fleet")
    scene.panel.boxes["tpot"].setValue(1.0)                # 1 ms: below one decode step at batch 1
    ready(qtbot, scene, "refused")
    note = scene.panel.notes["tpot"]
    assert not note.isHidden() and note.text() == scene.kit.refusal_text(scene.story().refusal())
    assert len(re.findall(r"[.。](?=\s|$)", note.text())) == 1
    assert (CJK.search(note.text()) is not None) == (language == "zh")
    assert all(scene.panel.notes[name].isHidden() for name in scene.panel.notes if name != "tpot")
    assert scene.fleet.isHidden() and scene.table.state.message == note.text()
    scene.panel.boxes["tpot"].setValue(50.0)
    ready(qtbot, scene, "fleet")
    assert note.isHidden()


def test_ensure_ready_answers_every_build_for_a_still_picture(make_scene):
    scene = make_scene(own_scenario(1016))
    scene.ensure_ready()
    assert not scene.story().missing() and not scene.worker.busy
    for index in range(scene.build_count):
        scene.go_to_build(index, animate=False)
        assert scene.phase() not in ("computing", "refused")


def test_the_knee_and_the_targets_are_drawn_where_the_curve_says(make_scene):
    scene = at(make_scene(DEFAULT_SCENARIO, size=(1200, 700)), "load")
    scene.ensure_ready()
    plot = scene.plot
    plot.grab()
    state = plot.state
    drawn = {d.key: d for d in plot.drawn_texts()}
    assert {"title", "target", "knee", "rate"} <= set(drawn)
    ttft = state.panels[0]
    knee = plot.to_pixels(ttft, state.knee_rate, state.knee_seconds)
    label = drawn["knee"].rect
    assert label.right() <= knee.x() and knee.x() - label.right() < 0.05 * plot.width()   # just left of its dot
    for panel in state.panels:
        target_y = plot.to_pixels(panel, 0, panel.target_seconds).y()
        rect = plot.panel_rects[panel.key]
        assert rect.top() < target_y < rect.bottom()
    target_labels = [d.rect for d in plot.drawn_texts() if d.key == "target"]
    tops = [plot.to_pixels(p, 0, p.target_seconds).y() for p in state.panels]
    for rect, y in zip(target_labels, tops):
        assert abs(rect.bottom() - y) < rect.height() or abs(rect.top() - y) < rect.height()
    rate_x = plot.to_pixels(ttft, state.rate, 0).x()
    assert abs(drawn["rate"].rect.left() - rate_x) < 0.05 * plot.width() or \
        abs(drawn["rate"].rect.right() - rate_x) < 0.05 * plot.width()
    assert all(QRectF(plot.rect()).contains(d.rect) for d in plot.drawn_texts())


def test_the_warm_up_thread_ends_quietly_when_the_tokenizer_process_stops_under_it(monkeypatch):
    """Ctrl+C at 0.9 s of start-up printed the warm-up thread's traceback: quitting had dropped its corpus count."""
    from desktop.kit.tokenizer_process import ProcessStopped
    from desktop.scenes.serving import view

    class Quitting(SceneKit):
        def ask(self, question, *arguments):
            raise ProcessStopped("the app is quitting: no more counts")

    view._warm(Quitting(Language("en"), ScenarioStore(own_scenario(1_117)), THEMES["light"]))     # returns, raises nothing
