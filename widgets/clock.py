"""The one animation clock: elapsed seconds, paced by a parented QTimer, resting while nothing moves.

Animations are functions of elapsed time, never of frame counts, so a slow
frame never changes what is shown, only how smoothly. A scene owns one clock,
starts it when shown and stops it when hidden; tests and export set the time
directly with ``set_seconds`` and no timer runs.

A still slide costs nothing: given ``moving(seconds)`` (is anything still in
motion at this time?), the clock emits one more tick after the motion ends
(so the last frame shows exactly the end) and then rests, its time held, until
``wake()`` (a build, a new state, a playback started).
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QElapsedTimer, QObject, QTimer, Signal

# ~60 Hz: smooth on a projector, and leaves most of each 16 ms free for painting.
FRAME_INTERVAL_MS = 16


class AnimationClock(QObject):
    """Emits ``ticked(seconds)`` about 60 times a second while running and something moves."""

    ticked = Signal(float)

    def __init__(self, parent: QObject | None = None, moving: Callable[[float], bool] | None = None):
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(FRAME_INTERVAL_MS)
        self._timer.timeout.connect(self._on_timeout)
        self._elapsed = QElapsedTimer()
        self._offset_seconds = 0.0   # time accumulated before the last start
        self._shown = False          # started (the scene is visible), whether ticking or resting
        self._moving = moving

    @property
    def running(self) -> bool:
        """Started and not stopped (it may be resting while nothing moves)."""
        return self._shown

    @property
    def ticking(self) -> bool:
        return self._timer.isActive()

    def seconds(self) -> float:
        if self._timer.isActive():
            return self._offset_seconds + self._elapsed.nsecsElapsed() / 1e9
        return self._offset_seconds

    def start(self) -> None:
        self._shown = True
        self.wake()

    def stop(self) -> None:
        self._shown = False
        self._rest()

    def wake(self) -> None:
        """Tick again (something may move now); nothing while stopped."""
        if self._shown and not self._timer.isActive():
            self._elapsed.start()
            self._timer.start()

    def set_seconds(self, seconds: float) -> None:
        """Jump to ``seconds`` (export, tests, reset) and emit it once."""
        self._offset_seconds = seconds
        if self._timer.isActive():
            self._elapsed.start()
        self.ticked.emit(seconds)

    def _rest(self) -> None:
        if self._timer.isActive():
            self._offset_seconds = self.seconds()
            self._timer.stop()

    def _on_timeout(self) -> None:
        now = self.seconds()
        self.ticked.emit(now)
        if self._moving is not None and not self._moving(now):
            self._rest()
