"""The levers' options of ``python -m engine report`` (DESIGN.md, "Levers on report").

    --draft-model ID | --draft-head-cost SHARE   speculative decoding's drafter
    --draft-tokens K --acceptance A              tokens proposed per pass, per-token acceptance rate
    --cached-prefix N                            the first N prompt tokens' KV is reused
    --kv-allocation paged|reserved [--reserve-tokens N]
"""
from __future__ import annotations

from engine.levers.fields import KV_ALLOCATIONS, MAX_DRAFT_TOKENS
from engine.scenario import Scenario, allowed_whole_number

_DEFAULTS = Scenario()
ACCEPTANCE_ALLOWED = "a number from 0 up to, but not including, 1"
HEAD_COST_ALLOWED = "a number from 0 to 1 (a share of one target decode step)"

# (option, Scenario field, what a missing value should be, help)
_NUMBER_OPTIONS = (
    ("--draft-head-cost", "draft_head_cost", HEAD_COST_ALLOWED,
     "speculative decoding with self-drafting heads (EAGLE, Medusa): what drafting one token costs, "
     "as a share of one target decode step (default: %(default)s, no heads)"),
    ("--draft-tokens", "draft_tokens", None, f"speculative decoding: tokens proposed per pass, 1 to "
                                             f"{MAX_DRAFT_TOKENS} (default: %(default)s)"),
    ("--acceptance", "acceptance", ACCEPTANCE_ALLOWED,
     "speculative decoding: the chance that each proposed token is accepted (default: %(default)s)"),
    ("--cached-prefix", "cached_prefix_tokens", None,
     "prefix caching: the first N prompt tokens' KV is reused (default: %(default)s)"),
    ("--reserve-tokens", "reserve_tokens", None,
     "with --kv-allocation reserved: tokens set aside per sequence (default: 0, the model's maximum context)"),
)


def add_lever_options(parser, number_option) -> None:
    """Declare the lever options on ``parser`` (``number_option(parser, option, field, allowed)`` reads numbers)."""
    parser.value_option("--draft-model", "a model id such as llama-3.2-1b", default=_DEFAULTS.draft_model,
                        help="speculative decoding: the draft model's id (default: none)")
    for option, field, allowed, text in _NUMBER_OPTIONS:
        parser.value_option(option, allowed or allowed_whole_number(field),
                            type=number_option(parser, option, field, allowed),
                            default=getattr(_DEFAULTS, field), help=text)
    parser.value_option("--kv-allocation", " or ".join(repr(a) for a in KV_ALLOCATIONS),
                        default=_DEFAULTS.kv_allocation,
                        help="'paged' (blocks of 16 tokens, as vLLM) or 'reserved' (a fixed length per sequence) "
                             "(default: %(default)s)")


def lever_fields(args) -> dict:
    """The Scenario's lever fields from parsed options."""
    return {"draft_model": args.draft_model, "draft_tokens": args.draft_tokens, "acceptance": args.acceptance,
            "draft_head_cost": args.draft_head_cost, "cached_prefix_tokens": args.cached_prefix,
            "kv_allocation": args.kv_allocation, "reserve_tokens": args.reserve_tokens}
