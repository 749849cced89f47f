"""Python's cycle collector, run on the UI thread between events, never in the middle of one.

Python deletes a Qt object it owns when it frees the object's wrapper. Wrappers
caught in reference cycles (a widget and a lambda connected to its signal, a
library's menu that points back at its view) are freed by the cycle collector,
and left to itself that collector runs whenever enough objects have been
allocated: inside a paint, while Qt delivers an event to the very widget it
deletes, or on a worker thread, which must never delete a Qt object. Each of
these can crash the process at random (PySide, pyqtgraph and pytest-qt report
the same). The app therefore turns the automatic collector off and runs it from
a timer on the UI thread, as often as Python would have: the same memory
behaviour, at moments when no Qt event is half delivered.

A full collection walks every object the app has. Most of them live as long as
it does: the modules, their classes and functions, the window, the scenes. So
at the first check after start-up everything is frozen as it is (``gc.freeze``:
no later collection walks it again), and again once the thread that imports
every scene and the plotting libraries (``desktop.kit.imports``) is done (the
young generations collected first). Start-up is frozen without a collection:
walking its 20,000-50,000 objects stalled the window for 10-28 ms just after
its first frame, to free some 500 (70 KB). While that thread imports, checks
come every 20 ms and the young generations are collected often, so each walks
a few thousand objects; no full collection runs: it would walk every module
imported so far (numpy and pyqtgraph among them) and stall the window for
100-300 ms, on the first visits a presenter makes. Frozen objects are still
freed when nothing refers to them; only a cycle among them is kept for good:
start-up's garbage, one that becomes garbage later (the app drops none: its
scenes and windows live until it ends), or one that had already reached the
oldest generation during the imports' second or two, which the young
collection before that freeze does not look at (a one-time cost; it never
grows). The test run freezes nothing (``FREEZES``): each test's objects must
go before the next.
After a full collection (at most every ``TRIM_INTERVAL_SECONDS``) the C heap's
free pages go back to the system (``give_back_free_memory``).
"""
from __future__ import annotations

import gc
import time

from PySide6.QtCore import QObject, QTimer
from shiboken6 import isValid

from desktop.kit import imports

# Often enough that garbage never piles up (a busy second allocates well under a generation's worth of
# cycles); a check that finds nothing to do costs a microsecond.
CHECK_INTERVAL_MS = 250
# While the import thread runs: it makes some 100,000 objects a second, and a young collection walks every one made
# since the last. Checked every 250 ms, each walked 25,000-100,000 (10-23 ms on the UI thread), and the young
# collection at the imports' end walked all of generation 1 (40 ms): the window's longest stalls after its first
# frame. Checked this often, each walks a few thousand (under a millisecond) and generation 1 stays small.
IMPORTING_CHECK_INTERVAL_MS = 20
YOUNG_COLLECTIONS_WHILE_IMPORTING = 2     # generation 1 collected after this many of generation 0 (Python's: 10)
# The heap's free pages go back to the system after a full collection, at most this often (a trim walks the
# heap: 9.5 ms once 100 MB of small objects had just been freed, between events).
TRIM_INTERVAL_SECONDS = 30.0
_last_trim: float | None = None
_trim = False            # not looked up yet
# The stages whose survivors are frozen: "start-up" (the first check) and
# "imports" (the first check after that thread is done).
_settled: set[str] = set()
_collector = None         # the application's UiThreadCollector, once made
FREEZES = True           # tests set it False (tests/conftest.py)


class UiThreadCollector(QObject):
    """Owned by the application: made once, it turns Python's automatic collection off for the whole run."""

    def __init__(self, parent: QObject):
        super().__init__(parent)
        gc.disable()
        self._timer = QTimer(self)
        self._timer.setInterval(_interval_ms())
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    def _tick(self) -> None:
        self.check()
        interval = _interval_ms()
        if self._timer.interval() != interval:
            self._timer.setInterval(interval)

    def interval_ms(self) -> int:
        """How often it checks now: more often while the import thread runs."""
        return self._timer.interval()

    @staticmethod
    def check() -> int:
        """Collect the oldest generation whose count has passed its threshold, as Python's own trigger would
        (while the import thread runs: at most generation 1, and that one more often); at the first check freeze
        start-up as it is, and at the end of the imports the young generations, then freeze what survives.
        Returns the generation collected, or -1 when none was."""
        if FREEZES and "start-up" not in _settled:
            _settled.add("start-up")
            gc.freeze()
            return -1
        oldest, thresholds = 2, gc.get_threshold()
        if imports.importing():
            oldest, thresholds = 1, (thresholds[0], min(thresholds[1], YOUNG_COLLECTIONS_WHILE_IMPORTING), 0)
        elif FREEZES and imports.started() and "imports" not in _settled:
            # the young generations only: a full collection would walk every module imported (100-300 ms)
            _settled.add("imports")
            gc.collect(1)
            gc.freeze()
            return 1
        counts = gc.get_count()
        due = [generation for generation in range(oldest + 1) if counts[generation] > thresholds[generation]]
        if not due:
            return -1
        gc.collect(due[-1])
        if due[-1] == 2:
            give_back_free_memory()
        return due[-1]


def _interval_ms() -> int:
    """Often until the import thread is done (before it starts too: its first check is then not 250 ms late)."""
    return CHECK_INTERVAL_MS if imports.started() and not imports.importing() else IMPORTING_CHECK_INTERVAL_MS


def give_back_free_memory(now: float | None = None) -> bool:
    """After a full collection, at most every ``TRIM_INTERVAL_SECONDS``: hand the C heap's free pages back to the
    system (glibc's ``malloc_trim``; elsewhere nothing). Python, Qt and numpy free memory into the heap, which
    keeps it: a burst of short-lived allocations (a scene's first layouts at a new scenario) left 3.5 MB of
    free heap resident for the rest of the run, half the autoplay's drift budget. Returns whether it trimmed."""
    global _last_trim
    now = time.monotonic() if now is None else now
    if _last_trim is not None and now - _last_trim < TRIM_INTERVAL_SECONDS:
        return False
    _last_trim = now
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


def _malloc_trim():
    """glibc's ``malloc_trim``, or None where the C library has none (macOS, Windows, musl)."""
    global _trim
    if _trim is False:
        import ctypes                    # already imported by numpy, on the import thread

        try:
            _trim = getattr(ctypes.CDLL(None), "malloc_trim", None)     # the process's own C library
        except (OSError, TypeError):     # Windows has no "the process's own" library
            _trim = None
    return _trim


def collect_on_ui_thread(app: QObject) -> UiThreadCollector:
    """The application's collector (made on first call; the same one after). Kept here rather than looked up among
    the application's children, which would make Python objects of them all: the style among them, whose type's
    first use makes QStyle's enumerations (desktop.eliding_combo)."""
    global _collector
    if _collector is None or not isValid(_collector) or _collector.parent() is not app:
        _collector = UiThreadCollector(app)
    return _collector
