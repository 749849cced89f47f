"""The kit's one way to ask the engine: ``ask(question, *arguments)``, cached, a refusal as a value, never raised."""
from __future__ import annotations

import dataclasses

from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.i18n import Language
from desktop.kit import questions
from desktop.kit.answers import Answers, refused
from desktop.kit.scene import SceneKit
from desktop.kit.story import Inputs, Story
from desktop.scenario_store import ScenarioStore
from engine import InputError, compute_report
from engine.catalog import default_catalog
from widgets.theme import THEMES


def _kit() -> SceneKit:
    return SceneKit(Language("en"), ScenarioStore(), THEMES["light"])


def _story(kit: SceneKit) -> Story:
    store = kit.store
    return Story(Inputs(store.scenario, store.report, 0, kit.ask, kit.language.text, kit.refusal_text))


def test_a_what_if_is_the_engines_report_for_the_changed_scenario_and_is_asked_once():
    kit = _kit()
    fp8 = _story(kit).what_if(weights="fp8", gpus=1)
    assert fp8 == compute_report(dataclasses.replace(DEFAULT_SCENARIO, weights="fp8", gpus=1))
    assert _story(kit).what_if(weights="fp8", gpus=1) is fp8          # cached for every story: the same object
    assert kit.ask(questions.report, dataclasses.replace(DEFAULT_SCENARIO, weights="fp8", gpus=1)) is fp8


def test_a_refusal_comes_back_as_a_value_with_its_sentence():
    kit = _kit()
    story = _story(kit)
    three = story.what_if(gpus=3)                                # 70B's heads do not divide by 3
    assert refused(three) and isinstance(three, InputError)
    assert "3" in kit.refusal_text(three)
    assert three.__traceback__ is None     # remembered without the engine's frames (and all they refer to)
    assert refused(story.what_if(no_such_field=1))
    assert refused(story.what_if(batch=0))


def test_the_store_starts_on_the_default_when_a_saved_scenario_is_refused():
    store = ScenarioStore(dataclasses.replace(DEFAULT_SCENARIO, gpu="no-such-gpu"))
    assert store.scenario == DEFAULT_SCENARIO and store.report.fits
    assert store.last_error is not None and "no-such-gpu" in str(store.last_error)


def test_the_default_scenario_fits_and_runs():
    report = ScenarioStore().report
    assert DEFAULT_SCENARIO.gpus == 2 and DEFAULT_SCENARIO.model == "llama-3.1-70b" and report.fits


def test_the_crossover_and_context_sweeps_are_the_engines_and_refusals_come_back_as_values():
    from engine import sweep
    from engine.compute import decode_crossover_batch

    kit = _kit()
    one = dataclasses.replace(DEFAULT_SCENARIO, batch=1)
    assert kit.ask(questions.crossover_batch, one) == decode_crossover_batch(DEFAULT_SCENARIO)
    marks = (2048, 32768, 131072)
    swept = kit.ask(questions.context_sweep, DEFAULT_SCENARIO, marks)
    assert list(swept.kv_bytes) == list(sweep.kv_bytes_for_contexts(
        dataclasses.replace(DEFAULT_SCENARIO, prompt_tokens=1, output_tokens=1), marks))
    assert swept.kv_bytes[1] == 10 * 2**30                       # the seed's 10 GB at 32K for the 70B
    assert kit.ask(questions.context_sweep, DEFAULT_SCENARIO, marks) is swept      # cached
    assert refused(kit.ask(questions.context_sweep, DEFAULT_SCENARIO, (0, -5)))


def test_any_function_of_the_catalogue_is_a_question_and_the_cache_is_bounded():
    """New physics needs no change to the kit: a question is any function of the catalogue and hashable
    arguments; the one cache forgets the least recently used answers beyond its size."""
    answers = Answers(default_catalog(), cache_size=3)
    calls = []

    def doubled(catalog, number):
        calls.append(number)
        return 2 * number

    assert [answers.ask(doubled, n) for n in (1, 2, 1, 3, 4)] == [2, 4, 2, 6, 8]
    assert calls == [1, 2, 3, 4] and len(answers) == 3
    answers.ask(doubled, 2)                                     # forgotten (least recently used): asked again
    assert calls == [1, 2, 3, 4, 2]
    assert answers.ask(doubled, [1]) == [1, 1]                  # unhashable: answered, not kept


def test_arithmetic_the_engine_did_not_foresee_comes_back_as_a_refusal():
    def overflowing(catalog, scenario):
        raise OverflowError("math range error")

    result = _kit().ask(overflowing, DEFAULT_SCENARIO)
    assert refused(result) and result.code == "engine.arithmetic" and "math range error" in str(result)


def _waiting_or_done(thread) -> bool:
    """Whether ``thread`` has ended or waits on a threading primitive (the frames Python shows for it now)."""
    import sys

    frame = sys._current_frames().get(thread.ident)
    while frame is not None:
        if frame.f_code.co_name == "wait" and frame.f_code.co_filename.endswith("threading.py"):
            return True
        frame = frame.f_back
    return not thread.is_alive()


def _until(condition, seconds: float = 30.0) -> bool:
    import threading
    import time

    tick, end = threading.Event(), time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            return False
        tick.wait(0.001)
    return True


def test_a_question_being_computed_is_waited_for_by_another_thread_not_computed_twice():
    """Scene 8's warm-up thread and its workers computed the same 0.7 s load curve side by side, each taking
    Python's lock from the window during its first visit."""
    import threading

    answers = Answers(default_catalog())
    started, release, computed = threading.Event(), threading.Event(), []

    def slow(catalog, n):
        computed.append(n)
        if len(computed) == 1:               # the first computation lasts until released; any other is quick
            started.set()
            release.wait(30)
        return n * 2

    first = threading.Thread(target=lambda: answers.ask(slow, 21))
    first.start()
    assert started.wait(30)
    got = []
    second = threading.Thread(target=lambda: got.append(answers.ask(slow, 21)))
    second.start()
    assert _until(lambda: _waiting_or_done(second))      # computing it beside the first would end it here
    release.set()
    first.join(30)
    second.join(30)
    assert got == [42] and computed == [21]


def test_a_question_whose_thread_failed_is_computed_by_the_one_that_waited():
    import threading

    answers = Answers(default_catalog())
    started, release, calls = threading.Event(), threading.Event(), []

    def stopped_once(catalog):
        calls.append(threading.current_thread().name)
        if len(calls) == 1:
            started.set()
            release.wait(30)
            raise RuntimeError("the process stopped")
        return "answer"

    def first_asker():
        try:
            answers.ask(stopped_once)
        except RuntimeError:
            pass

    first = threading.Thread(target=first_asker, name="first")
    first.start()
    assert started.wait(30)
    got = []
    second = threading.Thread(target=lambda: got.append(answers.ask(stopped_once)), name="second")
    second.start()
    assert _until(lambda: _waiting_or_done(second))
    release.set()
    first.join(30)
    second.join(30)
    assert got == ["answer"] and calls == ["first", "second"]
