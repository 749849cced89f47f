"""The engine process: the engine's slow questions answered in a process of their own, so the window never waits.

Scene 8's fleet plans, latency curve and prices are simulations of the
engine's, 30-150 ms of Python each, some half a second in all for the default
controls. Asked on a worker thread of the app's process they took Python's
lock (the GIL) from the window while the app prepared the scene in idle time,
and every scene visited meanwhile stalled for 50-130 ms a frame. A question
marked ``slow`` (``slow_question``) is computed here instead when the answers
cache asks it (``desktop.kit.answers``): the asking thread, a worker, only
waits. The cache, the deduplication of a question asked twice and the
refusals as values stay the cache's; only the arithmetic moves.

A job process (``desktop.kit.job_process``): started once, by the first slow
question (scene 8's warm-up in idle time, on a thread of its own: starting a
process takes tens of milliseconds of Python); it keeps the engine imported
for the rest of the run (about 40 MB) and ends with the app. Where no process
can start, slow questions are computed in the asking thread, as before.
"""
from __future__ import annotations

from typing import Any, Callable

from desktop.kit.job_process import JobProcess

_process = JobProcess("engine")


def slow_question(question: Callable[..., Any]) -> Callable[..., Any]:
    """Mark ``question`` (a function of a Qt-free module, picklable arguments and answer) as one the answers cache
    computes in the engine process."""
    question.slow = True
    return question


def is_slow(question: Callable[..., Any]) -> bool:
    return getattr(question, "slow", False) is True


def answer(question: Callable[..., Any], catalog, *arguments: Any) -> Any:
    """``question(catalog, *arguments)`` computed in the engine process, waited for here (its ``InputError``
    raised here; ``ProcessStopped`` when the process ended under it)."""
    return _process.run(question, catalog, *arguments)


def in_process() -> bool:
    """Whether slow questions are computed in the asking thread (no engine process could be started)."""
    return _process.in_process()


def process_ids() -> frozenset[int]:
    """The engine process's id while it runs (it stays for the whole run; a benchmark leaves it out of a wait)."""
    return _process.process_ids()


def stop() -> None:
    """End the process (the app is quitting)."""
    _process.stop()

