"""Scene 2's view: what-ifs never change the shared scenario, the bars end at the engine's numbers,
every build lays out readable in both languages, and a refused GPU count shows inline."""
from __future__ import annotations

import itertools

import pytest

from desktop.i18n import Language
from desktop.scenario_store import ScenarioStore
from desktop.kit.scene import SceneKit, create_scene
from desktop.scenes.model_memory.view import ModelMemoryScene
from desktop.scenes.model_memory.story import BUILDS
from engine import Scenario
from tests.desktop.test_model_memory_nodes import MULTI_NODE
from widgets.theme import THEMES, for_screen


def make(qtbot, code="en", screen=(1024, 768), store=None, theme="light"):
    store = store or ScenarioStore()
    scene = create_scene(ModelMemoryScene, SceneKit(Language(code), store, for_screen(THEMES[theme], screen[1])))
    qtbot.addWidget(scene)
    store.changed.connect(scene.on_report)         # as the deck passes each change on to the shown scene
    scene.resize(int(screen[0] * 0.97), int(screen[1] * 0.72))   # the stage of the slide at that screen
    scene.show()
    qtbot.waitExposed(scene)
    return scene


def settle(scene):
    scene.clock.set_seconds(scene.clock.seconds() + 1.0)


def visible_bars(scene):
    return [bars for bars in scene.bars if bars.isVisible()]


def test_stepping_builds_never_changes_the_shared_scenario(qtbot):
    store = ScenarioStore()
    before = store.scenario
    scene = make(qtbot, store=store)
    for index in [*range(len(BUILDS)), *reversed(range(len(BUILDS)))]:
        scene.go_to_build(index)
        settle(scene)
    scene.reset()
    assert store.scenario == before


def test_the_opening_is_the_seeds_problem_as_a_what_if(qtbot):
    scene = make(qtbot)
    scenario, report = scene.stage_subject()
    assert (scenario.model, scenario.weights, scenario.gpus, scenario.gpu) == ("llama-3.1-70b", "fp16", 1, "h800")
    assert not report.fits
    assert scene.kit.store.scenario.gpus == 2          # the shared one still fits on two
    texts = {text.key: text.text for text in _drawn(scene)}
    assert "141 GB" in texts["column.weights"] and "over" in texts["column.over"]
    assert "61.1 GB" in scene.caption()


@pytest.mark.parametrize("build", range(len(BUILDS)))
def test_bars_end_exactly_at_the_engines_numbers(qtbot, build):
    scene = make(qtbot)
    scene.go_to_build(build)
    settle(scene)
    results = scene.story().results
    phase = BUILDS[build]
    shown = [results[way] for way in ("quantise", "split", "smaller")] if phase == "compare" else [results[phase]]
    for bars, report in zip(visible_bars(scene), shown, strict=True):
        state = bars.shown_state()
        assert state is bars.state and not bars.animating()
        assert len(state.bars) == report.scenario.gpus
        for bar in state.bars:
            assert [s.bytes for s in bar.segments] == [report.weights_bytes_per_gpu, report.kv_bytes_per_gpu,
                                                        report.overhead_bytes_per_gpu]
            assert bar.capacity_bytes == report.hbm_bytes_per_gpu
            assert bool(bar.over_label) == (not report.fits)


def test_mid_transition_the_bars_are_between_builds(qtbot):
    scene = make(qtbot)
    settle(scene)
    problem = scene.story().results["problem"].weights_bytes_per_gpu
    scene.go_to_build(1)
    scene.clock.set_seconds(scene.clock.seconds() + 0.1)
    bars = scene.bars[0]
    assert bars.animating()
    weights = bars.shown_state().bars[0].segments[0].bytes
    assert scene.story().results["quantise"].weights_bytes_per_gpu < weights < problem


def _drawn(scene):
    texts = []
    for bars in visible_bars(scene):
        bars.grab()
        offset = bars.geometry().topLeft().toPointF()
        texts += [(text, text.rect.translated(offset)) for text in bars.drawn_texts()]
    return [text for text, _ in texts] if texts else []


def _check_readable(scene):
    floor = scene.kit.theme.text_floor_px
    placed = []
    for bars in visible_bars(scene):
        bars.grab()
        offset = bars.geometry().topLeft().toPointF()
        inside = bars.rect().toRectF().adjusted(-0.5, -0.5, 0.5, 0.5)
        for text in bars.drawn_texts():
            assert text.px >= floor, (text.key, text.px)
            assert inside.contains(text.rect), (text.key, text.text)
            placed.append((text, text.rect.translated(offset)))
    for (a, ra), (b, rb) in itertools.combinations(placed, 2):
        assert ra.intersected(rb).isEmpty(), (a.key, a.text, b.key, b.text)
    return placed


@pytest.mark.parametrize("code", ("en", "zh"))
@pytest.mark.parametrize("screen", [(1024, 768), (1920, 1080)])
def test_every_build_is_readable_without_overlaps(qtbot, code, screen):
    scene = make(qtbot, code, screen)
    for index in range(len(BUILDS)):
        scene.go_to_build(index)
        settle(scene)
        assert _check_readable(scene), BUILDS[index]


@pytest.mark.parametrize("code", ("en", "zh"))
@pytest.mark.parametrize("screen", [(1024, 768), (1920, 1080)])
@pytest.mark.parametrize("gpus", [1, 2, 4, 8])
def test_explore_lays_out_one_to_eight_gpus(qtbot, code, screen, gpus):
    store = ScenarioStore(Scenario(gpus=gpus, weights="fp8"))
    scene = make(qtbot, code, screen, store)
    scene.go_to_build(len(BUILDS) - 1)
    settle(scene)
    state = scene.bars[0].state
    assert len(state.bars) == gpus
    keys = {text.key for text, _ in _check_readable(scene)}
    assert "footer" in keys and "column.weights" in keys
    assert ("link" in keys) == (gpus > 1)


def test_explore_follows_the_shared_scenario_and_shows_a_refusal_inline(qtbot):
    store = ScenarioStore()
    scene = make(qtbot, store=store)
    scene.go_to_build(len(BUILDS) - 1)
    assert store.update(weights="int4", gpus=1)
    settle(scene)
    bar = scene.bars[0].state.bars[0]
    assert bar.segments[0].bytes == store.report.weights_bytes_per_gpu
    assert scene.bars[0].state.footer.startswith("Fits")
    with qtbot.waitSignal(store.error):
        assert not store.update(gpus=3)
    state = scene.bars[0].state
    assert "3" in state.footer and state.footer_role == "warning"
    assert store.scenario.gpus == 1
    texts = {text.key: text.text for text in _drawn(scene)}
    assert texts["footer"].replace("\n", " ") == state.footer
    assert store.update(gpus=2)
    assert scene.bars[0].state.footer.startswith("Fits")


def test_switching_language_rewrites_the_bars(qtbot):
    scene = make(qtbot, "en")
    scene.kit.language.set_code("zh")
    scene.retranslate()
    assert scene.bars[0].state.bars[0].segments[0].label.startswith("权重")
    assert "放不下" in scene.bars[0].state.footer


def test_the_corner_says_the_first_builds_show_the_tutorials_case_not_the_panels(qtbot):
    from desktop.stage_subject import subject_texts
    store = ScenarioStore(Scenario(gpu="h100-sxm", gpus=2))          # the panel: H100s
    language = Language("en")
    scene = create_scene(ModelMemoryScene, SceneKit(language, store, THEMES["light"]))
    qtbot.addWidget(scene)
    subject, _, note = subject_texts(language, scene)
    assert note == "The tutorial's case" and "H800" in subject and "H100" not in subject
    scene.go_to_build(BUILDS.index("explore"), animate=False)
    subject, _, note = subject_texts(language, scene)
    assert note == "" and "H100" in subject


@pytest.mark.parametrize("code", ("zh", "en"))
def test_the_nodes_build_shows_the_node_boundary_at_1024x768(qtbot, code):
    scene = make(qtbot, code, (1024, 768))
    scene.go_to_build(BUILDS.index("nodes"))
    settle(scene)
    state = scene.bars[0].state
    report = scene.story().results["nodes"]
    assert len(state.nodes) == report.nodes == 2 and len(state.bars) == report.scenario.gpus
    drawn = {text.key: text.text for text, _ in _check_readable(scene)}
    assert {"node.0", "node.1", "link", "network", "footer"} <= set(drawn)
    assert drawn["network"].replace("\n", " ") == state.network_label
    frame = scene.bars[0]._frame
    assert len(frame.node_frames) == 2 and frame.node_frames[0].right() < frame.node_frames[1].left()
    assert frame.bar_width >= scene.kit.theme.floor_px          # sixteen bars, none a sliver


@pytest.mark.parametrize("theme", ("light", "projector"))
@pytest.mark.parametrize("code, screen", [("zh", (1024, 768)), ("en", (1024, 768)), ("en", (1920, 1080)),
                                          ("zh", (1920, 1080))])
@pytest.mark.parametrize("changes", MULTI_NODE, ids=lambda c: "-".join(str(v) for v in c.values()))
def test_explore_past_one_node_groups_the_bars_readably(qtbot, changes, code, screen, theme):
    store = ScenarioStore(Scenario(**changes))
    scene = make(qtbot, code, screen, store, theme)
    scene.go_to_build(len(BUILDS) - 1)
    settle(scene)
    state = scene.bars[0].state
    assert len(state.nodes) == 2 and len(state.bars) <= 16
    keys = {text.key for text, _ in _check_readable(scene)}
    assert {"node.0", "node.1", "network", "footer", "column.weights"} <= keys
    frame = scene.bars[0]._frame
    assert frame.bar_width >= scene.kit.theme.floor_px


@pytest.mark.parametrize("code, screen", [("zh", (1024, 768)), ("en", (1920, 1080))])
@pytest.mark.parametrize("changes", [MULTI_NODE[0], MULTI_NODE[3]], ids=lambda c: c["model"])
def test_every_build_of_a_multi_node_scenario_is_readable(qtbot, changes, code, screen):
    scene = make(qtbot, code, screen, ScenarioStore(Scenario(**changes)))
    for index in range(len(BUILDS)):
        scene.go_to_build(index)
        settle(scene)
        assert _check_readable(scene), BUILDS[index]
        assert scene.story().phase() == BUILDS[index]          # no build of the story refused
