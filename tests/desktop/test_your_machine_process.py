"""The probe's child process (``desktop.scenes.your_machine.probe_process``), without Qt.

Its progress is thinned to what a stage can show, its refusal comes back as a value, a stop before the start
starts nothing, a child that dies mid-run is said in one sentence, and where no process can be started (a
frozen bundle) the probe runs on the calling thread, cancelled at its next check.
"""
from __future__ import annotations

import os
import signal
import sys

import pytest

from desktop.scenes.your_machine import probe_process
from desktop.scenes.your_machine.probe_process import PROGRESS_STEP, ProbeRun, _Throttled, measure
from engine.probe import ProbeCancelled, ProbeError
from engine.probe_sizes import probe_error
from tests.engine.probe_fixtures import PROBE_CATALOG, QWEN3_SHAPES, SMALL_BUDGET_BYTES


def _small_run() -> ProbeRun:
    return ProbeRun(PROBE_CATALOG, QWEN3_SHAPES.id, SMALL_BUDGET_BYTES, accelerators=False)


def _children() -> list:
    import multiprocessing
    return [child for child in multiprocessing.active_children() if child.name == probe_process.CHILD_NAME]


def test_progress_is_thinned_to_each_stage_and_each_step_of_the_whole():
    heard = []
    report = _Throttled(lambda stage, fraction: heard.append((stage, fraction)))
    reports = [("bandwidth", i / 1000) for i in range(200)] + [("compute", 0.2)] + \
              [("compute", 0.2 + i / 1000) for i in range(200)] + [("prefill", 1.0)]
    for stage, fraction in reports:
        report(stage, fraction)
    assert len(heard) <= 2 * (0.4 / PROGRESS_STEP) + 3 and heard[-1] == ("prefill", 1.0)
    assert [f for _, f in heard] == sorted(f for _, f in heard)
    assert [s for s, _ in heard].index("compute") == next(i for i, (s, _) in enumerate(heard) if s == "compute")
    assert ("compute", 0.2) in heard                                   # a new stage is always heard


class _Answers:
    def __init__(self, outcome):
        self.outcome = outcome

    def run(self, progress=None):
        if progress is not None:
            progress("bandwidth", 0.5)
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


def test_the_workers_job_returns_the_result_the_refusal_or_none_when_stopped():
    heard = []
    assert measure(_Answers("result"), heard.append) == "result" and heard == [("bandwidth", 0.5)]
    refusal = probe_error("probe.memory", {"needed": "32 MB", "available": "20 MB"})
    assert measure(_Answers(refusal)) is refusal
    assert measure(_Answers(ProbeCancelled())) is None


def test_a_run_stopped_before_it_starts_starts_no_process():
    run = _small_run()
    run.stop()
    with pytest.raises(ProbeCancelled):
        run.run()
    assert not _children() and probe_process.running() == 0


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="no SIGKILL here")
def test_a_child_that_dies_mid_run_is_one_sentence():
    run = _small_run()

    def kill_at_first_report(stage, fraction):
        if run._process is not None and run._process.is_alive():
            os.kill(run._process.pid, signal.SIGKILL)

    with pytest.raises(ProbeError) as stopped:
        run.run(kill_at_first_report)
    assert stopped.value.code == "probe.stopped" and "signal 9" in str(stopped.value)
    assert not _children() and probe_process.running() == 0


def test_where_no_process_can_start_the_probe_runs_here_and_stops_at_its_next_check(monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert probe_process.in_process()
    run = _small_run()
    heard = []

    def stop_at_first_report(stage, fraction):
        heard.append(stage)
        run.stop()

    with pytest.raises(ProbeCancelled):
        run.run(stop_at_first_report)
    assert heard == ["bandwidth"] and not _children()
