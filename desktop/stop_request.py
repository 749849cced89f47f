"""Ctrl+C, SIGTERM and SIGHUP outside Qt's event loop: noted, and acted on at the next safe point.

Python runs a signal handler between any two bytecodes: a handler that raises
(``KeyboardInterrupt``, by default for Ctrl+C) lands wherever Python is,
inside an import (a half-imported PySide6 module: "QLocale has no attribute
'Language'"), inside Qt's paint code (a segmentation fault), inside a
``__set_name__``. Before the window's event loop runs (start-up) and during an
export, the handler here only notes the request; the work checks it where
stopping is safe (between start-up steps, between scenes, between pages) and
stops there with ``StopRequested``. Once the event loop runs,
``desktop.quit_signals.QuitOnSignals`` takes over and hears a request made
before it. Qt-free: installed before anything heavy is imported.
"""
from __future__ import annotations

import signal

STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class StopRequested(Exception):
    """The person (or the system) asked to stop; the work stopped at a safe point."""


class StopAtSafePoints:
    """While installed, the stop signals are only noted (``requested``); ``check()`` raises at a safe point."""

    def __init__(self):
        self.requested: int | None = None
        self._previous = {number: signal.signal(number, self._note) for number in STOP_SIGNALS}

    def _note(self, number: int, _frame=None) -> None:
        self.requested = number

    def check(self) -> None:
        """Raise ``StopRequested`` if a stop was asked for: call it where stopping leaves nothing half done."""
        if self.requested is not None:
            raise StopRequested()

    def uninstall(self) -> None:
        for number, previous in self._previous.items():
            signal.signal(number, previous)


_INSTALLED: StopAtSafePoints | None = None


def install() -> StopAtSafePoints:
    """The process's one noter (installed on first use)."""
    global _INSTALLED
    if _INSTALLED is None:
        _INSTALLED = StopAtSafePoints()
    return _INSTALLED


def check() -> None:
    """``check()`` of the installed noter; nothing when none is installed (a library use, a test)."""
    if _INSTALLED is not None:
        _INSTALLED.check()


def requested() -> bool:
    return _INSTALLED is not None and _INSTALLED.requested is not None
