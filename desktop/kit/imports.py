"""Modules imported on a thread of their own once the first frame is up: the process libraries, every scene's,
then the plotting libraries (numpy, pyqtgraph).

Importing is Python work in one piece: pyqtgraph with numpy under it is about 0.3 s, a scene's view 20-80 ms.
Done on the UI thread in idle time (the deck imported each scene there, scene 1 made its roofline plot) it
froze the window for that long. On a thread of its own an import shares the interpreter with the UI thread,
which gets it back every switch interval (5 ms) except while a compiled extension initialises (numpy's core, a
Qt module: tens of ms each), so the window keeps its frames. An import defines classes and functions; no QObject
is made, which is safe off the UI thread.

Idle work waits while the thread runs (``importing()``): a job that imports one of these modules on the UI
thread meanwhile would wait on that import's lock. A module that fails to import is skipped: the UI
thread's own import raises again where it shows inline. When the app ends (``finish``), the thread stops after
the module it is importing and is waited for: an interpreter that shuts down under a half-done import can hang
on that import's lock, or fail in it ("can't register atexit after shutdown").
"""
from __future__ import annotations

import importlib
import sys
import threading
import time

LIBRARIES = ("numpy", "pyqtgraph")
# What a scene's preparation starts a process with (``desktop.kit.tokenizer_process``): imported first, so that no
# preparation thread imports them itself, perhaps while the app is ending (where they cannot register their exit
# hooks: "can't register atexit after shutdown").
PROCESS_LIBRARIES = ("multiprocessing", "concurrent.futures.process")
WAIT_MS = 20                  # idle work looks again this often while the thread imports
FINISH_SECONDS = 10.0         # the longest the app's end waits for the module being imported

_thread: threading.Thread | None = None
_stop = threading.Event()
_done: set[str] = set()       # imported by the thread, or failed there (a module is in sys.modules from the start
                              # of its import on, so that says nothing of whether it is ready)


# pyqtgraph copies every name of Qt's three main modules into its own (``pyqtgraph.Qt``), and PySide makes each
# class and enum of a module when it is first asked for: in one piece, that held Python's lock (GIL) for 60 ms at a
# time here, the window's longest stall after its first frame. The same names asked for first, a few at a time
# with the lock let go between (``time.sleep(0)``), leave pyqtgraph nothing to make: the longest hold is then
# numpy's own start (20-26 ms).
QT_MODULES_PYQTGRAPH_COPIES = ("PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets")
NAMES_BETWEEN_YIELDS = 10


def _make_qt_names() -> None:
    """Every name of the Qt modules pyqtgraph copies, made now, yielding the lock every few names."""
    for module_name in QT_MODULES_PYQTGRAPH_COPIES:
        module = importlib.import_module(module_name)
        for n, name in enumerate(dir(module)):
            if _stop.is_set():
                return
            getattr(module, name, None)
            if n % NAMES_BETWEEN_YIELDS == 0:
                _let_go()


def _let_go() -> None:
    """Let Python's lock go for a moment: the window's turn."""
    time.sleep(0)


# What an import needs done first, in pieces (on the same thread).
BEFORE_IMPORT = {"pyqtgraph": _make_qt_names}


def _import(names: tuple[str, ...]) -> None:
    for name in names:
        if _stop.is_set():
            return
        try:
            if name in BEFORE_IMPORT and name not in sys.modules:
                BEFORE_IMPORT[name]()
            importlib.import_module(name)
        except Exception:         # the UI thread's own import raises it again, where it is shown
            pass
        _done.add(name)


def import_in_background(names) -> threading.Thread | None:
    """Import ``names`` in that order on a thread of their own (once per process; a later call: None)."""
    global _thread
    if _thread is not None:
        return None
    _stop.clear()
    _thread = threading.Thread(target=_import, args=(tuple(names),), name="imports after the first frame",
                               daemon=True)
    _thread.start()
    return _thread


def finish(timeout: float = FINISH_SECONDS) -> None:
    """The app ends: no module after the one being imported, and that one waited for (at most ``timeout``)."""
    _stop.set()
    if _thread is not None:
        _thread.join(timeout)


def importing() -> bool:
    """Whether the thread ``import_in_background`` started still imports."""
    return _thread is not None and _thread.is_alive()


def started() -> bool:
    """Whether ``import_in_background`` has started its thread (it may have finished since)."""
    return _thread is not None


def ready(name: str) -> bool:
    """Whether the UI thread may import ``name`` without waiting on the thread: it is done with it (imported or
    failed), or it imports nothing now."""
    return name in _done or not importing()
