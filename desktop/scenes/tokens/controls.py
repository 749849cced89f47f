"""Scene 6's hands-on parts: the playground's text box and the scene's controls beside the stage.

The text box holds what a person types. A paste that would make it longer than
``LARGE_PASTE_CHARS`` is not put into it (Qt lays out a long text, above all a
long line, slowly enough to freeze the window): it is handed to the scene
(``large_paste``), which counts all of it and shows its beginning read-only.
The controls: which tokenizers (two to five), spaces and token ids shown, and
a box for the person's own parallel text.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from desktop.scenes.tokens_model import LARGE_PASTE_CHARS, MAX_CHOSEN, MIN_CHOSEN, short_name, tokenizer_ids

# What the read-only box shows of a held paste: its beginning, each line cut (a long line lays out slowly).
PREVIEW_CHARS = 4_000
PREVIEW_LINE_CHARS = 400
# The playground's box shows this many lines on the stage; the tokens below it get the rest.
EDITOR_LINES = 3


def preview(text: str) -> str:
    """The beginning of a long text for the read-only box: ``PREVIEW_CHARS``, lines cut at ``PREVIEW_LINE_CHARS``."""
    lines = text[:PREVIEW_CHARS].split("\n")
    return "\n".join(line if len(line) <= PREVIEW_LINE_CHARS else line[:PREVIEW_LINE_CHARS] + "…" for line in lines)


class PlaygroundEditor(QPlainTextEdit):
    """A plain text box that hands a very large paste to the scene instead of laying it out."""
    large_paste = Signal(str)        # the whole text as it would read after the paste

    def insertFromMimeData(self, source) -> None:
        if not source.hasText():
            return
        pasted = source.text()
        if self.isReadOnly():
            return
        if len(pasted) + self.document().characterCount() > LARGE_PASTE_CHARS:
            cursor = self.textCursor()
            current = self.toPlainText()
            start, end = cursor.selectionStart(), cursor.selectionEnd()
            self.large_paste.emit(current[:start] + pasted + current[end:])
            return
        super().insertFromMimeData(source)


class TokensControls(QWidget):
    """The scene's column beside the stage; emits what changed, holds no counts."""
    chosen_changed = Signal(tuple)
    toggles_changed = Signal()
    parallel_changed = Signal()

    def __init__(self, chosen: tuple[str, ...], parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.tokenizers_label = QLabel()
        layout.addWidget(self.tokenizers_label)
        self.boxes: dict[str, QCheckBox] = {}
        for tokenizer in tokenizer_ids():
            box = QCheckBox(short_name(tokenizer))       # narrow: the side panel is 260 px at 1024x768
            box.setToolTip(tokenizer)
            box.setChecked(tokenizer in chosen)
            box.toggled.connect(self._on_box_toggled)
            self.boxes[tokenizer] = box
            layout.addWidget(box)
        self.show_spaces = QCheckBox()
        self.show_spaces.setChecked(True)
        self.show_ids = QCheckBox()
        for box in (self.show_spaces, self.show_ids):
            box.toggled.connect(lambda _on: self.toggles_changed.emit())
            layout.addWidget(box)
        self.parallel_label = QLabel()
        self.parallel_label.setWordWrap(True)
        self.parallel = QPlainTextEdit()
        self.parallel.setTabChangesFocus(False)
        self.parallel.setMaximumHeight(120)
        self.parallel.setMinimumWidth(0)
        self.parallel.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.parallel.textChanged.connect(self.parallel_changed.emit)
        self.parallel_status = QLabel()
        self.parallel_status.setWordWrap(True)
        for widget in (self.parallel_label, self.parallel, self.parallel_status):
            layout.addWidget(widget)
        self._enforce_limits()

    def chosen(self) -> tuple[str, ...]:
        return tuple(t for t, box in self.boxes.items() if box.isChecked())

    def retranslate(self, text) -> None:
        self.tokenizers_label.setText(text("control.tokenizers"))
        self.show_spaces.setText(text("control.show_spaces"))
        self.show_ids.setText(text("control.show_ids"))
        self.parallel_label.setText(text("control.parallel"))
        self.parallel.setPlaceholderText(text("control.parallel_example"))

    def _on_box_toggled(self, _checked: bool) -> None:
        self._enforce_limits()
        self.chosen_changed.emit(self.chosen())

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
