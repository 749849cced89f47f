"""What every ``python -m engine`` command prints with: the catalogue's warnings, JSON that has no
infinity, and text that cannot drive a terminal.

Shared by ``engine.cli`` and the commands kept in modules of their own
(``engine.cli_probe``), so that none of them imports the CLI back.
"""
from __future__ import annotations

import math
import sys


def catalog_with_warnings(catalog=None):
    """The catalogue to use (default: built-in plus the user's file), after printing on stderr,
    one line each, every problem found in the user's file, so that a later "Unknown GPU"
    or a missing entry in a listing is explained before it is seen."""
    from engine.catalog import default_catalog

    catalog = default_catalog() if catalog is None else catalog
    for warning in catalog.warnings:
        print(printable(" ".join(warning.split())), file=sys.stderr)
    return catalog


def finite(value):
    """JSON-ready data with every number that is not finite written as null (JSON has no infinity)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(item) for item in value]
    return value


def terminal_text(text: str) -> str:
    """Lines for a terminal: names from a user's catalogue cannot carry escape sequences into it."""
    return "\n".join(printable(line) for line in text.split("\n"))


def printable(sentence: str) -> str:
    """The sentence on one line: control characters from the command line shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in sentence)
