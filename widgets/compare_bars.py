"""Bars of pinned scenarios, figure by figure: one group per figure, one bar per scenario.

Draws a ``CompareBarsState``: each group is a figure's title over one bar per
pinned scenario, as long as its share of the group's longest, with the
scenario's number at its start and its value after it (colour never carries
the meaning alone: the number says whose bar it is, a pattern marks a
hypothetical time or price, and "best" is a word). No physics and no
formatting here: the compare window hands over every text.
"""
from __future__ import annotations


from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from engine.frozen import frozen
from widgets.theme import Theme, pattern_brush

PIN_ROLES = ("accent", "compute", "memory", "muted")       # pinned scenario 1, 2, 3, 4 (no alarm red: none is wrong)
HYPOTHETICAL_PATTERN = Qt.BrushStyle.BDiagPattern


@frozen
class Bar:
    share: float | None          # of the group's longest bar, 0..1; None: the engine refused this scenario
    text: str                    # the value, as the table writes it (or why there is none)
    hypothetical: bool = False
    best: bool = False


@frozen
class BarGroup:
    title: str
    bars: tuple[Bar, ...]


@frozen
class CompareBarsState:
    groups: tuple[BarGroup, ...]
    best_word: str = "best"      # after the best bar's value


class CompareBars(QWidget):
    """A column of bar groups, as tall as its groups need (it lives in a scroll area)."""

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self._theme = theme
        self._state = CompareBarsState(())
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    @property
    def state(self) -> CompareBarsState:
        return self._state

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.update()

    def set_state(self, state: CompareBarsState) -> None:
        if state != self._state:
            self._state = state
            self.updateGeometry()
            self.setFixedHeight(self.sizeHint().height())
            self.update()

    def _line(self) -> float:
        return self.fontMetrics().height() * 1.25

    def sizeHint(self) -> QSize:
        rows = sum(1 + len(group.bars) for group in self._state.groups)
        return QSize(360, round(rows * self._line() + len(self._state.groups) * self._line() * 0.5) + 4)

    def bar_rects(self) -> list[list[QRectF | None]]:
        """Each group's bars as drawn, in widget pixels (None: no bar)."""
        return self._paint(None)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        self._paint(painter)

    def _paint(self, painter: QPainter | None) -> list[list[QRectF | None]]:
        theme, metrics, line = self._theme, self.fontMetrics(), self._line()
        if painter is not None:
            painter.fillRect(self.rect(), theme.color("surface"))
        number_width = metrics.horizontalAdvance("4") + 8
        value_width = max((metrics.horizontalAdvance(f"{bar.text}  {self._state.best_word}")
                           for group in self._state.groups for bar in group.bars), default=0) + 8
        room = max(10.0, self.width() - number_width - value_width - 8)
        y, rects = 2.0, []
        for group in self._state.groups:
            if painter is not None:
                painter.setPen(theme.color("text"))
                painter.drawText(QRectF(4, y, self.width() - 8, line), Qt.AlignmentFlag.AlignVCenter, group.title)
            y += line
            drawn = []
            for index, bar in enumerate(group.bars):
                role = PIN_ROLES[index % len(PIN_ROLES)]
                rect = None if bar.share is None else QRectF(4 + number_width, y + line * 0.15,
                                                             max(2.0, room * bar.share), line * 0.7)
                drawn.append(rect)
                if painter is not None:
                    painter.setPen(theme.color("text"))
                    painter.drawText(QRectF(4, y, number_width, line), Qt.AlignmentFlag.AlignVCenter, str(index + 1))
                    end = 4 + number_width
                    if rect is not None:
                        painter.fillRect(rect, theme.color(role))
                        if bar.hypothetical:
                            painter.fillRect(rect, pattern_brush(QColor(theme.background), HYPOTHETICAL_PATTERN,
                                                                 theme))
                        painter.setPen(QPen(theme.color("text"), 1))
                        painter.drawRect(rect)
                        end = rect.right()
                    text = f"{bar.text}  {self._state.best_word}" if bar.best else bar.text
                    painter.setPen(theme.color("text") if bar.share is not None else theme.color("muted"))
                    painter.drawText(QRectF(end + 6, y, self.width() - end - 8, line), Qt.AlignmentFlag.AlignVCenter,
                                     text)
                y += line
            rects.append(drawn)
            y += line * 0.5
        return rects
