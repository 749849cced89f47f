"""What every child process a scene starts does alike (the tokenizer process, the probe's process). Qt-free.

- ``interrupts_blocked()``: around starting a child, Ctrl+C is blocked in the
  starting thread, so the child starts with it blocked and cannot print a
  traceback of its own for a Ctrl+C in the terminal while it imports; the app,
  whose other threads are unaffected, handles it.
- ``follow_parent()``: first thing in the child, Ctrl+C is ignored there (it is
  the app's to handle) and the child ends itself when the app ends, however the
  app ends (a kill included): no child is ever left behind.
"""
from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def interrupts_blocked() -> Iterator[None]:
    """Ctrl+C blocked in this thread meanwhile (where the system can block signals per thread)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def follow_parent() -> None:
    """In a child: ignore Ctrl+C, and end when the parent process ends."""
    import multiprocessing

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})     # ignored now: no longer held pending
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent.sentinel,), daemon=True).start()


def _exit_with(parent_sentinel: int) -> None:
    """Wait for the parent to end, however it ends, then end too."""
    from multiprocessing.connection import wait

    wait([parent_sentinel])
    os._exit(0)
