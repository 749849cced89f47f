"""A drop-down whose closed box ends a choice too long for it with "…" instead of cutting it off.

The open list and the tool tip show the whole name, so a narrow side panel can
hold "NVIDIA H800 SXM5" without widening and without hiding what is chosen.

Qt draws the box as it draws any drop-down; only the text it is handed to draw
is shortened (``initStyleOption``, which Qt 6 asks of the widget before it
paints). The text field's width is the Fusion style's (the app's, on every
platform), not asked of the style: asking makes Python's first ``QStyle``
object, and with it QStyle's ten enumerations (some 600 names, 5-12 ms), which
nothing before the first frame needs otherwise. tests/desktop/test_eliding_combo.py
checks the width against Fusion's own.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QWidget

COMBO_MIN_CHARACTERS = 10     # a drop-down in the side panel shows at least this much of its choice
FUSION_FIELD_MARGIN_PX = 25   # a closed Fusion drop-down's text field: its width less the frame and the arrow button


class ElidingComboBox(QComboBox):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.currentTextChanged.connect(self._on_text_change)

    def _on_text_change(self, text: str) -> None:
        self.setToolTip(text)

    def initStyleOption(self, option) -> None:
        super().initStyleOption(option)
        option.currentText = self.fontMetrics().elidedText(option.currentText, Qt.TextElideMode.ElideRight,
                                                           option.rect.width() - FUSION_FIELD_MARGIN_PX)
