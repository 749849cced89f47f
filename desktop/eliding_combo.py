"""A drop-down whose closed box ends a choice too long for it with "…" instead of cutting it off.

The open list and the tool tip show the whole name, so a narrow side panel can
hold "NVIDIA H800 SXM5" without widening and without hiding what is chosen.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter, QWidget

COMBO_MIN_CHARACTERS = 10     # a drop-down in the side panel shows at least this much of its choice


class ElidingComboBox(QComboBox):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.currentTextChanged.connect(self._on_text_change)

    def _on_text_change(self, text: str) -> None:
        self.setToolTip(text)

    def paintEvent(self, _event) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)
        option.currentText = self.fontMetrics().elidedText(option.currentText, Qt.TextElideMode.ElideRight,
                                                           field.width())
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)
