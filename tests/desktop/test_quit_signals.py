"""Ctrl+C and SIGTERM end the app through its normal path, so the settings are saved."""
from __future__ import annotations

import os
import signal

import pytest

from desktop import settings as settings_store
from desktop.quit_signals import QuitOnSignals


def test_the_handler_asks_the_app_to_quit():
    asked = []
    watcher = QuitOnSignals(lambda: asked.append(True))
    try:
        watcher.handle(signal.SIGTERM)
        assert asked == [True] and watcher.received == [signal.SIGTERM]
    finally:
        watcher.uninstall()


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or os.name == "nt", reason="POSIX signals")
def test_a_real_sigterm_reaches_the_handler_inside_the_event_loop_and_is_given_back(qtbot):
    before = signal.getsignal(signal.SIGTERM)
    asked = []
    watcher = QuitOnSignals(lambda: asked.append(True))
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        qtbot.waitUntil(lambda: asked == [True])
    finally:
        watcher.uninstall()
    assert signal.getsignal(signal.SIGTERM) == before


def test_quitting_the_loop_without_closing_the_window_still_saves(make_window, tmp_path):
    """What run_window does after the loop ends, however it ended: close the window, which saves."""
    window = make_window("zh")
    window.store.update(batch=8)
    window.close()
    assert settings_store.load().settings.scenario.batch == 8


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")
def test_closing_the_terminal_sighup_quits_the_normal_way_like_sigterm(qtbot):
    """Closing the terminal sends SIGHUP; its default would kill the app without saving the settings."""
    before = signal.getsignal(signal.SIGHUP)
    asked = []
    watcher = QuitOnSignals(lambda: asked.append(True))
    try:
        os.kill(os.getpid(), signal.SIGHUP)
        qtbot.waitUntil(lambda: asked == [True])
        assert watcher.received == [signal.SIGHUP]
    finally:
        watcher.uninstall()
    assert signal.getsignal(signal.SIGHUP) == before
