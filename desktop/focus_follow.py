"""An event filter that follows the keyboard focus: it watches the one widget that has it, not every object.

A key press goes first to the widget that has the keyboard focus, then up to its
parents. So a filter that must see key presses before the widget acts on them
needs to watch only that widget. Watching the whole application instead, or
every widget of a panel, means a call into Python for every event of every
object watched: each timer, paint, layout and show. Each such call must first
take Python's lock from the worker threads, and while the engine answered in the
background that stretched a scene's first visit by 100-300 ms.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication, QWidget


class FocusFollower(QObject):
    """Keeps ``owner`` installed as the event filter of the widget that has the keyboard focus, while
    ``wanted(widget)`` says so. It is taken off the widget before, unless ``kept(widget)``: a widget ``owner``
    watches for good (a window, a spin box whose wheel it guards) keeps it when the focus leaves."""

    def __init__(self, owner: QObject, wanted: Callable[[QWidget], bool],
                 kept: Callable[[QWidget], bool] = lambda _widget: False):
        super().__init__(owner)
        self._owner, self._wanted, self._kept = owner, wanted, kept
        self._watched: QWidget | None = None
        QApplication.instance().focusChanged.connect(self._follow)
        self._follow(None, QApplication.focusWidget())

    def _follow(self, _old: QWidget | None, new: QWidget | None) -> None:
        if self._watched is not None:
            try:
                if not self._kept(self._watched):
                    self._watched.removeEventFilter(self._owner)
            except RuntimeError:             # deleted meanwhile: it is watched by nobody any more
                pass
        self._watched = None
        if new is not None and self._wanted(new):
            new.installEventFilter(self._owner)      # again on a widget kept changes nothing
            self._watched = new
