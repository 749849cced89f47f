"""Work a scene does after its first frame, one small job per turn of the event loop.

A scene shows its first build at once and prepares the rest in idle time: a
widget built, laid out and painted once while hidden (scene 1's roofline), the
layout of every later build, a vocabulary or a sweep. ``IdleWork.schedule(jobs)``
runs the jobs ``DELAY_MS`` after the call (after the first frame is on screen,
and after a key press's own transition has had its frames), one job per turn
(a key press never waits on more than one), and only while the scene is
visible on screen. A render that is never on screen (an export, the speaker
view's preview) prepares nothing: nothing will be stepped through later.
Scheduling again replaces what was left (the size, scenario or language changed).
While modules are imported on a thread of their own (``desktop.kit.imports``) the jobs wait: one of them
importing pyqtgraph on this thread would wait on that import's lock.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QWidget

from desktop.kit import imports

DELAY_MS = 300


def never_on_screen(widget: QWidget) -> bool:
    """A throw-away render (export, a speaker-view preview): nothing will be stepped through later."""
    return any(w.testAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen) for w in (widget, widget.window()))


class IdleWork(QObject):
    def __init__(self, scene: QWidget):
        super().__init__(scene)
        self._scene = scene
        self._jobs: list[Callable[[], object]] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._run_one)

    @property
    def pending(self) -> int:
        return len(self._jobs)

    def schedule(self, jobs: list[Callable[[], object]]) -> None:
        """Run ``jobs`` in idle time from ``DELAY_MS`` on, replacing what was left; nothing when never on screen."""
        if never_on_screen(self._scene) or not jobs:
            self._jobs = []
            self._timer.stop()
            return
        self._jobs = list(jobs)
        self._timer.start(DELAY_MS)

    def _run_one(self) -> None:
        if self._jobs and imports.importing():
            self._timer.start(imports.WAIT_MS)
            return
        if self._jobs and self._scene.isVisible() and not never_on_screen(self._scene):
            self._jobs.pop(0)()
            if self._jobs:
                self._timer.start(0)
