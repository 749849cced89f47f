"""The one error the engine raises for bad input."""


class InputError(ValueError):
    """Bad input: the message is one sentence naming the value and what is allowed.

    Every public engine function raises this (and only this) for input it
    cannot use, so that the CLI can print the sentence and exit 2, and the
    desktop can show it inline.
    """
