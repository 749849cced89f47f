"""Ending the app from the terminal (Ctrl+C, SIGINT; closing it, SIGHUP) or by the system (SIGTERM) the normal way.

Qt's event loop runs in C++, so a Python signal handler would only run at the
next Python call, perhaps never. The C-level handler writes the signal number
to a pipe (``signal.set_wakeup_fd``; on Windows, which takes only a socket
there, a socket pair); a ``QSocketNotifier`` wakes the event loop on it,
Python then runs the handler, and the handler asks the app to quit. A pipe
spares every other start the socket module's import (about 3 ms).
The window is then closed after the loop ends, so the settings are saved as
when the window is closed by hand.
"""
from __future__ import annotations

import os
import signal
from typing import Callable

from PySide6.QtCore import QObject, QSocketNotifier, QTimer

from desktop import stop_request

# SIGHUP: the terminal the app was started from was closed; the settings are saved as for SIGTERM.
QUIT_SIGNALS = (signal.SIGINT, signal.SIGTERM) + ((signal.SIGHUP,) if hasattr(signal, "SIGHUP") else ())


class QuitOnSignals(QObject):
    """While installed, SIGINT, SIGTERM and SIGHUP call ``on_signal`` (e.g. ``QApplication.quit``) inside the event loop."""

    def __init__(self, on_signal: Callable[[], None], parent: QObject | None = None):
        super().__init__(parent)
        self._on_signal = on_signal
        self.received: list[int] = []
        self._reader, self._writer = _wakeup_pair()
        self._previous_wakeup = signal.set_wakeup_fd(self._writer.fileno())
        self._previous = {number: signal.signal(number, self.handle) for number in QUIT_SIGNALS}
        self._notifier = QSocketNotifier(self._reader.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._drain)
        if stop_request.requested():        # asked for during start-up, after its last safe point: now
            QTimer.singleShot(0, self._on_signal)

    def handle(self, number: int, _frame=None) -> None:
        """The Python-level handler: note the signal and end the app through its normal path."""
        self.received.append(number)
        self._on_signal()

    def _drain(self, *_args) -> None:
        try:
            while self._reader.recv(64):    # the bytes only woke the loop; the handler does the work
                pass
        except (BlockingIOError, InterruptedError):
            pass

    def uninstall(self) -> None:
        """Give the signals back to whoever had them before."""
        for number, previous in self._previous.items():
            signal.signal(number, previous)
        signal.set_wakeup_fd(self._previous_wakeup)
        self._notifier.setEnabled(False)
        self._reader.close()
        self._writer.close()


class _PipeEnd:
    """One end of a non-blocking pipe, with the calls ``QuitOnSignals`` makes of a socket's."""

    def __init__(self, fd: int):
        os.set_blocking(fd, False)
        self._fd = fd

    def fileno(self) -> int:
        return self._fd

    def recv(self, size: int) -> bytes:
        return os.read(self._fd, size)

    def close(self) -> None:
        os.close(self._fd)


def _wakeup_pair():
    """(reading end, writing end) for ``signal.set_wakeup_fd``, both non-blocking: a pipe, or on Windows, whose
    ``set_wakeup_fd`` takes only a socket, a socket pair."""
    if os.name != "nt":
        return tuple(_PipeEnd(fd) for fd in os.pipe())
    import socket
    ends = socket.socketpair()
    for end in ends:
        end.setblocking(False)
    return ends
