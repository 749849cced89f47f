"""Every visible string exists in both languages, and the app shows no bare keys."""
from __future__ import annotations

import re
import string

import pytest

from desktop.i18n import LANGUAGES, Language, load_texts
from desktop.presenter import BINDINGS
from desktop.scenes.registry import scene_classes

KEY_LIKE = re.compile(r"^[a-z_]+(\.[a-z_0-9]+)+$")


def _forms(entry: dict, code: str) -> list[str]:
    form = entry.get(code)
    return list(form.values()) if isinstance(form, dict) else [form]


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_text_has_both_languages_and_none_is_empty():
    problems = []
    for key, entry in load_texts().items():
        for code in LANGUAGES:
            forms = _forms(entry, code)
            if not forms or any(not isinstance(f, str) or not f.strip() for f in forms):
                problems.append(f"{key}: {code} missing or empty")
    assert not problems, "\n".join(problems)


def test_both_languages_fill_the_same_placeholders():
    problems = []
    for key, entry in load_texts().items():
        en = set().union(*(_placeholders(f) for f in _forms(entry, "en")))
        zh = set().union(*(_placeholders(f) for f in _forms(entry, "zh")))
        if en != zh:
            problems.append(f"{key}: en {sorted(en)} vs zh {sorted(zh)}")
    assert not problems, "\n".join(problems)


def test_the_frame_has_a_text_for_every_command_and_the_digits_row():
    keys = set(load_texts())
    missing = [f"app.command.{command}" for command in [*BINDINGS, "digits"] if f"app.command.{command}" not in keys]
    assert not missing and "app.keys.digits" in keys      # the other keys come from BINDINGS (test_key_help.py)


def test_every_registered_scene_has_a_title_and_a_caption_per_build():
    keys = set(load_texts())
    missing = [key for cls in scene_classes()
               for key in [f"{cls.key}.title", *(f"{cls.key}.caption.{name}" for name in cls.Story.builds)]
               if key not in keys]
    assert not missing


def _visible_texts(window) -> list[str]:
    from PySide6.QtWidgets import QAbstractButton, QComboBox, QLabel, QListWidget

    texts = []
    for widget in window.findChildren(QLabel) + window.findChildren(QAbstractButton):
        if widget.isVisible() and widget.text():
            texts.append(widget.text())
    for box in window.findChildren(QComboBox):
        texts += [box.itemText(i) for i in range(box.count())]
    for listing in window.findChildren(QListWidget):
        texts += [listing.item(i).text() for i in range(listing.count())]
    for menu in window.menus.values():
        texts.append(menu.title())
        texts += [action.text() for action in menu.actions() if action.text()]
    texts += [window.presenter.help.content()[0], *(t for row in window.presenter.help.content()[1] for t in row)]
    return texts


@pytest.mark.parametrize("code", LANGUAGES)
def test_no_visible_widget_shows_an_untranslated_key(make_window, code):
    window = make_window(language=code)
    all_keys = set(Language(code).keys())
    for position in range(len(window.deck.entries)):
        window.deck.show(position, "last")
        for text in _visible_texts(window):
            plain = text.replace("&", "").split("\t")[0].strip()
            assert plain not in all_keys and not KEY_LIKE.match(plain), f"untranslated: {text!r}"
            assert "{" not in plain, f"unfilled placeholder: {text!r}"


def test_the_language_switch_changes_every_scene_title_in_the_list(make_window):
    window = make_window(language="en")
    english = [window.scene_list.item(i).text() for i in range(window.scene_list.count())]
    window.language.set_code("zh")
    chinese = [window.scene_list.item(i).text() for i in range(window.scene_list.count())]
    assert all(e != c for e, c in zip(english, chinese))
    assert any("\u4e00" <= ch <= "\u9fff" for ch in "".join(chinese))
