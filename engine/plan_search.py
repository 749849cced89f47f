"""The search behind a fleet plan: one kind of replica simulated at many rates, and the fewest that serve a stream.

``ReplicaSearch`` holds one pool's replica (colocated, prefill-only or
decode-only; ``engine.plan_simulation``) with the plan's workload and targets.
A per-replica rate is ``ok`` when it is below the replica's ``sustained_rate``
(the most it completes when requests never stop waiting: faster, a queue only
grows, however loose the targets) and the simulated P90s meet the targets
(``meets``). ``fewest_replicas`` finds the smallest n with ``ok(rate / n)``:
starting from an estimate, stepping until the answer is bracketed, then
halving the bracket, with every simulation remembered. ``engine.plan`` turns
the pools it sized into a ``FleetPlan``.
"""
from __future__ import annotations

import math

import numpy as np

from engine.plan_costs import PREFILL_TOKENS_PER_PASS, ReplicaCosts
from engine.plan_simulation import ReplicaRun, Workload, sample_workload, simulate_replica
from engine.plan_traffic import Targets, Traffic

PLAN_REQUESTS = 1500           # simulated per replica and rate; the first and last 15% are not measured
LATENCY_BOUND_SHARE = 0.8      # below this share of its sustained rate, a replica is held back by a target
FLOOD_BATCHES = 10             # full batches a workload must hold for its flood to reach a steady state
REPLICA_STEP = 1.5             # how far each step of the search for the fewest replicas goes


def workload_for(costs: ReplicaCosts, traffic: Traffic, requests: int = PLAN_REQUESTS) -> Workload:
    """The requests a plan of ``costs``' scenario simulates: the seed's, no longer than a replica holds."""
    sc = costs.scenario
    longest = min(costs.setup.model.max_context_tokens or costs.longest_context_tokens, costs.longest_context_tokens)
    return sample_workload(sc.prompt_tokens, sc.output_tokens, requests=requests, seed=traffic.seed,
                           prompt_spread=traffic.prompt_spread, output_spread=traffic.output_spread,
                           max_context_tokens=max(2, longest))


def meets(run: ReplicaRun, targets: Targets, kind: str) -> bool:
    """Whether a replica's simulated P90s are within the targets its kind is responsible for."""
    ttft_ok = kind == "decode" or run.ttft_percentile() <= targets.ttft_p90_seconds
    tpot_ok = kind == "prefill" or run.tpot_percentile() <= targets.tpot_p90_seconds
    return ttft_ok and tpot_ok


def sustained_rate(costs: ReplicaCosts, workload: Workload, kind: str = "colocated") -> float:
    """Requests per second one replica of ``kind`` completes when requests never stop waiting.

    A stream faster than this only grows a queue, however loose the targets. It is the smaller of
    the estimate ``capacity_per_replica`` and a simulation of the workload arriving at twice that
    (the queue never empties, the batch stays as full as memory and the scheduler allow, as in a
    "maximum throughput" benchmark); the simulation only counts when the workload holds more than
    ``FLOOD_BATCHES`` full batches, enough to reach its steady state.
    """
    estimate = capacity_per_replica(costs, kind, workload)
    if kind != "prefill" and len(workload) < FLOOD_BATCHES * costs.most_sequences:
        return estimate
    return min(estimate, simulate_replica(costs, workload, 2.0 * estimate, kind).completions_per_second)


class ReplicaSearch:
    """One pool of a plan (colocated, prefill or decode replicas): its replica simulated at any rate.

    A rate is ``ok`` when it is below the replica's sustained rate and its P90s meet the targets.
    ``fewest_replicas`` sets ``replicas`` and ``run`` (the replica at the fleet's rate / replicas).
    """

    def __init__(self, costs: ReplicaCosts, workload: Workload, targets: Targets, kind: str):
        self.costs, self.workload, self.targets, self.kind = costs, workload, targets, kind
        self.sustained = sustained_rate(costs, workload, kind)
        self.replicas = 0
        self.run: ReplicaRun | None = None
        self._runs: dict[float, ReplicaRun] = {}

    def simulate(self, rate: float) -> ReplicaRun:
        if rate not in self._runs:
            self._runs[rate] = simulate_replica(self.costs, self.workload, rate, self.kind)
        return self._runs[rate]

    def ok(self, rate: float) -> bool:
        return rate < self.sustained and meets(self.simulate(rate), self.targets, self.kind)

    def fewest_replicas(self, rate: float, most_replicas: int) -> int:
        """The fewest replicas n (1 .. ``most_replicas``) whose replica meets the targets at rate / n; 0 if none.

        Fewer than rate / sustained are never ok. The search starts from an estimate
        (``first_guess``), steps by ``REPLICA_STEP`` up or down until the answer is bracketed,
        then halves the bracket: about five simulations.
        """
        if not self.ok(rate / most_replicas):
            return 0
        floor = max(0, math.ceil(rate / self.sustained) - 1)          # not ok (0: no replicas)
        guess = min(most_replicas, max(floor + 1, math.ceil(rate / self.first_guess())))
        if self.ok(rate / guess):
            low, high = floor, guess
            while high - low > 1:
                below = max(low + 1, math.floor(high / REPLICA_STEP))
                if not self.ok(rate / below):
                    low = below
                    break
                high = below
        else:
            low, high = guess, most_replicas
            while high - low > 1:
                above = min(high - 1, max(low + 1, math.ceil(low * REPLICA_STEP)))
                if self.ok(rate / above):
                    high = above
                    break
                low = above
        while high - low > 1:
            middle = (low + high) // 2
            if self.ok(rate / middle):
                high = middle
            else:
                low = middle
        self.replicas, self.run = high, self.simulate(rate / high)
        return high

    def first_guess(self) -> float:
        """A per-replica rate to start from: the sustained rate, or less where the TPOT target caps the batch.

        The largest batch whose decode step is within the TPOT target, over the time a request
        spends decoding at that step (Little's law; prefill pauses and the P90's tail make the
        real rate lower, which the search finds).
        """
        if self.kind == "prefill":
            return self.sustained
        steps = float(np.mean(self.workload.output_tokens)) - 1
        if steps <= 0:
            return self.sustained
        batches = np.arange(1, max(self.costs.most_sequences, 1) + 1)
        lines = self.costs.decode_lines(int(batches[-1]))
        context = batches * (float(np.mean(self.workload.prompt_tokens)) + steps / 2)
        seconds = np.maximum(lines.low[batches] + lines.low_slope[batches] * context,
                             lines.high[batches] + lines.high_slope[batches] * context)
        within = np.nonzero(seconds <= self.targets.tpot_p90_seconds)[0]
        if not len(within):
            return self.sustained
        b = within[-1]
        return min(self.sustained, batches[b] / (steps * seconds[b]))

    def hardware_bound(self, rate: float) -> bool:
        """Whether a replica could take ``LATENCY_BOUND_SHARE`` of its sustained rate within the targets."""
        return rate / self.replicas >= LATENCY_BOUND_SHARE * self.sustained or \
            self.ok(LATENCY_BOUND_SHARE * self.sustained)

    def largest_ok_rate(self, low: float, high: float, precision: float = 1.05) -> float:
        """The largest rate found ok between ``low`` and ``high`` (bisection on the log, to ``precision``);
        ``low`` itself when it is not ok."""
        if not self.ok(low):
            return low
        while high / low > precision:
            middle = math.sqrt(low * high)
            if self.ok(middle):
                low = middle
            else:
                high = middle
        return low


def capacity_per_replica(costs: ReplicaCosts, kind: str = "colocated", workload: Workload | None = None) -> float:
    """Requests per second one replica of ``kind`` sustains with its largest batch, at the mean lengths.

    Each request costs its share of a full prefill pass and ``output - 1`` decode steps shared
    by the whole batch: ``1 / (prefill_seconds(g, L) / g + (output - 1) * step(B, c) / B)``, with
    g prompts per pass, B the most sequences that fit and c the batch's mean context. The
    lengths are the scenario's, or the means of ``workload``'s when it is given.
    """
    sc = costs.scenario
    prompt, steps = sc.prompt_tokens, sc.output_tokens - 1
    if workload is not None:
        prompt = max(1, round(float(np.mean(workload.prompt_tokens))))
        steps = float(np.mean(workload.output_tokens)) - 1
    per_request = 0.0
    if kind != "decode":
        group = max(1, min(max(costs.most_sequences, 1), PREFILL_TOKENS_PER_PASS // prompt))
        per_request += costs.prefill_seconds(group, prompt) / group
    if kind != "prefill" and steps > 0:
        batch = max(costs.most_sequences, 1)
        step = float(costs.decode_step_seconds(batch, prompt + steps / 2))
        per_request += steps * step / batch
    return 1.0 / per_request if per_request > 0 else math.inf
