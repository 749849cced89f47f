"""The formula behind the fleet figures scene 8 shows (``engine.plan.FleetPlan``, ``engine.plan_curve``).

``formula(plan, key)`` gives an ``engine.formulas.Formula`` for a figure of a plan, every value read from
the plan the engine filled in (never worked out again here) and the result the plan's own number:

- ``fleet_gpus``: replicas × GPUs per replica (a disaggregated fleet: both pools' replicas);
- ``fleet_nodes``: the nodes they take (as ``engine.plan_costs.fleet_nodes`` counts them): replicas sharing
  a node, as many as fit in one, or each filling nodes of its own;
- ``fleet_usd_per_million_input_tokens`` and ``..._output_tokens``: the fleet's rent per second, the share
  of its GPU time each kind of token pays for, over the tokens the traffic brings per second.

``knee_formula(rates, latencies)``: the knee of a latency curve (``engine.plan_curve.knee``), interpolated
between the two rates around the first point whose P90 first-token time reaches twice the lightest load's.
Qt-free.
"""
from __future__ import annotations

import math

from engine.cost import SECONDS_PER_HOUR, TOKENS_PER_MILLION
from engine.errors import refusal
from engine.formulas import Formula, Term
from engine.plan import FleetPlan
from engine.plan_curve import KNEE_FACTOR, knee, knee_bracket
from engine.units import format_count, format_number, format_percent, format_seconds, format_tokens_per_second, format_usd


def _gpus(plan: FleetPlan) -> Formula:
    g = format_count(plan.gpus_per_replica)
    if plan.disaggregated:
        p, d = format_count(plan.prefill_replicas), format_count(plan.decode_replicas)
        return Formula("fleet_gpus", "G = (r_p + r_d) × g", f"({p} + {d}) × {g}", format_count(plan.gpus), plan.gpus,
                       (Term("r_p", "prefill_replicas", p), Term("r_d", "decode_replicas", d),
                        Term("g", "gpus_per_replica", g)), "engine.plan.plan_fleet")
    r = format_count(plan.replicas)
    return Formula("fleet_gpus", "G = r × g", f"{r} × {g}", format_count(plan.gpus), plan.gpus,
                   (Term("r", "fleet_replicas", r), Term("g", "gpus_per_replica", g)), "engine.plan.plan_fleet")


def _nodes(plan: FleetPlan) -> Formula:
    r, g, n = plan.replicas, plan.gpus_per_replica, plan.gpus_per_node
    terms = (Term("r", "fleet_replicas", format_count(r)), Term("g", "gpus_per_replica", format_count(g)),
             Term("N", "node_gpus", format_count(n)))
    if g < n:                   # replicas share a node: as many as fit in it
        return Formula("fleet_nodes", "nodes = ⌈r ÷ ⌊N ÷ g⌋⌉",
                       f"⌈{format_count(r)} ÷ ⌊{format_count(n)} ÷ {format_count(g)}⌋⌉", format_count(plan.nodes),
                       plan.nodes, terms, "engine.plan_costs.fleet_nodes")
    each = plan.nodes // r      # a replica fills its own nodes: replicas × nodes per replica
    return Formula("fleet_nodes", "nodes = r × n", f"{format_count(r)} × {format_count(each)}",
                   format_count(plan.nodes), plan.nodes,
                   (terms[0], Term("n", "replica_nodes", format_count(each))), "engine.plan_costs.fleet_nodes")


def _price(plan: FleetPlan, direction: str) -> Formula:
    key = f"fleet_usd_per_million_{direction}_tokens"
    share = plan.input_time_share if direction == "input" else 1.0 - plan.input_time_share
    tokens = plan.input_tokens_per_second if direction == "input" else plan.output_tokens_per_second
    value = plan.usd_per_million_input_tokens if direction == "input" else plan.usd_per_million_output_tokens
    rent = format_usd(plan.scenario.usd_per_gpu_hour)
    s, t = format_percent(share), format_tokens_per_second(tokens)
    return Formula(key, "$ = G × p ÷ 3,600 × s ÷ T × 1,000,000",
                   f"{format_count(plan.gpus)} × {rent} ÷ {format_count(SECONDS_PER_HOUR)} s × {s} ÷ {t} × "
                   f"{format_count(TOKENS_PER_MILLION)}", format_usd(value), value,
                   (Term("G", "fleet_gpus", format_count(plan.gpus)), Term("p", "usd_per_gpu_hour", rent),
                    Term("s", f"{direction}_time_share", s), Term("T", f"{direction}_tokens_per_second", t)),
                   "engine.plan (price)")


BUILDERS = {"fleet_gpus": _gpus, "fleet_nodes": _nodes,
            "fleet_usd_per_million_input_tokens": lambda plan: _price(plan, "input"),
            "fleet_usd_per_million_output_tokens": lambda plan: _price(plan, "output")}
KEYS = (*BUILDERS, "knee_requests_per_second")


def formula(plan: FleetPlan, key: str) -> Formula:
    """The formula behind figure ``key`` of ``plan``; an unknown key is refused in one sentence naming the known."""
    builder = BUILDERS.get(key)
    if builder is None:
        raise refusal("formula.unknown", {"got": key, "allowed": tuple(BUILDERS)})
    return builder(plan)


def _rate(rate: float) -> str:
    return f"{format_number(rate)}/s"


def knee_formula(rates: tuple[float, ...], latencies: tuple[float, ...]) -> Formula:
    """The knee of the P90 first-token ``latencies`` at fleet ``rates`` (``engine.plan_curve.knee``); refused in one
    sentence when the curve has none, or when it is not as many finite times above 0 as rates, two or more."""
    points = (*rates, *latencies)
    if len(rates) != len(latencies) or len(rates) < 2 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0 for v in points):
        raise refusal("formula.bad_curve", {"rates": len(rates), "times": len(latencies)})
    i = knee_bracket(rates, latencies)
    if i is None:
        raise refusal("formula.no_knee", {"factor": format_count(KNEE_FACTOR)})
    value = knee(rates, latencies)
    light, (r0, r1), (t0, t1) = latencies[0], rates[i - 1:i + 1], latencies[i - 1:i + 1]
    terms = (Term("t_light", "light_ttft", format_seconds(light)), Term("R₀", "rate_before", _rate(r0)),
             Term("R₁", "rate_after", _rate(r1)), Term("t₀", "ttft_before", format_seconds(t0)),
             Term("t₁", "ttft_after", format_seconds(t1)))
    factor = format_count(KNEE_FACTOR)
    if not t1 > t0:
        return Formula("knee_requests_per_second", "knee = R₁", _rate(r1), _rate(value), value, terms[2:3],
                       "engine.plan_curve.knee")
    return Formula("knee_requests_per_second", f"knee = R₀ + (R₁ − R₀) × ({factor} × t_light − t₀) ÷ (t₁ − t₀)",
                   f"{_rate(r0)} + ({_rate(r1)} − {_rate(r0)}) × ({factor} × {format_seconds(light)} − "
                   f"{format_seconds(t0)}) ÷ ({format_seconds(t1)} − {format_seconds(t0)})",
                   _rate(value), value, terms, "engine.plan_curve.knee")
