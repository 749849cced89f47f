"""The one way a scene asks the engine: ``ask(question, *arguments)``, cached, a refusal as a value.

A question is a function of the catalogue and hashable arguments
(``desktop.kit.questions``: a report, a crossover batch, a context sweep, and
whatever the engine learns next); asking needs no change here. Answers are
remembered in one bounded cache shared by the shared scenario's store and
every scene, least recently used first out, so the same question is computed
once however many scenes ask it.

A refusal comes back as the engine's ``InputError`` itself, never raised: a
story decides how to show it (a disabled preset, an inline note), and no slot
or paint can be broken by an engine question. Qt-free, so stories use it too.

A slow question (a fleet plan: a simulation of ~100 ms) is asked from a
worker thread (``desktop.kit.worker``) through the same cache, so every scene
and every later visit finds its answer; one marked ``slow_question`` is
computed in the engine process (``desktop.kit.engine_process``), so that its
Python does not take the window's lock while the worker waits. ``known``
tells the UI thread whether an answer is there without computing it. The cache's bookkeeping is guarded
by a lock; the question itself is computed outside it, once: a thread that
asks what another is computing waits for that answer instead of computing it
again beside it (scene 8's warm-up and its workers asked the same load curve,
~0.7 s of simulation, at the same moment, each slowing the window's first
visit by taking Python's lock from it). ``shared_answers``
gives every store of the process that answers from one catalogue object the
same cache: a scene made in a store of its own (a speaker preview, an export,
a test) finds what another already computed.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable

from desktop.kit import engine_process
from engine import InputError
from engine.errors import refusal

# Enough for every scene's presets and sweeps (a 16-step batch or context sweep each) across a session's
# scenarios; a report is a few hundred bytes, a sweep a few arrays of the few hundred points a plot draws.
CACHE_SIZE = 2048

Question = Callable[..., Any]        # question(catalog, *arguments) -> answer; raises InputError to refuse
Ask = Callable[..., Any]             # ask(question, *arguments) -> answer | InputError


NOT_KNOWN = object()                 # ``Answers.known``: no answer remembered (a value no question returns)


def refused(answer: Any) -> bool:
    """Whether ``answer`` is the engine's refusal rather than an answer."""
    return isinstance(answer, InputError)


class Answers:
    """``ask(question, *arguments)`` for one catalogue, remembered (least recently used beyond ``cache_size``)."""

    def __init__(self, catalog, cache_size: int = CACHE_SIZE):
        self.catalog = catalog
        self._cache: OrderedDict[tuple, Any] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()        # a worker thread asks too (module docstring)
        # The questions being computed now: key -> (the computing thread, set once its answer is remembered).
        self._computing: dict[tuple, tuple[int, threading.Event]] = {}

    def ask(self, question: Question, *arguments: Any) -> Any:
        """``question(catalog, *arguments)``, or its ``InputError``; never raises for the engine's sake. What
        another thread is computing is waited for, not computed again."""
        key = (question, arguments)
        try:
            cached = self._remembered(key)
        except TypeError:                    # an unhashable argument: the engine will refuse it
            return self._answer(question, arguments)
        if cached is not NOT_KNOWN:
            return cached
        done: threading.Event | None = None
        try:
            while True:
                with self._lock:
                    cached = self._cache.get(key, NOT_KNOWN)
                    if cached is not NOT_KNOWN:
                        self._cache.move_to_end(key)
                        return cached
                    computing = self._computing.get(key)
                    if computing is None or computing[0] == threading.get_ident():   # its own question again
                        done = threading.Event()
                        self._computing[key] = (threading.get_ident(), done)
                        break
                computing[1].wait()          # then it is remembered, or (its thread failed) asked again here
            answer = self._answer(question, arguments)
            with self._lock:
                self._cache[key] = answer
                self._cache.move_to_end(key)
                if len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
            return answer
        finally:                             # also after an interruption: nobody waits for it for ever
            if done is not None:
                with self._lock:
                    if self._computing.get(key, (None, None))[1] is done:
                        del self._computing[key]
                done.set()

    def known(self, question: Question, *arguments: Any) -> Any:
        """The answer ``ask`` would give if it is remembered, else ``NOT_KNOWN``; never computes."""
        try:
            return self._remembered((question, arguments))
        except TypeError:
            return NOT_KNOWN

    def _remembered(self, key: tuple) -> Any:
        with self._lock:
            cached = self._cache.get(key, NOT_KNOWN)
            if cached is not NOT_KNOWN:
                self._cache.move_to_end(key)
            return cached

    def _answer(self, question: Question, arguments: tuple) -> Any:
        try:
            if engine_process.is_slow(question):
                return engine_process.answer(question, self.catalog, *arguments)
            return question(self.catalog, *arguments)
        except InputError as engine_refusal:
            # Kept as the answer, without its traceback: that holds every frame of the engine's call, and their
            # locals (scenarios, reports, closures), for as long as the answer is remembered.
            return engine_refusal.with_traceback(None)
        except (ArithmeticError, ValueError) as failure:
            # The engine promises InputError for bad input; numbers at the edge of a float that slip past
            # the catalogue's ranges are refused here rather than breaking a paint.
            return refusal("engine.arithmetic", {"detail": str(failure)})

    def __len__(self) -> int:
        return len(self._cache)


_SHARED: dict[int, Answers] = {}          # by id of the catalogue object; each holds its catalogue (no id reuse)
_SHARED_LOCK = threading.Lock()
MOST_SHARED = 4                           # the built-in catalogue and a few a person imported models into


def shared_answers(catalog) -> Answers:
    """The one cache of answers from ``catalog`` that every store using that catalogue object shares."""
    with _SHARED_LOCK:
        found = _SHARED.get(id(catalog))
        if found is None or found.catalog is not catalog:
            if len(_SHARED) >= MOST_SHARED:
                _SHARED.pop(next(iter(_SHARED)))
            found = _SHARED[id(catalog)] = Answers(catalog)
        return found
