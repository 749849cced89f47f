"""The presenter's elapsed-time clock in a corner of the stage."""
from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, QTimer

from widgets.overlay import TextBadge

# Once a second: the clock shows whole seconds, and a text repaint costs more than it is worth any faster.
REFRESH_INTERVAL_MS = 1000


def format_elapsed(seconds: float) -> str:
    """125 -> "2:05"; 3725 -> "1:02:05"."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class PresenterClock(TextBadge):
    _timer: QTimer | None = None     # made in __init__; the base class hides the badge before that

    def __init__(self, parent):
        super().__init__(parent, place="top_right", filled=False)
        self._elapsed = QElapsedTimer()
        self._timer = QTimer(self)
        self._timer.setInterval(REFRESH_INTERVAL_MS)
        self._timer.timeout.connect(self._refresh)
        self.set_text(format_elapsed(0))

    def restart(self) -> None:
        """Count from zero again, e.g. when a presentation starts."""
        self._elapsed.start()
        self._refresh()

    def seconds(self) -> float:
        return self._elapsed.elapsed() / 1000 if self._elapsed.isValid() else 0.0

    def showEvent(self, event) -> None:
        if not self._elapsed.isValid():
            self._elapsed.start()
        self._timer.start()
        self._refresh()
        super().showEvent(event)

    def hideEvent(self, event) -> None:
        if self._timer is not None:
            self._timer.stop()   # a hidden clock costs nothing; the elapsed time keeps counting
        super().hideEvent(event)

    def _refresh(self) -> None:
        self.set_text(format_elapsed(self.seconds()))
