"""Which settings each lever takes, their defaults, and the checks of those the scenario cannot check.

Settings that are scenario fields (a precision, a batch, the speculative
fields, a cached prefix, a reserved length) are checked by the scenario itself
once the lever puts them in (``engine.scenario.validate_scenario``); the three
what-if levers' own settings are checked here.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from numbers import Integral, Real

from engine.errors import refusal
from engine.levers.disaggregation import LINKS

LEVERS = ("weights", "kv_precision", "batching", "speculative", "prefix_cache", "kv_allocation",
          "flash_attention", "offload", "disaggregation")

# The tutorial's three kinds of speed-up, in the scene's order.
GROUPS = {"fewer_bytes": ("weights", "kv_precision"),
          "busy_worker": ("batching", "speculative"),
          "smarter_belt": ("kv_allocation", "prefix_cache", "flash_attention", "offload", "disaggregation")}

SETTINGS = {
    "weights": ("weights",),                        # the narrower weight precision (default "fp8")
    "kv_precision": ("kv",),                        # the narrower KV precision (default "fp8")
    "batching": ("batch",),                         # default: the scenario's batch, or all that fit when it is 1
    "speculative": ("draft_model", "draft_head_cost", "draft_tokens", "acceptance"),
    "prefix_cache": ("cached_prefix_tokens",),      # default: the scenario's, or half the prompt
    "kv_allocation": ("reserve_tokens",),           # what "reserved" sets aside (default: the model's maximum)
    "flash_attention": (),
    "offload": ("host_bytes_per_gpu", "reloaded_tokens"),
    "disaggregation": ("link",),                    # "nvlink" or "network" (default: nvlink when both pools fit a node)
}
NARROW_PRECISION = "fp8"
WIDE_PRECISION = "fp16"
DEFAULT_HEAD_COST = 0.05        # self-drafting heads when nothing else is named: about one decoder layer
MIN_HOST_BYTES_PER_GPU = 1e9
MAX_HOST_BYTES_PER_GPU = 100e12


def checked_levers(levers) -> dict[str, dict]:
    """``{lever: settings}`` with every name known and every setting one the lever takes.

    ``levers`` maps lever names to settings (a mapping, or None for the defaults); a plain
    sequence of names means defaults for each.
    """
    if isinstance(levers, str) or not isinstance(levers, (Mapping, list, tuple)):
        raise refusal("levers.unknown", {"allowed": LEVERS, "got": levers})
    pairs = levers.items() if isinstance(levers, Mapping) else ((name, None) for name in levers)
    out: dict[str, dict] = {}
    for name, settings in pairs:
        if name not in LEVERS:
            raise refusal("levers.unknown", {"allowed": LEVERS, "got": name})
        settings = dict(settings or {})
        for key in settings:
            if key not in SETTINGS[name]:
                code = "levers.setting" if SETTINGS[name] else "levers.no_settings"
                raise refusal(code, {"lever": name, "allowed": SETTINGS[name], "got": key})
        out[name] = settings
    if not out:
        raise refusal("levers.none", {"allowed": LEVERS})
    return out


def host_bytes(value) -> float:
    """A host memory size per GPU, checked."""
    if (isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value)
            or not MIN_HOST_BYTES_PER_GPU <= value <= MAX_HOST_BYTES_PER_GPU):
        raise refusal("levers.host_memory", {"low": MIN_HOST_BYTES_PER_GPU, "high": MAX_HOST_BYTES_PER_GPU,
                                             "got": value})
    return float(value)


def reloaded_tokens(value, prompt_tokens: int) -> int:
    """The tokens of a returning conversation computed in an earlier turn: a whole number up to the prompt."""
    if (isinstance(value, bool) or not isinstance(value, (Integral, Real)) or not math.isfinite(value)
            or float(value) != int(value) or not 0 <= value <= prompt_tokens):
        raise refusal("levers.reloaded", {"prompt": prompt_tokens, "got": value})
    return int(value)


def link(value) -> str:
    """The link between the prefill and decode pools: "nvlink" or "network"."""
    if value not in LINKS:
        raise refusal("levers.link", {"allowed": LINKS, "got": value})
    return value
