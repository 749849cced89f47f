"""The talk's one clock, and the badge that shows it in a corner of the stage.

``TalkClock`` is the elapsed time of the whole talk, as PowerPoint's presenter
view keeps it: it starts with the talk (the first F5 or S), and nothing but the
presenter stops it: opening or closing the speaker view, leaving and resuming
the presentation never restart it. It can be paused (Shift+T) and reset to
0:00 (Alt+T). Every view of it (the speaker view, the stage's badge) reads the
same object, so they can never disagree.

``PresenterClock`` is the stage's badge (T shows it to the room; by default only
the speaker view shows the time).
"""
from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer, Signal

from widgets.overlay import TextBadge

# Once a second: the clock shows whole seconds, and a text repaint costs more than it is worth any faster.
REFRESH_INTERVAL_MS = 1000


def format_elapsed(seconds: float) -> str:
    """125 -> "2:05"; 3725 -> "1:02:05"."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def monotonic_seconds() -> float:
    """The talk clock's time source (a test replaces it to move time on without waiting)."""
    return time.monotonic()


class TalkClock(QObject):
    """The elapsed time of the talk: started once, paused, resumed and reset only when asked."""

    changed = Signal()          # started, paused, resumed or reset: views show the new state at once

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._counted = 0.0                 # seconds counted before the current run
        self._since: float | None = None    # when the current run began; None while paused or not started
        self._started = False

    @property
    def started(self) -> bool:
        return self._started

    @property
    def paused(self) -> bool:
        """Started and not running."""
        return self._started and self._since is None

    def seconds(self) -> float:
        """The talk's elapsed time: 0 before it starts, frozen while paused."""
        running = monotonic_seconds() - self._since if self._since is not None else 0.0
        return self._counted + max(0.0, running)

    def text(self) -> str:
        return format_elapsed(self.seconds())

    def start(self) -> None:
        """The talk begins (F5, S): counting starts the first time; later calls change nothing."""
        if not self._started:
            self._started = True
            self._since = monotonic_seconds()
            self.changed.emit()

    def toggle_pause(self) -> None:
        """Shift+T: pause a running clock, resume a paused one (a clock not started yet starts)."""
        if not self._started:
            self.start()
        elif self._since is None:
            self._since = monotonic_seconds()
            self.changed.emit()
        else:
            self._counted = self.seconds()
            self._since = None
            self.changed.emit()

    def reset(self) -> None:
        """Alt+T: back to 0:00; a running clock counts on from there, a paused one stays paused."""
        self._counted = 0.0
        if self._since is not None:
            self._since = monotonic_seconds()
        self.changed.emit()


class PresenterClock(TextBadge):
    """The talk clock in the stage's top-right corner (shown only when the presenter asks: T)."""

    _timer: QTimer | None = None     # made in __init__; the base class hides the badge before that

    def __init__(self, parent, clock: TalkClock):
        super().__init__(parent, place="top_right", filled=False)
        self.clock = clock
        self._timer = QTimer(self)
        self._timer.setInterval(REFRESH_INTERVAL_MS)
        self._timer.timeout.connect(self._refresh)
        clock.changed.connect(self._refresh)
        self.set_text(clock.text())

    def showEvent(self, event) -> None:
        self._timer.start()
        self._refresh()
        super().showEvent(event)

    def hideEvent(self, event) -> None:
        if self._timer is not None:
            self._timer.stop()   # a hidden badge costs nothing; the talk clock keeps counting
        super().hideEvent(event)

    def _refresh(self) -> None:
        self.set_text(self.clock.text())
