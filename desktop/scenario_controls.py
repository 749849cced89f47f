"""The shared scenario controls: GPU, model, precisions, GPUs, batch, lengths, price, mode.

Every control writes to the one ``ScenarioStore`` and reads back from it, so a
GPU chosen while scene 1 is shown is the GPU of every other scene. Controls
refuse what they can (combo boxes list only the catalogue, spin boxes have
ranges); what only the engine can judge comes back as the store's one-sentence
error (in the app's language, re-read when the language changes). A value the
person typed or chose and the engine refused stays in its control, with the
reason and the value still in use right under it, word-wrapped inside the
panel's width (``RefusalNote``), until the next accepted change of any value
puts every control back to the scenario in use. A refusal of something no
control here asked for (a scene's control, a preset) shows at the top of the group.

The number of GPUs offers only the counts whose default layout can share the
model in use on the GPU in use (``engine.layout.default_layout_gpu_counts``:
tensor parallelism inside a node, pipeline stages across nodes, up to 1,024
GPUs): its arrows step from one allowed count to the next, and a typed count
that is not one is refused by the box itself. Choosing a model or a GPU that
cannot be laid out over the current count also picks the nearest allowed count
not above it, in the same store update.

The mode says where the numbers come from: "ideal" is the pure roofline at
100% of peak (what scene 1 draws), "realistic" (the default) applies the
engine's documented efficiency factors; the tooltip says so in both languages,
with the shares realistic mode uses on the GPU in use (``desktop.mode_tip``).
"""
from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import (QComboBox, QDoubleSpinBox, QFormLayout, QGroupBox, QLabel, QPushButton, QSpinBox,
                               QVBoxLayout, QWidget)

from desktop.eliding_combo import COMBO_MIN_CHARACTERS, ElidingComboBox
from desktop.i18n import Language
from desktop.mode_tip import mode_tip
from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.scenario_store import ScenarioStore
from desktop.kit.signals import signals_blocked
from engine import InputError, Scenario
from engine.catalog import Catalog
from engine.layout import DEFAULT_TENSOR_GPUS, default_layout_gpu_counts
from engine.scenario import MAX_BATCH, MAX_GPUS, MODES
from engine.units import format_count, format_usd
from widgets.theme import Theme

# field -> (smallest, largest): what a spin box lets through; the engine judges the rest
COUNT_RANGES = {
    "gpus": (1, MAX_GPUS),
    "batch": (1, MAX_BATCH),
    "prompt_tokens": (1, 1_048_576),
    "output_tokens": (1, 1_048_576),
}
PRICE_RANGE_USD = (0.01, 1000.0)
CHOICES = {"gpu": "gpus", "model": "models", "weights": "precisions", "kv": "precisions"}   # box -> catalogue table


class GpuCountBox(QSpinBox):
    """A spin box that holds only allowed GPU counts (``set_allowed``).

    Arrows, Page keys and the wheel step from one count of ``steps`` to the
    next (by default every allowed count); typing lets through only digits that
    can still become an allowed count, and a number that is not one when editing
    ends is refused: the box goes back to its previous count.
    """

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._allowed: tuple[int, ...] = tuple(range(1, MAX_GPUS + 1))
        self._steps = self._allowed
        self.setRange(1, MAX_GPUS)

    def allowed(self) -> tuple[int, ...]:
        return self._allowed

    def set_allowed(self, counts: tuple[int, ...], steps: tuple[int, ...] | None = None) -> None:
        """Offer only ``counts`` (ascending, starting at 1), the arrows stepping through ``steps`` (some of them;
        default: all); the value is left for the caller to set."""
        self._allowed = tuple(counts)
        self._steps = self._allowed if steps is None else tuple(steps)
        self.setRange(self._allowed[0], self._allowed[-1])

    def stepBy(self, steps: int) -> None:
        """Move ``steps`` counts of the arrows' steps up (or down), stopping at the first or last."""
        value = self.value()
        above = [count for count in self._steps if count > value]
        below = [count for count in self._steps if count < value]
        if steps > 0 and above:
            self.setValue(above[min(steps, len(above)) - 1])
        elif steps < 0 and below:
            self.setValue(below[-min(-steps, len(below))])

    def validate(self, text: str, position: int):
        digits = text.strip()
        if not digits:
            state = QValidator.State.Intermediate
        elif not digits.isdigit():
            state = QValidator.State.Invalid
        elif int(digits) in self._allowed:
            state = QValidator.State.Acceptable
        elif any(str(count).startswith(digits) for count in self._allowed):
            state = QValidator.State.Intermediate      # "1" on the way to "16"
        else:
            state = QValidator.State.Invalid
        return state, text, position


class RefusalNote(QLabel):
    """A word-wrapped reason under a control: as wide as the column it is given, never wider (a long sentence
    wraps; it does not widen the panel, where the end of it would be cut off)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.hide()

    def minimumSizeHint(self) -> QSize:
        return QSize(1, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:
        return QSize(1, super().sizeHint().height())


class ScenarioControls(QGroupBox):
    """A group titled "Scenario": one field per scenario value, the inline error, a defaults button."""

    def __init__(self, store: ScenarioStore, language: Language, catalog: Catalog,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self._store, self._language, self._catalog = store, language, catalog
        self.choices: dict[str, QComboBox] = {}
        self.counts: dict[str, QSpinBox] = {}
        for name in CHOICES:
            box = ElidingComboBox(self)
            # long catalogue names must not widen the panel: the box shrinks (ending the name with "…")
            # and the list stays wide
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(COMBO_MIN_CHARACTERS)
            box.activated.connect(lambda _index, n=name: self._on_choice_change(n))
            self.choices[name] = box
        self._fill_choices()
        self.gpu_count = GpuCountBox(self)
        for name, (low, high) in COUNT_RANGES.items():
            spin = self.gpu_count if name == "gpus" else QSpinBox(self)
            spin.setRange(low, high)
            spin.setGroupSeparatorShown(name != "gpus")
            spin.setKeyboardTracking(False)      # "1000" is one value, not 1, 10, 100 and 1000
            spin.valueChanged.connect(lambda value, n=name: self._on_value_change(n, value))
            self.counts[name] = spin
        self.price = QDoubleSpinBox(self)
        self.price.setRange(*PRICE_RANGE_USD)
        self.price.setDecimals(2)
        self.price.setSingleStep(0.1)
        self.price.setPrefix("$")
        self.price.setKeyboardTracking(False)
        self.price.valueChanged.connect(lambda value: self._on_value_change("usd_per_gpu_hour", value))
        self.mode = QComboBox(self)
        for mode in MODES:
            self.mode.addItem("", mode)          # named in retranslate
        self.mode.activated.connect(lambda _index: self._on_mode_change())
        self.defaults_button = QPushButton(self)
        self.defaults_button.clicked.connect(lambda: self._store.set_scenario(DEFAULT_SCENARIO))
        self.error_label = RefusalNote(self)       # a refusal no control of this group asked for
        self.refusal_notes: dict[str, RefusalNote] = {}
        self._refused: tuple[str, object, object] | None = None    # (field, value refused, the refusal)
        self._asking: str | None = None                              # the field whose change the store is judging

        self._form = QFormLayout()
        self._field_labels: dict[str, QLabel] = {}
        self.fields: dict[str, QWidget] = {}
        for name, widget in [*self.choices.items(), *self.counts.items(), ("usd_per_gpu_hour", self.price),
                             ("mode", self.mode)]:
            label = QLabel(self)
            label.setBuddy(widget)
            self._field_labels[name] = label
            self.fields[name] = widget
            self._form.addRow(label, widget)
            self.refusal_notes[name] = RefusalNote(self)
            self.refusal_notes[name].setObjectName(f"refusal_{name}")
            self._form.addRow(self.refusal_notes[name])       # the whole row's width, right under its control
        layout = QVBoxLayout(self)
        layout.addWidget(self.error_label)
        layout.addLayout(self._form)
        layout.addWidget(self.defaults_button, alignment=Qt.AlignmentFlag.AlignLeft)

        store.changed.connect(self._on_store_change)
        store.error.connect(self._on_store_error)
        store.catalog_changed.connect(self.set_catalog)
        language.changed.connect(self.retranslate)
        self.retranslate()
        self._show(store.scenario)

    def retranslate(self, *_args) -> None:
        text = self._language.text
        self.setTitle(text("controls.heading"))
        for name, label in self._field_labels.items():
            label.setText(text(f"controls.field.{name}"))
        for index in range(self.mode.count()):
            self.mode.setItemText(index, text(f"controls.mode.{self.mode.itemData(index)}"))
        self._show_mode_tip(self._store.scenario.gpu)
        self.defaults_button.setText(text("controls.defaults"))
        if self._store.last_error is not None and not self.error_label.isHidden():
            self.error_label.setText(self._store.error_message(self._store.last_error))
        if self._refused is not None:
            self._show_refusal(*self._refused)

    def set_labels_above(self, above: bool) -> None:
        """Each label above its field (a narrow column, for a narrow window) or beside it."""
        policy = QFormLayout.RowWrapPolicy
        self._form.setRowWrapPolicy(policy.WrapAllRows if above else policy.DontWrapRows)
        self.layout().invalidate()
        self.layout().activate()       # the new minimum width now, for the panel that fits around it
        self.updateGeometry()

    def labels_above(self) -> bool:
        return self._form.rowWrapPolicy() == QFormLayout.RowWrapPolicy.WrapAllRows

    def set_theme(self, theme: Theme) -> None:
        for note in (self.error_label, *self.refusal_notes.values()):
            note.setStyleSheet(f"color: {theme.warning};")

    def error_text(self) -> str:
        """The refusal shown now (beside a control or at the top of the group), or ""."""
        shown = [note.text() for note in (self.error_label, *self.refusal_notes.values()) if not note.isHidden()]
        return shown[0] if shown else ""

    def refused_field(self) -> str | None:
        """The field whose refused value its control still shows, or None."""
        return None if self._refused is None else self._refused[0]

    def _show_mode_tip(self, gpu_id: str) -> None:
        """The Mode control's tooltip, with realistic mode's shares on the GPU in use (``desktop.mode_tip``)."""
        if gpu_id not in self._catalog.gpus:
            return
        tip = mode_tip(self._language.text, self._catalog.gpu(gpu_id))
        self.mode.setToolTip(tip)
        self._field_labels["mode"].setToolTip(tip)

    def set_catalog(self, catalog: Catalog) -> None:
        """List ``catalog``'s entries (a model imported since the start among them), the choices in use kept."""
        self._catalog = catalog
        self._fill_choices()
        self._show(self._store.scenario)

    def _fill_choices(self) -> None:
        for name, table in CHOICES.items():
            box = self.choices[name]
            with signals_blocked(box):
                box.clear()
                for entry in getattr(self._catalog, table).values():
                    box.addItem(entry.name, entry.id)

    def choose(self, name: str, entry_id: str) -> bool:
        """Pick ``entry_id`` in the box ``name`` as a person would (refused: kept, with the reason under it)."""
        box = self.choices[name]
        index = box.findData(entry_id)
        if index < 0:
            return False
        box.setCurrentIndex(index)
        self._on_choice_change(name)
        return getattr(self._store.scenario, name) == entry_id

    def show_general_refusal(self, text: str) -> None:
        """``text`` at the top of the group (a scenario file that cannot be used), until the next change."""
        self._refused = None
        for note in self.refusal_notes.values():
            note.hide()
        self.error_label.setText(text)
        self.error_label.show()

    def show_field_note(self, name: str, text: str) -> None:
        """``text`` under the control ``name`` (an import's refusal under the model box), until the next change."""
        self._refused = None
        for field, note in self.refusal_notes.items():
            note.setVisible(field == name)
        self.error_label.hide()
        self.refusal_notes[name].setText(text)

    def allowed_gpu_counts(self, model_id: str, gpu_id: str) -> tuple[int, ...]:
        """The GPU counts whose default layout shares ``model_id`` on ``gpu_id`` (every count for an id the
        catalogue lacks)."""
        try:
            return default_layout_gpu_counts(self._catalog.model(model_id), self._catalog.gpu(gpu_id), limit=MAX_GPUS)
        except InputError:
            return tuple(range(1, MAX_GPUS + 1))

    def stepped_gpu_counts(self, counts: tuple[int, ...], gpu_id: str) -> tuple[int, ...]:
        """The counts the arrows step through: every allowed count within one tensor group of a node, then whole
        groups of the widest (8, 16, 24 ... on an HGX board), as deployments grow: 9 GPUs, one a stage, is a
        layout the engine accepts when typed, not a step anyone takes from 8."""
        try:
            group = min(self._catalog.gpu(gpu_id).node_gpus, DEFAULT_TENSOR_GPUS)
        except InputError:
            return counts
        widest = max(count for count in counts if count <= group)
        return tuple(count for count in counts if count <= group or count % widest == 0)

    # -- writing to the store --------------------------------------------------------
    def _on_choice_change(self, name: str) -> None:
        fields = {name: self.choices[name].currentData()}
        if name in ("model", "gpu"):
            sc = self._store.scenario
            model, gpu = fields.get("model", sc.model), fields.get("gpu", sc.gpu)
            fields["gpus"] = max(count for count in self.allowed_gpu_counts(model, gpu) if count <= sc.gpus)
        self._ask(name, fields)

    def _on_mode_change(self) -> None:
        self._ask("mode", {"mode": self.mode.currentData()})

    def _on_value_change(self, name: str, value) -> None:
        if name == "gpus" and value not in self.gpu_count.allowed():
            self._show(self._store.scenario)     # only a program can set such a count; the box refuses it
            return
        self._ask(name, {name: value})

    def _ask(self, name: str, fields: dict) -> None:
        """Ask the store for ``fields``; refused, the control keeps the value with the reason under it."""
        self._asking = name
        try:
            accepted = self._store.update(**fields)
        finally:
            self._asking = None
        if not accepted:
            self._refused = (name, fields[name], self._store.last_error)
            self._show(self._store.scenario, keep=name)
            self._show_refusal(*self._refused)

    def _show_refusal(self, name: str, value, error) -> None:
        for field, note in self.refusal_notes.items():
            note.setVisible(field == name)
        self.error_label.hide()
        reason = self._store.error_message(error) if error is not None else ""
        self.refusal_notes[name].setText(self._language.text("controls.refused", reason=reason,
                                                             value=self._value_text(name, self._store.scenario)))

    def _value_text(self, name: str, scenario: Scenario) -> str:
        """The value of ``name`` in ``scenario`` as its control shows it."""
        value = getattr(scenario, name)
        if name in self.choices:
            index = self.choices[name].findData(value)
            return self.choices[name].itemText(index) if index >= 0 else str(value)
        if name == "mode":
            return self._language.text(f"controls.mode.{value}")
        if name == "usd_per_gpu_hour":
            return format_usd(value)
        return format_count(value)

    # -- reading from the store --------------------------------------------------------
    def _on_store_change(self, scenario, _report) -> None:
        self._refused = None
        for note in (self.error_label, *self.refusal_notes.values()):
            note.hide()
        self._show(scenario)

    def _on_store_error(self, message: str) -> None:
        if self._asking is not None:
            return                    # one of these controls asked: the reason goes under it (``_ask``)
        self._show(self._store.scenario)
        self.show_general_refusal(message)

    def _show(self, scenario: Scenario, keep: str | None = None) -> None:
        """Every control at ``scenario``'s value, but ``keep`` (a field whose refused value stays shown)."""
        for name, box in self.choices.items():
            index = box.findData(getattr(scenario, name))
            if name != keep and index >= 0 and index != box.currentIndex():
                box.setCurrentIndex(index)      # activated is only emitted by the user: no loop
        with signals_blocked(self.gpu_count, self.price, *self.counts.values()):
            counts = self.allowed_gpu_counts(scenario.model, scenario.gpu)
            self.gpu_count.set_allowed(counts, self.stepped_gpu_counts(counts, scenario.gpu))
            for name, spin in self.counts.items():
                if name != keep:
                    spin.setValue(getattr(scenario, name))
            if keep != "usd_per_gpu_hour":
                self.price.setValue(scenario.usd_per_gpu_hour)
        self._show_mode_tip(scenario.gpu)
        index = self.mode.findData(scenario.mode)
        if keep != "mode" and index >= 0:
            self.mode.setCurrentIndex(index)     # activated is only emitted by the user: no loop
