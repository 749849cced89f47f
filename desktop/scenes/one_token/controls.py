"""The own controls of "one token at a time": the tokenizer, play/pause, step, reset and the playback speed.

A column for the side panel, as narrow as the panel's other controls (drop-downs
end a long choice with "…"; Play sits above Step and Reset). The widgets only
show values and report choices; the view (``view.py``) does the work and calls
``show_values`` after every change, so nothing loops.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop.eliding_combo import COMBO_MIN_CHARACTERS, ElidingComboBox
from desktop.kit.signals import signals_blocked
from engine.tokens import list_tokenizers
from engine.units import format_seconds


def _narrow(box: QComboBox) -> QComboBox:
    """As wide as the panel's other drop-downs, not as its longest choice (the open list shows it whole)."""
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(COMBO_MIN_CHARACTERS)
    return box


class OneTokenControls(QWidget):
    tokenizer_chosen = Signal(str)        # a tokenizer id
    speed_chosen = Signal(float)          # passes per second of screen time

    def __init__(self, speeds: tuple[float, ...], parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)          # the panel's group around it has margins already
        self._tokenizer_label, self.loading_label, self._speed_label = QLabel(), QLabel(), QLabel()
        self.loading_label.setWordWrap(True)
        self.tokenizer_box = _narrow(ElidingComboBox())
        for info in list_tokenizers():
            self.tokenizer_box.addItem(info.short_name, info.id)
        self.play_button, self.step_button, self.reset_button = QPushButton(), QPushButton(), QPushButton()
        buttons = QHBoxLayout()
        buttons.addWidget(self.step_button)
        buttons.addWidget(self.reset_button)
        self._speeds = speeds
        self.speed_box = _narrow(ElidingComboBox())
        for speed in speeds:
            self.speed_box.addItem("", speed)
        for widget in (self._tokenizer_label, self.tokenizer_box, self.loading_label, self.play_button):
            layout.addWidget(widget)
        layout.addLayout(buttons)
        layout.addWidget(self._speed_label)
        layout.addWidget(self.speed_box)
        self.tokenizer_box.currentIndexChanged.connect(
            lambda n: self.tokenizer_chosen.emit(self.tokenizer_box.itemData(n)))
        self.speed_box.currentIndexChanged.connect(lambda n: self.speed_chosen.emit(self.speed_box.itemData(n)))

    def retranslate(self, text: Callable[..., str]) -> None:
        """Every label again, from ``text(key, **values)`` (the scene's texts)."""
        self._tokenizer_label.setText(text("control.tokenizer"))
        self.tokenizer_box.setToolTip(text("control.tokenizer_tip"))
        self.loading_label.setText(text("control.loading"))
        self.step_button.setText(text("control.step"))
        self.reset_button.setText(text("control.reset"))
        self._speed_label.setText(text("control.speed"))
        self.speed_box.setToolTip(text("control.speed_tip"))
        for n, speed in enumerate(self._speeds):
            self.speed_box.setItemText(n, text("control.speed_value", seconds=format_seconds(1.0 / speed)))

    def show_values(self, tokenizer: str, speed: float, loading: bool, playing: bool,
                    text: Callable[..., str]) -> None:
        """Show the scene's values without the controls reporting them back."""
        with signals_blocked(self.tokenizer_box, self.speed_box):
            self.tokenizer_box.setCurrentIndex(max(0, self.tokenizer_box.findData(tokenizer)))
            self.speed_box.setCurrentIndex(max(0, self.speed_box.findData(speed)))
        self.loading_label.setVisible(loading)
        self.play_button.setText(text("control.pause" if playing else "control.play"))
