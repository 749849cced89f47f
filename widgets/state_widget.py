"""What every widget that draws a frozen state has in common.

A ``StateWidget`` keeps the theme and the state it is handed (``theme`` and
``state``, read-only), repaints only when either changes, and reports the texts
its last paint drew (``drawn_texts()``: a subclass's paint fills ``_drawn``) and where (``label_rects()``).
It paints every pixel itself, so the stage behind it need not be repainted first.
A subclass that lays out per size and state defines ``_lay_out()`` and asks
``layout_now()``, which lays out again only when the size, state or floor changed.
A subclass that takes whatever room the stage gives it names its ``stage_sizes``.
"""
from __future__ import annotations

from typing import ClassVar

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtWidgets import QSizePolicy, QWidget

from widgets.text_fit import DrawnText
from widgets.theme import Theme


class StateWidget(QWidget):
    """A widget that draws the frozen state it is handed, in the theme it is handed; holds no physics."""

    # ((minimum width, height), (preferred width, height)) in px of a widget that expands to fill the room it is
    # given; None keeps Qt's defaults.
    stage_sizes: ClassVar[tuple[tuple[int, int], tuple[int, int]] | None] = None

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self._theme = theme
        self._state = None
        self._drawn: list[DrawnText] = []
        self._layout = None
        self._layout_key: tuple | None = None
        # Every pixel is painted here: the stage behind need not be repainted first.
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        if self.stage_sizes is not None:
            self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
            self.setMinimumSize(*self.stage_sizes[0])

    def sizeHint(self) -> QSize:
        return QSize(*self.stage_sizes[1]) if self.stage_sizes is not None else super().sizeHint()

    @property
    def theme(self) -> Theme:
        return self._theme

    @property
    def state(self):
        """The state drawn (None before the first ``set_state``)."""
        return self._state

    def set_theme(self, theme: Theme) -> None:
        if theme != self._theme:
            self._theme = theme
            self.update()

    def set_state(self, state) -> None:
        if state != self._state:
            self._state = state
            self.update()

    def drawn_texts(self) -> list[DrawnText]:
        """Every text the last paint drew (key, text, px, rect in widget coordinates)."""
        return list(self._drawn)

    def label_rects(self) -> dict[str, QRectF]:
        """Where the last paint drew each text, by its key (the first of a key drawn twice): where a figure is,
        for its formula card (``desktop.kit.figures``)."""
        found: dict[str, QRectF] = {}
        for text in self._drawn:
            found.setdefault(text.key, QRectF(text.rect))
        return found

    def layout_now(self):
        """The layout the next paint uses: ``_lay_out()`` for the current size, state and text floor, computed
        again only when one of them changed; None without a state or with an empty size."""
        if self._state is None or self.width() <= 0 or self.height() <= 0:
            return None
        key = (self.width(), self.height(), self._state, self._theme.text_floor_px)
        if key != self._layout_key:
            self._layout, self._layout_key = self._lay_out(), key
        return self._layout

    def _lay_out(self):
        """Where everything goes for the current size and state (for ``layout_now``)."""
        raise NotImplementedError(f"{type(self).__name__} does not lay out through layout_now")
