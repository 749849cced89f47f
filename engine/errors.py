"""The one error the engine raises for bad input, and the one English source of its sentences.

A refusal with a ``code`` is written from ``resources/text/errors.toml``: its
``en`` text is the engine's sentence (what the CLI prints), its ``zh`` text
the desktop's Chinese one, both filled in by ``display_values`` below. So
the two languages cannot drift apart: there is one template per code and one
way of showing its values (``tests/engine/test_reliability_refusals.py``).

Echoed values are bounded: a typed value longer than ``MAX_SHOWN_CHARACTERS``
(a reason or a path: ``MAX_SHOWN_SENTENCE``) is cut with an ellipsis, a list longer than ``MAX_SHOWN_ITEMS`` names its first
items and how many more, and a whole number of more than 15 digits is shown
in scientific notation (``engine.units.format_count``). A pasted id of
100,000 characters or a catalogue of 100,000 GPUs gives one short line.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from importlib import resources
from numbers import Integral, Real

from engine.parsed_toml import parsed_toml
from engine.units import format_count

MAX_SHOWN_CHARACTERS = 80             # a value someone typed (an id, a number), quoted
MAX_SHOWN_SENTENCE = 240              # a reason or a file name carried inside a sentence
MAX_SHOWN_ITEMS = 20
QUOTED = frozenset({"got", "example"})          # values that are what someone typed: shown in quotes, as given
ALTERNATIVES = frozenset({"counts", "allowed"})  # lists of which any one is allowed: "1, 2 or 4"
Text = Callable[..., str]                        # key, **values -> the text in one language


class InputError(ValueError):
    """Bad input: the message is one sentence naming the value and what is allowed.

    Every public engine function raises this (and only this) for input it
    cannot use, so that the CLI can print the sentence and exit 2, and the
    desktop can show it inline.

    Where a caller may want the sentence in another language, the error also
    carries a ``code`` naming the kind of refusal (``"scenario.whole_number"``)
    and the raw ``values`` the sentence was made from (numbers as numbers, ids
    as given), so the sentence can be written again; the English message
    stays the one the CLI prints. ``code`` is None where no one translates it.
    """

    def __init__(self, message: str, code: str | None = None, values: Mapping[str, object] | None = None):
        super().__init__(message)
        self.code = code
        self.values = dict(values or {})


def shorten(text: str, limit: int = MAX_SHOWN_CHARACTERS) -> str:
    """``text`` cut to about ``limit`` characters with an ellipsis, so that no echo floods a line."""
    return text if len(text) <= limit else f"{text[:limit - 1]}…"


def shown_value(value, quoted: bool = False) -> str:
    """A raw value as a sentence shows it: 4096 -> "4,096", 10000.0 -> "10,000", "x" -> 'x' (``quoted``) or x.

    Whole numbers go through ``engine.units.format_count``; any other number, and a
    fraction someone typed (``quoted``: a price of -1.0, a count of 2.5), is shown exactly as given.
    Texts and lists are bounded (see the module's note).
    """
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, Integral):
        return format_count(value)
    if isinstance(value, Real) and math.isfinite(value):       # a typed number (``quoted``) is shown as typed
        return format_count(value) if float(value).is_integer() and not quoted else repr(float(value))
    if isinstance(value, str):
        return shorten(repr(value)) if quoted else shorten(escaped(value), MAX_SHOWN_SENTENCE)
    if isinstance(value, (list, tuple)):
        if quoted:        # a list someone wrote (a setting): shown as written, brackets and all, [] included
            return shorten("[" + ", ".join(_bounded([shown_value(item, True) for item in value])) + "]")
        return ", ".join(_bounded([shown_value(item) for item in value]))
    return shorten(repr(value))


def escaped(text: str) -> str:
    """``text`` with every character that is not printable (NUL, ESC, bidi overrides) written as its escape."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _bounded(items: list[str], text: Text | None = None) -> list[str]:
    if len(items) <= MAX_SHOWN_ITEMS:
        return items
    more = format_count(len(items) - MAX_SHOWN_ITEMS)
    return items[:MAX_SHOWN_ITEMS] + [text("errors.list.more", count=more) if text else f"… ({more} more)"]


def alternatives(text: Text, items, quoted: bool = False) -> str:
    """``items`` as a list of alternatives: (1, 2, 4) -> "1, 2 or 4" / "1、2 或 4"."""
    shown = _bounded([shown_value(item, quoted) for item in items], text)
    if len(shown) < 2:
        return "".join(shown)
    rest = text("errors.list.separator").join(shown[:-1])
    return text("errors.list.or", rest=rest, last=shown[-1])


def display_values(code: str, values: Mapping[str, object], text: Text) -> dict[str, str]:
    """The values of a refusal as its template shows them, in the language ``text`` speaks."""
    shown = {name: ", ".join(_bounded([shown_value(item) for item in value], text))
             if isinstance(value, (list, tuple)) else shown_value(value, name in QUOTED)
             for name, value in values.items()}
    for name in ALTERNATIVES & values.keys():
        shown[name] = alternatives(text, values[name], quoted=name == "allowed")
    if "field" in values:
        shown["field"] = text(f"errors.field.{values['field']}")
        shown["unit"] = _optional(text, f"errors.unit.{values['field']}")
    if code.startswith("catalog."):
        kind = str(values.get("kind", "")).lower()
        shown["kind"] = text(f"errors.kind.{kind}")
        shown["kinds"] = text(f"errors.kinds.{kind}")
        shown["Kind"] = shown["kind"][:1].upper() + shown["kind"][1:]
        close = values.get("close") or []
        shown["close"] = text("errors.catalog.close", names=shown_value(list(close))) if close else ""
    return shown


def _optional(text: Text, key: str) -> str:
    try:
        return text(key)
    except KeyError:
        return ""


@functools.cache
def _english_texts() -> dict[str, str]:
    document = parsed_toml(resources.files("resources").joinpath("text", "errors.toml").read_text(encoding="utf-8"),
                           "text.errors")
    texts: dict[str, str] = {}

    def flatten(prefix: str, table: dict) -> None:
        for name, value in table.items():
            if isinstance(value, dict) and "en" in value:
                texts[f"{prefix}.{name}"] = value["en"]
            elif isinstance(value, dict):
                flatten(f"{prefix}.{name}", value)
    flatten("errors", document)
    return texts


def english(key: str, **values) -> str:
    """The English text ``key`` of errors.toml with ``values`` filled in."""
    template = _english_texts()[key]
    return template.format(**values) if values else template


def refusal(code: str, values: Mapping[str, object]) -> InputError:
    """The ``InputError`` for ``code``: its sentence is errors.toml's English text with ``values`` shown."""
    message = english(f"errors.{code}", **display_values(code, values, english))
    return InputError(message, code, values)
