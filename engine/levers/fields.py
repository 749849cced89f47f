"""The scenario's lever fields: what each may be, and the check that refuses the rest.

``engine.scenario.Scenario`` carries seven fields for the levers that change the
report itself (the others are what-ifs of ``engine.levers.outcome``):

- speculative decoding: ``draft_model`` (a catalogue id; "" = none),
  ``draft_head_cost`` (self-drafting heads such as EAGLE or Medusa, described by
  what drafting one token costs as a share of one target decode step, 0 to 1;
  0 = none; at most one of the two), ``draft_tokens`` k (1 to 16 tokens proposed
  per pass) and ``acceptance`` a (the chance that each proposed token is
  accepted, 0 up to but not including 1: a draft that is always right would be
  the target itself, and the expected length (1 - a^(k+1)) / (1 - a) needs a < 1);
- prefix caching: ``cached_prefix_tokens`` (0 to the prompt length: the first N
  prompt tokens' KV is already in HBM);
- KV allocation: ``kv_allocation`` ("paged", vLLM's blocks of 16 tokens, or
  "reserved", a fixed length per sequence) and ``reserve_tokens`` (what
  "reserved" sets aside per sequence; 0 = the model's maximum context; at least
  prompt plus output, at most the model's maximum).

k stops at 16: published systems propose 2 to 8 (vLLM's examples use 5, EAGLE's
trees are 5 to 8 deep), and with a = 0.9 the 17th guess adds under 2% to the
expected length. Every check here needs no catalogue; the draft's lookup, its
tokenizer and the reservation against the model's maximum are checked in
``engine.levers.draft`` and ``check_reservation`` once the model is known.
"""
from __future__ import annotations

import math
from dataclasses import replace
from numbers import Real

from engine.errors import refusal

KV_ALLOCATIONS = ("paged", "reserved")
MAX_DRAFT_TOKENS = 16
PAGE_TOKENS = 16          # vLLM's default block size (--block-size 16), also its PagedAttention paper's

# Whole-number lever fields, in the form of ``engine.scenario.WHOLE_NUMBER_FIELDS``
# (the upper bound of the two token counts is the scenario's own context limit, filled in there).
LEVER_WHOLE_NUMBER_FIELDS = {
    "draft_tokens": ("The number of draft tokens", 1, MAX_DRAFT_TOKENS, " tokens"),
    "cached_prefix_tokens": ("The cached prefix", 0, None, " tokens"),
    "reserve_tokens": ("The reserved length", 0, None, " tokens"),
}


def speculative_on(scenario) -> bool:
    """True when the scenario decodes speculatively (a draft model or self-drafting heads)."""
    return bool(scenario.draft_model) or scenario.draft_head_cost > 0


def _share(value, code: str, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise refusal(code, {"field": field, "got": value})
    return float(value)


LEVER_FIELDS = ("draft_model", "draft_tokens", "acceptance", "draft_head_cost", "cached_prefix_tokens",
                "kv_allocation", "reserve_tokens")
_OFF = ("", 4, 0.7, 0.0, 0, "paged", 0)          # Scenario's defaults: every lever off
_OFF_TYPES = tuple(map(type, _OFF))


def validate_lever_fields(scenario, whole_number):
    """``scenario`` with its lever fields checked (``whole_number(value, field)`` checks a count).

    Raises ``InputError`` naming the first bad value; returns the scenario with plain
    int/float/str values (unchanged when they already were).
    """
    values = tuple(getattr(scenario, name) for name in LEVER_FIELDS)
    if values == _OFF and tuple(map(type, values)) == _OFF_TYPES:     # the common case, checked in one step
        return scenario
    draft_tokens = whole_number(scenario.draft_tokens, "draft_tokens")
    prefix = whole_number(scenario.cached_prefix_tokens, "cached_prefix_tokens")
    reserve = whole_number(scenario.reserve_tokens, "reserve_tokens")
    acceptance = _share(scenario.acceptance, "levers.acceptance", "acceptance")
    if not 0 <= acceptance < 1:
        raise refusal("levers.acceptance", {"field": "acceptance", "got": scenario.acceptance})
    head_cost = _share(scenario.draft_head_cost, "levers.head_cost", "draft_head_cost")
    if not 0 <= head_cost <= 1:
        raise refusal("levers.head_cost", {"field": "draft_head_cost", "got": scenario.draft_head_cost})
    if not isinstance(scenario.draft_model, str):
        raise refusal("scenario.identifier", {"field": "draft_model", "example": "llama-3.2-1b",
                                              "got": scenario.draft_model})
    draft = scenario.draft_model.strip()
    if draft and head_cost > 0:
        raise refusal("levers.two_drafts", {"field": "draft_head_cost", "draft": draft, "got": head_cost})
    allocation = scenario.kv_allocation.strip().lower() if isinstance(scenario.kv_allocation, str) else None
    if allocation not in KV_ALLOCATIONS:
        raise refusal("levers.allocation", {"field": "kv_allocation", "allowed": KV_ALLOCATIONS,
                                            "got": scenario.kv_allocation})
    if prefix > scenario.prompt_tokens:
        raise refusal("levers.prefix", {"field": "cached_prefix_tokens", "prompt": scenario.prompt_tokens,
                                        "got": prefix})
    context = scenario.prompt_tokens + scenario.output_tokens
    if reserve and reserve < context:
        raise refusal("levers.reserve_short", {"field": "reserve_tokens", "context": context, "got": reserve})
    checked = {"draft_model": draft, "draft_tokens": draft_tokens, "acceptance": acceptance,
               "draft_head_cost": head_cost, "cached_prefix_tokens": prefix, "kv_allocation": allocation,
               "reserve_tokens": reserve}
    if all(_same(getattr(scenario, name), value) for name, value in checked.items()):
        return scenario
    return replace(scenario, **checked)


def _same(a, b) -> bool:
    return a is b or (type(a) is type(b) and a == b)


def check_reservation(scenario, model) -> None:
    """Refuse a reserved length above ``model``'s maximum context (its ``max_context_tokens``)."""
    longest = getattr(model, "max_context_tokens", 0)
    if scenario.reserve_tokens and longest and scenario.reserve_tokens > longest:
        raise refusal("levers.reserve_long", {"field": "reserve_tokens", "model": model.name, "high": longest,
                                              "got": scenario.reserve_tokens})


def reserved_tokens_per_sequence(scenario, model) -> int:
    """What "reserved" allocation sets aside per sequence: ``reserve_tokens``, or the model's maximum context."""
    return scenario.reserve_tokens or getattr(model, "max_context_tokens", 0) or (
        scenario.prompt_tokens + scenario.output_tokens)
