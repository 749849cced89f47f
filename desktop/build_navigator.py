"""Where the talk is, and a way on without knowing a key: "◀  3 / 6  ▶" on the stage's frame (windowed mode).

A learner who has never heard of the Right key sees that scene 1 has six builds
and steps through them with the mouse. The buttons ask for the very commands
the keys give (``next``, ``previous``: a build, then the next or previous
scene), so a click and a key never disagree. They never take the keyboard:
after a click, Right and Space still step the talk. Presentation mode and
exported pictures keep the stage clean: the frame hides this row there.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget


class BuildNavigator(QWidget):
    previous_requested = Signal()
    next_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.previous_button, self.next_button = QToolButton(self), QToolButton(self)
        self.previous_button.setObjectName("build_previous")
        self.next_button.setObjectName("build_next")
        self.previous_button.setText("◀")
        self.next_button.setText("▶")
        self.marker = QLabel(self)
        self.marker.setObjectName("build_marker")
        self.marker.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.marker.setTextFormat(Qt.TextFormat.PlainText)
        for button in (self.previous_button, self.next_button):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)     # the keys stay with the talk after a click
        self.previous_button.clicked.connect(self.previous_requested)
        self.next_button.clicked.connect(self.next_requested)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self.previous_button)
        layout.addWidget(self.marker)
        layout.addWidget(self.next_button)
        self._index, self._count = 0, 1
        self._marker_name = "{index} / {count}"

    def set_texts(self, previous_tip: str, next_tip: str, marker_name: str) -> None:
        """The buttons' tooltips and the marker's accessible name (a template with {index} and {count})."""
        self.previous_button.setToolTip(previous_tip)
        self.previous_button.setAccessibleName(previous_tip)
        self.next_button.setToolTip(next_tip)
        self.next_button.setAccessibleName(next_tip)
        self._marker_name = marker_name
        self._show()

    def set_font(self, font: QFont) -> None:
        """The caption's font: the marker reads as part of the slide, bold, and the buttons are as tall as a line."""
        bold = QFont(font)
        bold.setBold(True)
        self.marker.setFont(bold)
        side = round(QFontMetrics(font).height() * 1.5)
        for button in (self.previous_button, self.next_button):
            button.setFont(font)
            button.setFixedSize(side, side)
        self.marker.setMinimumWidth(QFontMetrics(bold).horizontalAdvance("88 / 88") + 8)

    def set_build(self, index: int, count: int, first_scene: bool = False, last_scene: bool = False) -> None:
        """Build ``index`` (0-based) of ``count`` is on the stage; ``first_scene``/``last_scene``: of the first or
        last scene, where there is nothing before its first build or after its last."""
        self._index, self._count = index, max(1, count)
        self.previous_button.setEnabled(not (first_scene and index == 0))
        self.next_button.setEnabled(not (last_scene and index + 1 >= self._count))
        self._show()

    def marker_text(self) -> str:
        return self.marker.text()

    def _show(self) -> None:
        self.marker.setText(f"{self._index + 1} / {self._count}")
        self.marker.setAccessibleName(self._marker_name.format(index=self._index + 1, count=self._count))
        self.marker.setToolTip(self.marker.accessibleName())
