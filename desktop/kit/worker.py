"""The one way to do slow work off the UI thread: a function in a thread pool, its result as a signal.

Tokenizing a pasted text or a long sweep must not freeze the window. A scene
owns a ``Worker`` and calls ``run(fn, *args)``; ``fn`` runs in a thread pool and
its result arrives as ``finished(result)`` on the UI thread (the signal is
emitted by one bridge object that lives there for the whole run, so Qt queues it
across threads and a pool thread never emits on an object the UI thread may be
deleting: a scene deleted with a job in flight just never hears back).
Only the latest job counts: a job superseded by a later ``run`` (the user typed
on) is cancelled if it has not started, and its result dropped if it has, so a
slow old answer never overwrites a new one nor holds a thread that new work needs. An exception becomes ``failed(message)``: the scene shows it as an
inline note. ``busy_changed(bool)`` drives a progress indicator.
A job started with ``run_reporting`` is also handed a ``progress(value)``
callable: each value arrives as ``progressed(value)`` on the UI thread, in
order, through the same bridge, and a superseded job's reports are dropped too
(the probe's stages arrive so while it measures).
"""
from __future__ import annotations

import os
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Any, Callable

from PySide6.QtCore import QObject, Qt, Signal
from shiboken6 import isValid

# A scene's slow jobs are few at once (a vocabulary loading, a text being cut, a probe): one thread each on a
# machine with the cores for it, never more threads than cores (a third job on two cores only waits).
POOL_THREADS = max(1, min(4, os.cpu_count() or 1))
_POOL: ThreadPoolExecutor | None = None


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=POOL_THREADS, thread_name_prefix="inference-physics-worker")
    return _POOL


class _Bridge(QObject):
    """Made once, on the UI thread, and never deleted before the interpreter ends (the pool's threads are
    joined before that). A pool thread emits ``done``; Qt queues it to the UI thread, where the worker is
    looked up: one that Qt has deleted meanwhile (its scene closed) is skipped."""
    done = Signal(object, int, bool, object)     # (worker's weak reference, job number, succeeded, result)
    reported = Signal(object, int, object)       # (worker's weak reference, job number, a progress value)

    def __init__(self):
        super().__init__()
        # Queued even when emitted on the UI thread (a job done before its callback was added): a result
        # never arrives inside ``run``.
        self.done.connect(self._deliver, Qt.ConnectionType.QueuedConnection)
        self.reported.connect(self._deliver_report, Qt.ConnectionType.QueuedConnection)

    def _deliver(self, worker_ref: weakref.ref, job: int, succeeded: bool, result: object) -> None:
        worker = worker_ref()
        if worker is not None and isValid(worker):
            worker._on_done(job, succeeded, result)

    def _deliver_report(self, worker_ref: weakref.ref, job: int, value: object) -> None:
        worker = worker_ref()
        if worker is not None and isValid(worker) and job == worker._job:
            worker.progressed.emit(value)


_BRIDGE: _Bridge | None = None


def _bridge() -> _Bridge:
    global _BRIDGE
    if _BRIDGE is None:
        _BRIDGE = _Bridge()
    return _BRIDGE


class Worker(QObject):
    finished = Signal(object)     # the latest job's result
    failed = Signal(str)          # the latest job's exception, as one sentence
    progressed = Signal(object)   # the latest job's progress reports (``run_reporting``), in order
    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._bridge = _bridge()          # made here, on the UI thread
        self._job = 0
        self._busy = False
        self._future: Future | None = None

    @property
    def busy(self) -> bool:
        return self._busy

    def run(self, fn: Callable[..., Any], *args: Any) -> int:
        """Start ``fn(*args)`` in the pool; returns the job's number. Any earlier job's result will be dropped."""
        self._job += 1
        job = self._job
        if self._future is not None:
            self._future.cancel()      # not started yet: it never will (one already running finishes, dropped)
        future = self._future = _pool().submit(fn, *args)
        bridge, me = self._bridge, weakref.ref(self)
        future.add_done_callback(lambda f, job=job: _report(bridge, me, job, f))
        self._set_busy(True)
        return job

    def run_reporting(self, fn: Callable[..., Any], *args: Any) -> int:
        """``run(fn, *args)``, ``fn`` called with ``progress=`` a callable whose values arrive as ``progressed``."""
        bridge, me, job = self._bridge, weakref.ref(self), self._job + 1
        return self.run(partial(fn, progress=lambda value: bridge.reported.emit(me, job, value)), *args)

    def cancel(self) -> None:
        """Drop whatever is running: its result will never arrive."""
        self._job += 1
        if self._future is not None:
            self._future.cancel()
        self._set_busy(False)

    def _on_done(self, job: int, succeeded: bool, result: object) -> None:
        if job != self._job:
            return                      # superseded: a later run owns the answer
        self._set_busy(False)
        if succeeded:
            self.finished.emit(result)
        else:
            self.failed.emit(str(result))

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busy_changed.emit(busy)


def _report(bridge: _Bridge, worker: weakref.ref, job: int, future: Future) -> None:
    if future.cancelled():
        return                        # superseded before it started: nobody waits for it
    try:
        result = future.result()
    except Exception as error:        # the job's own failure, handed to the UI thread as a sentence
        bridge.done.emit(worker, job, False, str(error) or type(error).__name__)
        return
    bridge.done.emit(worker, job, True, result)
