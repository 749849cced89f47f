"""Writing a value into a control without hearing it back: the one helper for it.

A view shows the story's value in a control (a slider at the current context,
a box at the current tokenizer); the control must not report that back as the
person's choice, or a change would loop. ``with signals_blocked(slider):
slider.setValue(v)`` blocks the controls' signals and restores each one's
previous blocking however the block is left, an exception included (as
napari's ``qt_signals_blocked``).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from PySide6.QtCore import QObject


@contextmanager
def signals_blocked(*objects: QObject) -> Iterator[None]:
    unique = list({id(obj): obj for obj in objects}.values())     # an object named twice is blocked once
    previous = [obj.blockSignals(True) for obj in unique]
    try:
        yield
    finally:
        for obj, was_blocked in reversed(list(zip(unique, previous))):
            obj.blockSignals(was_blocked)
