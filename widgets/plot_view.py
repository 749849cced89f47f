"""What a plot that zooms and pans in the window shares: the button that puts its view back.

A plot offers ``set_interactive(interactive, reset_label)``: in the window the
mouse wheel zooms and a drag pans (the scene's kit turns it on, presenting and
export turn it off and put the view back). Once the view has moved, the
``ResetViewButton`` shows in the plot's top-right corner; a click on it, or a
double-click on the plot, puts the view back where the scene set it. A plain
click on the plot (no drag) is passed on as ``clicked`` so the scene can show
the formula behind it.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolButton, QWidget

MARGIN_PX = 6


class ResetViewButton(QToolButton):
    def __init__(self, plot: QWidget, reset):
        super().__init__(plot)
        self.setObjectName("reset_view")
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)      # the keys stay with the talk
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.clicked.connect(reset)
        self.hide()

    def set_label(self, label: str) -> None:
        self.setText(f"⟲ {label}" if label else "⟲")
        self.setToolTip(label)
        self.adjustSize()
        self.place()

    def place(self) -> None:
        plot = self.parentWidget()
        self.move(max(0, plot.width() - self.width() - MARGIN_PX), MARGIN_PX)
        self.raise_()
