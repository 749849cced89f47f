"""The presenter's hands: the keys of DESIGN.md and what floats over the stage.

``KeyController`` turns key presses anywhere in the window into command names
(one table, ``BINDINGS``, read by the key help and the menus too). A control
that takes typing or arrows (spin box, combo box, slider, text field) keeps
its keys; only keys with Ctrl/Alt, function keys and Esc reach the talk then,
and Esc hands focus back to the stage.

``PresenterLayer`` owns the overlays: black/white screen, key help, the
"go to scene" prompt, inline notes (never a dialog) and the stage's badge of the
talk clock, and the talk clock itself (``widgets.presenter_clock.TalkClock``):
one elapsed time for the whole talk, read by the badge and the speaker view alike.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QFontInfo, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (QAbstractSlider, QAbstractSpinBox, QApplication, QComboBox, QLineEdit,
                               QPlainTextEdit, QTextEdit, QWidget)

from desktop.focus_follow import FocusFollower
from desktop.i18n import Language
from widgets.blank_screen import BlankScreen
from widgets.help_overlay import HelpOverlay
from widgets.inline_note import InlineNote
from widgets.overlay import TextBadge
from widgets.presenter_clock import PresenterClock, TalkClock
from widgets.theme import Theme

# command -> its keys, in the order the key help lists them (DESIGN.md "Presentation keys")
BINDINGS: dict[str, tuple[str, ...]] = {
    "next": ("Right", "Down", "PgDown", "Space", "N"),
    "previous": ("Left", "Up", "PgUp", "P"),
    "first": ("Home",),
    "last": ("End",),
    "jump": ("G",),
    "black": ("B", "."),
    "white": ("W", ","),
    "reset": ("Alt+R",),
    "language": ("L",),
    "clock": ("T",),
    "clock_pause": ("Shift+T",),
    "clock_reset": ("Alt+T",),
    "speaker": ("S",),
    "notes_larger": ("Ctrl+=", "Ctrl++"),
    "notes_smaller": ("Ctrl+-",),
    "present_start": ("F5",),
    "present_current": ("Shift+F5",),
    "fullscreen": ("F",),
    "side_panel": ("Ctrl+\\",),
    "help": ("?", "F1"),
    "formula": ("I",),
    "leave": ("Esc",),
    "export_png": ("Ctrl+E",),
    "export_pdf": ("Ctrl+Shift+E",),
    "quit": ("Ctrl+Q",),
}
# Commands that still work while a control that takes typing has the focus.
ALWAYS_COMMANDS = {"present_start", "present_current", "help", "leave", "reset", "export_png",
                   "export_pdf", "quit", "side_panel", "clock_reset", "notes_larger", "notes_smaller"}
TYPING_WIDGETS = (QAbstractSpinBox, QComboBox, QAbstractSlider, QLineEdit, QTextEdit, QPlainTextEdit)
_SHIFT = Qt.KeyboardModifier.ShiftModifier
_RELEVANT_MODIFIERS = Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.ControlModifier | \
    Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.MetaModifier
_DIGITS = {getattr(Qt.Key, f"Key_{d}"): d for d in range(10)}
# How the key help writes a key of BINDINGS: arrows as arrows, a word (text key app.key_name.<name>) in the
# user's language, any other key as it is spelled in BINDINGS.
KEY_SYMBOLS = {"Right": "→", "Left": "←", "Up": "↑", "Down": "↓", "PgDown": "PgDn"}
KEY_WORDS = {"Space": "space"}
_ENTER = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


def _combination(text: str) -> tuple[int, int]:
    combination = QKeySequence(text)[0]
    return int(combination.key().value), int(combination.keyboardModifiers().value)


_KEY_TABLE: dict[tuple[int, int], str] = {
    _combination(text): command for command, keys in BINDINGS.items() for text in keys
}


def command_for(key: int, modifiers: Qt.KeyboardModifier) -> str | None:
    """The command bound to a key; Shift is ignored where no binding needs it ("?" is Shift+/)."""
    modifiers = modifiers & _RELEVANT_MODIFIERS
    found = _KEY_TABLE.get((int(key), int(modifiers.value)))
    if found is None and modifiers & _SHIFT:
        found = _KEY_TABLE.get((int(key), int((modifiers & ~_SHIFT).value)))
    return found


def key_label(command: str) -> str:
    """The first key of a command as the platform writes it, for menus."""
    return QKeySequence(BINDINGS[command][0]).toString(QKeySequence.SequenceFormat.NativeText)


def help_rows(text) -> list[tuple[str, str]]:
    """The key help's rows, (keys, what they do), in BINDINGS order; ``text`` is ``Language.text``.

    The key column is made from BINDINGS, so the help cannot name a key that does
    something else; the texts hold only the descriptions (and the digits row,
    which is not a binding: the jump prompt reads digits itself).
    """
    def shown(key: str) -> str:
        return text(f"app.key_name.{KEY_WORDS[key]}") if key in KEY_WORDS else KEY_SYMBOLS.get(key, key)

    rows = [("  ".join(shown(key) for key in keys), text(f"app.command.{command}"))
            for command, keys in BINDINGS.items()]
    rows.insert(list(BINDINGS).index("jump") + 1, (text("app.keys.digits"), text("app.command.digits")))
    return rows


class KeyController(QObject):
    """Watches key presses in one window and emits the commands they stand for: on the window, its stage and
    whichever of its widgets has the keyboard focus (``desktop.focus_follow``), never on every object."""

    command = Signal(str)
    jump_requested = Signal(int)      # digits + Enter
    jump_text_changed = Signal(str)   # the digits typed so far; "" when the prompt opens empty
    jump_closed = Signal()

    def __init__(self, window: QWidget, stage: QWidget):
        super().__init__(window)
        self._window, self._stage = window, stage
        self._digits: str | None = None      # None: no "go to scene" prompt open
        window.installEventFilter(self)
        stage.installEventFilter(self)
        self._focus = FocusFollower(self, lambda widget: widget.window() is window,
                                    kept=lambda widget: widget is window or widget is stage)

    def open_jump(self) -> None:
        self._digits = ""
        self.jump_text_changed.emit("")

    def close_jump(self) -> None:
        if self._digits is not None:
            self._digits = None
            self.jump_closed.emit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not isinstance(watched, QWidget):
            return False
        if watched.window() is not self._window:
            return False       # menus, file dialogs and other windows keep their keys
        return self.handle(event)

    def handle(self, event: QKeyEvent) -> bool:
        """Act on one key press; True when it was the talk's and nobody else should see it."""
        key, modifiers = event.key(), event.modifiers() & _RELEVANT_MODIFIERS
        typing = isinstance(QApplication.focusWidget(), TYPING_WIDGETS)
        if self._digits is not None and self._jump_key(key, modifiers):
            return True
        if not typing and key in _DIGITS and not modifiers:
            self._digits = ""
            self._jump_key(key, modifiers)
            return True
        command = command_for(key, modifiers)
        if command is None or (typing and command not in ALWAYS_COMMANDS):
            return False
        if event.isAutoRepeat():
            return True        # a held clicker button must not race through the talk
        if typing and command == "leave":
            self._stage.setFocus()
        self.command.emit(command)
        return True

    def _jump_key(self, key: int, modifiers) -> bool:
        """Keys of the open "go to scene" prompt; False lets the key act normally (and closes it)."""
        if key in _DIGITS and not modifiers:
            self._digits = (self._digits + str(_DIGITS[key]))[-2:]
            self.jump_text_changed.emit(self._digits)
        elif key == Qt.Key.Key_Backspace:
            self._digits = self._digits[:-1]
            self.jump_text_changed.emit(self._digits)
        elif key in _ENTER:
            digits = self._digits
            self.close_jump()
            if digits:
                self.jump_requested.emit(int(digits))
        elif key == Qt.Key.Key_Escape:
            self.close_jump()
        else:
            self.close_jump()
            return False
        return True


class PresenterLayer(QObject):
    """Everything that floats over the stage or the window during a talk."""

    def __init__(self, window: QWidget, stage: QWidget, language: Language, theme: Theme):
        super().__init__(window)
        self._language = language
        self._jump_digits = ""
        self.blank_screen = BlankScreen(window)
        self.help = HelpOverlay(window)
        self.jump_prompt = TextBadge(stage, place="center")
        self.note = InlineNote(stage)
        self.talk_clock = TalkClock(self)
        self.clock = PresenterClock(stage, self.talk_clock)     # the stage's badge of it (T)
        self.retranslate()
        self.set_theme(theme)
        self.set_type_height(None)

    # -- black / white screen --------------------------------------------------------
    @property
    def blank_shade(self) -> str | None:
        return self.blank_screen.shade

    def toggle_blank(self, shade: str) -> None:
        """B: black; B again: back. W while black: white."""
        if self.blank_screen.shade == shade:
            self.blank_screen.hide()
        else:
            self.blank_screen.blank(shade)

    def unblank(self) -> None:
        self.blank_screen.hide()

    # -- key help and prompt ---------------------------------------------------------
    def toggle_help(self) -> None:
        self.help.setVisible(not self.help.isVisible())

    def show_jump_text(self, digits: str) -> None:
        self._jump_digits = digits
        self.jump_prompt.set_text(self._language.text("app.jump.prompt", digits=digits or "_"))
        self.jump_prompt.show()

    def hide_jump(self) -> None:
        self.jump_prompt.hide()

    def show_note(self, text: str) -> None:
        self.note.show_note(text)

    def close_top(self) -> bool:
        """Esc: close whatever floats on top; False when nothing did."""
        for overlay in (self.help, self.blank_screen, self.jump_prompt):
            if overlay.isVisible():
                overlay.hide()
                return True
        return False

    # -- looks -------------------------------------------------------------------------
    def set_theme(self, theme: Theme) -> None:
        for badge in (self.jump_prompt, self.note, self.clock):
            badge.set_theme(theme)
        self.help.set_theme(theme)

    def set_type_height(self, height_px: int | None) -> None:
        """Size the floating text from the screen height while presenting; None: window sizes."""
        base = round(height_px / 30) if height_px else QFontInfo(QApplication.font()).pixelSize()
        self.jump_prompt.set_pixel_size(round(base * 1.6))
        self.note.set_pixel_size(round(base * 0.8))
        self.clock.set_pixel_size(round(base * 0.8))

    def retranslate(self) -> None:
        text = self._language.text
        self.help.set_content(text("app.help.title"), help_rows(text))
        if self.jump_prompt.isVisible():
            self.show_jump_text(self._jump_digits)
