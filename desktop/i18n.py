"""The one translation mechanism: every visible string comes from here.

Texts live in ``resources/text/*.toml``, one file per part of the app, each
key holding both languages side by side::

    [caption]
    warehouse = { en = "The warehouse is the HBM...", zh = "仓库就是显存……" }
    tokens = { en = { one = "{count} token", other = "{count} tokens" }, zh = "{count} 个 token" }

A key is addressed as ``"<file stem>.<table>.<name>"`` (``"gpu_waits.caption.warehouse"``).
Plurals are chosen here from ``count``, never by concatenating strings.
Switching the language emits ``Language.changed``; views re-read their text.
"""
from __future__ import annotations

import functools
from collections import ChainMap
from collections.abc import Mapping
from importlib import import_module, resources as package_files

# The engine (Qt-free; all of it, through engine.compute) is imported before Qt, this being the start's first
# import of either: once PySide is loaded, its import hook reads the source of each module the first time an import
# statement names it (looking for ``from __feature__ import``), about 75 µs a module, unless it is told the answer
# first (desktop.feature_checks, which answers for the app's modules and for every module loaded before Qt: the
# engine's and the standard library's that it imports).
from engine.parsed_toml import parsed_toml

import_module("engine.compute")
from PySide6.QtCore import QLocale, QObject, Signal

from desktop.feature_checks import answer_feature_checks

answer_feature_checks()        # and the hook need read none of the app's modules, nor those loaded before Qt

LANGUAGES = ("zh", "en")
TEXT_PACKAGE = "resources.text"


def _flatten(prefix: str, table: dict, out: dict[str, dict]) -> None:
    for name, value in table.items():
        key = f"{prefix}.{name}"
        if isinstance(value, dict) and set(value) & set(LANGUAGES):
            out[key] = value
        elif isinstance(value, dict):
            _flatten(key, value, out)
        else:
            raise ValueError(f"text {key} must hold both languages as {{ en = ..., zh = ... }}")


def text_stems() -> list[str]:
    """The text files there are: ``resources/text/<stem>.toml``."""
    return sorted(entry.name[:-5] for entry in package_files.files(TEXT_PACKAGE).iterdir()
                  if entry.name.endswith(".toml"))


@functools.cache
def text_file(stem: str) -> dict[str, dict]:
    """The texts of ``resources/text/<stem>.toml``, key -> {"en": ..., "zh": ...}; read once per process, when
    first needed (start-up reads the app's and the first scene's, not every scene's)."""
    texts: dict[str, dict] = {}
    entry = package_files.files(TEXT_PACKAGE).joinpath(f"{stem}.toml")
    if entry.is_file():
        _flatten(stem, parsed_toml(entry.read_text(encoding="utf-8"), f"text.{stem}"), texts)
    return texts


def load_texts() -> dict[str, dict]:
    """Every text key -> {"en": ..., "zh": ...}, from all files in resources/text."""
    texts: dict[str, dict] = {}
    for stem in text_stems():
        texts.update(text_file(stem))
    return texts


def system_language() -> str:
    return "zh" if QLocale.system().language() == QLocale.Language.Chinese else "en"


class Language(QObject):
    """The current language and the texts; one instance per application."""

    changed = Signal(str)

    def __init__(self, code: str | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self._code = code if code in LANGUAGES else system_language()

    @property
    def code(self) -> str:
        return self._code

    def set_code(self, code: str) -> None:
        if code not in LANGUAGES:
            raise ValueError(f"language {code!r} is not available; choose one of: {', '.join(LANGUAGES)}")
        if code != self._code:
            self._code = code
            self.changed.emit(code)

    def toggle(self) -> None:
        self.set_code("en" if self._code == "zh" else "zh")

    def keys(self) -> list[str]:
        return sorted(load_texts())

    def text(self, key: str, count: int | None = None, **values) -> str:
        """The text for ``key`` in the current language, with ``values`` filled in.

        ``count`` picks the plural form where the text has one and is also
        available to the template as ``{count}``.
        """
        return self.filled(key, values, count)

    def filled(self, key: str, values: Mapping[str, str], count: int | None = None) -> str:
        """``text(key)`` filled from ``values``, a mapping that is read only for the names the text uses (a
        story's values: a caption asks the engine only for the numbers it shows)."""
        entry = text_file(key.split(".", 1)[0]).get(key)
        if entry is None:
            raise KeyError(f"no text with key {key!r}")
        form = entry[self._code]
        if isinstance(form, dict):
            form = form["one"] if count == 1 and "one" in form else form["other"]
        if count is not None:
            values = ChainMap({"count": count}, values)
        return form.format_map(values) if values else form
