"""Widgets that float over their parent: a blank screen, a note, the clock, the key help.

An overlay is a child widget that keeps itself placed over its parent (the
whole area, a corner, the centre) as the parent resizes, lets mouse clicks
through, and draws above its siblings when shown.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter
from PySide6.QtWidgets import QWidget

from widgets.theme import Theme


class Overlay(QWidget):
    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        parent.installEventFilter(self)
        self.hide()

    def placement(self, area: QRect) -> QRect:
        """Where to sit inside the parent's rectangle; the whole of it by default."""
        return area

    def place(self) -> None:
        self.setGeometry(self.placement(self.parentWidget().rect()))
        self.raise_()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.parentWidget() and event.type() == QEvent.Type.Resize and self.isVisible():
            self.place()
        return False

    def showEvent(self, event) -> None:
        self.place()
        super().showEvent(event)


class TextBadge(Overlay):
    """One line of text in a corner, the bottom middle or the centre of its parent.

    ``filled`` badges draw on a box in inverted theme colours so that they stand
    out on any stage; plain ones draw the text alone in the muted colour.
    """

    PLACES = ("top_right", "bottom", "center")

    def __init__(self, parent: QWidget, place: str = "bottom", filled: bool = True):
        super().__init__(parent)
        if place not in self.PLACES:
            raise ValueError(f"place {place!r} is not one of {self.PLACES}")
        self._place_name = place
        self._filled = filled
        self._text = ""
        self._font = QFont(self.font())
        self._font.setPixelSize(16)
        self._text_color = QColor("#ffffff")
        self._box_color = QColor("#000000")

    def text(self) -> str:
        return self._text

    def set_text(self, text: str) -> None:
        self._text = text
        if self.isVisible():
            self.place()
            self.update()

    def set_pixel_size(self, pixels: int) -> None:
        self._font.setPixelSize(max(8, pixels))
        if self.isVisible():
            self.place()

    def set_theme(self, theme: Theme) -> None:
        if self._filled:
            self._text_color, self._box_color = theme.color("background"), theme.color("text")
            self._box_color.setAlpha(225)
        else:
            self._text_color, self._box_color = theme.color("muted"), QColor(0, 0, 0, 0)
        self.update()

    def placement(self, area: QRect) -> QRect:
        metrics = QFontMetrics(self._font)
        pad = metrics.height() // 2
        width = min(area.width(), metrics.horizontalAdvance(self._text) + 2 * pad)
        height = metrics.height() + pad
        rect = QRect(0, 0, width, height)
        if self._place_name == "top_right":
            rect.moveTopRight(QPoint(area.right() - pad, area.top() + pad))
        elif self._place_name == "bottom":
            rect.moveCenter(area.center())
            rect.moveBottom(area.bottom() - pad)
        else:
            rect.moveCenter(area.center())
        return rect

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if self._filled:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(self._box_color)
            radius = self.height() / 4
            painter.drawRoundedRect(QRectF(self.rect()), radius, radius)
        painter.setPen(self._text_color)
        painter.setFont(self._font)
        painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self._text)
