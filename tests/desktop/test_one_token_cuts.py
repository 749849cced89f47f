"""Scene 3's cut of its request: a Qt-free job on its channel of the tokenizer process, a later cut superseding
an earlier one, remembered for the run, prepared before the first visit, and the same pieces where no process
can start and the job runs in the asking thread."""
from __future__ import annotations

import threading
from concurrent.futures import Future

import pytest

import engine.tokenizer_vocab as vocab
from desktop.i18n import Language
from desktop.kit import tokenizer_process
from desktop.kit.scene import SceneKit, create_scene
from desktop.scenario_store import ScenarioStore
from desktop.scenes.one_token import cuts
from desktop.scenes.one_token.pictures import CutRequest, cut_request, default_tokenizer
from desktop.scenes.one_token.view import SCENE as OneTokenScene
from engine.tokens import TOKENIZERS, tokenizer_info
from tests.desktop.test_one_token import loads  # noqa: F401  (a fixture)
from widgets.theme import THEMES, for_screen


def make(qtbot, language="zh"):
    kit = SceneKit(Language(language), ScenarioStore(), for_screen(THEMES["light"], 768))
    scene = create_scene(OneTokenScene, kit)
    qtbot.addWidget(scene)
    scene.clock.stop()
    return scene


class StandIn:
    """A stand-in for the tokenizer process's ``submit``: records each job and holds its future until ``finish``
    runs it as the process would (``cancelled`` set once a later job took the channel)."""

    def __init__(self):
        self.jobs: list[tuple] = []           # (job, args, channel, future, number on the channel)
        self.latest: dict[str, int] = {}

    def submit(self, job, *args, channel=None):
        number = self.latest[channel] = self.latest.get(channel, 0) + 1
        future: Future = Future()
        self.jobs.append((job, args, channel, future, number))
        return future

    def cancel(self, channel):
        self.latest[channel] = self.latest.get(channel, 0) + 1

    def finish(self, index: int) -> None:
        job, args, channel, future, number = self.jobs[index]

        class Flag:
            def is_set(_flag):
                return self.latest[channel] != number
        future.set_result(job(*args, cancelled=Flag()))


@pytest.fixture
def stand_in(monkeypatch):
    cuts.forget()
    process = StandIn()
    monkeypatch.setattr(tokenizer_process, "submit", process.submit)
    monkeypatch.setattr(tokenizer_process, "cancel", process.cancel)
    yield process
    cuts.forget()


def test_the_cut_is_a_job_on_scene_3s_channel_of_the_tokenizer_process(qtbot, stand_in):
    scene = make(qtbot)
    qtbot.waitUntil(lambda: len(stand_in.jobs) == 1, timeout=10000)     # asked from the worker thread
    job, args, channel, _future, _number = stand_in.jobs[0]
    assert (job, args, channel) == (cut_request, scene.story().wanted_cut(), "one_token")
    assert scene.cut is None and scene.phase() == "loading"
    stand_in.finish(0)
    qtbot.waitUntil(lambda: scene.cut is not None, timeout=10000)
    assert scene.cut.source == scene.story().wanted_cut() and scene.phase() in ("prompt", "prompt_bytes")


def test_a_later_cut_supersedes_an_earlier_one_and_the_stage_shows_the_later(qtbot, stand_in):
    scene = make(qtbot)
    qtbot.waitUntil(lambda: len(stand_in.jobs) == 1, timeout=10000)
    stand_in.finish(0)
    qtbot.waitUntil(lambda: scene.cut is not None, timeout=10000)
    first, later = [info.id for info in TOKENIZERS if info.id != scene.cut.tokenizer][:2]
    scene.choose_tokenizer(first)
    qtbot.waitUntil(lambda: len(stand_in.jobs) == 2, timeout=10000)
    scene.choose_tokenizer(later)
    qtbot.waitUntil(lambda: len(stand_in.jobs) == 3, timeout=10000)
    assert [args[0] for _job, args, *_ in stand_in.jobs[1:]] == [first, later]
    stand_in.finish(1)                                   # the first one's job, run only now: it is superseded
    assert stand_in.jobs[1][3].result() is None and cuts.known(stand_in.jobs[1][1]) is None
    stand_in.finish(2)
    qtbot.waitUntil(lambda: scene.cut.tokenizer == later, timeout=10000)
    scene.choose_tokenizer(first)                        # asked again: a new job, not the superseded one's None
    qtbot.waitUntil(lambda: len(stand_in.jobs) == 4, timeout=10000)
    stand_in.finish(3)
    qtbot.waitUntil(lambda: scene.cut.tokenizer == first, timeout=10000)


def test_a_cut_made_before_shows_at_once_and_the_export_waits_for_the_one_asked(qtbot, stand_in):
    scene = make(qtbot)
    qtbot.waitUntil(lambda: len(stand_in.jobs) == 1, timeout=10000)
    threading.Timer(0, stand_in.finish, (0,)).start()    # the process answers while the export waits
    scene.prepare_for_export()
    assert scene.cut is not None and len(stand_in.jobs) == 1        # the export waited for the job asked
    again = make(qtbot)                                  # a later visit: the cut remembered, no job
    assert again.cut == scene.cut and len(stand_in.jobs) == 1


def test_the_cut_is_prepared_before_the_first_visit_in_each_language_one_after_the_other(qtbot, stand_in,
                                                                                         monkeypatch):
    monkeypatch.setattr(tokenizer_process, "in_process", lambda: False)
    kit = SceneKit(Language("en"), ScenarioStore(), for_screen(THEMES["light"], 768))
    OneTokenScene.prepare_before_first_visit(kit)
    qtbot.waitUntil(lambda: len(stand_in.jobs) == 1, timeout=10000)
    stand_in.finish(0)                                   # the other language only once this one is cut
    qtbot.waitUntil(lambda: len(stand_in.jobs) == 2, timeout=10000)
    stand_in.finish(1)
    english, chinese = make(qtbot, "en"), make(qtbot, "zh")
    assert len(stand_in.jobs) == 2 and english.cut.source == stand_in.jobs[0][1]
    assert chinese.cut.source == stand_in.jobs[1][1] and chinese.cut.prompt_text != english.cut.prompt_text
    assert english.cut.tokenizer == chinese.cut.tokenizer == default_tokenizer(kit.store.scenario.model)


def test_a_wait_that_the_idle_preparation_supersedes_asks_again_and_the_preparation_stops(qtbot, stand_in,
                                                                                          monkeypatch):
    monkeypatch.setattr(tokenizer_process, "in_process", lambda: False)
    tokenizer = TOKENIZERS[0].id
    wanted, prepared, later = ((tokenizer, f"question {n}", f"answer {n}") for n in range(3))
    waited: list = []
    waiter = threading.Thread(target=lambda: waited.append(cuts.cut(wanted, insist=True)))
    waiter.start()                                       # an export waiting for the scene's own cut
    qtbot.waitUntil(lambda: len(stand_in.jobs) == 1, timeout=10000)
    cuts.prepare([prepared, later])                      # idle time asks next, superseding it
    qtbot.waitUntil(lambda: len(stand_in.jobs) == 2, timeout=10000)
    stand_in.finish(0)                                   # superseded: None, so the wait asks once more
    qtbot.waitUntil(lambda: len(stand_in.jobs) == 3, timeout=10000)
    stand_in.finish(1)                                   # the preparation superseded in turn: it stops
    stand_in.finish(2)
    waiter.join(10)
    qtbot.waitUntil(lambda: not any(thread.name == "inference-physics-prepare-cut"
                                    for thread in threading.enumerate()), timeout=10000)
    assert waited and waited[0] is not None and waited[0].source == wanted
    assert [args for _job, args, *_ in stand_in.jobs] == [wanted, prepared, wanted]   # nothing asked for ``later``


def test_a_superseded_job_loads_no_vocabulary():
    class Set:
        def is_set(self):
            return True
    vocab.forget_loaded()
    assert cut_request("gpt2", "prompt", "answer", cancelled=Set()) is None
    assert not vocab.is_loaded(tokenizer_info("gpt2"))


@pytest.mark.skipif(tokenizer_process.in_process(), reason="no process can be started here")
def test_the_process_cuts_what_the_calling_thread_cuts():
    source = ("qwen2.5", "用一句话介绍杭州。", "江南忆，最忆是杭州")
    assert tokenizer_process.run(cut_request, *source, channel="one_token") == cut_request(*source)


@pytest.fixture
def no_process(monkeypatch):
    """Jobs run in the calling thread, as where no tokenizer process can start."""
    cuts.forget()
    monkeypatch.setattr(tokenizer_process._process, "_pool", None)
    monkeypatch.setattr(tokenizer_process._process, "_in_process", True)
    yield
    cuts.forget()


def test_where_no_process_can_start_the_cut_is_made_off_the_ui_thread_with_the_same_pieces(qtbot, no_process,
                                                                                             loads):
    scene = make(qtbot)
    qtbot.waitUntil(lambda: scene.cut is not None, timeout=20000)
    assert loads == [False]                              # loaded here, once, on the worker thread
    assert isinstance(scene.cut, CutRequest) and scene.cut == cut_request(*scene.story().wanted_cut())
