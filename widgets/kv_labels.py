"""Keeping what a playback does not change in a pixmap, with the texts it holds.

The KV-cache widgets (``work_counter``, ``kv_factors``, ``kv_growth_plot``)
place their texts with ``widgets.text_fit.LabelPlacer``, most important first;
``StaticLayer`` paints the part of a frame that stays the same once, so a frame
places and paints only what moves.
"""
from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter, QPixmap

from widgets.text_fit import LabelPlacer, TextMeasure


class StaticLayer:
    """What a widget draws that does not change during a playback, painted once into a pixmap and replayed.

    ``pixmap_for(key, widget, paint)``: the pixmap for ``key`` (size, theme, static texts...), painting it with
    ``paint(painter, placer)`` when the key changed; with it, the placer of the texts it holds, to continue from.
    """

    def __init__(self):
        self._key = None
        self._pixmap: QPixmap | None = None
        self._placer: LabelPlacer | None = None

    def pixmap_for(self, key, widget, measure: TextMeasure, floor_px: int, paint) -> tuple[QPixmap, LabelPlacer]:
        if key != self._key or self._pixmap is None:
            ratio = widget.devicePixelRatioF()
            pixmap = QPixmap(max(1, round(widget.width() * ratio)), max(1, round(widget.height() * ratio)))
            pixmap.setDevicePixelRatio(ratio)
            placer = LabelPlacer(measure, floor_px, QRectF(0, 0, widget.width(), widget.height()))
            painter = QPainter(pixmap)
            paint(painter, placer)
            painter.end()
            self._key, self._pixmap, self._placer = key, pixmap, placer
        return self._pixmap, self._placer.continued()
