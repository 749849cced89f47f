"""A black or white screen over the whole window: the presenter's pause (B / W)."""
from __future__ import annotations

from PySide6.QtGui import QColor, QPainter

from widgets.overlay import Overlay

BLANK_COLORS = {"black": QColor("#000000"), "white": QColor("#ffffff")}


class BlankScreen(Overlay):
    def __init__(self, parent):
        super().__init__(parent)
        self._shade = "black"

    @property
    def shade(self) -> str | None:
        """"black", "white", or None while the stage is visible."""
        return self._shade if self.isVisible() else None

    def blank(self, shade: str) -> None:
        if shade not in BLANK_COLORS:
            raise ValueError(f"shade {shade!r} is not one of {tuple(BLANK_COLORS)}")
        self._shade = shade
        self.show()
        self.update()

    def paintEvent(self, event) -> None:
        QPainter(self).fillRect(self.rect(), BLANK_COLORS[self._shade])
