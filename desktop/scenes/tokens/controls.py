"""Scene 6's hands-on parts: text boxes that stay quick whatever is pasted, and the controls beside the stage.

Qt lays out a whole line of a text box again on every key, and a very long
text once more whenever it is set: a single line of 100,000 characters costs
0.25-1 s a key, a 5 MB one seconds. So a ``GuardedTextBox`` never holds a line
longer than ``MAX_LINE_CHARS`` nor more than ``LARGE_PASTE_CHARS`` in all: a
text that would (pasted, dropped, typed on, set) is *held* instead. The box
then shows its beginning read-only (lines cut at ``PREVIEW_LINE_CHARS``), and
the scene counts all of it (``full_text()``); Clear empties it. Nothing reads a
box's whole text per key: a key checks only the length of its own line.

The controls: which tokenizers (two to five), spaces and token ids shown, and a
box for the person's own parallel text.
"""
from __future__ import annotations

import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QCheckBox, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from desktop.kit.signals import signals_blocked

from .cuts import MAX_CHOSEN, MIN_CHOSEN, short_name, tokenizer_ids
from .story import Choices

# A box holds at most this much text, and no line longer than this (a key re-lays its whole line: at 2,000
# characters a few ms on a slow laptop; a 100,000-character line costs up to a second a key).
LARGE_PASTE_CHARS = 100_000
MAX_LINE_CHARS = 2_000
# What the read-only box shows of a held paste: its beginning, each line cut.
PREVIEW_CHARS = 4_000
PREVIEW_LINE_CHARS = 400
# What ends a line (a block) in a Qt text box; a line separator (U+2028) does not.
LINE_BREAKS = re.compile("[\n\r\u2029]")
# The playground's box shows this many lines on the stage; the tokens below it get the rest.
EDITOR_LINES = 3


def longest_line(text: str) -> int:
    """The length of the longest line of ``text`` as a text box cuts it into lines."""
    if len(text) <= MAX_LINE_CHARS:
        return len(text)
    return max(map(len, LINE_BREAKS.split(text)))


def fits_in_box(text: str) -> bool:
    """Whether a text box may hold ``text`` without a key costing more than a few ms."""
    return len(text) <= LARGE_PASTE_CHARS and longest_line(text) <= MAX_LINE_CHARS


def preview(text: str) -> str:
    """The beginning of a long text for the read-only box: ``PREVIEW_CHARS``, lines cut at ``PREVIEW_LINE_CHARS``."""
    lines = LINE_BREAKS.split(text[:PREVIEW_CHARS])
    return "\n".join(line if len(line) <= PREVIEW_LINE_CHARS else line[:PREVIEW_LINE_CHARS] + "…" for line in lines)


class GuardedTextBox(QPlainTextEdit):
    """A plain text box that holds a text too long to lay out quickly instead of laying it out (module docstring)."""
    edited = Signal()        # what the box stands for changed: typed, pasted, held, set or cleared

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._held: str | None = None
        self.textChanged.connect(self._on_text_changed)

    @property
    def held(self) -> str | None:
        """The whole text while it is held (the box shows only its beginning), else None."""
        return self._held

    def full_text(self) -> str:
        """What the box stands for: a held text, or what it holds."""
        return self._held if self._held is not None else self.toPlainText()

    def set_full_text(self, text: str) -> None:
        """``text`` in the box, or held when it does not fit (``fits_in_box``)."""
        if fits_in_box(text):
            self._held = None
            self.setReadOnly(False)
            with signals_blocked(self):
                self.setPlainText(text)
        else:
            self._held = text
            with signals_blocked(self):
                self.setPlainText(preview(text))
            self.setReadOnly(True)
        self.edited.emit()

    def clear_text(self) -> None:
        self.set_full_text("")

    def insertFromMimeData(self, source) -> None:
        if self.isReadOnly() or not source.hasText():
            return
        pasted = source.text()
        cursor = self.textCursor()
        line = cursor.block().length()
        if len(pasted) + self.document().characterCount() <= LARGE_PASTE_CHARS and \
                longest_line(pasted) + line <= MAX_LINE_CHARS:
            super().insertFromMimeData(source)          # fits whatever line it joins: an ordinary, undoable paste
            return
        before = self._text_between(0, cursor.selectionStart())
        after = self._text_between(cursor.selectionEnd(), self.document().characterCount() - 1)
        whole = before + pasted + after
        if fits_in_box(whole):
            super().insertFromMimeData(source)
        else:
            self.set_full_text(whole)

    def _text_between(self, start: int, end: int) -> str:
        """The box's text between two cursor positions (Qt counts UTF-16 units, Python characters: ask Qt)."""
        cursor = QTextCursor(self.document())
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        return cursor.selectedText().replace("\u2029", "\n")

    def _on_text_changed(self) -> None:
        if self._held is None and self.textCursor().block().length() > MAX_LINE_CHARS + 1:
            self.set_full_text(self.toPlainText())      # typed on past the longest line: held from now on
            return
        self.edited.emit()


class TokensControls(QWidget):
    """The scene's column beside the stage; emits what changed, holds no counts."""
    choices_changed = Signal()

    def __init__(self, choices: Choices, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.tokenizers_label = QLabel()
        layout.addWidget(self.tokenizers_label)
        self.boxes: dict[str, QCheckBox] = {}
        for tokenizer in tokenizer_ids():
            box = QCheckBox(short_name(tokenizer))       # narrow: the side panel is 260 px at 1024x768
            box.setToolTip(tokenizer)
            box.setChecked(tokenizer in choices.chosen)
            box.toggled.connect(self._on_box_toggled)
            self.boxes[tokenizer] = box
            layout.addWidget(box)
        self.show_spaces = QCheckBox()
        self.show_spaces.setChecked(choices.show_spaces)
        self.show_ids = QCheckBox()
        self.show_ids.setChecked(choices.show_ids)
        for box in (self.show_spaces, self.show_ids):
            box.toggled.connect(lambda _on: self.choices_changed.emit())
            layout.addWidget(box)
        self.parallel_label = QLabel()
        self.parallel_label.setWordWrap(True)
        self.parallel = GuardedTextBox()
        self.parallel.setTabChangesFocus(False)
        self.parallel.setMaximumHeight(120)
        self.parallel.setMinimumWidth(0)
        self.parallel.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.parallel_clear = QPushButton()          # only while a paste is held: the box is read-only then
        self.parallel_clear.clicked.connect(self.parallel.clear_text)
        self.parallel_clear.hide()
        self.parallel.edited.connect(lambda: self.parallel_clear.setVisible(self.parallel.held is not None))
        self.parallel_status = QLabel()
        self.parallel_status.setWordWrap(True)
        for widget in (self.parallel_label, self.parallel, self.parallel_clear, self.parallel_status):
            layout.addWidget(widget)
        self._enforce_limits()

    def chosen(self) -> tuple[str, ...]:
        return tuple(t for t, box in self.boxes.items() if box.isChecked())

    def choices(self, chosen: tuple[str, ...]) -> Choices:
        """The controls' values, with ``chosen`` as the tokenizers (the boxes' ticks, made valid)."""
        return Choices(chosen, self.show_spaces.isChecked(), self.show_ids.isChecked())

    def retranslate(self, text) -> None:
        self.tokenizers_label.setText(text("control.tokenizers"))
        self.show_spaces.setText(text("control.show_spaces"))
        self.show_ids.setText(text("control.show_ids"))
        self.parallel_label.setText(text("control.parallel"))
        self.parallel.setPlaceholderText(text("control.parallel_example"))
        self.parallel_clear.setText(text("control.clear"))

    def _on_box_toggled(self, _checked: bool) -> None:
        self._enforce_limits()
        self.choices_changed.emit()

    def _enforce_limits(self) -> None:
        """Two to five: the last two cannot be unticked, a sixth cannot be ticked."""
        n = len(self.chosen())
        for box in self.boxes.values():
            box.setEnabled(not (box.isChecked() and n <= MIN_CHOSEN) and not (not box.isChecked() and n >= MAX_CHOSEN))


def set_editor_font(editor: QPlainTextEdit, px: int) -> None:
    font = editor.font()
    font.setPixelSize(max(1, px))
    editor.setFont(font)
    editor.setMaximumHeight(round(editor.fontMetrics().lineSpacing() * EDITOR_LINES + 12))
    editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    editor.setWordWrapMode(editor.wordWrapMode())
    editor.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
