"""Scene "one token at a time": passes shown against the engine, the rest of the answer playing by itself,
Play, Pause and Step on the scene clock, tokenizers cut in the tokenizer process, the text floor."""
import dataclasses
import threading

import pytest

import engine.tokenizer_vocab as vocab
from desktop.i18n import Language
from desktop.kit import questions, tokenizer_process
from desktop.kit.scene import SceneKit, create_scene
from desktop.scenario_store import ScenarioStore
from desktop.scenes.one_token import cuts
from desktop.scenes.one_token.view import SCENE as OneTokenScene
from desktop.scenes.one_token.pictures import MISCONCEPTIONS
from desktop.scenes.one_token.story import DEFAULT_SPEED, BARS_AT_PROGRESS, pass_share
from engine.token_pieces import joined_bytes
from engine.tokens import TOKENIZERS
from engine.units import format_bytes, format_seconds
from widgets.decode_stepper_state import answer_tiles_shown
from widgets.theme import THEMES, for_screen

BUILDS = ("prompt", "prefill", "step_2", "rest", *MISCONCEPTIONS)


@pytest.fixture
def make_scene(qtbot):
    def make(language="en", scenario=None, size=(1280, 640), screen_height=768, ready=True):
        store = ScenarioStore(scenario)
        theme = for_screen(THEMES["light"], screen_height)
        scene = create_scene(OneTokenScene, SceneKit(Language(language), store, theme))
        store.changed.connect(scene.on_report)          # what the deck does for the shown scene
        qtbot.addWidget(scene)
        scene.resize(*size)
        scene.clock.stop()                              # the tests move the scene clock themselves
        if ready:
            scene.ensure_ready()
        return scene
    return make


def advance(scene, seconds: float) -> None:
    scene.clock.set_seconds(scene.clock.seconds() + seconds)


def counters(scene):
    return {c.key: c.text for c in scene.stepper.state.counters}


def passes_shown(scene) -> int:
    return answer_tiles_shown(scene.stepper.state) + (scene.stepper.state.tiles[-1].role == "end")


def kv_shown(scene) -> float:
    return next(s for s in scene.bars.state.bars[0].segments if s.key == "kv").bytes


def test_builds_are_the_first_two_passes_then_the_rest_of_the_answer(make_scene):
    scene = make_scene("zh")
    cut = scene.cut
    assert cut.tokenizer == "llama-3"                   # the default scenario's model's own tokenizer
    assert scene.build_names == BUILDS and scene.build_count == len(BUILDS)
    assert joined_bytes(cut.answer) == "江南忆，最忆是杭州".encode("utf-8")


@pytest.mark.parametrize("language", ["zh", "en"])
def test_step_goes_pass_by_pass_with_the_engines_counters_and_stops_at_the_end_marker(make_scene, language):
    scene = make_scene(language)
    report, cut = scene.report, scene.cut
    assert report.scenario.batch == 1 and report.scenario.prompt_tokens == len(cut.prompt)
    for n in range(1, cut.passes + 1):
        scene.step()
        assert scene.build_index == min(n, BUILDS.index("rest")) and not scene.playing
        advance(scene, 1.0)                             # the pass's animation done
        assert answer_tiles_shown(scene.stepper.state) == min(n, len(cut.answer))
        assert scene.stepper.progress == 1.0
        bytes_read = report.prefill.bytes + (n - 1) * report.decode.bytes_per_token
        seconds = report.ttft_seconds + (n - 1) * report.tpot_seconds
        shown = counters(scene)
        assert format_bytes(bytes_read) in shown["bytes"]
        assert format_seconds(seconds) in shown["gpu_time"]
        assert format_seconds(n / scene.speed) in shown["screen_time"]
    assert scene.phase() == "rest" and scene.stepper.state.tiles[-1].role == "end"
    scene.step()                                        # the Step button stops at the end marker
    assert passes_shown(scene) == cut.passes and scene.phase() == "rest"


def test_the_rest_of_the_answer_plays_by_itself_and_ends_on_the_end_marker(make_scene):
    scene = make_scene()
    cut, rest = scene.cut, BUILDS.index("rest")
    said = []
    scene.playing_changed.connect(said.append)
    scene.go_to_build(rest - 1, animate=False)
    scene.next_build()                                  # what the presenter's key does
    assert scene.build_index == rest and scene.playing and said == [True]
    assert passes_shown(scene) == 3 and scene.stepper.progress == 0.0
    for n in range(4, cut.passes + 1):
        advance(scene, 1.0 / DEFAULT_SPEED)
        assert passes_shown(scene) == n and scene.build_index == rest
    assert said == [True, False] and not scene.playing  # the last pass has begun: Play is over
    assert scene.moving(scene.clock.seconds())          # the end marker's own pass still animates
    advance(scene, 1.0)
    assert not scene.moving(scene.clock.seconds()) and scene.stepper.progress == 1.0
    assert scene.stepper.state.tiles[-1].role == "end"


def test_on_the_scene_clock_the_rest_plays_to_the_end_marker_and_the_clock_then_rests(make_scene, qtbot):
    scene = make_scene()
    scene.show()                                        # the clock runs while the scene is shown
    qtbot.waitExposed(scene)
    scene.set_speed(4.0)
    qtbot.waitUntil(lambda: not scene.clock.ticking, timeout=3000)     # a still slide: no ticks
    with qtbot.waitSignal(scene.playing_changed, timeout=2000) as started:
        scene.go_to_build(BUILDS.index("rest"))
    assert started.args == [True] and scene.clock.ticking
    with qtbot.waitSignal(scene.playing_changed, timeout=10000) as stopped:
        pass
    assert stopped.args == [False] and passes_shown(scene) == scene.cut.passes
    qtbot.waitUntil(lambda: not scene.clock.ticking, timeout=3000)     # the end marker's pass done: it rests
    assert scene.stepper.progress == 1.0 and scene.build_index == BUILDS.index("rest")


def test_the_rest_shown_still_shows_its_end(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("rest"), animate=False)
    assert passes_shown(scene) == scene.cut.passes and not scene.playing
    assert not scene.moving(scene.clock.seconds()) and scene.stepper.progress == 1.0
    scene.prepare_for_export()                          # the export: the last build, still
    assert scene.build_index == scene.build_count - 1 and not scene.moving(scene.clock.seconds())


def test_step_inside_the_rest_stops_its_playback_and_goes_one_pass(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("rest"))
    advance(scene, 1.5 / DEFAULT_SPEED)                 # pass 4, its animation done
    assert passes_shown(scene) == 4 and scene.playing
    scene.step()
    assert passes_shown(scene) == 5 and not scene.playing
    advance(scene, 10.0)
    assert passes_shown(scene) == 5 and not scene.moving(scene.clock.seconds())


def test_play_from_the_prompt_walks_the_builds_and_stops_at_the_end_marker(make_scene):
    scene = make_scene()
    scene.set_speed(4.0)
    builds, said = [], []
    scene.build_changed.connect(builds.append)
    scene.playing_changed.connect(said.append)
    scene.play()
    assert scene.playing and said == [True] and scene.build_index == 0
    for _ in range(4 * scene.cut.passes):
        advance(scene, 0.26)
    assert [b for n, b in enumerate(builds) if n == 0 or builds[n - 1] != b] == [1, 2, 3]    # none skipped
    assert said == [True, False] and not scene.playing and passes_shown(scene) == scene.cut.passes
    assert scene.build_index == BUILDS.index("rest") and not scene.moving(scene.clock.seconds())


def test_pause_lets_the_pass_finish_and_begins_no_other(make_scene):
    scene = make_scene()
    scene.play()
    advance(scene, 2.2 / DEFAULT_SPEED)                 # pass 2 has begun (Play starts from the prompt, whole)
    held = passes_shown(scene)
    scene.play_button.click()                           # the same button pauses
    assert not scene.playing
    advance(scene, 10.0)
    assert passes_shown(scene) == held and scene.stepper.progress == 1.0
    assert not scene.moving(scene.clock.seconds())
    scene.play_button.click()                           # and plays on from there
    assert scene.playing and passes_shown(scene) == held
    advance(scene, 1.0 / DEFAULT_SPEED)
    assert passes_shown(scene) == held + 1


def test_play_at_the_end_starts_again_from_the_prompt(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("rest"), animate=False)
    scene.play()
    assert scene.build_index == 0 and scene.playing
    scene.pause()
    scene.go_to_build(BUILDS.index("no_plan"), animate=False)
    scene.play()
    assert scene.build_index == 0 and scene.playing


def test_a_new_speed_keeps_the_pass_and_plays_on_at_that_pace(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("rest"))
    advance(scene, 1.5)                                 # pass 4 at one pass a second
    scene.speed_box.setCurrentIndex(scene.speed_box.findData(4.0))
    assert scene.speed == 4.0 and passes_shown(scene) == 4 and scene.playing
    advance(scene, 0.25)
    assert passes_shown(scene) == 5


def test_kv_segment_is_the_engines_kv_for_the_context_so_far(make_scene):
    scene = make_scene()
    store = scene.kit.store
    for n in range(1, scene.cut.passes + 1):
        scene.step()
        advance(scene, pass_share(DEFAULT_SPEED) * (BARS_AT_PROGRESS - 0.1))
        before = kv_shown(scene)                        # the token has not left the model yet
        advance(scene, 1.0)
        step = scene.kit.ask(questions.report, dataclasses.replace(
            store.scenario, batch=1, prompt_tokens=len(scene.cut.prompt), output_tokens=n))
        assert kv_shown(scene) == step.kv_bytes_per_gpu and before < kv_shown(scene)
    scene.reset()
    assert kv_shown(scene) == 0.0 and scene.build_index == 0 and scene.phase() in ("prompt", "prompt_bytes")
    assert {tile.role for tile in scene.stepper.state.tiles} == {"prompt"}
    assert counters(scene)["bytes"].endswith(format_bytes(0))


@pytest.mark.parametrize("tokenizer", [info.id for info in TOKENIZERS])
def test_every_tokenizer_cuts_the_answer_back_to_its_bytes_and_draws_no_replacement_box(make_scene, qtbot,
                                                                                          tokenizer):
    scene = make_scene("zh")
    scene.choose_tokenizer(tokenizer)
    qtbot.waitUntil(lambda: scene.cut.tokenizer == tokenizer, timeout=10000)
    assert joined_bytes(scene.cut.answer) == "江南忆，最忆是杭州".encode("utf-8")
    assert scene.build_names == BUILDS
    assert scene.report.scenario.prompt_tokens == len(scene.cut.prompt)
    scene.go_to_build(BUILDS.index("rest"), animate=False)      # every token of the question and the answer
    scene.stepper.grab()                                        # painted: the texts it drew are reported
    texts = [d.text for d in scene.stepper.drawn_texts() if d.key.startswith("tile.")]
    assert len(texts) >= len(scene.cut.prompt) + len(scene.cut.answer)
    assert all("\ufffd" not in text for text in texts)


def test_switching_tokenizer_keeps_the_pass_where_it_can(make_scene, qtbot):
    scene = make_scene("zh")
    for _ in range(4):
        scene.step()                                    # pass 4, inside the rest of the answer
    scene.tokenizer_box.setCurrentIndex(scene.tokenizer_box.findData("gpt2"))
    qtbot.waitUntil(lambda: scene.cut.tokenizer == "gpt2", timeout=10000)
    assert scene.phase() == "rest" and passes_shown(scene) == 4 and not scene.moving(scene.clock.seconds())
    scene.go_to_build(BUILDS.index("no_plan"), animate=False)
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
    assert scene.speed == DEFAULT_SPEED


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


@pytest.fixture
def loads(monkeypatch):
    """Each vocabulary read from disk by the app's own process from now on: True where it was read on the UI
    thread (none where the tokenizer process cuts); no cut made before is remembered."""
    vocab.forget_loaded()
    cuts.forget()
    read, seen = vocab._vocabulary_bytes, []

    def recorded(info):
        seen.append(threading.current_thread() is threading.main_thread())
        return read(info)
    monkeypatch.setattr(vocab, "_vocabulary_bytes", recorded)
    yield seen
    vocab.forget_loaded()


def test_reading_the_builds_never_loads_a_vocabulary_the_tokenizer_process_does(make_scene, qtbot, loads):
    scene = make_scene("zh", ready=False)
    for _ in range(3):                                  # what the frame, the speaker view and the handout read
        assert scene.build_count == 1 and scene.build_names == ("loading",) and scene.phase() == "loading"
        assert scene.caption() and scene.notes() and scene.stage_subject()
        scene.next_build()
        scene.reset()                                   # what the deck does when it shows the scene: no wait
    assert True not in loads and scene.cut is None
    loading = scene.controls().loading_label
    assert loading.isVisibleTo(scene.controls())        # the side panel says the vocabulary is loading
    with qtbot.waitSignal(scene.texts_changed, timeout=10000):
        pass                                            # the process's cut arrives; the caption changes
    assert True not in loads                            # never on the UI thread; in this process only without one
    assert bool(loads) == tokenizer_process.in_process()
    assert scene.cut is not None and scene.phase() in ("prompt", "prompt_bytes") and scene.build_count == len(BUILDS)
    assert not loading.isVisibleTo(scene.controls())


def test_whoever_needs_the_cut_now_asks_for_it(make_scene, loads):
    scene = make_scene("en", ready=False)
    assert scene.cut is None and scene.build_count == 1  # the worker has begun reading the vocabulary
    scene.prepare_for_export()                          # the export: the cut now (waiting for the process's read)
    assert scene.cut is not None and scene.build_count == len(BUILDS)
    assert len(loads) == (1 if tokenizer_process.in_process() else 0)       # read once, in the process
    assert scene.phase() == "same_computation"
