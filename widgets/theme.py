"""Colours and line weights a view draws with; handed to widgets, never guessed by them.

The projector theme is light with high contrast and thick lines: dark
backgrounds wash out on most projectors, thin lines vanish at the back of a room.
"""
from __future__ import annotations

import math
from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QTransform

from engine.frozen import frozen


@frozen
class Theme:
    """A palette and line weight the stage is drawn with (``THEMES``: light, dark, projector)."""
    id: str
    background: str      # stage background
    surface: str         # panels, boxes
    text: str
    muted: str           # secondary text, grid
    accent: str          # the main moving thing (the worker, the current point)
    memory: str          # HBM, bandwidth, the belt
    compute: str         # compute, FLOPS
    warning: str         # does not fit, idle
    good: str            # fits, busy
    line_width: float    # base pen width in device-independent pixels
    text_floor_px: float = 12.0   # the smallest text the stage may draw (set from the screen: ``for_screen``)

    def color(self, role: str) -> QColor:
        return QColor(getattr(self, role))

    @property
    def floor_px(self) -> int:
        """``text_floor_px`` as a whole font size (at least 1 px): the size widgets fit their labels down to."""
        return max(1, int(round(self.text_floor_px)))

    @property
    def size_scale(self) -> float:
        """How much larger lines, arrow heads and pattern spacing are drawn than at 1024 x 768 (a floor of
        18 px): ``floor_px / 18``, at least 1, so that a 4K picture is not drawn in hairlines."""
        return max(1.0, self.floor_px / REFERENCE_FLOOR_PX)

    @property
    def scaled_line_width(self) -> float:
        """``line_width`` times ``size_scale``: the pen width a widget draws with on this screen."""
        return self.line_width * self.size_scale


# The text floor at 1024 x 768, where line widths and patterns are drawn at their stated size.
REFERENCE_FLOOR_PX = 18


def pattern_brush(color: QColor, style: Qt.BrushStyle, theme: Theme) -> QBrush:
    """A brush of Qt's ``style`` (hatch, dots) whose pattern is spaced by ``theme.size_scale``: Qt's patterns are
    8 px bitmaps, which on a 4K screen blur into a flat tint."""
    brush = QBrush(color, style)
    if theme.size_scale > 1.0:
        brush.setTransform(QTransform.fromScale(theme.size_scale, theme.size_scale))
    return brush


THEMES: dict[str, Theme] = {
    "light": Theme("light", "#fafafa", "#ffffff", "#1d1d1f", "#6e6e73", "#0a66c2",
                   "#2e7d32", "#c2410c", "#b91c1c", "#15803d", 2.0),
    "dark": Theme("dark", "#16181d", "#23262d", "#ececf1", "#9aa0aa", "#5ab0ff",
                  "#6fcf7f", "#ff9f5a", "#ff6b6b", "#59d98e", 2.0),
    "projector": Theme("projector", "#ffffff", "#f2f2f2", "#000000", "#333333", "#0047b3",
                       "#006400", "#b34700", "#c00000", "#006400", 4.0),
}
DEFAULT_THEME = "light"

# No text on the stage below this share of the screen height (DESIGN.md, presenter standard):
# 18 px at 768, 25 px at 1080, 50 px at 2160.
TEXT_FLOOR_PER_SCREEN_HEIGHT = 0.023
# The projector theme is for the back of a room with a washed-out image: its floor is higher still.
PROJECTOR_FLOOR_FACTOR = 1.15


def text_floor_px(theme_id: str, screen_height_px: float) -> int:
    """The smallest stage text, in pixels, for a screen (or picture) ``screen_height_px`` high."""
    factor = PROJECTOR_FLOOR_FACTOR if theme_id == "projector" else 1.0
    return math.ceil(TEXT_FLOOR_PER_SCREEN_HEIGHT * screen_height_px * factor - 1e-9)


def for_screen(theme: Theme, screen_height_px: float) -> Theme:
    """``theme`` with the text floor of a screen ``screen_height_px`` high."""
    return replace(theme, text_floor_px=float(text_floor_px(theme.id, screen_height_px)))
