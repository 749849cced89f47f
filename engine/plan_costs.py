"""What the fleet planner asks the engine about one replica: the one interface between them.

A replica is one copy of the scenario's layout (its GPUs, precisions and
mode) serving requests on its own. The planner (``engine.plan``) and its
simulation (``engine.plan_simulation``) know a replica only through
``ReplicaCosts``, which answers five questions from the engine's own
formulas and nothing else:

- ``prefill_seconds(prompts, prompt_tokens)``: one prefill pass over that many
  prompts of that length (``engine.passes.prefill_work`` timed by ``engine.request.time_pass``);
- ``decode_step_seconds(batch, context_tokens)``: one decode step of ``batch``
  sequences holding ``context_tokens`` each (``engine.sweep.decode_step_seconds``);
- ``kv_token_capacity`` and ``most_sequences``: how much KV cache fits beside the
  weights (``engine.memory.plan_memory``), so how many requests can be in flight;
- ``gpus_per_replica`` and ``nodes_per_replica`` (``nodes_for``);
- ``kv_transfer_seconds(prompt_tokens)``: moving one prompt's KV cache from a
  prefill replica to a decode replica (disaggregated serving).

Where the other engine branches plug in (DESIGN.md "Deployments past one node",
"Levers on report"), each in one place here:

- multi-node layouts (``tp``, ``pp``, ``ep``; ``Gpu.node_gpus``;
  ``Report.nodes``): ``gpus_per_replica`` becomes tp x pp, ``nodes_per_replica``
  the report's ``nodes``, and ``GPUS_PER_NODE`` gives way to ``node_gpus``;
- paged KV allocation (``max_batch``): ``kv_tokens_held`` says what one request
  keeps (today its whole prompt plus output is reserved at admission, as a
  scheduler that never preempts must do);
- the disaggregation helper (KV transfer seconds over the link, the network
  between nodes): ``kv_transfer_seconds``;
- per-step framework costs and recalibration arrive through the two timing
  questions without any change here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from engine.compute import Setup, decode_step_of, resolve, setup
from engine.memory import PREFILL_CHUNK_TOKENS, plan_memory
from engine.parallel import link_bytes_per_second_one_direction
from engine.passes import prefill_work
from engine.request import time_pass
from engine.scenario import MAX_BATCH, Scenario, validate_scenario
from engine.sweep import decode_step_seconds

# Provisional (until eng-nodes' ``Gpu.node_gpus``): servers hold 8 GPUs: DGX/HGX H100, H800, H200,
# B200 and A100 boards, AMD's MI300X platform and Huawei's Atlas 800 all carry 8 accelerators, and
# 8-card PCIe servers are the usual home of L40S and RTX cards.
GPUS_PER_NODE = 8
PREFILL_TOKENS_PER_PASS = PREFILL_CHUNK_TOKENS   # most prompt tokens batched into one prefill pass


def gpus_per_node(gpu) -> int:
    """GPUs in one server of ``gpu``'s kind (provisional: 8 for every kind, see ``GPUS_PER_NODE``)."""
    return GPUS_PER_NODE


def nodes_for(gpu, gpus: int) -> int:
    """Servers that ``gpus`` GPUs of kind ``gpu`` fill: ceil(gpus / GPUs per node). Provisional."""
    return math.ceil(gpus / gpus_per_node(gpu))


def fleet_nodes(gpu, gpus_per_replica: int, replicas: int) -> int:
    """Servers for ``replicas`` replicas of ``gpus_per_replica`` GPUs, no replica split over two servers."""
    per_node = gpus_per_node(gpu)
    if gpus_per_replica >= per_node:
        return replicas * nodes_for(gpu, gpus_per_replica)
    return math.ceil(replicas / (per_node // gpus_per_replica))


@dataclass(frozen=True)
class DecodeLines:
    """One decode step as the larger of two lines in the batch's total context ``S`` (tokens, all sequences).

    ``seconds = max(low[b] + low_slope[b] * S, high[b] + high_slope[b] * S)`` for a batch of ``b``.
    The engine's step time is the larger of "compute plus the unhidden part of memory" and the
    reverse (``engine.efficiency``), both linear in the context, so two lines describe it exactly.
    """
    low: np.ndarray
    low_slope: np.ndarray
    high: np.ndarray
    high_slope: np.ndarray


@dataclass(eq=False)
class ReplicaCosts:
    """The engine's answers about one replica of a validated scenario (module docstring)."""
    scenario: Scenario
    setup: Setup
    gpus_per_replica: int
    nodes_per_replica: int
    batch_limit: int                 # the most sequences the replica's scheduler runs together
    most_sequences: int              # sequences of the scenario's prompt + output that fit (<= batch_limit)
    kv_token_capacity: int           # KV tokens all sequences together may hold at that batch
    _prefill: dict = field(default_factory=dict, repr=False)
    _lines: list = field(default_factory=list, repr=False)

    @property
    def gpu(self):
        return self.setup.gpu

    def prefill_seconds(self, prompts: int, prompt_tokens: int) -> float:
        """One prefill pass over ``prompts`` prompts of ``prompt_tokens`` tokens each (remembered)."""
        key = (prompts, prompt_tokens)
        seconds = self._prefill.get(key)
        if seconds is None:
            work = prefill_work(self.setup.deployment, batch=prompts, prompt_tokens=prompt_tokens)
            seconds = self._prefill[key] = time_pass(work, self.setup.machine).seconds
        return seconds

    def decode_step_seconds(self, batch: int, context_tokens) -> np.ndarray:
        """One decode step of ``batch`` sequences each holding ``context_tokens`` tokens (numpy-friendly)."""
        step = decode_step_of(self.setup, batch)
        return decode_step_seconds(step, self.setup.machine, np.asarray(context_tokens, dtype=np.float64))

    def decode_bound(self, batch: int, context_tokens: float) -> str:
        """What limits that step: "compute" or "memory" (the report's ``decode.bound``)."""
        return time_pass(decode_step_of(self.setup, batch).at(context_tokens), self.setup.machine).bound

    def kv_tokens_held(self, prompt_tokens: int, output_tokens: int) -> int:
        """KV tokens one request keeps from admission to its end: all of them, reserved up front."""
        return prompt_tokens + output_tokens

    def kv_transfer_seconds(self, prompt_tokens) -> np.ndarray:
        """Moving a prompt's KV cache to a decode replica: each GPU sends its share over its own link.

        Provisional: the two replicas share a node, so the cache crosses the GPUs' link (NVLink or
        PCIe) at the mode's link share; eng-levers' disaggregation helper replaces this.
        """
        d, machine = self.setup.deployment, self.setup.machine
        per_gpu_bytes = np.asarray(prompt_tokens, dtype=np.float64) * d.kv_bytes_per_token * d.kv_share_per_gpu
        link = link_bytes_per_second_one_direction(self.gpu, 2) * machine.efficiency.link_share
        return per_gpu_bytes / link

    def decode_lines(self, batch: int) -> DecodeLines:
        """``DecodeLines`` for batches 0 .. at least ``batch`` (worked out once, grown as needed)."""
        if len(self._lines) <= batch:
            self._grow_lines(batch)
        return self._lines[-1]

    def _grow_lines(self, batch: int) -> None:
        """Fit the two lines of every batch up to ``max(batch, 2 x the last)`` from four engine steps each."""
        known = len(self._lines[-1].low) - 1 if self._lines else 0
        last = min(max(batch, 2 * known, 64), max(self.batch_limit, batch))
        longest = float(max(2, self.kv_token_capacity))
        h = max(1.0, longest / 64)
        probes = np.array([0.0, h, longest - h, longest])
        rows = [(0.0, 0.0, 0.0, 0.0)]
        for b in range(1, last + 1):
            t = self.decode_step_seconds(b, probes)
            low_slope, high_slope = (t[1] - t[0]) / h, (t[3] - t[2]) / h
            # per sequence context c = S / b: a line in c with slope s is a line in S with slope s / b
            rows.append((t[0], low_slope / b, t[3] - high_slope * longest, high_slope / b))
        table = np.array(rows)
        self._lines.append(DecodeLines(*(table[:, k].copy() for k in range(4))))


_CACHE: dict[tuple, tuple[object, ReplicaCosts]] = {}
_CACHE_SIZE = 32


def replica_costs(scenario: Scenario, catalog=None, batch_limit: int = MAX_BATCH) -> ReplicaCosts:
    """``ReplicaCosts`` of ``scenario`` (``InputError`` for a bad one), remembered per scenario.

    The scenario's own ``batch`` is not used: the planner chooses the batch. ``batch_limit`` caps it
    (a serving stack's ``max_num_seqs``); memory caps it further.
    """
    scenario = replace(validate_scenario(scenario), batch=1)       # the batch is the plan's to choose
    key = (scenario, id(catalog), batch_limit)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is catalog:
        return hit[1]
    resolved = resolve(scenario, catalog)
    s = setup(*resolved)
    sc = s.scenario
    most = _most_sequences(s, sc.prompt_tokens, sc.output_tokens, batch_limit)
    room = plan_memory(s.deployment, batch=max(most, 1), prompt_tokens=sc.prompt_tokens,
                       output_tokens=sc.output_tokens).max_context_tokens * max(most, 1)
    costs = ReplicaCosts(scenario=sc, setup=s, gpus_per_replica=sc.gpus, nodes_per_replica=nodes_for(s.gpu, sc.gpus),
                         batch_limit=batch_limit, most_sequences=most, kv_token_capacity=int(room))
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = (catalog, costs)
    return costs


def _most_sequences(s: Setup, prompt_tokens: int, output_tokens: int, batch_limit: int) -> int:
    """The largest batch b (at most ``batch_limit``) whose KV fits beside the weights and b's own allowance."""
    batch = min(batch_limit, plan_memory(s.deployment, batch=1, prompt_tokens=prompt_tokens,
                                         output_tokens=output_tokens).max_sequences)
    while batch > 0:                   # a larger batch needs a larger allowance (logits, activations): step down
        fitting = plan_memory(s.deployment, batch=batch, prompt_tokens=prompt_tokens,
                              output_tokens=output_tokens).max_sequences
        if fitting >= batch:
            return batch
        batch = fitting
    return 0
