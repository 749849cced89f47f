"""The key help (? or F1): a table of keys over a dimmed stage.

It is handed its title and rows as plain text; it knows nothing of what the
keys do. Type is sized from the parent's height so that it reads on a
projector and still fits at 1024x768.
"""
from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter

from widgets.overlay import Overlay
from widgets.theme import THEMES, Theme

ROWS_PER_HEIGHT = 26      # the text line is this fraction of the window height, before fitting


class HelpOverlay(Overlay):
    def __init__(self, parent):
        super().__init__(parent)
        self._title = ""
        self._rows: list[tuple[str, str]] = []
        self._theme = THEMES["light"]

    def set_content(self, title: str, rows: list[tuple[str, str]]) -> None:
        self._title, self._rows = title, list(rows)
        self.update()

    def content(self) -> tuple[str, list[tuple[str, str]]]:
        return self._title, list(self._rows)

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.update()

    def _fonts(self) -> tuple[QFont, QFont]:
        """Body and title fonts, shrunk until the table fits the window."""
        pixels = max(10, self.height() // ROWS_PER_HEIGHT)
        body = QFont(self.font())
        while True:
            body.setPixelSize(pixels)
            metrics = QFontMetrics(body)
            width = self._column_width(metrics, 0) + self._column_width(metrics, 1) + 4 * pixels
            height = (len(self._rows) + 3) * metrics.lineSpacing() + 2 * pixels
            if pixels <= 9 or (width <= self.width() * 0.94 and height <= self.height() * 0.94):
                break
            pixels -= 1
        title = QFont(body)
        title.setPixelSize(round(pixels * 1.3))
        title.setBold(True)
        return body, title

    def _column_width(self, metrics: QFontMetrics, column: int) -> int:
        return max((metrics.horizontalAdvance(row[column]) for row in self._rows), default=0)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), QColor(0, 0, 0, 140))
        body, title = self._fonts()
        metrics = QFontMetrics(body)
        pad = body.pixelSize()
        keys_width = self._column_width(metrics, 0)
        width = keys_width + self._column_width(metrics, 1) + 4 * pad
        width = max(width, QFontMetrics(title).horizontalAdvance(self._title) + 2 * pad)
        line = metrics.lineSpacing()
        height = (len(self._rows) + 3) * line + 2 * pad
        panel = QRect(0, 0, min(width, self.width()), min(height, self.height()))
        panel.moveCenter(self.rect().center())
        painter.setPen(QColor(self._theme.muted))
        painter.setBrush(QColor(self._theme.surface))
        painter.drawRoundedRect(QRectF(panel), pad / 2, pad / 2)

        painter.setPen(QColor(self._theme.text))
        painter.setFont(title)
        y = panel.top() + pad
        painter.drawText(QRect(panel.left() + pad, y, panel.width() - 2 * pad, 2 * line),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self._title)
        y += 2 * line + line // 2
        painter.setFont(body)
        for keys, meaning in self._rows:
            painter.setPen(QColor(self._theme.accent))
            painter.drawText(QRect(panel.left() + pad, y, keys_width, line), Qt.AlignmentFlag.AlignLeft, keys)
            painter.setPen(QColor(self._theme.text))
            painter.drawText(QRect(panel.left() + 3 * pad + keys_width, y,
                                   panel.right() - pad - (panel.left() + 3 * pad + keys_width), line),
                             Qt.AlignmentFlag.AlignLeft, meaning)
            y += line
