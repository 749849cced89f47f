"""The texts inside the roofline plot (ridge, memory-bound, compute-bound), painted where its layout put them.

They are painted in the plot view's pixels, not in data coordinates: the layout
(``widgets.roofline_layout``) measured each one for the view the scene set, so
they neither zoom nor move with it (``widgets.roofline_plot`` hides them while
the view is moved by hand).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsObject

from widgets.text_fit import FittedText

if TYPE_CHECKING:
    from widgets.roofline_plot import RooflinePlot


class PlotTexts(QGraphicsObject):
    """The labels inside the plot, painted in the view's pixels (no zoom, no data coordinates)."""

    def __init__(self, owner: "RooflinePlot"):
        super().__init__()
        self._owner = owner
        self._texts: list[tuple[FittedText, str]] = []      # (text, colour role), in scene pixels
        self._bounds = QRectF()
        self.setZValue(1000)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def set_texts(self, texts: list[tuple[FittedText, str]]) -> None:
        self.prepareGeometryChange()
        self._texts = texts
        self._bounds = QRectF()
        for text, _ in texts:
            self._bounds = self._bounds.united(text.rect)
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter: QPainter, option, widget=None) -> None:
        for text, role in self._texts:
            painter.setPen(self._owner.theme.color(role))
            text.paint(painter, self._owner.measure.font(text.px, text.bold))
