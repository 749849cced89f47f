"""The right-hand column of the window: the shown scene's own controls, then the shared scenario.

A scene's ``controls()`` go in a group titled for the scene, above the shared
"Scenario" group, so a scene never needs a row of its own under the stage (a
row wide enough for a slider and two buttons does not fit a 1024x768 screen).
The panel is a column, and a scene hands its controls as one (``Scene.controls``).
In a narrow window the scenario's labels go above their fields (``update_chrome`` in
``desktop.window``), so the column needs no room for a label beside a field. The
panel scrolls vertically when it is taller than the window, never sideways: it
is exactly as wide as its widest control.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QGroupBox, QScrollArea, QVBoxLayout, QWidget

from desktop.i18n import Language


class SidePanel(QScrollArea):
    def __init__(self, scenario_controls: QWidget, language: Language, parent: QWidget | None = None):
        super().__init__(parent)
        self._language = language
        self.scene_group = QGroupBox()
        self.scene_group.setObjectName("scene_controls")
        self._scene_layout = QVBoxLayout(self.scene_group)
        self._scene_controls: list[QWidget] = []        # every scene's controls placed so far
        self.scenario_controls = scenario_controls
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.addWidget(self.scene_group)
        layout.addWidget(scenario_controls)
        layout.addStretch(1)
        self.setWidget(content)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.show_scene_controls(None)
        language.changed.connect(self.retranslate)
        self.retranslate()

    def retranslate(self, *_args) -> None:
        self.scene_group.setTitle(self._language.text("app.panel.this_scene"))

    def show_scene_controls(self, controls: QWidget | None) -> None:
        """Show ``controls`` (a scene's own, or None for a scene without any) in the scene's group."""
        if controls is not None and controls not in self._scene_controls:
            self._scene_layout.addWidget(controls)
            self._scene_controls.append(controls)
        for placed in self._scene_controls:
            placed.setVisible(placed is controls)
        self.scene_group.setVisible(controls is not None)
        self.fit_width()

    def fit_width(self) -> None:
        """As wide as the widest control plus a vertical scroll bar: nothing is cut off, nothing scrolls sideways."""
        content = self.widget()
        content.layout().activate()
        width = content.minimumSizeHint().width() + self.verticalScrollBar().sizeHint().width() \
            + 2 * self.frameWidth()
        self.setMinimumWidth(width)
