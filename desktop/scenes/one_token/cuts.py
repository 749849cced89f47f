"""Scene 3's cuts of its request: made in the tokenizer process, remembered for the run of the app.

The question and the answer are cut by a real tokenizer (``pictures.cut_request``,
a Qt-free job) in the tokenizer process (``desktop.kit.tokenizer_process``, on
its ``one_token`` channel), so the app's own process loads no vocabulary: the
window never stalls while one loads, and none is kept twice. What comes back
(the pieces of two short texts, a few KB) is remembered here by what was cut
(``CutRequest.source``), so a later visit, a switch back to a tokenizer or a
language, or an export shows a cut made before at once. ``prepare(sources)``
asks in idle time after the app's first frame, so the first visit (and its
first press of L) shows its cut at once.

A source is asked of the process once, however many wait for it. Asking for
another supersedes it (the person picked another tokenizer): the earlier job
stops before its next text and gives None; ``cancel`` stops it with no other.
Where no process can start, the job runs in the thread that asks.
"""
from __future__ import annotations

import threading
from concurrent.futures import Future
from functools import partial

from desktop.kit import tokenizer_process

from .pictures import CutRequest, cut_request

CHANNEL = "one_token"
MOST_ASKS = 3                      # an insisting wait asks again at most this often (see ``cut``)
Source = tuple[str, str, str]      # (tokenizer, prompt text, answer text)

_lock = threading.Lock()           # guards the two below; never held while a job runs
_asking = threading.Lock()         # one ask at a time, so two never supersede each other's job
_known: dict[Source, CutRequest] = {}
_latest: tuple[Source, Future] | None = None       # the channel's job: the latest cut asked, and its future


def known(source: Source) -> CutRequest | None:
    """The cut of ``source`` made so far in this run of the app (never waits)."""
    with _lock:
        return _known.get(source)


def ask(source: Source) -> Future:
    """The future of the cut of ``source``: done at once when known, the job already asked when it is the latest,
    else a new job in the tokenizer process (superseding the channel's earlier one)."""
    global _latest
    with _asking:
        with _lock:
            if source in _known:
                done: Future = Future()
                done.set_result(_known[source])
                return done
            if _latest is not None and _latest[0] == source and not _failed(_latest[1]):
                return _latest[1]
        future = tokenizer_process.submit(cut_request, *source, channel=CHANNEL)
        with _lock:
            _latest = (source, future)
    future.add_done_callback(partial(_arrived, source))
    return future


def cut(source: Source, insist: bool = False) -> CutRequest | None:
    """The cut of ``source``, waited for (a worker thread, an export); None when a later ask superseded it, unless
    ``insist`` (a wait on the UI thread, where no person can have asked another: only the idle preparation can
    have superseded it, and it stops once superseded itself): then it is asked again. ``ProcessStopped`` once the
    app is quitting."""
    for _ in range(MOST_ASKS):
        try:
            made = tokenizer_process.wait(ask(source))
        except tokenizer_process.ProcessStopped:       # died meanwhile: once more, in a new process (quitting: raises)
            made = tokenizer_process.wait(ask(source))
        if made is not None or not insist:
            return made
    return None


def cancel() -> None:
    """The cut being made is no longer wanted (the stage shows one it has): it stops before its next text."""
    global _latest
    with _asking:
        with _lock:
            _latest = None
        tokenizer_process.cancel(CHANNEL)


def prepare(sources: list[Source]) -> None:
    """Start cutting ``sources`` for the first visit, one after another (none supersedes another); returns at once
    (starting the process takes tens of ms: a thread of its own does). Nothing where the jobs would run in this
    process: loading there stalls the window."""
    threading.Thread(target=_prepare, args=(sources,), daemon=True, name="inference-physics-prepare-cut").start()


def forget() -> None:
    """Forget every cut made (tests: cut again)."""
    global _latest
    with _lock:
        _known.clear()
        _latest = None


def _prepare(sources: list[Source]) -> None:
    if tokenizer_process.in_process():
        return
    for source in sources:
        try:
            if cut(source) is None:    # the scene asked for a cut of its own meanwhile: it goes first, this stops
                return
        except Exception:          # the visit asks again and shows why, inline
            return


def _failed(future: Future) -> bool:
    return future.done() and (future.cancelled() or future.exception() is not None)


def _arrived(source: Source, future: Future) -> None:
    if not _failed(future) and isinstance(future.result(), CutRequest):
        with _lock:
            _known[source] = future.result()
