"""A short message that appears over the stage and goes away by itself.

The presenter's replacement for a dialog: errors and confirmations are shown
here, never in a window that would have to be clicked away in front of a room.
"""
from __future__ import annotations

from PySide6.QtCore import QTimer

from widgets.overlay import TextBadge

# Long enough to read a sentence twice; short enough not to linger over the next build.
NOTE_SECONDS = 6


class InlineNote(TextBadge):
    def __init__(self, parent):
        super().__init__(parent, place="bottom", filled=True)
        self._hide_timer = QTimer(self)
        self._hide_timer.setSingleShot(True)
        self._hide_timer.timeout.connect(self.hide)

    def show_note(self, text: str, seconds: float = NOTE_SECONDS) -> None:
        self.set_text(text)
        self.show()
        self._hide_timer.start(int(seconds * 1000))
