"""Scene 1's view: it hands the widgets the story's states, steps both ways, and holds the presenter standard."""
import dataclasses

import pytest
from PySide6.QtCore import QRectF, QSize
from PySide6.QtWidgets import QComboBox

from desktop.i18n import Language
from desktop.scenario_store import DEFAULT_SCENARIO, ScenarioStore
from desktop.kit import questions
from desktop.kit.scene import SceneKit, create_scene
from desktop.scenes.gpu_waits.story import BUILDS
from desktop.scenes.gpu_waits.view import GpuWaitsScene
from desktop.slide import SlideFrame
from engine import Scenario, roofline
from engine.catalog import default_catalog
from engine.units import format_percent, format_seconds
from widgets.conveyor_state import ESSENTIAL_LABELS, belt_speed_boxes_per_second, busy_share, gear_turns_per_second
from widgets.theme import THEMES, for_screen
from widgets.transition import TRANSITION_SECONDS

CATALOG = default_catalog()
NO_PREFILL = dataclasses.replace(DEFAULT_SCENARIO, prompt_tokens=1, output_tokens=130_500)


@pytest.fixture
def make_scene(qtbot):
    def make(language: str = "en", scenario: Scenario | None = None, theme=THEMES["light"]) -> GpuWaitsScene:
        store = ScenarioStore(scenario)
        scene = create_scene(GpuWaitsScene, SceneKit(Language(language), store, theme))
        store.changed.connect(scene.on_report)      # what the deck does for the shown scene
        qtbot.addWidget(scene)
        scene.resize(1280, 600)
        return scene
    return make


def what_if(scene: GpuWaitsScene, **changes):
    """The engine's report for the shared scenario with ``changes``, from the kit's one cache."""
    return scene.kit.ask(questions.report, dataclasses.replace(scene.kit.store.scenario, **changes))


def finish_transitions(scene: GpuWaitsScene) -> None:
    scene.clock.set_seconds(scene.clock.seconds() + TRANSITION_SECONDS + 0.01)


def engine_utilisation(scene: GpuWaitsScene) -> float:
    """The roofline's share at the scene's intensity, for the GPU and precision its belt shows."""
    gpu = CATALOG.gpu(scene.kit.store.scenario.gpu)
    precision = CATALOG.precision("fp8" if scene.build_index == BUILDS.index("fp8")
                                  else scene.kit.store.scenario.weights)
    return roofline.utilisation(gpu, precision, scene.intensity)


@pytest.mark.parametrize("gpu_id", ["h800", "a100-80gb", "h200", "b200", "rtx-4090"])
@pytest.mark.parametrize("flops_per_byte", [1.0, 20.0, 300.0, 5000.0])
def test_idle_share_shown_is_one_minus_the_engines_utilisation(make_scene, gpu_id, flops_per_byte):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("decode"), animate=False)
    scene.kit.store.update(gpu=gpu_id)
    scene.set_intensity(flops_per_byte)
    state = scene.belt.state
    utilisation = engine_utilisation(scene)
    assert state.labels["idle"] == f"idle {format_percent(1 - utilisation)}"
    assert state.labels["busy"] == f"busy {format_percent(utilisation)}"
    assert busy_share(state) == pytest.approx(utilisation)     # and the animation agrees


def test_decode_on_an_h800_leaves_the_worker_idle_over_99_percent(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("decode"), animate=False)
    report = scene.kit.store.report
    assert scene.intensity == pytest.approx(report.decode.flops_per_token / report.decode.bytes_per_token)
    assert 1 - busy_share(scene.belt.state) > 0.99


def test_changing_the_gpu_changes_belt_and_worker_in_proportion(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("numbers"), animate=False)
    before = scene.belt.state
    scene.kit.store.update(gpu="b200")          # the shared scenario panel's GPU picker
    after = scene.belt.state
    assert scene.kit.store.scenario.gpu == "b200"
    h800, b200 = CATALOG.gpu("h800"), CATALOG.gpu("b200")
    assert belt_speed_boxes_per_second(after) / belt_speed_boxes_per_second(before) == pytest.approx(
        b200.memory_bandwidth_bytes_per_second / h800.memory_bandwidth_bytes_per_second)
    assert gear_turns_per_second(after) / gear_turns_per_second(before) == pytest.approx(
        b200.flops_per_second["fp16"] / h800.flops_per_second["fp16"])
    assert after.labels["bandwidth"] == "7.7 TB/s"


def test_builds_step_forward_and_back_and_each_equals_a_jump(make_scene):
    stepped, jumped = make_scene(), make_scene()
    for index in range(1, len(BUILDS)):
        assert stepped.next_build()
        finish_transitions(stepped)
        jumped.go_to_build(index, animate=False)
        assert stepped.belt.state == jumped.belt.state, BUILDS[index]
        assert stepped.caption() == jumped.caption() and stepped.notes() == jumped.notes()
    assert not stepped.next_build()
    assert not stepped.plot.isHidden() and stepped.plot.width() > 0
    for index in reversed(range(len(BUILDS) - 1)):
        assert stepped.previous_build()
        finish_transitions(stepped)
        jumped.go_to_build(index, animate=False)
        assert stepped.belt.state == jumped.belt.state, BUILDS[index]
    assert not stepped.previous_build()
    assert stepped.plot.isHidden() and stepped.belt.width() == stepped.width()


def test_clicking_fast_ends_where_clicking_slowly_does(make_scene):
    fast, slow = make_scene(), make_scene()
    for _ in range(len(BUILDS)):
        fast.next_build()                      # no time passes between clicks
        slow.next_build()
        finish_transitions(slow)
    finish_transitions(fast)
    assert fast.belt.state == slow.belt.state
    assert fast.plot.state == slow.plot.state


def test_transitions_ease_within_their_time(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("ratio"), animate=False)
    ridge = scene.intensity
    scene.next_build()                          # to decode: the intensity slides down
    start = scene.clock.seconds()
    scene.clock.set_seconds(start + TRANSITION_SECONDS / 2)
    decode = scene.story().decode_intensity
    assert decode < scene.intensity < ridge
    scene.clock.set_seconds(start + TRANSITION_SECONDS)
    assert scene.intensity == pytest.approx(decode)


def test_fp8_build_shows_fp8_weights_without_changing_the_shared_scenario(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("decode"), animate=False)
    fp16_peak = scene.belt.state.peak_flops_per_second
    scene.next_build()
    finish_transitions(scene)
    fp16 = what_if(scene, weights="fp16", batch=1).decode
    fp8 = what_if(scene, weights="fp8", batch=1).decode
    assert scene.belt.state.peak_flops_per_second == pytest.approx(2 * fp16_peak, rel=1e-3)
    assert scene.intensity == pytest.approx(fp8.flops_per_token / fp8.bytes_per_token)     # half the bytes per FLOP
    assert busy_share(scene.belt.state) < 0.01                                           # and still waiting
    drawn = {text.key: text.text.replace("\n", " ") for text in scene.belt.drawn_texts()}
    assert drawn["step"].endswith(format_seconds(fp8.seconds_per_token).replace(" ", "\u00a0"))
    assert format_seconds(fp16.seconds_per_token).replace(" ", "\u00a0") in drawn["step"]
    assert fp8.seconds_per_token < fp16.seconds_per_token and fp8.memory_seconds < 0.55 * fp16.memory_seconds
    assert scene.kit.store.scenario.weights == "fp16"
    assert "FP8" in scene.belt.state.labels["peak"]
    scene.previous_build()
    assert scene.belt.state.peak_flops_per_second == pytest.approx(fp16_peak)


def test_choosing_a_precision_wins_over_the_fp8_build(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("fp8"), animate=False)
    assert not scene.override_label.isHidden()
    assert "FP8" in scene.override_label.text() and "FP16" in scene.override_label.text()
    scene.kit.store.update(weights="int4")       # the shared scenario panel's precision picker
    assert scene.kit.store.scenario.weights == "int4"
    assert "FP8" not in scene.belt.state.labels["peak"]
    assert scene.override_label.isHidden()


def test_the_scene_has_no_second_gpu_or_precision_picker(make_scene):
    """The shared scenario panel beside it holds GPU and precision: one way to do each thing."""
    scene = make_scene()
    for index in range(len(BUILDS)):
        scene.go_to_build(index, animate=False)
        assert not scene.controls().findChildren(QComboBox)
        assert scene.override_label.isHidden() == (BUILDS[index] != "fp8")


@pytest.mark.parametrize(("language", "unit"), [("en", " FLOP/byte"), ("zh", " FLOP/字节")])
def test_the_intensity_box_shows_its_unit_and_three_digits(make_scene, language, unit):
    scene = make_scene(language)
    box = scene.intensity_box
    scene.go_to_build(BUILDS.index("ratio"), animate=False)
    assert box.suffix() == unit and box.text() == "295" + unit
    scene.go_to_build(BUILDS.index("decode"), animate=False)
    assert box.text() == "1.02" + unit
    scene.intensity_slider.setValue(scene.intensity_slider.maximum())
    assert box.text() == "10000" + unit
    box.lineEdit().selectAll()
    box.lineEdit().insert("50")
    box.interpretText()
    assert scene.intensity == pytest.approx(50)


def test_a_gpu_without_fp8_says_so_in_the_fp8_build(make_scene):
    scene = make_scene(scenario=Scenario(gpu="a100-80gb"))
    scene.go_to_build(BUILDS.index("fp8"), animate=False)
    assert "no FP8" in scene.caption()
    assert scene.belt.state.peak_flops_per_second == CATALOG.gpu("a100-80gb").flops_per_second["fp16"]


def test_presets_come_from_the_engine(make_scene):
    scene = make_scene()
    scene.prefill_button.click()
    finish_transitions(scene)
    prefill = what_if(scene, prompt_tokens=1000, batch=1).prefill
    assert scene.intensity == pytest.approx(prefill.flops / prefill.bytes)
    scene.decode_button.click()
    finish_transitions(scene)
    decode = what_if(scene, batch=1).decode
    assert scene.intensity == pytest.approx(decode.flops_per_token / decode.bytes_per_token)
    assert scene.intensity_box.value() == pytest.approx(scene.intensity, abs=0.01)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_preset_the_engine_refuses_is_unavailable_and_nothing_raises(make_scene, language):
    scene = make_scene(language, NO_PREFILL)
    assert scene.kit.store.scenario == NO_PREFILL
    assert not scene.prefill_button.isEnabled()
    assert "131,072" in scene.prefill_button.toolTip()             # the engine's reason, in the language
    before = scene.intensity
    scene.prefill_button.click()
    assert scene.intensity == before
    scene.go_to_build(BUILDS.index("roofline"), animate=False)
    assert scene.plot.point_position("prefill") is None and scene.plot.point_position("decode") is not None
    assert scene.phase() == "roofline_without_prefill" and scene.caption() and scene.notes()
    scene.kit.store.update(output_tokens=500)                  # back in range: the preset returns
    assert scene.prefill_button.isEnabled() and scene.plot.point_position("prefill") is not None


def test_the_intensity_control_is_log_scale_from_its_slider(make_scene):
    scene = make_scene()
    scene.intensity_slider.setValue(scene.intensity_slider.maximum())
    assert scene.intensity == pytest.approx(10_000)
    scene.intensity_slider.setValue(200)
    assert scene.intensity == pytest.approx(100)
    scene.intensity_box.setValue(50_000)           # beyond the range: the box refuses it
    assert scene.intensity == pytest.approx(10_000)


def test_roofline_points_follow_the_scenario(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("roofline"), animate=False)
    decode_x, _ = scene.plot.point_position("decode")
    ridge_text = scene.plot.ridge_text()
    scene.kit.store.update(weights="int4")
    assert scene.plot.point_position("decode")[0] > 3 * decode_x      # int4 weights: a quarter of the bytes
    scene.kit.store.update(gpu="rtx-4090")
    assert scene.plot.ridge_text() != ridge_text


@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_build_has_a_filled_caption_in_both_languages(make_scene, language):
    for scenario in (Scenario(), Scenario(gpu="a100-80gb"), Scenario(gpu="b200", weights="fp8")):
        scene = make_scene(language, scenario)
        for index in range(len(BUILDS)):
            scene.go_to_build(index, animate=False)
            caption = scene.caption()
            assert caption and "{" not in caption
        assert scene.title()


def test_language_switch_rewrites_the_labels(make_scene):
    scene = make_scene("en")
    scene.go_to_build(BUILDS.index("decode"), animate=False)
    assert scene.belt.state.labels["idle"].startswith("idle")
    scene.kit.language.set_code("zh")
    scene.retranslate()
    assert scene.belt.state.labels["idle"].startswith("空闲")
    assert scene.decode_button.text() == "decode（batch 1）"
    assert scene.intensity_box.suffix() == " FLOP/字节"


def test_export_shows_the_last_build_at_rest(make_scene):
    scene = make_scene()
    scene.prepare_for_export()
    assert scene.build_index == len(BUILDS) - 1
    assert scene.plot.width() > 0 and scene.plot.state is not None
    assert scene.intensity == pytest.approx(scene.story().decode_intensity)


@pytest.mark.parametrize("size", [(320, 240), (3840, 2160)])
def test_scene_paints_at_small_and_large_sizes(make_scene, size):
    scene = make_scene("zh")
    scene.resize(*size)
    scene.prepare_for_export()
    image = scene.grab().toImage()
    assert (image.width(), image.height()) == size


@pytest.mark.parametrize("scenario", [DEFAULT_SCENARIO, Scenario(gpu="a100-80gb", gpus=2),
                                      Scenario(gpu="b200", weights="fp8"), Scenario(weights="int4")])
def test_the_roofline_build_shows_the_scenarios_own_precision(make_scene, scenario):
    scene = make_scene(scenario=scenario)
    scene.go_to_build(BUILDS.index("roofline"), animate=False)
    gpu, precision = CATALOG.gpu(scenario.gpu), CATALOG.precision(scenario.weights)
    ridge = roofline.ridge_point(gpu, precision)
    assert scene.plot.state.ridge_flops_per_byte == pytest.approx(ridge)
    assert scene.plot.state.roof[1][1] == pytest.approx(roofline.peak_flops(gpu, precision))
    # Every number on the stage belongs to that precision: the worker, the points, the caption.
    assert scene.belt.state.peak_flops_per_second == pytest.approx(roofline.peak_flops(gpu, precision))
    decode_x, decode_flops = scene.plot.point_position("decode")
    assert decode_x == pytest.approx(scene.story().decode_intensity)
    assert decode_flops == pytest.approx(roofline.attainable_flops(gpu, precision, decode_x))
    ridge_words = scene.story().intensity_text(ridge)
    assert ridge_words in scene.plot.ridge_text() and ridge_words.replace("\u00a0", " ") in \
        scene.caption().replace("\u00a0", " ")


def test_the_h800_roofline_is_labelled_with_the_fp16_ridge(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("roofline"), animate=False)
    assert scene.plot.state.ridge_flops_per_byte == pytest.approx(295, abs=1)
    assert "FP16" in scene.belt.state.labels["peak"]


def test_the_fp8_build_shows_the_fp8_peak_and_stepping_through_it_is_reversible(make_scene):
    scene, jumped = make_scene(), make_scene()
    gpu = CATALOG.gpu("h800")
    fp8, fp16 = CATALOG.precision("fp8"), CATALOG.precision("fp16")
    scene.go_to_build(BUILDS.index("fp8"), animate=False)
    assert scene.belt.state.peak_flops_per_second == pytest.approx(roofline.peak_flops(gpu, fp8))
    fp8_state, fp8_caption = scene.belt.state, scene.caption()
    scene.next_build()                          # to the roofline: back to FP16
    finish_transitions(scene)
    assert scene.belt.state.peak_flops_per_second == pytest.approx(roofline.peak_flops(gpu, fp16))
    assert scene.belt.state.labels["ratio"].endswith(f"{roofline.ridge_point(gpu, fp16):.0f}\u00a0FLOP per byte")
    assert scene.plot.state.ridge_flops_per_byte == pytest.approx(roofline.ridge_point(gpu, fp16))
    jumped.go_to_build(BUILDS.index("roofline"), animate=False)
    assert scene.belt.state == jumped.belt.state and scene.plot.state == jumped.plot.state
    scene.previous_build()                      # and back: the FP8 view again
    finish_transitions(scene)
    assert scene.belt.state == fp8_state and scene.caption() == fp8_caption
    assert scene.plot.isHidden()


def test_the_roofline_plot_is_made_in_idle_time_after_the_first_show(make_scene, qtbot):
    scene = make_scene()
    for index in range(BUILDS.index("roofline")):
        scene.go_to_build(index, animate=False)
        assert scene.plot is None, BUILDS[index]          # nothing shown yet: start-up pays nothing for it
    scene.go_to_build(0, animate=False)
    scene.show()
    qtbot.waitUntil(lambda: scene.plot is not None)       # a zero-timer after the first frame
    qtbot.waitUntil(lambda: not scene.idle.pending)         # then its layout and one hidden paint, a turn each
    plot = scene.plot
    assert plot.isHidden() and plot.state is not None
    laid_out = plot._layout
    for index in range(1, len(BUILDS)):
        scene.next_build()
    finish_transitions(scene)
    assert scene.plot is plot and not plot.isHidden()
    assert plot._layout is laid_out                       # prepared: stepping in only moved the control's point
    scene.previous_build()
    scene.next_build()
    assert scene.plot is plot                             # created once


def test_an_unshown_scene_makes_the_plot_when_a_build_needs_it(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("roofline"), animate=False)
    assert scene.plot is not None and scene.plot.state is not None


def test_the_belt_beside_the_roofline_is_compact_and_gets_the_space(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("roofline"), animate=False)
    assert scene.belt.state.compact
    assert scene.belt.width() + scene.plot.width() == scene.width()
    assert scene.plot.geometry().right() == scene.width() - 1


# The stage of the scene: normal window and presentation, at 1024x768 and 1920x1080, and the smallest.
STAGE_SIZES = [(450, 400), (570, 420), (900, 600), (1850, 700), (980, 430), (320, 240)]


@pytest.mark.parametrize("size", STAGE_SIZES)
@pytest.mark.parametrize("language", ["en", "zh"])
def test_belt_labels_never_overlap_or_leave_the_widget_and_essentials_stay(make_scene, size, language):
    scene = make_scene(language)
    scene.resize(*size)
    for index, name in enumerate(BUILDS):
        scene.go_to_build(index, animate=False)
        belt = scene.belt
        if belt.isHidden():                   # a small stage: the roofline build shows the roofline alone
            assert name == "roofline" and scene.plot.width() == size[0]
            continue
        belt.grab()                                     # paints from the same layout
        rects = belt.label_rects()
        shapes = belt.shape_rects()
        inside = QRectF(0, 0, belt.width(), belt.height())
        for key, rect in rects.items():
            assert inside.contains(rect), (name, key, rect)
            assert rect.height() > 0 and rect.width() > 0
            for shape, area in shapes.items():
                assert not rect.intersects(area), (name, key, shape)
        keys = sorted(rects)
        for n, first in enumerate(keys):
            for second in keys[n + 1:]:
                assert not rects[first].intersects(rects[second]), (name, first, second)
        shown = {key for key, text in belt.state.labels.items() if text}
        if size[0] >= 400:                    # smaller, not every essential word fits at a readable size
            assert ESSENTIAL_LABELS & shown <= set(rects), (name, sorted(ESSENTIAL_LABELS & shown - set(rects)))


@pytest.mark.parametrize("language", ["en", "zh"])
def test_belt_text_grows_with_the_stage(make_scene, language):
    scene = make_scene(language)
    scene.go_to_build(BUILDS.index("decode"), animate=False)
    heights = []
    for size in [(450, 400), (980, 430), (1850, 700)]:
        scene.resize(*size)
        scene.go_to_build(BUILDS.index("decode"), animate=False)     # a hidden scene gets no resize event
        heights.append(scene.belt.label_rects()["capacity"].height())
    assert heights[0] < heights[1] < heights[2]
    scene.resize(320, 240)
    scene.go_to_build(BUILDS.index("decode"), animate=False)
    assert min(rect.height() for rect in scene.belt.label_rects().values()) >= 12     # the readable floor


def test_a_narrow_stage_puts_the_gauge_below_the_belt(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("decode"), animate=False)
    scene.resize(520, 440)
    scene.go_to_build(BUILDS.index("decode"), animate=False)
    shapes = scene.belt.shape_rects()
    assert shapes["gauge"].top() > shapes["belt"].bottom()
    scene.resize(1850, 700)
    scene.go_to_build(BUILDS.index("decode"), animate=False)
    shapes = scene.belt.shape_rects()
    assert shapes["gauge"].top() < shapes["belt"].top()


def test_the_decode_preset_is_batch_1_whatever_the_scenarios_batch(make_scene):
    scene = make_scene(scenario=Scenario(batch=8, gpus=2))
    batch_1 = what_if(scene, batch=1).decode
    batch_8 = scene.kit.store.report.decode
    assert batch_8.flops_per_token / batch_8.bytes_per_token > 5     # the scenario's own batch is elsewhere
    scene.go_to_build(BUILDS.index("decode"), animate=False)
    assert scene.intensity == pytest.approx(batch_1.flops_per_token / batch_1.bytes_per_token)
    assert "1.02\u00a0FLOP/byte" in scene.caption() and "batch 1" in scene.caption()
    scene.go_to_build(BUILDS.index("roofline"), animate=False)
    assert scene.plot.point_position("decode")[0] == pytest.approx(scene.intensity)
    scene.intensity_slider.setValue(0)
    scene.decode_button.click()
    finish_transitions(scene)
    assert scene.intensity == pytest.approx(batch_1.flops_per_token / batch_1.bytes_per_token)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_stage_shows_one_figure_in_the_scenarios_mode_and_the_notes_the_other(make_scene, language):
    scene = make_scene(language, Scenario(mode="realistic", gpus=2))
    scene.resize(1850, 700)
    scene.go_to_build(BUILDS.index("decode"), animate=False)
    realistic = format_percent(what_if(scene, batch=1).decode.utilisation)
    on_roofline = format_percent(engine_utilisation(scene))
    assert realistic != on_roofline
    drawn = " ".join(text.text.replace("\n", " ") for text in scene.belt.drawn_texts())
    assert realistic in drawn and on_roofline not in drawn
    assert on_roofline in scene.notes() and realistic in scene.notes()
    idle = [text for text in scene.belt.drawn_texts() if text.key == "idle"][0]
    assert idle.px == max(text.px for text in scene.belt.drawn_texts())       # one hero number


def test_ideal_mode_shows_the_roofline_figure_and_the_scene_follows_the_mode(make_scene):
    scene = make_scene(scenario=Scenario(mode="realistic", gpus=2))
    scene.go_to_build(BUILDS.index("decode"), animate=False)
    realistic = format_percent(what_if(scene, batch=1).decode.utilisation)
    assert scene.belt.state.labels["busy"].endswith(realistic)
    assert scene.kit.store.update(mode="ideal")
    on_roofline = format_percent(engine_utilisation(scene))
    assert scene.belt.state.labels["busy"].endswith(on_roofline)
    assert scene.belt.state.utilisation == engine_utilisation(scene)
    assert "roofline" in scene.belt.state.labels["basis"]


@pytest.mark.parametrize("gpu_id", ["h800", "a100-80gb", "b200"])
@pytest.mark.parametrize("flops_per_byte", [1.0, 300.0, 5000.0])
def test_the_belt_is_handed_the_engines_utilisation(make_scene, gpu_id, flops_per_byte):
    scene = make_scene(scenario=Scenario(gpu=gpu_id))
    scene.go_to_build(BUILDS.index("decode"), animate=False)
    scene.set_intensity(flops_per_byte)
    assert scene.belt.state.utilisation == engine_utilisation(scene)


def test_sliding_the_intensity_below_one_does_not_move_the_roof(make_scene):
    """The roof's left end (and with it the plot's x axis and layout) changes only when the control
    crosses the edge of the drawn range, not on every step of the slider."""
    scene = make_scene()
    scene.go_to_build(scene.build_count - 1, animate=False)
    roofs = []
    for value in (0.9, 0.8, 0.7):
        scene.set_intensity(value)
        roofs.append(scene.story().roofline_state(scene.intensity).roof)
    assert roofs[0] == roofs[1] == roofs[2]
    lower = []
    for value in (0.5, 0.3, 0.2, 0.1):
        scene.set_intensity(value)
        lower.append(scene.story().roofline_state(scene.intensity).roof)
    assert len(set(lower)) == 1 and lower[0] != roofs[0]
    assert lower[0][0][0] < 0.1                      # the whole control range is drawn


def caption_lines(frame: SlideFrame) -> int:
    label = frame.caption_label
    return round(label.heightForWidth(label.width()) / label.fontMetrics().lineSpacing())


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("screen", [(1024, 768), (1920, 1080)])
@pytest.mark.parametrize("scenario", [DEFAULT_SCENARIO, Scenario(gpu="a100-80gb", gpus=2), NO_PREFILL])
def test_captions_take_at_most_two_lines_on_a_projector(qtbot, language, screen, scenario):
    theme = for_screen(THEMES["projector"], screen[1])
    store = ScenarioStore(scenario)
    frame = SlideFrame(theme)
    qtbot.addWidget(frame)
    scene = create_scene(GpuWaitsScene, SceneKit(Language(language), store, theme))
    frame.stage.addWidget(scene)
    frame.set_presenting_height(screen[1])
    frame.resize(QSize(*screen))
    frame.show()
    qtbot.waitUntil(lambda: frame.caption_label.width() > screen[0] / 2)
    for index in range(scene.build_count):
        scene.go_to_build(index, animate=False)
        frame.set_texts(scene.title(), scene.caption())
        assert caption_lines(frame) <= 2, (BUILDS[index], scene.caption())


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize(("screen", "theme_id"), [((1024, 768), "light"), ((1920, 1080), "light"),
                                                  ((1024, 768), "projector"), ((1920, 1080), "dark")])
def test_no_stage_text_below_the_floor_nor_overlapping_in_any_build(make_scene, language, screen, theme_id):
    theme = for_screen(THEMES[theme_id], screen[1])
    scene = make_scene(language, theme=theme)
    scene.resize(screen[0] - 40, round(screen[1] * 0.62))          # the stage's share of the screen
    for index in range(scene.build_count):
        scene.go_to_build(index, animate=False)
        texts = []
        for widget in (scene.belt, scene.plot):
            if widget is not None and not widget.isHidden():
                offset = widget.geometry().topLeft()
                texts += [(f"{type(widget).__name__}.{t.key}", t.px, t.rect.translated(offset))
                          for t in widget.drawn_texts()]
        assert texts
        for n, (key, px, rect) in enumerate(texts):
            assert px >= theme.text_floor_px, (BUILDS[index], key, px)
            assert QRectF(scene.rect()).contains(rect), (BUILDS[index], key)
            for other, _, other_rect in texts[n + 1:]:
                assert not rect.intersects(other_rect), (BUILDS[index], key, other)


CHANGES = {
    "text floor": lambda scene: scene.set_theme(for_screen(THEMES["projector"], 1080)),   # another screen
    # New words on the belt. (Not a B200: stepping from fp8 to the roofline, its worker's time changes unit,
    # ms to µs, mid-transition, and those words get their layout on the first frame.)
    "gpu": lambda scene: scene.kit.store.update(gpu="h200"),
    "language": lambda scene: (scene.kit.language.set_code("zh"), scene.retranslate()),
}


@pytest.mark.parametrize(("language", "change"), [("en", "text floor"), ("zh", "text floor"), ("en", "gpu"),
                                                  ("en", "language")])
def test_stepping_through_the_builds_lays_nothing_out_once_the_scene_was_idle(make_scene, qtbot, monkeypatch,
                                                                              language, change):
    """Each build's layout is made in idle time after the scene is shown, and again after a new text floor
    (presenting on another screen), scenario or language, so a key press never waits on one."""
    import widgets.conveyor_belt as belt_module
    scene = make_scene(language)
    scene.show()
    qtbot.waitUntil(lambda: not scene.idle.pending)
    CHANGES[change](scene)
    assert scene.idle.pending
    qtbot.waitUntil(lambda: not scene.idle.pending)
    layouts = []
    real_lay_out = belt_module.lay_out
    monkeypatch.setattr(belt_module, "lay_out", lambda *args: layouts.append(args) or real_lay_out(*args))
    for index in range(1, scene.build_count):
        scene.next_build()
        finish_transitions(scene)
        scene.belt.grab()
    assert not layouts
    assert all(text.px >= scene.kit.theme.text_floor_px for text in scene.belt.drawn_texts())


def test_the_corner_names_the_fp8_what_if_while_the_fp8_build_shows_it(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("fp8"), animate=False)
    scenario, report = scene.stage_subject()
    assert (scenario.weights, scenario.batch) == ("fp8", 1) and report.weights_precision.id == "fp8"
    assert report is what_if(scene, weights="fp8", batch=1)
    scene.next_build()
    assert scene.stage_subject() == (scene.kit.store.scenario, scene.kit.store.report)
    scene.go_to_build(BUILDS.index("fp8"), animate=False)
    scene.kit.store.update(weights="int4")       # the person's precision wins: the corner names it
    assert scene.stage_subject()[0].weights == "int4"


def test_a_transition_touches_the_side_panel_once_at_its_end(make_scene, monkeypatch):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("ratio"), animate=False)
    calls = []
    for widget in (scene.intensity_slider, scene.intensity_box):
        monkeypatch.setattr(widget, "setValue", lambda value, widget=widget, real=widget.setValue:
                            calls.append(widget) or real(value))
    start = scene.clock.seconds()
    scene.go_to_build(BUILDS.index("decode"), animate=True)
    calls.clear()                                     # the key press itself may show the start
    for frame in range(1, 30):
        scene.clock.set_seconds(start + frame * TRANSITION_SECONDS / 20)
    assert sorted(map(id, calls)) == sorted(map(id, (scene.intensity_slider, scene.intensity_box)))
    assert scene.intensity_box.value() == pytest.approx(scene.story().decode_intensity, abs=0.01)


def test_a_render_never_shown_on_screen_does_no_idle_work(make_scene, qtbot):
    from PySide6.QtCore import Qt
    scene = make_scene()
    scene.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    scene.show()
    assert not scene.idle.pending                     # nothing scheduled
    scene.resize(1000, 500)
    scene.retranslate()
    scene.kit.store.update(gpu="b200")
    assert not scene.idle.pending and scene.plot is None


def test_the_clock_keeps_ticking_while_the_belt_shows_and_rests_when_nothing_moves(make_scene, qtbot):
    scene = make_scene()
    scene.show()
    now = scene.clock.seconds()
    for index in range(scene.build_count):
        scene.go_to_build(index, animate=False)
        assert scene.moving(now), BUILDS[index]                  # the boxes move continuously
    scene.resize(320, 240)                                       # the roofline build shows the roofline alone
    assert scene.belt.isHidden() and not scene.moving(scene.clock.seconds())
    qtbot.waitUntil(lambda: not scene.clock.ticking)             # nothing moves: the clock rests
    scene.set_intensity(30.0, animate=True)                      # the control's point moves, the belt unseen
    assert scene.clock.ticking and scene.moving(scene.clock.seconds())
    qtbot.waitUntil(lambda: not scene.clock.ticking)             # and rests again when it is there
    scene.resize(1280, 600)
    assert not scene.belt.isHidden() and scene.clock.ticking     # the belt back: the clock woken
