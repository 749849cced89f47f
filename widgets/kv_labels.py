"""Keeping what a playback does not change in a pixmap, with the texts it holds.

The KV-cache widgets (``work_counter``, ``kv_factors``, ``kv_growth_plot``)
place their texts with ``widgets.text_fit.LabelPlacer``, most important first;
``StaticLayer`` paints the part of a frame that stays the same once (the one
still-picture cache, ``widgets.still_picture``), keeping the texts it placed,
so a frame places and paints only what moves.
"""
from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QPixmap

from widgets.still_picture import StillPicture
from widgets.text_fit import LabelPlacer, TextMeasure


class StaticLayer:
    """What a widget draws that does not change during a playback, painted once into a pixmap and replayed.

    ``pixmap_for(key, widget, paint)``: the pixmap for ``key`` (size, theme, static texts...), painting it with
    ``paint(painter, placer)`` when the key changed; with it, the placer of the texts it holds, to continue from.
    """

    def __init__(self):
        self._still = StillPicture()
        self._placer: LabelPlacer | None = None

    def pixmap_for(self, key, widget, measure: TextMeasure, floor_px: int, paint) -> tuple[QPixmap, LabelPlacer]:
        def paint_once(painter) -> None:
            self._placer = LabelPlacer(measure, floor_px, QRectF(0, 0, widget.width(), widget.height()))
            paint(painter, self._placer)
        pixmap = self._still.pixmap(key, widget, paint_once)
        return pixmap, self._placer.continued()
