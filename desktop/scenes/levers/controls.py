"""The side-panel controls of scene 7: one page of settings per lever, and the switches of the stack.

A lever's build shows its own page (a ``QStackedWidget``: the panel keeps one
width whichever page shows) and its "in the stack" switch; the last build
shows every switch. Each page ends in a line that shows the engine's refusal
of its settings, in words, beside the control (never a dialog). The controls
only report the person's choice (``changed``, a new ``LeversChoices``); the
view hands it to the story, and ``show`` writes the story's values back
without the controls hearing them (``signals_blocked``).
"""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QSize, Signal
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QLabel, QSpinBox, QStackedWidget, QVBoxLayout, QWidget,
)

from desktop.kit.signals import signals_blocked
from engine.levers import LEVERS
from engine.scenario import MAX_BATCH

from .choices import HEADS, LEVER_BUILDS, LeversChoices

MAX_TYPED_TOKENS = 10_000_000     # a typed length beyond anything a model reads: the engine names the limit
MAX_TYPED_DRAFT_TOKENS = 32       # past the engine's 16, so that its refusal is seen, not a clamp
MAX_TYPED_HOST_GB = 1_000_000.0


def _spin(low: int, high: int, step: int = 1) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setSingleStep(step)
    box.setKeyboardTracking(False)       # a value once typed, not one per keystroke
    box.setGroupSeparatorShown(True)
    return box


class LeverPages(QStackedWidget):
    """The levers' pages: as wide as the widest (the panel keeps one width), as tall as the one shown (a short
    page leaves no blank above the switches)."""

    def __init__(self):
        super().__init__()
        self.currentChanged.connect(lambda _index: self.updateGeometry())

    def sizeHint(self) -> QSize:
        width = max((self.widget(n).sizeHint().width() for n in range(self.count())), default=0)
        shown = self.currentWidget()
        return QSize(width, shown.sizeHint().height() if shown is not None else 0)

    def minimumSizeHint(self) -> QSize:
        width = max((self.widget(n).minimumSizeHint().width() for n in range(self.count())), default=0)
        shown = self.currentWidget()
        return QSize(width, shown.minimumSizeHint().height() if shown is not None else 0)


class LeverControls(QWidget):
    changed = Signal(object)             # the new LeversChoices

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._choices = LeversChoices()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.pages = LeverPages()
        self.page_of: dict[str, QWidget] = {}
        self.notes: dict[str, QLabel] = {}
        self.labels: dict[str, QLabel] = {}
        self.blank = QWidget()
        self.pages.addWidget(self.blank)
        self._build_pages()
        layout.addWidget(self.pages)
        self.stack_heading = QLabel()
        self.stack_heading.setWordWrap(True)
        layout.addWidget(self.stack_heading)
        self.switches: dict[str, QCheckBox] = {}
        for lever in LEVERS:
            switch = QCheckBox()
            switch.toggled.connect(lambda on, lever=lever: self._emit(self._choices.with_stacked(lever, on)))
            layout.addWidget(switch)
            self.switches[lever] = switch
        self.stack_note = QLabel()
        self.stack_note.setWordWrap(True)
        layout.addWidget(self.stack_note)

    # -- the pages ---------------------------------------------------------------------------------
    def _page(self, lever: str, rows: list[tuple[str, QWidget]]) -> None:
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(0, 0, 0, 0)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)     # labels above: a narrow panel
        for key, widget in rows:
            label = QLabel()
            self.labels[f"{lever}.{key}"] = label
            form.addRow(label, widget)
        note = QLabel()
        note.setWordWrap(True)
        note.setObjectName("refusal")
        form.addRow(note)
        self.notes[lever] = note
        self.pages.addWidget(page)
        self.page_of[lever] = page

    def _build_pages(self) -> None:
        self.weights, self.kv = QComboBox(), QComboBox()
        self.batch = _spin(0, MAX_BATCH)
        self.draft = QComboBox()
        self.draft_tokens = _spin(0, MAX_TYPED_DRAFT_TOKENS)
        self.acceptance = QDoubleSpinBox()
        self.acceptance.setRange(0.0, 1.0)
        self.acceptance.setSingleStep(0.05)
        self.acceptance.setDecimals(2)
        self.acceptance.setKeyboardTracking(False)
        self.speculative_batch = _spin(0, MAX_BATCH)
        self.reserve = _spin(0, MAX_TYPED_TOKENS, 1024)
        self.shelf = QComboBox()
        self.prefix = _spin(-1, MAX_TYPED_TOKENS, 100)
        self.reloaded = _spin(-1, MAX_TYPED_TOKENS, 100)
        self.host = QDoubleSpinBox()
        self.host.setRange(0.0, MAX_TYPED_HOST_GB)
        self.host.setDecimals(0)
        self.host.setSingleStep(64)
        self.host.setKeyboardTracking(False)
        self.link = QComboBox()
        self.flash_note = QLabel()
        self.flash_note.setWordWrap(True)
        self._page("weights", [("weights", self.weights)])
        self._page("kv_precision", [("kv", self.kv)])
        self._page("batching", [("batch", self.batch)])
        self._page("speculative", [("draft", self.draft), ("draft_tokens", self.draft_tokens),
                                   ("acceptance", self.acceptance), ("speculative_batch", self.speculative_batch)])
        self._page("kv_allocation", [("reserve", self.reserve), ("shelf", self.shelf)])
        self._page("prefix_cache", [("prefix", self.prefix)])
        self._page("flash_attention", [("flash", self.flash_note)])
        self._page("offload", [("reloaded", self.reloaded), ("host", self.host)])
        self._page("disaggregation", [("link", self.link)])
        for box in (self.weights, self.kv, self.draft, self.shelf, self.link):
            box.currentIndexChanged.connect(self._on_edit)
        for box in (self.batch, self.draft_tokens, self.acceptance, self.speculative_batch, self.reserve, self.prefix,
                    self.reloaded, self.host):
            box.valueChanged.connect(self._on_edit)

    # -- what the person chose -------------------------------------------------------------------------
    def _emit(self, choices: LeversChoices) -> None:
        self._choices = choices
        self.changed.emit(choices)

    def _on_edit(self, *_args) -> None:
        self._emit(self.read())

    def read(self) -> LeversChoices:
        """The choices the controls show now."""
        def none_at(box: QSpinBox, special: int) -> int | None:
            return None if box.value() == special else box.value()
        return replace(
            self._choices, weights=self.weights.currentData() or self._choices.weights,
            kv=self.kv.currentData() or self._choices.kv, batch=none_at(self.batch, 0),
            draft=self.draft.currentData() or None, draft_tokens=self.draft_tokens.value(),
            acceptance=round(self.acceptance.value(), 2), speculative_batch=none_at(self.speculative_batch, 0),
            reserve_tokens=self.reserve.value(), shelf_paged=self.shelf.currentData() != "reserved",
            cached_prefix_tokens=none_at(self.prefix, -1), reloaded_tokens=none_at(self.reloaded, -1),
            host_gb=self.host.value(), link=self.link.currentData() or None)

    # -- what the story says ------------------------------------------------------------------------------
    def retranslate(self, text, precisions, drafts) -> None:
        """Every label and choice in the current language; ``precisions`` and ``drafts``: (id, name) pairs."""
        for key, label in self.labels.items():
            label.setText(text(f"control.{key.split('.', 1)[1]}") if not key.endswith(".flash") else "")
        self.flash_note.setText(text("control.no_settings"))
        with signals_blocked(self.weights, self.kv, self.draft, self.shelf, self.link):
            for box in (self.weights, self.kv):
                box.clear()
                for precision, name in precisions:
                    box.addItem(name, precision)
            self.draft.clear()
            self.draft.addItem(text("control.draft_auto"), "")
            self.draft.addItem(text("control.draft_heads"), HEADS)
            for model, name in drafts:
                self.draft.addItem(name, model)
            self.shelf.clear()
            self.shelf.addItem(text("control.shelf_paged"), "paged")
            self.shelf.addItem(text("control.shelf_reserved"), "reserved")
            self.link.clear()
            self.link.addItem(text("control.link_auto"), "")
            self.link.addItem(text("label.link_nvlink"), "nvlink")
            self.link.addItem(text("label.link_network"), "network")
        for box, key in ((self.batch, "batch_all"), (self.speculative_batch, "scenario_batch"),
                         (self.reserve, "reserve_max"), (self.prefix, "half_prompt"), (self.reloaded, "half_prompt")):
            box.setSpecialValueText(text(f"control.{key}"))
        for box in (self.reserve, self.prefix, self.reloaded):
            box.setSuffix(text("control.tokens_suffix"))
        self.host.setSuffix(text("control.gb_suffix"))
        self.stack_heading.setText(text("control.stack_heading"))
        for lever, switch in self.switches.items():
            switch.setText(text(f"lever.{lever}") if lever else "")
            switch.setToolTip(text("control.stacked_tip"))

    def show_story(self, story, text) -> None:
        """The story's choices in the controls, the build's page and switches, and the refusals beside them."""
        choices = story.choices
        self._choices = choices
        lever = story.lever
        widgets = [self.weights, self.kv, self.draft, self.shelf, self.link, self.batch, self.draft_tokens,
                   self.acceptance, self.speculative_batch, self.reserve, self.prefix, self.reloaded, self.host,
                   *self.switches.values()]
        with signals_blocked(*widgets):
            for box, value in ((self.weights, choices.weights), (self.kv, choices.kv), (self.draft, choices.draft or ""),
                               (self.shelf, "paged" if choices.shelf_paged else "reserved"), (self.link, choices.link or "")):
                index = box.findData(value)
                if index >= 0 and box.currentIndex() != index:
                    box.setCurrentIndex(index)
            for box, value, special in ((self.batch, choices.batch, 0), (self.speculative_batch, choices.speculative_batch, 0),
                                        (self.prefix, choices.cached_prefix_tokens, -1),
                                        (self.reloaded, choices.reloaded_tokens, -1)):
                box.setValue(special if value is None else value)
            self.draft_tokens.setValue(choices.draft_tokens)
            self.acceptance.setValue(choices.acceptance)
            self.reserve.setValue(choices.reserve_tokens)
            self.host.setValue(choices.host_gb)
            for name, switch in self.switches.items():
                switch.setChecked(name in choices.stack)
        self.pages.setCurrentWidget(self.page_of[lever] if lever in LEVER_BUILDS else self.blank)
        if lever is not None:
            note = story.control_note(lever)
            self.notes[lever].setText(note)
            self.notes[lever].setVisible(bool(note))
        stacking = story.build_name == "stack"
        self.stack_heading.setVisible(stacking)
        for name, switch in self.switches.items():
            switch.setVisible(stacking or name == lever)
            switch.setText(text(f"lever.{name}") if stacking else text("control.stacked"))
        note = story.stack_note()
        self.stack_note.setText(note)
        self.stack_note.setVisible(bool(note))
