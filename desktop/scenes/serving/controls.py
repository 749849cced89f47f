"""The side-panel controls of the serving scene: the request rate, the two P90 targets, the list prices.

Each control reports the person's value (``changed``, a new
``ServingControls``) and has a line under it where the engine's refusal that
concerns it stands, in one sentence (never a dialog); a refusal of the
deployment itself stands at the end. The ranges reach past what the engine
accepts, so its sentence is seen rather than a silent clamp. ``show_story``
writes the story's values back without the controls hearing them.
"""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDoubleSpinBox, QFormLayout, QLabel, QWidget

from desktop.kit.signals import signals_blocked
from desktop.scenario_controls import RefusalNote

from .choices import ServingControls
from .story import CONTROLS

MS = 1000.0
# (control, field of ServingControls, shown per unit of the field, decimals, step, highest typed value shown,
# whether its unit text comes before the number): the highest values are past the engine's limits (a million
# requests/s, an hour, a million dollars).
FIELDS = (
    ("rate", "requests_per_second", 1.0, 2, 1.0, 2e6, False),
    ("ttft", "ttft_target_seconds", 1.0, 2, 0.1, 4000.0, False),
    ("tpot", "tpot_target_seconds", MS, 1, 5.0, 4e6, False),
    ("list_input", "list_usd_per_million_input_tokens", 1.0, 3, 0.05, 2e6, True),
    ("list_output", "list_usd_per_million_output_tokens", 1.0, 3, 0.1, 2e6, True),
)


class ServingControlsPanel(QWidget):
    changed = Signal(object)             # the new ServingControls

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._controls = ServingControls()
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        form.addRow(self.heading)
        self.boxes: dict[str, QDoubleSpinBox] = {}
        self.labels: dict[str, QLabel] = {}
        self.notes: dict[str, RefusalNote] = {}
        for name, _field, _scale, decimals, step, high, _before in FIELDS:
            box = QDoubleSpinBox()
            box.setRange(0.0, high)
            box.setDecimals(decimals)
            box.setSingleStep(step)
            box.setKeyboardTracking(False)          # a value once typed, not one per keystroke
            box.setGroupSeparatorShown(True)
            box.valueChanged.connect(self._on_edit)
            label = QLabel()
            label.setWordWrap(True)
            form.addRow(label)              # a row of its own: a label in the form's label column never wraps
            form.addRow(box)
            note = RefusalNote()
            note.setObjectName("refusal")
            form.addRow(note)
            self.boxes[name], self.labels[name], self.notes[name] = box, label, note
        self.notes["scenario"] = RefusalNote()
        self.notes["scenario"].setObjectName("refusal")
        form.addRow(self.notes["scenario"])
        self._write(self._controls)

    def read(self) -> ServingControls:
        """The values the controls show now."""
        return replace(self._controls, **{field: self.boxes[name].value() / scale
                                          for name, field, scale, *_ in FIELDS})

    def _on_edit(self, *_args) -> None:
        self._controls = self.read()
        self.changed.emit(self._controls)

    def _write(self, controls: ServingControls) -> None:
        with signals_blocked(*self.boxes.values()):
            for name, field, scale, *_ in FIELDS:
                value = getattr(controls, field) * scale
                if abs(self.boxes[name].value() - value) > 1e-9:
                    self.boxes[name].setValue(value)

    def retranslate(self, text) -> None:
        self.heading.setText(text("control.heading"))
        for name, *_, before in FIELDS:
            self.labels[name].setText(text(f"control.{name}"))
            unit = text(f"control.{name}_unit")
            self.boxes[name].setPrefix(unit if before else "")
            self.boxes[name].setSuffix("" if before else unit)

    def show_story(self, story) -> None:
        """The story's values in the controls and each refusal beside the control it concerns."""
        self._controls = story.choices
        self._write(story.choices)
        found = story.control_notes()
        for name in CONTROLS:
            note = self.notes[name]
            note.setText(found.get(name, ""))
            note.setVisible(name in found)
