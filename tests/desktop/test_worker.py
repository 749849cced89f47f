"""The one worker helper: slow work off the UI thread, the latest result as a signal, stale ones dropped."""
from __future__ import annotations

import threading

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from desktop.kit.worker import Worker


def test_the_event_loop_keeps_ticking_while_a_slow_job_runs(qtbot):
    worker = Worker()
    release = threading.Event()
    ticks = []
    heartbeat = QTimer()
    heartbeat.setInterval(5)
    heartbeat.timeout.connect(lambda: ticks.append(1))
    heartbeat.start()

    def slow():
        release.wait(10)
        return "done"

    with qtbot.waitSignal(worker.finished, timeout=10_000) as result:
        worker.run(slow)
        qtbot.waitUntil(lambda: len(ticks) >= 5, timeout=5_000)    # the UI thread is free while the job runs
        assert worker.busy
        release.set()
    heartbeat.stop()
    assert result.args == ["done"] and not worker.busy


def test_a_superseded_result_is_dropped(qtbot):
    worker = Worker()
    first_release, results, arrived = threading.Event(), [], []
    worker.finished.connect(results.append)
    deliver = worker._on_done

    def recording(job, succeeded, result):       # every answer that reaches the UI thread, dropped or not
        arrived.append(result)
        deliver(job, succeeded, result)

    worker._on_done = recording

    first_started = threading.Event()

    def first():
        first_started.set()
        first_release.wait(10)
        return "old"

    worker.run(first)
    assert first_started.wait(10)         # running: superseded now, it finishes (one not started is cancelled)
    with qtbot.waitSignal(worker.finished, timeout=10_000):
        worker.run(lambda: "new")
    first_release.set()
    # Until the old job has ended and its answer has come back to the UI thread, however slow the machine.
    qtbot.waitUntil(lambda: "old" in arrived, timeout=10_000)
    assert arrived == ["new", "old"] and results == ["new"]       # it came back, and was dropped
    assert not worker.busy


def test_a_failure_arrives_as_one_sentence(qtbot):
    worker = Worker()

    def broken():
        raise ValueError("The text is not valid UTF-8.")

    with qtbot.waitSignal(worker.failed, timeout=10_000) as failed:
        worker.run(broken)
    assert failed.args == ["The text is not valid UTF-8."]


def test_a_superseded_job_that_has_not_started_never_runs(qtbot):
    worker = Worker()
    gates = [threading.Event() for _ in range(2)]
    ran = []

    def blocker(gate):
        gate.wait(10)

    others = [Worker(), Worker()]
    for other, gate in zip(others, gates):   # both pool threads busy
        other.run(blocker, gate)
    worker.run(lambda: ran.append("old"))    # queued behind them
    with qtbot.waitSignal(worker.finished, timeout=10_000) as done:
        worker.run(lambda: "new")
        for gate in gates:
            gate.set()
    assert done.args == ["new"] and ran == []


def test_a_worker_deleted_with_its_scene_while_a_job_runs_never_hears_back(qtbot):
    """The export and the speaker view delete scenes whose jobs may still run: the pool thread's answer must
    not reach (or be emitted on) anything Qt has deleted."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication
    scene = QObject()
    worker = Worker(scene)
    started, release, heard = threading.Event(), threading.Event(), []
    worker.finished.connect(heard.append)

    def job():
        started.set()
        release.wait(10)
        return "late"

    future_done = threading.Event()
    worker.run(job)
    assert started.wait(10)
    worker._future.add_done_callback(lambda _f: future_done.set())
    scene.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    release.set()
    assert future_done.wait(10)
    other = Worker()                         # a later job's answer is queued behind the dropped one's
    with qtbot.waitSignal(other.finished, timeout=10_000):
        other.run(lambda: "next")
    assert heard == []


def test_a_result_never_arrives_inside_run(qtbot):
    worker = Worker()
    heard = []
    worker.finished.connect(heard.append)
    with qtbot.waitSignal(worker.finished, timeout=10_000):
        worker.run(lambda: "quick")
        assert heard == [] and worker.busy
    assert heard == ["quick"] and not worker.busy


def test_a_jobs_progress_arrives_in_order_on_the_ui_thread_and_a_superseded_ones_is_dropped(qtbot):
    worker = Worker()
    heard: list = []
    threads: list = []
    worker.progressed.connect(lambda value: (heard.append(value), threads.append(threading.current_thread())))
    old_release, old_reported, old_done = threading.Event(), threading.Event(), threading.Event()

    def old(progress):
        progress("old 1")
        old_reported.set()
        old_release.wait(10)
        progress("old 2")                    # after a newer job took over: never heard
        old_done.set()
        return "old"

    def new(progress):
        for step in range(5):
            progress(step)
        return "new"

    with qtbot.waitSignal(worker.progressed, timeout=10_000):
        worker.run_reporting(old)
    assert old_reported.wait(10)
    with qtbot.waitSignal(worker.finished, timeout=10_000) as result:
        worker.run_reporting(new)
    old_release.set()
    assert old_done.wait(10)
    QApplication.processEvents()             # its queued report reaches the UI thread, and is dropped there
    assert result.args == ["new"]
    assert heard == ["old 1", 0, 1, 2, 3, 4]
    assert set(threads) == {threading.main_thread()}
