"""The engine's refusals in the app's language.

``engine.errors.InputError`` keeps its English sentence for the CLI and also
carries a ``code`` and the raw ``values``. Here a known code becomes the text
``errors.<code>`` of ``resources/text/errors.toml`` with the values formatted
for display (numbers by ``engine.units``); an error without a known code, or
whose values do not fit its text, is shown as the engine's own sentence.
"""
from __future__ import annotations

import math
from numbers import Integral, Real

from desktop.i18n import Language
from engine.errors import InputError
from engine.units import format_count


QUOTED = frozenset({"got", "example"})    # values that are what someone typed: shown in quotes, as given
ALTERNATIVES = frozenset({"counts"})      # lists of which any one is allowed: "1, 2 or 4"


def shown_value(value, quoted: bool = False) -> str:
    """A raw value as a sentence shows it: 4096 -> "4,096", 10000.0 -> "10,000", "x" -> 'x' (``quoted``) or x."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, Integral):
        return format_count(value)
    if isinstance(value, Real) and math.isfinite(value):
        return format_count(value) if float(value).is_integer() else f"{float(value):,.6g}"
    if isinstance(value, str):
        return repr(value) if quoted else value
    if isinstance(value, (list, tuple)):
        return ", ".join(shown_value(item) for item in value)
    return repr(value)


def alternatives_text(language: Language, items) -> str:
    """``items`` as a list of alternatives in ``language``: (1, 2, 4) -> "1, 2 or 4" / "1、2或 4"."""
    shown = [shown_value(item) for item in items]
    if len(shown) < 2:
        return "".join(shown)
    rest = language.text("errors.list.separator").join(shown[:-1])
    return language.text("errors.list.or", rest=rest, last=shown[-1])


def _values_for(language: Language, code: str, values: dict) -> dict[str, str]:
    text = {name: shown_value(value, name in QUOTED) for name, value in values.items()}
    for name in ALTERNATIVES & values.keys():
        text[name] = alternatives_text(language, values[name])
    if "field" in values:
        text["field"] = language.text(f"errors.field.{values['field']}")
    if code.startswith("catalog."):
        text["kind"] = language.text(f"errors.kind.{str(values.get('kind', '')).lower()}")
        close = values.get("close") or []
        text["close"] = language.text("errors.catalog.close", names=", ".join(close)) if close else ""
    return text


def error_text(language: Language, error: InputError) -> str:
    """``error`` as one sentence in ``language``; the engine's sentence where there is no translation."""
    code = getattr(error, "code", None)
    if not code:
        return str(error)
    try:
        return language.text(f"errors.{code}", **_values_for(language, code, error.values))
    except (KeyError, IndexError, ValueError):
        return str(error)
