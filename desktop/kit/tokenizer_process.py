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

The process exits with the app, and on its own when the app is killed (it
watches its parent); Ctrl+C is the app's to handle. A process that dies is
replaced by the next job. Where none can be started (a frozen bundle, which
would start the app again instead; a system without process semaphores; one
that died ``MOST_DEATHS`` times), jobs run in the calling thread: correct, only
the window may stall while a vocabulary loads (``in_process()`` says so). As
with any ``spawn`` process, a script that shows such a scene needs the usual
``if __name__ == "__main__":`` guard (the new process imports the main module).
"""
from __future__ import annotations

import sys
import threading
import weakref
from concurrent.futures import Future
from functools import partial
from typing import TYPE_CHECKING, Any, Callable

from desktop.kit.child_process import follow_parent, interrupts_blocked

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

# multiprocessing and concurrent.futures.process (a few tens of ms to import) are imported by the first job, on
# the worker thread that submits it, not by the view's module on the UI thread.

CHANNELS = ("corpus", "playground", "one_token")     # scene 6's paste and playground, scene 3's request
# After this many deaths in one run (killed, out of memory, or a script without a main guard, whose copy in the
# new process cannot start), jobs run in the calling thread: slower to load, but they still count.
MOST_DEATHS = 3

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_in_process: bool | None = None   # None: not yet tried; True: jobs run in the calling thread
_deaths = 0
_exit_hooked = False
_started_one = False              # the current pool has been given a job, so it has a process
_quitting = False
# Each channel's current job number; shared with the process (set there by ``_started``). A plain list until the
# process exists, and for good where it cannot.
_numbers: Any = [0] * len(CHANNELS)
# The scenes on screen that cut texts as a person types, steps or picks a tokenizer (scenes 3 and 6): while none
# is, the process ends once its jobs are done. A scene that asks once and keeps the answer (scene 8's corpus
# rates) holds nothing, so the vocabularies it loads do not stay in memory behind the scenes that show no token.
_holders: "weakref.WeakSet[object]" = weakref.WeakSet()       # a scene deleted on screen holds nothing
_pending = 0


class ProcessStopped(RuntimeError):
    """The tokenizer process ended in the middle of a job (killed, out of memory); the next job starts a new one."""


class Superseded:
    """A job's ``cancelled``: set once a later job has taken its channel (readable in either process)."""

    def __init__(self, channel: int, number: int):
        self.channel, self.number = channel, number

    def is_set(self) -> bool:
        return _numbers[self.channel] != self.number


def in_process() -> bool:
    """Whether jobs run in the calling thread of this process (no tokenizer process could be started)."""
    _the_pool()
    return bool(_in_process)


def running() -> bool:
    """Whether a tokenizer process has been started and not ended since (it holds vocabularies)."""
    return _pool is not None and _started_one


def submit(job: Callable[..., Any], *args: Any, channel: str | None = None) -> Future:
    """``job(*args)`` in the tokenizer process (with ``cancelled=`` a ``Superseded`` when on a ``channel``)."""
    from concurrent.futures.process import BrokenProcessPool

    global _started_one
    kwargs = {"cancelled": _take(channel)} if channel is not None else {}
    future: Future
    for _attempt in range(2):
        pool = _the_pool()
        if pool is None:
            break
        try:
            with interrupts_blocked():                     # a process started here inherits the block
                future = pool.submit(job, *args, **kwargs)
        except (BrokenProcessPool, RuntimeError):          # it died since the last job: a new one
            with _lock:
                _forget(pool)
            continue
        _started_one = True
        _job_started()
        future.add_done_callback(partial(_check_death, pool))
        future.add_done_callback(_job_done)
        return future
    future = Future()
    if _quitting:
        future.set_exception(ProcessStopped("the app is quitting: no more counts"))
        return future
    try:
        future.set_result(job(*args, **kwargs))
    except Exception as failure:
        future.set_exception(failure)
    return future


def run(job: Callable[..., Any], *args: Any, channel: str | None = None) -> Any:
    """``submit(...)``'s result, waited for in the calling thread (``wait``)."""
    return wait(submit(job, *args, channel=channel))


def wait(future: Future) -> Any:
    """The result of a job ``submit`` started, waited for in the calling thread; its exception raised here, and
    ``ProcessStopped`` when the process died in the job or the app's quitting dropped it (a queued job is
    cancelled then)."""
    from concurrent.futures import CancelledError
    from concurrent.futures.process import BrokenProcessPool

    try:
        return future.result()
    except (BrokenProcessPool, CancelledError):
        raise ProcessStopped("the tokenizer process stopped while it worked; the next count starts a new one") \
            from None


def cancel(channel: str) -> None:
    """The running job of ``channel`` stops at its next check (its result is not wanted)."""
    _take(channel)


def stop() -> None:
    """Stop every job that can stop and end the process (the app is quitting): waits for the job running, which
    a superseded flag ends at its next check (a vocabulary being loaded, a few tenths of a second at most)."""
    global _pool, _quitting
    for channel in CHANNELS:
        cancel(channel)
    with _lock:
        pool, _pool, _quitting = _pool, None, True
    if pool is not None:
        # Waiting here, before concurrent.futures' own exit hook, also keeps that hook from waking a manager
        # thread that is closing its pipe at that moment (Python 3.11 then prints an OSError on the way out).
        pool.shutdown(wait=True, cancel_futures=True)


def _release() -> None:
    """End the process once its queued jobs are done, now that no scene shows what its vocabularies cut (a few
    hundred MB); returns at once. The next job starts a new one."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=False)


def hold(owner: object) -> None:
    """``owner`` (a scene on screen) will cut more texts soon: the process keeps its vocabularies between jobs."""
    with _lock:
        _holders.add(owner)


def let_go(owner: object) -> None:
    """``owner`` no longer needs the vocabularies kept (it left the screen); ``release_if_idle`` ends the process
    once no one else does."""
    with _lock:
        _holders.discard(owner)


def release_if_idle() -> None:
    """End the process (once its queued jobs are done) unless a job is running or a scene on screen holds it."""
    with _lock:
        idle = _pending == 0 and not _holders
    if idle:
        _release()


def _job_started() -> None:
    global _pending
    with _lock:
        _pending += 1


def _job_done(_future: Future) -> None:
    global _pending
    with _lock:
        _pending = max(0, _pending - 1)
    release_if_idle()


def _take(channel: str | None) -> Superseded | None:
    if channel is None:
        return None
    index = CHANNELS.index(channel)
    with _lock:
        _numbers[index] += 1
        return Superseded(index, _numbers[index])


def _the_pool() -> "ProcessPoolExecutor | None":
    global _pool, _in_process, _numbers, _exit_hooked, _started_one
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with _lock:
        if _pool is not None or _in_process or _quitting:
            return _pool
        if getattr(sys, "frozen", False):
            _in_process = True        # a frozen app's spawned child runs the app's own main, not ours
            return None
        try:
            context = multiprocessing.get_context("spawn")
            numbers = context.RawArray("q", len(CHANNELS))
            numbers[:] = list(_numbers)
            _pool = ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=_started,
                                        initargs=(numbers,))
            _started_one = False
        except (OSError, ImportError, NotImplementedError, ValueError):
            _in_process = True
            return None
        _numbers, _in_process = numbers, False
        # Before concurrent.futures' own exit hook (they run last registered first), which waits for the running
        # job: superseded jobs stop at once and queued ones are dropped, so quitting never waits for a long count.
        if not _exit_hooked and hasattr(threading, "_register_atexit"):
            threading._register_atexit(stop)
            _exit_hooked = True
        return _pool


def _check_death(pool: "ProcessPoolExecutor", future: Future) -> None:
    from concurrent.futures.process import BrokenProcessPool

    if not future.cancelled() and isinstance(future.exception(), BrokenProcessPool):
        with _lock:
            _forget(pool)


def _forget(pool: "ProcessPoolExecutor") -> None:
    """A pool whose process died: the next job starts another (or, after ``MOST_DEATHS``, runs in this one)."""
    global _pool, _deaths, _in_process
    if _pool is pool:
        _pool = None
        _deaths += 1
        _in_process = True if _deaths >= MOST_DEATHS else None
    pool.shutdown(wait=False, cancel_futures=True)


# -- in the tokenizer process -------------------------------------------------------------------------------------
def _started(numbers) -> None:
    global _numbers
    _numbers = numbers
    follow_parent()                    # Ctrl+C in the terminal is the app's to handle; the app's end is ours
