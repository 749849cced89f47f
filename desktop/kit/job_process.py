"""A process of the app's own that runs jobs, so that their Python never takes the lock the window needs. Qt-free.

Python runs one thread at a time (the GIL): a long computation on a worker
thread of the app's process makes the window wait for the lock after each of
its calls into Qt, and a frame that makes hundreds of them stalls for tens of
milliseconds. A ``JobProcess`` is one worker process started with ``spawn``
(a fresh interpreter that imports only the modules of the jobs it is sent,
never Qt; the same on every platform), on the machine's other cores. The
tokenizer process (``desktop.kit.tokenizer_process``) and the engine process
(``desktop.kit.engine_process``) are two.

``submit(job, *args, **kwargs)`` runs ``job(*args, **kwargs)`` there and returns
a ``concurrent.futures.Future``; ``wait`` gives its result in the calling
thread (a worker thread: waiting takes no lock from the window). A job is a
function of a Qt-free module, sent by name; its arguments and result are
pickled. The process exits with the app, and on its own when the app is killed
(it watches its parent); Ctrl+C is the app's to handle. A process that dies is
replaced by the next job. Where none can be started (a frozen bundle, which
would start the app again instead; a system without process semaphores; one
that died ``MOST_DEATHS`` times), jobs run in the calling thread: correct,
only the window may stall meanwhile (``in_process()`` says so). As with any
``spawn`` process, a script that starts one needs the usual
``if __name__ == "__main__":`` guard (the new process imports the main module).
"""
from __future__ import annotations

import sys
import threading
from concurrent.futures import Future
from functools import partial
from typing import TYPE_CHECKING, Any, Callable

from desktop.kit.child_process import follow_parent, interrupts_blocked

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

# multiprocessing and concurrent.futures.process (a few tens of ms to import) are imported by the first job, on
# the worker thread that submits it, not by a view's module on the UI thread.

# After this many deaths in one run (killed, out of memory, or a script without a main guard, whose copy in the
# new process cannot start), jobs run in the calling thread: slower for the window, but they still get done.
MOST_DEATHS = 3


class ProcessStopped(RuntimeError):
    """A job's process ended in the middle of it (killed, out of memory), or the app's quitting dropped it; the
    next job starts a new process."""


def wait(future: Future) -> Any:
    """The result of a job ``submit`` started, waited for in the calling thread; its exception raised here, and
    ``ProcessStopped`` when the process died in the job or the app's quitting dropped it (a queued job is
    cancelled then)."""
    from concurrent.futures import CancelledError
    from concurrent.futures.process import BrokenProcessPool

    try:
        return future.result()
    except (BrokenProcessPool, CancelledError):
        raise ProcessStopped("a process of the app stopped while it worked; the next job starts a new one") \
            from None


class JobProcess:
    """One spawned process that runs jobs one after another (module docstring).

    What a kind of process adds (a subclass): ``_child_start`` (the initializer of a new process, after
    ``follow_parent``), ``_on_start`` (in this process, once a new one is set up) and ``_on_idle`` (after each
    job; the tokenizer process ends there when no scene needs its vocabularies)."""

    def __init__(self, name: str):
        self.name = name
        self.lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None
        self._in_process: bool | None = None    # None: not yet tried; True: jobs run in the calling thread
        self._deaths = 0
        self._exit_hooked = False
        self._started_one = False               # the current pool has been given a job, so it has a process
        self.quitting = False
        self.pending = 0                        # jobs submitted and not yet done

    def in_process(self) -> bool:
        """Whether jobs run in the calling thread of this process (no process could be started)."""
        self._the_pool()
        return bool(self._in_process)

    def running(self) -> bool:
        """Whether a process has been started and not ended since."""
        return self._pool is not None and self._started_one

    def process_ids(self) -> frozenset[int]:
        """The ids of the processes running now (none or one; for a benchmark that tells them apart)."""
        pool = self._pool
        return frozenset(getattr(pool, "_processes", None) or ()) if pool is not None else frozenset()

    def submit(self, job: Callable[..., Any], *args: Any, **kwargs: Any) -> Future:
        """``job(*args, **kwargs)`` in the process (or, where none can run, in this thread, done at once)."""
        from concurrent.futures.process import BrokenProcessPool

        future: Future
        for _attempt in range(2):
            pool = self._the_pool()
            if pool is None:
                break
            try:
                with interrupts_blocked():                     # a process started here inherits the block
                    future = pool.submit(job, *args, **kwargs)
            except (BrokenProcessPool, RuntimeError):          # it died since the last job: a new one
                with self.lock:
                    self._forget(pool)
                continue
            self._started_one = True
            with self.lock:
                self.pending += 1
            future.add_done_callback(partial(self._check_death, pool))
            future.add_done_callback(self._job_done)
            return future
        future = Future()
        if self.quitting:
            future.set_exception(ProcessStopped(f"the app is quitting: the {self.name} process takes no more jobs"))
            return future
        try:
            future.set_result(job(*args, **kwargs))
        except Exception as failure:
            future.set_exception(failure)
        return future

    def run(self, job: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``submit(...)``'s result, waited for in the calling thread (``wait``)."""
        return wait(self.submit(job, *args, **kwargs))

    def stop(self) -> None:
        """End the process (the app is quitting): queued jobs are dropped; waits for the running one."""
        with self.lock:
            pool, self._pool, self.quitting = self._pool, None, True
        if pool is not None:
            # Waiting here, before concurrent.futures' own exit hook, also keeps that hook from waking a manager
            # thread that is closing its pipe at that moment (Python 3.11 then prints an OSError on the way out).
            pool.shutdown(wait=True, cancel_futures=True)

    def release(self) -> None:
        """End the process once its queued jobs are done; returns at once. The next job starts a new one."""
        with self.lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False)

    # -- what a kind of process adds -------------------------------------------------------------------
    def _child_start(self, context) -> tuple[Callable[..., None], tuple]:
        """The initializer of a new process and its arguments (made with ``context``, the spawn context)."""
        return follow_parent, ()

    def _on_start(self, initargs: tuple) -> None:
        """A new process was set up with ``initargs`` (called under the lock)."""

    def _on_idle(self) -> None:
        """A job is done (called without the lock)."""

    # -- bookkeeping -------------------------------------------------------------------------------------
    def _job_done(self, _future: Future) -> None:
        with self.lock:
            self.pending = max(0, self.pending - 1)
        self._on_idle()

    def _the_pool(self) -> "ProcessPoolExecutor | None":
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with self.lock:
            if self._pool is not None or self._in_process or self.quitting:
                return self._pool
            if getattr(sys, "frozen", False):
                self._in_process = True    # a frozen app's spawned child runs the app's own main, not ours
                return None
            try:
                context = multiprocessing.get_context("spawn")
                initializer, initargs = self._child_start(context)
                self._pool = ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=initializer,
                                                 initargs=initargs)
                self._started_one = False
            except (OSError, ImportError, NotImplementedError, ValueError):
                self._in_process = True
                return None
            self._in_process = False
            self._on_start(initargs)
            # Before concurrent.futures' own exit hook (they run last registered first), which waits for the
            # running job: queued jobs are dropped, so quitting never waits for them.
            if not self._exit_hooked and hasattr(threading, "_register_atexit"):
                threading._register_atexit(self.stop)
                self._exit_hooked = True
            return self._pool

    def _check_death(self, pool: "ProcessPoolExecutor", future: Future) -> None:
        from concurrent.futures.process import BrokenProcessPool

        if not future.cancelled() and isinstance(future.exception(), BrokenProcessPool):
            with self.lock:
                self._forget(pool)

    def _forget(self, pool: "ProcessPoolExecutor") -> None:
        """A pool whose process died: the next job starts another (or, after ``MOST_DEATHS``, runs in this one)."""
        if self._pool is pool:
            self._pool = None
            self._deaths += 1
            self._in_process = True if self._deaths >= MOST_DEATHS else None
        pool.shutdown(wait=False, cancel_futures=True)
