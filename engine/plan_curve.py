"""Latency against load at a fixed fleet: the curve that stays flat, then bends and climbs.

``latency_curve(scenario, traffic, replicas)`` simulates one replica of a
colocated fleet of ``replicas`` replicas (``engine.plan_simulation``) at a row
of fleet request rates and returns the P90 time to first token and time per
output token at each. Queues build as the rate nears what the fleet sustains
(``capacity_requests_per_second``: ``replicas`` times
``engine.plan.sustained_rate``), and the first token waits longest.

The knee (``knee_requests_per_second``) is where the P90 first-token time
first reaches ``KNEE_FACTOR`` times its value at the lightest load of the row,
found by linear interpolation between the two rates around it; NaN when the
row never gets there. ``traffic.requests_per_second`` is not used (the row
is the rates), its spreads and seed are.
"""
from __future__ import annotations

import math

import numpy as np

from engine.errors import refusal
from engine.frozen import frozen
from engine.plan import MAX_FLEET_GPUS, refuse_unless_a_request_fits
from engine.plan_search import sustained_rate, workload_for
from engine.plan_costs import replica_costs
from engine.plan_simulation import simulate_replica
from engine.plan_traffic import Targets, Traffic, validate_demand
from engine.scenario import MAX_BATCH, Scenario

KNEE_FACTOR = 2.0
CURVE_POINTS = 24
CURVE_REQUESTS = 1000                 # per point: a curve is for the eye, 24 points within the plan's budget
LIGHTEST_SHARE, HEAVIEST_SHARE = 0.05, 1.1   # the default row: 5% to 110% of what the fleet sustains


@frozen
class LatencyCurve:
    requests_per_second: np.ndarray     # fleet rates, increasing
    ttft_p90_seconds: np.ndarray
    tpot_p90_seconds: np.ndarray
    knee_requests_per_second: float     # NaN when the row never bends that far
    capacity_requests_per_second: float
    replicas: int


def latency_curve(scenario: Scenario, traffic: Traffic, replicas: int, rates=None, *,
                  points: int = CURVE_POINTS, catalog=None) -> LatencyCurve:
    """P90 latencies of ``replicas`` colocated replicas at each fleet rate of ``rates``.

    Default rates: ``points`` evenly from 5% to 110% of what the fleet sustains. ``InputError``
    for a bad scenario, traffic, fleet size (1 to ``MAX_FLEET_GPUS`` GPUs) or rate.
    """
    traffic, _ = validate_demand(traffic, Targets(1.0, 1.0))
    costs = replica_costs(scenario, catalog, MAX_BATCH)
    most = MAX_FLEET_GPUS // costs.gpus_per_replica
    if isinstance(replicas, bool) or not isinstance(replicas, int) or not 1 <= replicas <= most:
        raise refusal("scenario.whole_number", {"field": "replicas", "low": 1, "high": most, "got": replicas})
    refuse_unless_a_request_fits(costs)
    workload = workload_for(costs, traffic, CURVE_REQUESTS)
    capacity = replicas * sustained_rate(costs, workload)
    if rates is None:
        rates = np.linspace(LIGHTEST_SHARE, HEAVIEST_SHARE, points) * capacity
    rates = np.asarray([validate_demand(Traffic(float(r)), Targets(1.0, 1.0))[0].requests_per_second
                        for r in np.atleast_1d(rates)])
    runs = [simulate_replica(costs, workload, rate / replicas) for rate in rates]
    ttft = np.array([run.ttft_percentile() for run in runs])
    tpot = np.array([run.tpot_percentile() for run in runs])
    return LatencyCurve(requests_per_second=rates, ttft_p90_seconds=ttft, tpot_p90_seconds=tpot,
                        knee_requests_per_second=knee(rates, ttft), capacity_requests_per_second=capacity,
                        replicas=replicas)


def knee_bracket(rates: np.ndarray, latencies: np.ndarray, factor: float = KNEE_FACTOR) -> int | None:
    """The index of the first point whose latency reaches ``factor`` times the first one's (the knee lies between
    it and the point before), or None when no point past the first does."""
    if len(rates) < 2:
        return None
    above = np.nonzero(np.asarray(latencies) >= factor * latencies[0])[0]
    return None if not len(above) or above[0] == 0 else int(above[0])


def knee(rates: np.ndarray, latencies: np.ndarray, factor: float = KNEE_FACTOR) -> float:
    """The rate at which ``latencies`` first reach ``factor`` times their first value (interpolated), or NaN."""
    i = knee_bracket(rates, latencies, factor)
    if i is None:
        return math.nan
    level = factor * latencies[0]
    r0, r1, y0, y1 = rates[i - 1], rates[i], latencies[i - 1], latencies[i]
    return float(r0 + (r1 - r0) * (level - y0) / (y1 - y0)) if y1 > y0 else float(r1)
