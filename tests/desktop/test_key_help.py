"""The key help is made from the binding table: it cannot name a key that does something else."""
from __future__ import annotations

import pytest
from PySide6.QtGui import QKeySequence

from desktop.i18n import Language, load_texts
from desktop.presenter import BINDINGS, KEY_SYMBOLS, KEY_WORDS, command_for, help_rows


def _binding_of(shown: str, language: Language) -> str:
    """A key as the help writes it, back to its spelling in BINDINGS."""
    words = {language.text(f"app.key_name.{word}"): key for key, word in KEY_WORDS.items()}
    symbols = {symbol: key for key, symbol in KEY_SYMBOLS.items()}
    return words.get(shown) or symbols.get(shown) or shown


@pytest.mark.parametrize("code", ["en", "zh"])
def test_every_key_in_the_help_does_what_its_row_says(code):
    language = Language(code)
    rows = help_rows(language.text)
    commands = list(BINDINGS)
    commands.insert(commands.index("jump") + 1, "digits")
    assert len(rows) == len(commands)
    for (keys, meaning), command in zip(rows, commands):
        assert meaning == language.text(f"app.command.{command}")
        if command == "digits":
            continue
        for shown in keys.split("  "):
            combination = QKeySequence(_binding_of(shown, language))[0]
            assert command_for(combination.key(), combination.keyboardModifiers()) == command, (shown, command)


def test_the_digits_row_does_not_look_like_the_n_key():
    assert help_rows(Language("en").text)[list(BINDINGS).index("jump") + 1][0] == "1–9, Enter"
    assert help_rows(Language("zh").text)[list(BINDINGS).index("jump") + 1][0] == "数字 + Enter"
    rows_with_n = [meaning for keys, meaning in help_rows(Language("en").text) if "N" in keys.split("  ")]
    assert rows_with_n == [Language("en").text("app.command.next")]


def test_the_texts_hold_no_hand_written_key_column():
    texts = set(load_texts())
    assert not [command for command in BINDINGS if f"app.keys.{command}" in texts]


def test_the_windows_key_help_follows_the_language(window):
    assert window.presenter.help.content() == (window.language.text("app.help.title"), help_rows(window.language.text))
    window.language.set_code("zh")
    assert window.presenter.help.content()[1] == help_rows(Language("zh").text)
    assert any("空格" in keys for keys, _ in window.presenter.help.content()[1])
