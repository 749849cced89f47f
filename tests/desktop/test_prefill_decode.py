"""Scene 4 as shown: blocks, share and crossover are the engine's, its controls change the shared scenario,
stepping builds never does, and its stage text stays readable in both languages."""
from __future__ import annotations

import dataclasses
import itertools

import pytest
from PySide6.QtCore import QRectF

from desktop.i18n import Language
from desktop.scenario_store import ScenarioStore
from desktop.kit.scene import SceneKit, create_scene
from desktop.scenes.prefill_decode import story as model
from desktop.scenes.prefill_decode.view import PrefillDecodeScene
from engine import Scenario
from engine.compute import decode_crossover_batch
from engine.scenario import MAX_CONTEXT_TOKENS
from engine.units import format_count, format_percent, format_seconds
from widgets.theme import THEMES, for_screen


@pytest.fixture
def make_scene(qtbot):
    def make(language: str = "en", scenario: Scenario | None = None, screen: int = 768,
             size=(1000, 560)) -> PrefillDecodeScene:
        store = ScenarioStore(scenario)
        scene = create_scene(PrefillDecodeScene,
                             SceneKit(Language(language), store, for_screen(THEMES["light"], screen)))
        store.changed.connect(scene.on_report)       # what the deck does for the shown scene
        qtbot.addWidget(scene)
        scene.resize(*size)
        return scene
    return make


def test_block_widths_are_the_engines_times(make_scene):
    scene = make_scene()
    report = scene.kit.store.report
    state = scene.timeline.state
    assert state.prefill_seconds == report.ttft_seconds == report.prefill.seconds
    assert state.decode_step_seconds == report.tpot_seconds
    assert state.decode_steps * state.decode_step_seconds == pytest.approx(report.decode_seconds, rel=1e-9)
    scene.grab()
    layout = scene.timeline.layout_now()
    bar = layout.main_bar
    prefill_px = layout.main_blocks[0].seconds / state.total_seconds * bar.width()
    assert prefill_px == pytest.approx(report.ttft_seconds / report.total_seconds * bar.width())


def test_the_decode_share_shown_is_the_engines(make_scene):
    scene = make_scene()
    scene.go_to_build(model.SHARE, animate=False)
    scene.grab()
    share = format_percent(scene.kit.store.report.decode_share)
    assert any(t.key == "figure_value" and t.text == share for t in scene.table.drawn_texts())
    assert share in scene.caption()


def test_the_crossover_shown_is_the_engines(make_scene):
    scene = make_scene()
    scene.go_to_build(model.BATCHING, animate=False)
    scene.grab()
    store = scene.kit.store
    crossover = decode_crossover_batch(store.scenario, store.catalog)
    if crossover is None:                      # the engine finds none up to the largest batch: the scene says so
        store.update(model="llama-3.1-8b", gpus=1, prompt_tokens=100, output_tokens=100)
        scene.grab()
        crossover = decode_crossover_batch(store.scenario, store.catalog)
    assert any(t.key == "figure_value" and t.text == format_count(crossover) for t in scene.table.drawn_texts())
    assert scene.story().what_if(batch=crossover).decode.bound == "compute"
    assert scene.story().what_if(batch=crossover - 1).decode.bound == "memory"
    assert format_count(crossover) in scene.caption()


def test_stepping_builds_never_changes_the_shared_scenario(make_scene):
    scene = make_scene()
    before = scene.kit.store.scenario
    for _ in range(scene.build_count + 1):
        scene.next_build()
    while scene.previous_build():
        pass
    scene.reset()
    assert scene.kit.store.scenario == before


def model_steps_per_doubling() -> int:
    from desktop.scenes.prefill_decode.view import BATCH_SLIDER_STEPS_PER_DOUBLING
    return BATCH_SLIDER_STEPS_PER_DOUBLING


def test_the_controls_change_the_shared_scenario(make_scene):
    scene = make_scene()
    scene.go_to_build(model.BATCHING, animate=False)
    scene.batch_slider.setValue(3 * model_steps_per_doubling())          # 2**3
    store = scene.kit.store
    assert store.scenario.batch == 8
    assert scene.timeline.state.prefill_seconds == store.report.ttft_seconds
    assert scene.table.state.highlight_row == 1            # batch 1 above it
    scene.batch_slider.setValue(scene.batch_slider.value() + 4)     # one doubling
    assert store.scenario.batch == 16
    scene.kit.store.update(prompt_tokens=2000, output_tokens=300)     # from the shared panel
    assert (store.scenario.prompt_tokens, store.scenario.output_tokens) == (2000, 300)
    assert scene.timeline.state.decode_steps == 299


def test_a_refused_length_is_shown_inline_and_changes_nothing(make_scene):
    scene = make_scene()
    store = scene.kit.store
    before = store.scenario
    assert not scene.set_field(prompt_tokens=MAX_CONTEXT_TOKENS)    # with 500 output tokens: over the limit
    assert store.scenario == before
    assert not scene.refusal_label.isHidden()
    assert scene.refusal_label.text()
    assert scene.set_field(output_tokens=200)
    assert scene.refusal_label.isHidden()


def test_a_change_from_the_side_panel_reaches_the_controls(make_scene):
    scene = make_scene()
    scene.kit.store.update(batch=64, gpu="h200")
    assert round(2 ** (scene.batch_slider.value() / model_steps_per_doubling())) == 64
    assert scene.story().crossover == decode_crossover_batch(scene.kit.store.scenario, scene.kit.catalog)


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("screen, size", [(768, (760, 470)), (1080, (1500, 720))])
def test_stage_text_is_readable_inside_and_never_overlaps(make_scene, language, screen, size):
    scene = make_scene(language, screen=screen, size=size)
    floor = scene.kit.theme.text_floor_px
    for build in range(scene.build_count):
        scene.go_to_build(build, animate=False)
        scene.grab()
        for widget in (scene.timeline, scene.table):
            drawn = widget.drawn_texts()
            assert drawn or (widget is scene.table and build == 0)
            bounds = QRectF(widget.rect()).adjusted(-0.5, -0.5, 0.5, 0.5)
            for text in drawn:
                assert text.px >= floor and bounds.contains(text.rect), (build, text)
            for a, b in itertools.combinations(drawn, 2):
                assert not a.rect.intersected(b.rect).adjusted(0.5, 0.5, -0.5, -0.5).isValid(), (build, a, b)


@pytest.mark.parametrize("changes", [dict(output_tokens=1), dict(prompt_tokens=1, output_tokens=9_999_999),
                                     dict(batch=4096), dict(model="llama-3.1-8b", gpus=1, prompt_tokens=1)])
def test_edge_scenarios_render_every_build(make_scene, changes):
    """Every build draws the engine's times (those whose labels fit), and the whole bar is the request to scale:
    prefill's colour where it starts, decode's where it ends (none when there is no decode step)."""
    scene = make_scene(scenario=dataclasses.replace(Scenario(gpus=2), **changes))
    report = scene.kit.store.report
    expected = {"end": format_seconds(report.total_seconds), "prefill_block": format_seconds(report.ttft_seconds),
                "decode_block": format_seconds(report.decode_seconds)}
    for build in range(scene.build_count):
        scene.go_to_build(build, animate=False)
        assert scene.caption() and scene.notes()
        scene.grab()
        drawn = {t.key: t.text for t in scene.timeline.drawn_texts()}
        assert "end" in drawn and ("prefill_block" in drawn or "decode_block" in drawn), (build, drawn)
        for key, seconds in expected.items():
            assert key not in drawn or seconds in drawn[key], (build, key, drawn[key], seconds)
    image = scene.timeline.grab().toImage()
    bar = scene.timeline.layout_now().main_bar
    y, theme = round(bar.bottom() - 3), scene.kit.theme
    prefill_px = report.ttft_seconds / report.total_seconds * bar.width()

    def colours_near(x: float) -> set:           # decode's blocks are hatched (grey print tells them apart): a patch
        return {image.pixelColor(round(x) + dx, y + dy).name() for dx in range(-2, 3) for dy in range(-2, 1)}

    if prefill_px >= 8:
        assert theme.color("compute").name() in colours_near(bar.left() + 3)
    end_role = "memory" if scene.timeline.state.decode_steps else "compute"
    assert theme.color(end_role).name() in colours_near(bar.right() - 3)


def test_strips_ease_in_and_clicking_fast_ends_where_clicking_slowly_does(make_scene):
    from widgets.transition import TRANSITION_SECONDS
    fast, slow = make_scene(), make_scene()
    for _ in range(model.DECODE):
        fast.next_build()                                  # no time passes between clicks
        slow.next_build()
        slow.clock.set_seconds(slow.clock.seconds() + TRANSITION_SECONDS + 0.01)
    fast.clock.set_seconds(fast.clock.seconds() + TRANSITION_SECONDS / 2)
    assert 0 < fast.timeline.state.strip_reveal[1] < 1             # the decode strip is filling in
    fast.clock.set_seconds(fast.clock.seconds() + TRANSITION_SECONDS)
    assert fast.timeline.state == slow.timeline.state
    assert fast.timeline.state.strip_reveal == (1.0, 1.0)


def test_a_dragged_batch_never_holds_the_strips_easing_back(make_scene):
    """Each step of the slider (a new scenario, shown animated) leaves the strips' easing as it is: it ends on time,
    and from then on every step shows the whole fill (retargeted on each step it would start over and crawl)."""
    from widgets.transition import TRANSITION_SECONDS
    scene = make_scene()
    scene.show()
    start = scene.clock.seconds()
    scene.go_to_build(model.DECODE, animate=True)          # the decode strip starts filling in
    for step in range(1, 7):                               # a step a quarter of the easing, over one and a half
        scene.clock.set_seconds(start + step * TRANSITION_SECONDS / 4)
        scene.batch_slider.setValue(8 + step)
        if step < 4:
            assert scene.timeline.state.strip_reveal[1] < 1
        else:
            assert scene.timeline.state.strip_reveal == (1.0, 1.0)
    assert scene.timeline.state == scene.story().timeline()     # what the build shows at rest


def test_a_language_switch_reaches_stage_controls_and_notes(make_scene):
    scene = make_scene("en")
    scene.go_to_build(model.SHARE, animate=False)
    assert "Other mode: in ideal mode" in scene.notes()
    scene.kit.language.set_code("zh")
    scene.retranslate()
    assert scene.timeline.state.labels["scale"] == "一个请求（按比例）"
    assert scene.table.state.figure_label == "花在 Decode 上的时间"
    assert "理想模式" in scene.notes() and scene._batch_label.text().startswith("Batch")


@pytest.mark.parametrize("batch", [1, 64])
def test_the_bar_is_drawn_to_scale(make_scene, batch):
    scene = make_scene(scenario=dataclasses.replace(Scenario(gpus=2), batch=batch))
    image = scene.timeline.grab().toImage()
    report = scene.kit.store.report
    bar = scene.timeline.layout_now().main_bar
    split = bar.left() + report.ttft_seconds / report.total_seconds * bar.width()
    y = round(bar.bottom() - 3)                     # below the label plate
    theme = scene.kit.theme
    assert image.pixelColor(round(split - 3), y) == theme.color("compute")     # prefill ends here ...
    assert image.pixelColor(round(split + 3), y) == theme.color("memory")      # ... and decode begins


def test_a_batch_dragged_back_to_shows_what_a_fresh_scene_shows(make_scene):
    """The timeline and the table keep the layouts of the batches passed (``StateWidget.layouts_kept``): back at a
    batch, they draw exactly what a scene that never left it draws."""
    scene = make_scene()
    scene.go_to_build(model.PRICE, animate=False)
    for value in (12, 13, 20, 12):
        scene.batch_slider.setValue(value)
        scene.grab()
    fresh = make_scene(scenario=scene.kit.store.scenario)
    fresh.go_to_build(model.PRICE, animate=False)
    for kept, new in ((scene.timeline, fresh.timeline), (scene.table, fresh.table)):
        assert kept.state == new.state and hash(kept.state) == hash(new.state)
        assert kept.grab().toImage() == new.grab().toImage()
        assert kept.drawn_texts() == new.drawn_texts()


@pytest.mark.parametrize("build", [model.BATCHING, model.PRICE])
def test_a_batch_dragged_across_a_sweep_row_leaves_the_header_and_the_text_size_alone(make_scene, build):
    """A row that comes or goes as the batch passes a fixed batch (7, 8, 10: the scenario's row joins the 8's,
    then the 256's comes back) moves the rows below it, nothing else: the columns keep their widths and the text
    its size (``TableState.widest``, ``rows_sized_for``), so the header is not painted again."""
    scene = make_scene(screen=1080, size=(1848, 825))         # the table at 1848x396, as on a 1080p projector
    scene.go_to_build(build, animate=False)
    seen = []
    for value in (11, 12, 13):          # batches 7, 8 and 10
        scene.batch_slider.setValue(value)
        scene.table.grab()
        texts = scene.table.drawn_texts()
        cells = [t for t in texts if not t.key.startswith(("figure", "footnote"))]      # the header's and rows'
        seen.append(([t for t in cells if t.key.startswith("header.")], {t.px for t in cells}))
    assert [scene.kit.store.scenario.batch] == [10]
    headers, sizes = zip(*seen)
    assert headers[0] and headers[0] == headers[1] == headers[2]
    assert len(set().union(*sizes)) == 1
