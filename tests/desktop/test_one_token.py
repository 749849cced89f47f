"""Scene 3, one token at a time: passes shown against the engine, playback through signals, tokenizers, text floor."""
import dataclasses

import pytest

from desktop.i18n import Language
from desktop.scenario_store import ScenarioStore
from desktop.kit.scene import SceneKit, create_scene
from desktop.scenes import one_token_model as model
from desktop.scenes.one_token import OneTokenScene
from engine.token_pieces import joined_bytes
from engine.tokens import TOKENIZERS
from engine.units import format_bytes, format_seconds
from widgets.decode_stepper_state import answer_tiles_shown
from widgets.theme import THEMES, for_screen


@pytest.fixture
def make_scene(qtbot):
    def make(language="en", scenario=None, size=(1280, 640), screen_height=768):
        store = ScenarioStore(scenario)
        theme = for_screen(THEMES["light"], screen_height)
        scene = create_scene(OneTokenScene, SceneKit(Language(language), store, theme))
        store.changed.connect(scene.on_report)          # what the deck does for the shown scene
        qtbot.addWidget(scene)
        scene.resize(*size)
        scene.ensure_ready()
        return scene
    return make


def counters(scene):
    return {c.key: c.text for c in scene.stepper.state.counters}


def test_builds_follow_the_tokens(make_scene):
    scene = make_scene("zh")
    cut = scene.cut
    assert cut.tokenizer == "llama-3"                   # the default scenario's model's own tokenizer
    assert scene.build_count == len(cut.answer) + 2 + len(model.MISCONCEPTIONS)
    assert joined_bytes(cut.answer) == "江南忆，最忆是杭州".encode("utf-8")


@pytest.mark.parametrize("language", ["zh", "en"])
def test_after_n_steps_n_tokens_and_the_engines_counters(make_scene, language):
    scene = make_scene(language)
    report = scene.report
    assert report.scenario.batch == 1 and report.scenario.prompt_tokens == len(scene.cut.prompt)
    for n in range(1, scene.cut.passes + 1):
        scene.step()
        assert scene.build_index == n
        assert answer_tiles_shown(scene.stepper.state) == min(n, len(scene.cut.answer))
        bytes_read = report.prefill.bytes + (n - 1) * report.decode.bytes_per_token
        seconds = report.ttft_seconds + (n - 1) * report.tpot_seconds
        shown = counters(scene)
        assert format_bytes(bytes_read) in shown["bytes"]
        assert format_seconds(seconds) in shown["gpu_time"]
        assert format_seconds(n / scene.speed) in shown["screen_time"]
    assert scene.phase() == "end" and scene.stepper.state.tiles[-1].role == "end"
    scene.step()                                        # the Step button stops at the end marker
    assert scene.phase() == "end"


def test_reset_returns_to_the_prompt(make_scene):
    scene = make_scene()
    for _ in range(4):
        scene.step()
    scene.reset()
    assert scene.build_index == 0 and scene.phase() == "prompt"
    assert {tile.role for tile in scene.stepper.state.tiles} == {"prompt"}
    assert counters(scene)["bytes"].endswith(format_bytes(0))


def test_kv_segment_is_the_engines_kv_for_the_context_so_far(make_scene):
    scene = make_scene()
    for n in (1, 3, scene.cut.passes):
        scene.go_to_build(n, animate=False)
        step = scene.story().what_if(batch=1, prompt_tokens=len(scene.cut.prompt), output_tokens=n)
        kv = next(s for s in scene.bars.state.bars[0].segments if s.key == "kv")
        assert kv.bytes == step.kv_bytes_per_gpu
    scene.go_to_build(0, animate=False)
    assert next(s for s in scene.bars.state.bars[0].segments if s.key == "kv").bytes == 0.0


def test_play_steps_through_signals_and_stops_at_the_end(make_scene, qtbot):
    scene = make_scene()
    scene.show()
    qtbot.waitExposed(scene)
    scene.set_speed(4.0)
    end = scene.build_names.index("end")
    with qtbot.waitSignal(scene.playing_changed, timeout=2000) as started:
        scene.play()
    assert started.args == [True]
    with qtbot.waitSignal(scene.build_changed, timeout=3000) as stepped:
        pass
    assert stepped.args == [1]
    with qtbot.waitSignal(scene.playing_changed, timeout=20000) as stopped:
        pass
    assert stopped.args == [False] and scene.build_index == end and not scene.playing


def test_pause_stops_the_steps(make_scene, qtbot):
    scene = make_scene()
    scene.show()
    qtbot.waitExposed(scene)
    scene.set_speed(4.0)
    scene.play()
    qtbot.waitUntil(lambda: scene.build_index >= 2, timeout=5000)
    with qtbot.waitSignal(scene.playing_changed, timeout=1000) as paused:
        scene.play_button.click()                       # the same button pauses
    assert paused.args == [False]
    held = scene.build_index
    # the clock runs on: several step intervals later the build has not moved
    ticks = []
    scene.clock.ticked.connect(ticks.append)
    qtbot.waitUntil(lambda: bool(ticks) and ticks[-1] - ticks[0] > 3 / scene.speed, timeout=5000)
    assert scene.build_index == held


def test_play_at_the_end_starts_again_from_the_prompt(make_scene):
    scene = make_scene()
    scene.go_to_build(scene.build_names.index("end"), animate=False)
    scene.play()
    assert scene.build_index == 0 and scene.playing
    scene.pause()


@pytest.mark.parametrize("tokenizer", [info.id for info in TOKENIZERS])
def test_every_tokenizer_cuts_the_answer_back_to_its_bytes(make_scene, qtbot, tokenizer):
    scene = make_scene("zh")
    scene.choose_tokenizer(tokenizer)
    qtbot.waitUntil(lambda: scene.cut.tokenizer == tokenizer, timeout=10000)
    assert joined_bytes(scene.cut.answer) == "江南忆，最忆是杭州".encode("utf-8")
    assert scene.build_count == len(scene.cut.answer) + 2 + len(model.MISCONCEPTIONS)
    assert scene.report.scenario.prompt_tokens == len(scene.cut.prompt)
    texts = [d.text for d in scene.stepper.drawn_texts()] if scene.stepper.drawn_texts() else []
    assert all("\ufffd" not in text for text in texts)


def test_switching_tokenizer_keeps_the_pass_where_it_can(make_scene, qtbot):
    scene = make_scene("zh")
    scene.go_to_build(3, animate=False)
    scene.tokenizer_box.setCurrentIndex(scene.tokenizer_box.findData("gpt2"))
    qtbot.waitUntil(lambda: scene.cut.tokenizer == "gpt2", timeout=10000)
    assert scene.build_index == 3 and answer_tiles_shown(scene.stepper.state) == 3
    scene.go_to_build(scene.build_names.index("no_plan"), animate=False)
    scene.choose_tokenizer("qwen2.5")
    qtbot.waitUntil(lambda: scene.cut.tokenizer == "qwen2.5", timeout=10000)
    assert scene.phase() == "no_plan"


def test_language_switch_cuts_the_english_request(make_scene):
    scene = make_scene("zh")
    scene.kit.language.set_code("en")
    scene.retranslate()                                 # what the deck does on a language change
    scene.ensure_ready()
    assert joined_bytes(scene.cut.prompt) == b"Write me a short poem about the sea."


def test_a_scenario_that_does_not_fit_shows_its_subject(make_scene):
    scene = make_scene(scenario=dataclasses.replace(ScenarioStore().scenario, gpus=1))
    subject_scenario, report = scene.stage_subject()
    assert subject_scenario.batch == 1 and not report.fits
    assert scene.bars.state.bars[0].over_label


def test_a_speed_not_offered_is_refused_with_a_note(make_scene):
    scene = make_scene()
    scene.set_speed(3.0)
    assert scene.speed == model.DEFAULT_SPEED


@pytest.mark.parametrize("language", ["zh", "en"])
@pytest.mark.parametrize("size,screen", [((760, 540), 768), ((1500, 820), 1080)])
def test_no_stage_text_below_the_floor_and_none_overlapping(make_scene, language, size, screen):
    scene = make_scene(language, size=size, screen_height=screen)
    floor = scene.kit.theme.text_floor_px
    for build in range(scene.build_count):
        scene.go_to_build(build, animate=False)
        scene.stepper.grab()
        drawn = scene.stepper.drawn_texts()
        assert drawn, build
        for text in drawn:
            assert text.px >= floor, (build, text)
            assert scene.stepper.rect().toRectF().contains(text.rect), (build, text)
        for i, a in enumerate(drawn):
            for b in drawn[i + 1:]:
                assert not a.rect.intersects(b.rect.adjusted(0.5, 0.5, -0.5, -0.5)), (build, a, b)


def test_first_show_loads_the_vocabulary_in_the_worker_and_counting_builds_waits_for_it(qtbot):
    from engine.tokenizer_vocab import forget_loaded
    forget_loaded()
    store = ScenarioStore()
    scene = create_scene(OneTokenScene, SceneKit(Language("zh"), store, THEMES["light"]))
    qtbot.addWidget(scene)
    assert scene.cut is None and scene.phase() == "loading"
    scene.reset()                                       # what the deck does when it shows the scene: no wait
    assert scene.phase() == "loading" and scene.caption()
    with qtbot.waitSignal(scene.texts_changed, timeout=10000):
        pass                                            # the worker's cut arrives; the caption changes
    assert scene.cut is not None and scene.phase() == "prompt"
    forget_loaded()
    other = create_scene(OneTokenScene, SceneKit(Language("en"), store, THEMES["light"]))
    qtbot.addWidget(other)
    assert other.build_count == len(other.cut.answer) + 2 + len(model.MISCONCEPTIONS)   # the export's count
