"""The tokenizer process: vocabularies loaded and texts cut in a process of their own, so the window never waits.

Loading a vocabulary holds Python's GIL for 60-250 ms inside the tokenizer
libraries' own constructors (tiktoken's, the tokenizers library's), and the
tokenizers library holds it for up to ~90 ms while it encodes a long text: on
a thread of the app's process each such stretch freezes the window for as
long. So every scene that reads a vocabulary (scene 3's cut of its request,
scene 6's cuts and counts, scene 8's corpus rates through scene 6's) runs its
jobs in this one process, started with ``spawn`` (a fresh interpreter that
imports the engine and the scenes' Qt-free modules, never Qt; the same on
every platform). It loads each vocabulary once, for every scene, and keeps it
for every later job while a scene on screen holds the process
(``hold``/``let_go``: scenes 3 and 6, where a person cuts again); with none
holding it, it ends once its jobs are done (``release_if_idle``), so the
vocabularies loaded for a scene left behind do not stay in memory. The app's
own process loads none. It sends back only small results: counts, and the
pieces of a text's beginning.

``submit(job, *args, channel=...)`` runs ``job(*args, cancelled=flag)`` there
and returns a ``concurrent.futures.Future``; ``run`` waits for it (a worker
thread waits; the UI thread only for an export, which must). A job on a
channel supersedes that channel's previous job: a number in memory shared with
the process tells the old job, at its next check (between chunks or pairs),
that it is no longer wanted. A job is a function of a Qt-free module, sent by
name; a job without a channel is never cancelled.

How the process starts, ends with the app, is replaced when it dies and,
where none can start, leaves its jobs to the calling thread is every job
process's (``desktop.kit.job_process``); there the window may stall while a
vocabulary loads (``in_process()`` says so).
"""
from __future__ import annotations

import weakref
from concurrent.futures import Future
from typing import Any, Callable

from desktop.kit.child_process import follow_parent
from desktop.kit.job_process import JobProcess, ProcessStopped, wait

__all__ = ["CHANNELS", "ProcessStopped", "Superseded", "cancel", "hold", "in_process", "let_go", "release_if_idle",
           "run", "running", "stop", "submit", "wait"]

CHANNELS = ("corpus", "playground", "one_token")     # scene 6's paste and playground, scene 3's request
# Each channel's current job number; shared with the process (set there by ``_started``). A plain list until the
# process exists, and for good where it cannot.
_numbers: Any = [0] * len(CHANNELS)
# The scenes on screen that cut texts as a person types, steps or picks a tokenizer (scenes 3 and 6): while none
# is, the process ends once its jobs are done. A scene that asks once and keeps the answer (scene 8's corpus
# rates) holds nothing, so the vocabularies it loads do not stay in memory behind the scenes that show no token.
_holders: "weakref.WeakSet[object]" = weakref.WeakSet()       # a scene deleted on screen holds nothing


class Superseded:
    """A job's ``cancelled``: set once a later job has taken its channel (readable in either process)."""

    def __init__(self, channel: int, number: int):
        self.channel, self.number = channel, number

    def is_set(self) -> bool:
        return _numbers[self.channel] != self.number


class _TokenizerProcess(JobProcess):
    """The job process whose jobs can be superseded by channel, and which ends when no scene holds it."""

    def _child_start(self, context):
        numbers = context.RawArray("q", len(CHANNELS))
        numbers[:] = list(_numbers)
        return _started, (numbers,)

    def _on_start(self, initargs: tuple) -> None:
        global _numbers
        _numbers = initargs[0]

    def _on_idle(self) -> None:
        release_if_idle()

    def stop(self) -> None:
        for channel in CHANNELS:       # a superseded job ends at its next check: quitting waits for none
            cancel(channel)
        super().stop()


_process = _TokenizerProcess("tokenizer")


def in_process() -> bool:
    """Whether jobs run in the calling thread of this process (no tokenizer process could be started)."""
    return _process.in_process()


def running() -> bool:
    """Whether a tokenizer process has been started and not ended since (it holds vocabularies)."""
    return _process.running()


def submit(job: Callable[..., Any], *args: Any, channel: str | None = None) -> Future:
    """``job(*args)`` in the tokenizer process (with ``cancelled=`` a ``Superseded`` when on a ``channel``)."""
    kwargs = {"cancelled": _take(channel)} if channel is not None else {}
    return _process.submit(job, *args, **kwargs)


def run(job: Callable[..., Any], *args: Any, channel: str | None = None) -> Any:
    """``submit(...)``'s result, waited for in the calling thread (``wait``)."""
    return wait(submit(job, *args, channel=channel))


def cancel(channel: str) -> None:
    """The running job of ``channel`` stops at its next check (its result is not wanted)."""
    _take(channel)


def stop() -> None:
    """Stop every job that can stop and end the process (the app is quitting): waits for the job running, which
    a superseded flag ends at its next check (a vocabulary being loaded, a few tenths of a second at most)."""
    _process.stop()


def hold(owner: object) -> None:
    """``owner`` (a scene on screen) will cut more texts soon: the process keeps its vocabularies between jobs."""
    with _process.lock:
        _holders.add(owner)


def let_go(owner: object) -> None:
    """``owner`` no longer needs the vocabularies kept (it left the screen); ``release_if_idle`` ends the process
    once no one else does."""
    with _process.lock:
        _holders.discard(owner)


def release_if_idle() -> None:
    """End the process (once its queued jobs are done: a few hundred MB of vocabularies) unless a job is running or
    a scene on screen holds it."""
    with _process.lock:
        idle = _process.pending == 0 and not _holders
    if idle:
        _process.release()


def _take(channel: str | None) -> Superseded | None:
    if channel is None:
        return None
    index = CHANNELS.index(channel)
    with _process.lock:
        _numbers[index] += 1
        return Superseded(index, _numbers[index])


# -- in the tokenizer process -------------------------------------------------------------------------------------
def _started(numbers) -> None:
    global _numbers
    _numbers = numbers
    follow_parent()                    # Ctrl+C in the terminal is the app's to handle; the app's end is ours
