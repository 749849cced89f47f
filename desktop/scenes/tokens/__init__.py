"""Scene "tokens" (seed 1.6): real tokenizers side by side, Chinese against English, what a token costs.

``story`` decides (with ``pictures`` for the widget states, ``cuts`` and
``corpus`` for what the tokenizers make of the texts, ``prepared`` for what
every visit shows at once); ``view`` shows, with ``controls`` beside the stage.
Everything that reads a vocabulary runs in ``desktop.kit.tokenizer_process``.

This ``__init__`` imports no Qt (the tokenizer process imports the package's
Qt-free modules).
"""
