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
"""
from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

# Often enough that garbage never piles up (a busy second allocates well under a generation's worth of
# cycles); a check that finds nothing to do costs a microsecond.
CHECK_INTERVAL_MS = 250


class UiThreadCollector(QObject):
    """Owned by the application: made once, it turns Python's automatic collection off for the whole run."""

    def __init__(self, parent: QObject):
        super().__init__(parent)
        gc.disable()
        self._timer = QTimer(self)
        self._timer.setInterval(CHECK_INTERVAL_MS)
        self._timer.timeout.connect(self.check)
        self._timer.start()

    @staticmethod
    def check() -> int:
        """Collect the oldest generation whose count has passed its threshold, as Python's own trigger would;
        returns that generation, or -1 when none is due."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        due = [generation for generation in range(3) if counts[generation] > thresholds[generation]]
        if not due:
            return -1
        gc.collect(due[-1])
        return due[-1]


def collect_on_ui_thread(app: QObject) -> UiThreadCollector:
    """The application's collector (made on first call; the same one after)."""
    found = app.findChild(UiThreadCollector)
    return found if found is not None else UiThreadCollector(app)
