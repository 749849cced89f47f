"""The formula behind each figure scene 6 works out from counts of tokens, with the counts it has.

``formula(key, *values)`` returns an ``engine.formulas.Formula`` whose result
is worked out by the very ``engine.token_counts`` function the scene draws
(never a copy of it here). The counts arrive counted: nothing here tokenizes
(scene 6 counts in its tokenizer process, and a card must not count again in
the window's thread). Numbers are formatted by ``engine.units``. Qt-free.

- ``characters_per_token`` (characters, tokens): characters ÷ tokens, for one
  tokenizer's cut of a text (the playground's lanes);
- ``chinese_to_english_tokens`` (Chinese tokens, English tokens): the two sums
  of a parallel corpus divided, for one tokenizer;
- ``usd_per_million_sentences`` (tokens, sentences, price of a million output
  tokens): a million sentences of the corpus's mean length as output.
"""
from __future__ import annotations

import math

from engine.errors import refusal
from engine.formulas import Formula, Term
from engine.token_counts import characters_per_token, cost_per_million_sentences, token_ratio, tokens_per_sentence
from engine.units import format_count, format_number, format_ratio, format_usd


def _characters_per_token(characters: int, tokens: int) -> Formula:
    per = characters_per_token(characters, tokens)
    return Formula("characters_per_token", "per = c ÷ t", f"{format_count(characters)} ÷ {format_count(tokens)}",
                   format_number(per), per,
                   (Term("c", "characters", format_count(characters)), Term("t", "tokens", format_count(tokens))),
                   "engine.token_counts.characters_per_token")


def _chinese_to_english_tokens(zh_tokens: int, en_tokens: int) -> Formula:
    ratio = token_ratio(zh_tokens, en_tokens)
    return Formula("chinese_to_english_tokens", "ratio = T_zh ÷ T_en",
                   f"{format_count(zh_tokens)} ÷ {format_count(en_tokens)}", format_ratio(ratio), ratio,
                   (Term("T_zh", "chinese_tokens", format_count(zh_tokens)),
                    Term("T_en", "english_tokens", format_count(en_tokens))), "engine.token_counts.token_ratio")


def _usd_per_million_sentences(tokens: int, sentences: int, usd_per_million_tokens: float) -> Formula:
    cost = cost_per_million_sentences(tokens_per_sentence(tokens, sentences), usd_per_million_tokens)
    return Formula("usd_per_million_sentences", "$ = T ÷ s × $_out",
                   f"{format_count(tokens)} ÷ {format_count(sentences)} × {format_usd(usd_per_million_tokens)}",
                   format_usd(cost), cost,
                   (Term("T", "corpus_tokens", format_count(tokens)), Term("s", "sentences", format_count(sentences)),
                    Term("$_out", "usd_per_million_output", format_usd(usd_per_million_tokens))),
                   "engine.token_counts.cost_per_million_sentences")


# Each figure's builder and what each of its values is: a "count" of tokens or characters (a whole number, 0 or
# more), a count it divides by (a "divisor": 1 or more) or a "price" (a finite number of US dollars, 0 or more).
BUILDERS = {"characters_per_token": (_characters_per_token, ("count", "divisor")),
            "chinese_to_english_tokens": (_chinese_to_english_tokens, ("count", "divisor")),
            "usd_per_million_sentences": (_usd_per_million_sentences, ("count", "divisor", "price"))}
KEYS = tuple(BUILDERS)


def checked_value(value, kind: str):
    """``value`` as a figure of ``kind`` takes it ("count": a whole number, 0 or more; "divisor": 1 or more;
    "price": a finite number, 0 or more), or refused in one sentence naming it (every formula of counts checks so)."""
    number = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
    if kind == "price":
        if not number or value < 0:
            raise refusal("formula.bad_at", {"got": value})
        return float(value)
    if not number or value != int(value) or value < (1 if kind == "divisor" else 0):
        raise refusal("formula.bad_positive_count" if kind == "divisor" else "formula.bad_count", {"got": value})
    return int(value)


def formula(key: str, *values: float) -> Formula:
    """The formula behind figure ``key`` (one of ``KEYS``) with ``values`` (as the module docstring lists them
    for each); an unknown key is refused in one sentence naming the known ones, and so is a count that is not a
    whole number (1 or more where the figure divides by it) or a price that is not a finite number, 0 or more."""
    entry = BUILDERS.get(key)
    if entry is None:
        raise refusal("formula.unknown", {"got": key, "allowed": KEYS})
    builder, kinds = entry
    if len(values) != len(kinds):
        raise TypeError(f"{key} takes {len(kinds)} values ({', '.join(kinds)}), got {len(values)}")
    return builder(*(checked_value(value, kind) for value, kind in zip(values, kinds)))
