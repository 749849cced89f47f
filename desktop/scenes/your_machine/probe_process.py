"""The probe of this machine, run in a child process of its own, its progress and result sent back through a pipe.

The probe (``engine.probe.probe_machine``) keeps every core busy for several
seconds: its matrix products run on the BLAS's threads, one per core. In a
thread of the app's process it would share the interpreter with the window;
in a child process it shares nothing, and stopping it is immediate: the child
is ended (the probe keeps nothing half-measured). So ``ProbeRun.run`` starts
one child per measurement with ``spawn`` (a fresh interpreter that imports the
engine and this module, never Qt; the same on every platform), hands it the
app's catalogue, and waits on the pipe, calling ``progress(stage, fraction)``
for each report (at most one per ``PROGRESS_STEP`` of the whole, and each new
stage) until the result or the probe's one-sentence refusal arrives.

``run`` blocks: it is called on a worker thread (``desktop.kit.worker``),
never the UI thread. ``stop()``, from any thread, ends the child; ``run`` then
raises ``ProbeCancelled``. No child outlives its run: ``run`` ends and reaps it
however it returns, the child ends itself when the app does (it watches its
parent, so a killed app leaves none behind), and ``stop_all`` (registered to
run before the worker threads are joined at exit) ends any still running.

Where no process can be started (a frozen bundle, whose child would start the
app again; a system without process support), the probe runs on the calling
thread instead, cancelled at its next check: correct, only the window may
stutter while the BLAS takes every core (``in_process`` says so). As with any
``spawn`` process, a script that uses the scene needs the usual
``if __name__ == "__main__":`` guard. Qt-free.
"""
from __future__ import annotations

import sys
import threading
from dataclasses import replace
from typing import Any, Callable

from desktop.kit.child_process import follow_parent, interrupts_blocked
from engine.probe import ProbeCancelled, ProbeError, probe_machine
from engine.probe_result import ProbeResult
from engine.probe_sizes import probe_error

PROGRESS_STEP = 0.01          # of the whole probe: about a hundred reports, not one per timed run
JOIN_SECONDS = 5.0            # an ended child is reaped within this (it is killed after it)
CHILD_NAME = "inference-physics-probe"

Progress = Callable[[str, float], None]

_running: set["ProbeRun"] = set()
_lock = threading.Lock()
_exit_hooked = False


def in_process() -> bool:
    """Whether probes run on the calling thread (no child process can be started here)."""
    return bool(getattr(sys, "frozen", False))


def running() -> int:
    """How many probes are running now."""
    with _lock:
        return len(_running)


def stop_all() -> None:
    """End every probe still running and reap its child (the app is quitting)."""
    with _lock:
        runs = list(_running)
    for run in runs:
        run.stop()
        run.reap()


def measure(run: "ProbeRun", progress: Callable[[tuple[str, float]], None] | None = None):
    """The job a worker thread runs: ``run``'s measurement, or its refusal as a value (``ProbeError``), or None
    when it was stopped. ``progress`` hears (stage, fraction) pairs."""
    try:
        return run.run(None if progress is None else lambda stage, fraction: progress((stage, fraction)))
    except ProbeError as refused:
        return refused
    except ProbeCancelled:
        return None


class ProbeRun:
    """One measurement of this machine: ``run(progress)`` once, ``stop()`` at any time from any thread."""

    def __init__(self, catalog: Any = None, model: str | None = None, memory_budget_bytes: int | None = None,
                 accelerators: bool = True):
        self._arguments = (catalog, model, memory_budget_bytes, accelerators)
        self._stopped = threading.Event()
        self._process = None
        self._guard = threading.Lock()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def stop(self) -> None:
        """Stop the probe: its child ends now (the running ``run`` raises ``ProbeCancelled``)."""
        self._stopped.set()
        with self._guard:
            process = self._process
        if process is not None and process.is_alive():
            process.terminate()

    def reap(self) -> None:
        """Wait for the child to end (killed if it does not within ``JOIN_SECONDS``)."""
        with self._guard:
            process = self._process
        if process is None:
            return
        process.join(JOIN_SECONDS)
        if process.is_alive():
            process.kill()
            process.join(JOIN_SECONDS)

    def run(self, progress: Progress | None = None) -> ProbeResult:
        """The measurement (see the module's docstring); raises ``ProbeError`` (one sentence) or
        ``ProbeCancelled`` (stopped)."""
        report = _Throttled(progress)
        started = None if in_process() else self._start()
        if started is None:
            return self._run_here(report)
        process, reader = started
        try:
            return self._read(reader, report)
        finally:
            reader.close()
            if process.is_alive():            # an error on our side: the child is not wanted any more
                self.stop()
            self.reap()
            with _lock:
                _running.discard(self)

    def _start(self):
        """(the child process, the pipe's reading end), started; None where no process can be started here.
        Raises ``ProbeCancelled`` when stopped before it started."""
        import multiprocessing
        _hook_exit()
        try:
            context = multiprocessing.get_context("spawn")
            reader, writer = context.Pipe(duplex=False)
            process = context.Process(target=_child, args=(writer, *self._arguments), daemon=True,
                                      name=CHILD_NAME)
        except (OSError, ImportError, NotImplementedError, ValueError):
            return None
        try:
            with self._guard:
                if self.stopped:
                    raise ProbeCancelled()
                with interrupts_blocked():            # a Ctrl+C in the terminal is the app's to handle
                    process.start()
                self._process = process
        except (OSError, RuntimeError, ValueError):   # no process here after all (resources, a frozen start)
            reader.close()
            writer.close()
            return None
        except ProbeCancelled:
            reader.close()
            writer.close()
            raise
        with _lock:
            _running.add(self)
        writer.close()                                 # the child's end: its death now ends our reads
        return process, reader

    def _read(self, reader, report: "_Throttled") -> ProbeResult:
        while True:
            try:
                message = reader.recv()
            except (EOFError, OSError):
                if self.stopped:
                    raise ProbeCancelled() from None
                self.reap()                            # its pipe closed as it died: its exit status says how
                code = self._process.exitcode if self._process is not None else None
                raise probe_error("probe.stopped", {"reason": _exit_reason(code)}) from None
            kind = message[0]
            if kind == "progress":
                report(message[1], message[2])
            elif kind == "done":
                _, result, problem = message
                return replace(result, accelerator_error=_error(problem)) if problem else result
            elif kind == "refused":
                raise _error(message[1])

    def _run_here(self, report: "_Throttled") -> ProbeResult:
        catalog, model, budget, accelerators = self._arguments
        return probe_machine(model, catalog=catalog, memory_budget_bytes=budget, accelerators=accelerators,
                             progress=report, cancelled=self._stopped.is_set)


class _Throttled:
    """``progress`` called for each new stage and each ``PROGRESS_STEP`` of the whole, never going back."""

    def __init__(self, progress: Progress | None):
        self._progress = progress
        self._stage, self._fraction = "", -1.0

    def __call__(self, stage: str, fraction: float) -> None:
        if self._progress is None:
            return
        if stage != self._stage or fraction >= self._fraction + PROGRESS_STEP or fraction >= 1.0 > self._fraction:
            self._stage, self._fraction = stage, max(fraction, self._fraction)
            self._progress(stage, self._fraction)


def _error(parts: tuple) -> ProbeError:
    """A ``ProbeError`` sent as (sentence, code, values): an exception with extra fields does not pickle whole."""
    message, code, values = parts
    return ProbeError(message, code, values)


def _parts(error: ProbeError) -> tuple:
    return str(error), error.code, dict(error.values)


def _exit_reason(code: int | None) -> str:
    """Why a child ended, in the words of its exit status ("signal 9", "exit status 1")."""
    if code is None:
        return "no exit status"
    if code < 0:
        return f"signal {-code}"
    return f"exit status {code}"


def _hook_exit() -> None:
    """``stop_all`` before the worker threads are joined at exit (exit hooks run last registered first)."""
    global _exit_hooked
    with _lock:
        if not _exit_hooked and hasattr(threading, "_register_atexit"):
            threading._register_atexit(stop_all)
            _exit_hooked = True


# -- in the child process ------------------------------------------------------------------------------------------
def _child(writer, catalog, model, budget, accelerators) -> None:
    follow_parent()
    try:
        result = probe_machine(model, catalog=catalog, memory_budget_bytes=budget, accelerators=accelerators,
                               progress=lambda stage, fraction: writer.send(("progress", stage, fraction)))
    except ProbeError as refused:
        writer.send(("refused", _parts(refused)))
    except Exception as failure:          # anything else the probe did not turn into its sentence
        reason = " ".join(str(failure).split()) or type(failure).__name__
        writer.send(("refused", _parts(probe_error("probe.stopped", {"reason": reason}))))
    else:
        problem = result.accelerator_error
        writer.send(("done", replace(result, accelerator_error=None), _parts(problem) if problem else None))
    finally:
        writer.close()
