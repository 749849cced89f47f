"""What counts of tokens give: characters a token, one language's tokens against another's, and the price of a
million sentences. No tokenizer here: the counts arrive counted (``engine.tokens.count_tokens``, run by scene 6
in its tokenizer process); these are the divisions and products its figures and their formula cards share
(``engine.token_formulas``). Qt-free.
"""
from __future__ import annotations


def characters_per_token(characters: int, tokens: int) -> float:
    """Characters of a text over the tokens a tokenizer cut it into (0 when there are no tokens)."""
    return characters / tokens if tokens else 0.0


def tokens_per_sentence(tokens: int, sentences: int) -> float:
    """Tokens of all the sentences over the number of sentences (0 when there are none)."""
    return tokens / sentences if sentences else 0.0


def token_ratio(tokens: int, reference_tokens: int) -> float:
    """How many tokens one text takes for each token of a text of the same meaning (Chinese tokens per English
    token, for a tokenizer); 0 when the reference has none."""
    return tokens / reference_tokens if reference_tokens else 0.0


def cost_per_million_sentences(tokens_per_sentence: float, usd_per_million_tokens: float) -> float:
    """US dollars for a million sentences of ``tokens_per_sentence`` tokens each: that is ``tokens_per_sentence``
    million tokens, so the price of a million tokens times ``tokens_per_sentence`` (no physics: a unit change)."""
    return tokens_per_sentence * usd_per_million_tokens
