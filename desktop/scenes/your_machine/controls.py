"""The own controls of "Your machine": one button (Measure, Stop measuring, Measure again) and a status line.

A column for the side panel. The widgets only show what the view hands them
(``show_texts``: the story's button text and status) and report the press; the view
(``view.py``) starts or stops the probe.
"""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget


class YourMachineControls(QWidget):
    pressed = Signal()            # the button: measure, or stop the measurement running

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)          # the panel's group around it has margins already
        self.measure_button = QPushButton()
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        layout.addWidget(self.measure_button)
        layout.addWidget(self.status_label)
        self.measure_button.clicked.connect(self.pressed.emit)

    def show_texts(self, button: str, tip: str, status: str) -> None:
        """The button's word and tooltip and the status line (each set only when it changes)."""
        for widget, setter, getter, text in ((self.measure_button, "setText", "text", button),
                                             (self.measure_button, "setToolTip", "toolTip", tip),
                                             (self.status_label, "setText", "text", status)):
            if getattr(widget, getter)() != text:
                getattr(widget, setter)(text)
