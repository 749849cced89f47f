"""Where the main window goes: sized from the screen the first time, kept on a screen after that.

Pure rectangle arithmetic, so it is tested without a window system. The first
window takes most of the screen's available area (what is left by task bars
and docks), centred: a 1280x800 default is cut off at 1024x768 and wastes a
1920x1080 screen. A geometry restored from the settings is moved, and shrunk
if it must be, onto the screen it overlaps most, so a window saved on a
projector that is now unplugged comes back where it can be seen.
"""
from __future__ import annotations

from PySide6.QtCore import QRect

FIRST_WINDOW_FRACTION = 0.9     # of the available width and height: room around it to see the desktop


def first_window_rect(available: QRect, fraction: float = FIRST_WINDOW_FRACTION) -> QRect:
    """A rectangle ``fraction`` of ``available`` in each direction, centred in it."""
    width, height = round(available.width() * fraction), round(available.height() * fraction)
    rect = QRect(0, 0, width, height)
    rect.moveCenter(available.center())
    return rect


def _overlap_area(a: QRect, b: QRect) -> int:
    common = a.intersected(b)
    return common.width() * common.height() if common.isValid() else 0


def clamp_onto_screens(rect: QRect, screens: list[QRect]) -> QRect:
    """``rect`` moved, and shrunk where it is larger, to lie wholly inside the screen it overlaps most.

    A rectangle on no screen at all goes to the first screen (the primary one).
    """
    if not screens:
        return QRect(rect)
    screen = max(screens, key=lambda candidate: _overlap_area(rect, candidate))
    if _overlap_area(rect, screen) == 0:
        screen = screens[0]
    width, height = min(rect.width(), screen.width()), min(rect.height(), screen.height())
    left = min(max(rect.left(), screen.left()), screen.left() + screen.width() - width)
    top = min(max(rect.top(), screen.top()), screen.top() + screen.height() - height)
    return QRect(left, top, width, height)
