"""The formula behind each figure of the work of generating N tokens with and without a KV cache.

Scene 5 counts it as it plays and the summary shows its totals at the seed's N:
``formula(key, generated_tokens)`` returns an ``engine.formulas.Formula`` whose
result is worked out by the very ``engine.kv_cache`` function the scenes draw
(never a copy of it here). Numbers are formatted by ``engine.units``. Qt-free.

- ``tokens_processed_without_cache``: every step computes every token so far again,
  1 + 2 + … + N = N × (N + 1) ÷ 2;
- ``tokens_processed_with_cache``: one new token a step, N;
- ``work_ratio_without_cache``: the first ÷ the second, (N + 1) ÷ 2.
"""
from __future__ import annotations

from engine.errors import refusal
from engine.formulas import Formula, Term
from engine.kv_cache import tokens_processed_with_cache, tokens_processed_without_cache, work_ratio_without_cache
from engine.token_formulas import checked_value
from engine.units import format_count, format_ratio

SOURCE = "engine.kv_cache"


def _without(n: int) -> Formula:
    total = tokens_processed_without_cache(n)
    return Formula("tokens_processed_without_cache", "W = 1 + 2 + … + N = N × (N + 1) ÷ 2",
                   f"{format_count(n)} × {format_count(n + 1)} ÷ 2", format_count(total), total,
                   (Term("N", "generated_tokens", format_count(n)),), f"{SOURCE}.tokens_processed_without_cache")


def _with(n: int) -> Formula:
    total = tokens_processed_with_cache(n)
    return Formula("tokens_processed_with_cache", "W = N × 1", f"{format_count(n)} × 1", format_count(total), total,
                   (Term("N", "generated_tokens", format_count(n)),), f"{SOURCE}.tokens_processed_with_cache")


def _ratio(n: int) -> Formula:
    without, with_cache = tokens_processed_without_cache(n), tokens_processed_with_cache(n)
    ratio = work_ratio_without_cache(n)
    return Formula("work_ratio_without_cache", "ratio = W_none ÷ W_cache = (N + 1) ÷ 2",
                   f"{format_count(without)} ÷ {format_count(with_cache)}", format_ratio(ratio), ratio,
                   (Term("W_none", "work_without_cache", format_count(without)),
                    Term("W_cache", "work_with_cache", format_count(with_cache)),
                    Term("N", "generated_tokens", format_count(n))), f"{SOURCE}.work_ratio_without_cache")


BUILDERS = {"tokens_processed_without_cache": _without, "tokens_processed_with_cache": _with,
            "work_ratio_without_cache": _ratio}
KEYS = tuple(BUILDERS)


def formula(key: str, generated_tokens: int) -> Formula:
    """The formula behind figure ``key`` (one of ``KEYS``) for ``generated_tokens`` tokens (a whole number, 1 or
    more); an unknown key is refused in one sentence naming the known ones, and so is a count that is not one."""
    builder = BUILDERS.get(key)
    if builder is None:
        raise refusal("formula.unknown", {"got": key, "allowed": KEYS})
    return builder(checked_value(generated_tokens, "divisor"))
