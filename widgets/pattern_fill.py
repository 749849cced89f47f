"""A patterned fill laid in one blit: a colour and a pattern over the background, painted once as a band.

Qt's raster engine fills a scaled pattern brush (``widgets.theme.pattern_brush``)
pixel by pixel through its transform: a hatch across a full-width bar costs
some twenty times a plain fill, and a bar that follows a dragged control is
filled again on every step. ``PatternFill.brush`` paints the colour and the
pattern over the background once into a band of the widget, full width and as
tall as the rectangle to fill (the one still-picture cache,
``widgets.still_picture``), and returns it as an untransformed texture brush
anchored to the widget: a rectangle drawn with it gets exactly the pixels that
the background, then the colour, then the pattern would have given it, at the
cost of a copy. The band is painted again only when its rows, colours or
pattern change (a bar that grows or moves sideways keeps it).
"""
from __future__ import annotations

import math

from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QTransform
from PySide6.QtWidgets import QWidget

from widgets.still_picture import StillPicture


class PatternFill:
    """The brush of one patterned fill of a widget (keep one per band: a bar, a strip)."""

    def __init__(self):
        self._still = StillPicture()

    def brush(self, widget: QWidget, rect: QRectF, background: QColor, colour: QColor, pattern: QBrush) -> QBrush:
        """A brush that fills ``rect`` as painting ``colour`` then ``pattern`` over ``background`` would
        (``pattern``'s transform scaled, no rotation; the painter untransformed, NonCosmeticBrushPatterns on)."""
        top = math.floor(rect.top())
        band = QRect(0, top, max(1, widget.width()), max(1, math.ceil(rect.bottom()) - top))
        transform = pattern.transform()
        key = (background.rgba(), colour.rgba(), pattern.color().rgba(), pattern.style(),
               transform.m11(), transform.m22(), transform.dx(), transform.dy())

        def paint(painter: QPainter) -> None:
            painter.setRenderHint(QPainter.RenderHint.NonCosmeticBrushPatterns, True)
            painter.setPen(Qt.PenStyle.NoPen)
            whole = QRectF(band)
            for fill in (background, colour, pattern):
                painter.setBrush(fill)
                painter.drawRect(whole)

        texture = QBrush(self._still.pixmap(key, widget, paint, area=band))
        texture.setTransform(QTransform.fromTranslate(band.x(), band.y()))
        return texture
