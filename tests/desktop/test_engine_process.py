"""The engine process: a slow question is computed in a process of its own (no Qt there), through the one cache.

The questions below are this module's functions, so the process imports this
module by name: it must stay free of Qt at import time.
"""
from __future__ import annotations

import os
import sys

import pytest

from desktop.kit import engine_process
from desktop.kit.answers import Answers, refused
from desktop.kit.engine_process import slow_question
from engine import InputError
from engine.catalog import default_catalog

pytestmark = pytest.mark.skipif(engine_process.in_process(), reason="no process can be started here")


@slow_question
def where(_catalog) -> tuple[int, list[str]]:
    """The process that computes it, and the Qt modules it has imported."""
    return os.getpid(), sorted(name for name in sys.modules if name.split(".")[0] in ("PySide6", "shiboken6"))


@slow_question
def refusing(_catalog, value: int):
    raise InputError(f"Value {value} is not allowed here: give at most 3.", code="test.too_large",
                     values={"got": value})


@slow_question
def models(catalog) -> int:
    return len(catalog.models)


def test_a_slow_question_is_computed_in_another_process_that_has_no_qt_and_is_remembered():
    answers = Answers(default_catalog())
    pid, qt = answers.ask(where)
    assert pid != os.getpid() and qt == []
    assert engine_process.process_ids() == {pid}                   # it stays: a benchmark tells it apart
    assert answers.ask(where) == (pid, qt) and answers.known(where) == (pid, qt)
    assert answers.ask(where) is answers.ask(where)                # the one remembered answer, not asked again


def test_a_slow_questions_refusal_comes_back_as_a_value_with_its_code_and_values():
    refusal = Answers(default_catalog()).ask(refusing, 7)
    assert refused(refusal) and refusal.code == "test.too_large" and refusal.values == {"got": 7}
    assert "7" in str(refusal)


def test_the_process_answers_from_the_askers_catalogue():
    catalog = default_catalog()
    assert Answers(catalog).ask(models) == len(catalog.models) > 0


def test_a_fleet_plan_from_the_engine_process_is_the_plan_computed_here():
    from desktop.scenes.serving import asked
    from desktop.scenes.serving.choices import ServingInputs
    from desktop.scenes.serving.story import ServingStory
    from desktop.scenario_store import ScenarioStore
    from desktop.kit.story import Inputs

    store, answers = ScenarioStore(), Answers(default_catalog())
    story = ServingStory(Inputs(store.scenario, store.report, 0, answers.ask, lambda *_a, **_k: "",
                                controls=ServingInputs()))
    plan = next(r for r in story.missing() if r.question is asked.fleet)
    assert answers.ask(plan.question, *plan.arguments) == asked.fleet(answers.catalog, *plan.arguments)


def test_where_no_process_can_start_a_slow_question_is_computed_in_the_asking_thread(monkeypatch):
    monkeypatch.setattr(engine_process._process, "_pool", None)
    monkeypatch.setattr(engine_process._process, "_in_process", True)
    assert Answers(default_catalog()).ask(where)[0] == os.getpid()
