"""The one error the engine raises for bad input."""
from __future__ import annotations

from collections.abc import Mapping


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
