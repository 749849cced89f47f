"""What a fleet plan is asked for: the traffic (``Traffic``) and the latency targets (``Targets``), and their ranges.

Allowed (each refused value gets one sentence from ``resources/text/errors.toml``):

- ``requests_per_second``: above 0, at most ``MAX_REQUESTS_PER_SECOND`` (a million
  requests a second is far beyond what 1,024 GPUs serve for any catalogue model);
- the two P90 targets: above 0, at most ``MAX_TARGET_SECONDS`` (an hour);
- the spreads of prompt and output lengths: coefficients of variation (standard
  deviation over mean) from 0 (every request alike) to ``MAX_SPREAD``;
- ``seed``: a whole number from 0 to 2**32 - 1.
"""
from __future__ import annotations

import math
from dataclasses import replace
from numbers import Integral, Real

from engine.errors import refusal
from engine.frozen import frozen

MAX_REQUESTS_PER_SECOND = 1e6
MAX_TARGET_SECONDS = 3600.0
MAX_SPREAD = 4.0
MAX_SEED = 2**32 - 1


@frozen
class Traffic:
    """Requests arriving as a Poisson stream, with the scenario's lengths as their means."""
    requests_per_second: float
    prompt_spread: float = 0.0      # coefficient of variation of the prompt length (0: all alike)
    output_spread: float = 0.0      # coefficient of variation of the output length
    seed: int = 0                   # the same seed gives the same requests and the same plan


@frozen
class Targets:
    """Latency targets for the 90th percentile of requests."""
    ttft_p90_seconds: float         # arrival to first token
    tpot_p90_seconds: float         # per output token after the first


def checked_number(value, field: str, high: float, code: str = "plan.positive", low_allowed: bool = False) -> float:
    """``value`` as a float when finite, above 0 (at least 0 with ``low_allowed``) and at most ``high``;
    otherwise the ``InputError`` ``code`` naming ``field`` (its name and unit come from errors.toml)."""
    values = {"field": field, "high": high, "got": value}
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise refusal(code, values)
    if not (0 <= value if low_allowed else 0 < value) or value > high:
        raise refusal(code, values)
    return float(value)


def _seed(value) -> int:
    values = {"field": "seed", "low": 0, "high": MAX_SEED, "got": value}
    if isinstance(value, bool) or not isinstance(value, Integral) or not 0 <= value <= MAX_SEED:
        raise refusal("scenario.whole_number", values)
    return int(value)


def validate_demand(traffic: Traffic, targets: Targets) -> tuple[Traffic, Targets]:
    """Check every field of both; return them with plain floats and ints (``InputError`` for the first bad one)."""
    if not isinstance(traffic, Traffic):
        raise refusal("plan.traffic_type", {"got": type(traffic).__name__})
    if not isinstance(targets, Targets):
        raise refusal("plan.targets_type", {"got": type(targets).__name__})
    checked_traffic = replace(
        traffic,
        requests_per_second=checked_number(traffic.requests_per_second, "requests_per_second", MAX_REQUESTS_PER_SECOND),
        prompt_spread=checked_number(traffic.prompt_spread, "prompt_spread", MAX_SPREAD, "plan.spread", True),
        output_spread=checked_number(traffic.output_spread, "output_spread", MAX_SPREAD, "plan.spread", True),
        seed=_seed(traffic.seed))
    checked_targets = Targets(
        ttft_p90_seconds=checked_number(targets.ttft_p90_seconds, "ttft_target", MAX_TARGET_SECONDS),
        tpot_p90_seconds=checked_number(targets.tpot_p90_seconds, "tpot_target", MAX_TARGET_SECONDS))
    return checked_traffic, checked_targets
