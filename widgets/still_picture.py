"""The one still-picture cache: what a widget draws the same from frame to frame, painted once and replayed.

A playback or a transition moves a few things (a point, the belt's boxes, a
token in flight) over a picture that stays the same; painting that picture
every frame is most of a frame's cost. ``StillPicture.pixmap(key, widget,
paint)`` paints it once into a pixmap of the widget's size and device pixel
ratio (again only when ``key``, the size or the ratio changes) and returns it
for ``drawPixmap`` (the same pixmap, painted over, while the size stays); ``forget()`` drops it (a new theme). With ``area`` the
picture covers that part of the widget only (``paint`` still draws in the
widget's coordinates): a band that is laid as a brush (``widgets.pattern_fill``).
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import QWidget


class StillPicture:
    def __init__(self):
        self._key = None
        self._pixmap: QPixmap | None = None
        self._paints = 0

    def pixmap(self, key, widget: QWidget, paint: Callable[[QPainter], None],
               background: QColor | None = None, area: QRect | None = None) -> QPixmap:
        """The picture for ``key``, painted by ``paint(painter)`` over ``background`` when it is not the last one;
        of ``area`` of the widget (widget coordinates, whole pixels) when given, else of the whole widget."""
        ratio = widget.devicePixelRatioF()
        area = QRect(0, 0, widget.width(), widget.height()) if area is None else area
        full_key = (key, area.x(), area.y(), area.width(), area.height(), ratio)
        if full_key != self._key or self._pixmap is None:
            size = QSize(max(1, round(area.width() * ratio)), max(1, round(area.height() * ratio)))
            pixmap = self._pixmap
            # The same size: painted over in place. A new pixmap of a few megabytes is memory the system must
            # hand over page by page as it is first filled, a millisecond on a picture repainted every step.
            if pixmap is None or pixmap.size() != size or pixmap.devicePixelRatio() != ratio:
                pixmap = QPixmap(size)
                pixmap.setDevicePixelRatio(ratio)
            if background is not None:
                pixmap.fill(background)
            painter = QPainter(pixmap)
            painter.translate(-area.x(), -area.y())
            paint(painter)
            painter.end()
            self._key, self._pixmap = full_key, pixmap
            self._paints += 1
        return self._pixmap

    def forget(self) -> None:
        self._key = None

    @property
    def key(self):
        """What the picture kept was painted for (the caller's key), or None before the first."""
        return None if self._key is None else self._key[0]

    def picture_id(self) -> int | None:
        """An id of the pixmap kept (the same until it is painted again), or None."""
        return None if self._pixmap is None or self._key is None else self._paints
