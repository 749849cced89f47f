"""What the fleet planner asks the engine about one replica: the one interface between them.

A replica is one copy of the scenario's deployment (its GPUs and their layout,
precisions, mode and levers) serving requests on its own. The planner
(``engine.plan``) and its simulation (``engine.plan_simulation``) know a replica
only through ``ReplicaCosts``, which answers from the engine's own formulas and
nothing else:

- ``prefill_seconds(prompts, prompt_tokens)``: one prefill pass over that many
  prompts of that length, a pipeline's micro-batches and a cached prefix
  included (``engine.compute.prefill_of``), and a draft model's own prefill
  (``engine.levers.speculative``);
- ``decode_step_seconds(batch, context_tokens)``: one decode step of ``batch``
  sequences holding ``context_tokens`` each (``engine.sweep.decode_step_seconds``);
  decoding speculatively, the time per token of a draft-and-verify pass (its k
  draft steps and the verify pass over the k + 1 tokens, over the E tokens it keeps);
- the KV cache beside the weights (``engine.memory.plan_memory``, the draft's weights
  and KV too: ``kv_token_capacity``), and what one request holds of it from
  admission to its end (``kv_tokens_held``, ``engine.levers.kv_allocation``): under
  ``"paged"`` allocation the pages of all its tokens, the cached prefix's whole pages
  held once for all, as a scheduler that never preempts must count them (TensorRT-LLM's
  default, GUARANTEED_NO_EVICT); under ``"reserved"`` its reservation.
  ``most_sequences``: the scenario's requests that fit together (the report's ``max_batch``
  at each batch's own allowance);
- ``gpus_per_replica`` and ``nodes_per_replica``: the layout's GPUs and nodes
  (``engine.layout``, the report's ``nodes``), and ``fleet_nodes`` for many replicas
  (``Gpu.node_gpus`` a node);
- ``kv_transfer_seconds(prompt_tokens)``: moving one prompt's KV cache from a
  prefill replica to a decode replica (disaggregated serving), over the node's
  link when two replicas share a node, else over the network between nodes
  (``engine.levers.disaggregation.kv_transfer_seconds_of``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from engine.compute import Setup, decode_step_of, prefill_of, setup_of
from engine.frozen import frozen
from engine.levers.disaggregation import kv_transfer_seconds_of
from engine.levers.fields import PAGE_TOKENS, reserved_tokens_per_sequence
from engine.levers.kv_allocation import held_tokens_per_sequence, pages, shared_prefix_tokens
from engine.levers.on_report import draft_bytes_per_gpu, drafter_of, mean_kv_bytes_per_token
from engine.levers.speculative import draft_prefill_seconds, tokens_per_pass, verify_work
from engine.memory import PREFILL_CHUNK_TOKENS, plan_memory
from engine.passes import decode_step_work
from engine.request import time_pass
from engine.scenario import MAX_BATCH, Scenario, validate_scenario
from engine.sweep import decode_step_seconds

PREFILL_TOKENS_PER_PASS = PREFILL_CHUNK_TOKENS   # most prompt tokens batched into one prefill pass


def fleet_nodes(gpu, gpus_per_replica: int, replicas: int, nodes_per_replica: int) -> int:
    """Nodes for ``replicas`` replicas of ``gpus_per_replica`` GPUs (each filling ``nodes_per_replica`` nodes of
    ``gpu.node_gpus``), no replica split over two nodes."""
    per_node = gpu.node_gpus
    if gpus_per_replica >= per_node:
        return replicas * nodes_per_replica
    return math.ceil(replicas / (per_node // gpus_per_replica))


@frozen
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
    most_sequences: int              # the scenario's requests that fit together (module docstring), <= batch_limit
    kv_token_capacity: int           # KV tokens all sequences together may hold at that batch (shared prefix aside)
    paged: bool = True               # pages of 16 tokens ("paged") or a reservation per request ("reserved")
    shared_prefix_tokens: int = 0    # paged: the cached prefix's whole pages, held once (engine.levers.kv_allocation)
    longest_context_tokens: int = 0  # the most tokens one sequence can hold (one attention replica's whole cache)
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
            s = self.setup
            cached = min(s.scenario.cached_prefix_tokens, prompt_tokens)
            shaped = replace(s, scenario=replace(s.scenario, batch=prompts, prompt_tokens=prompt_tokens,
                                                 cached_prefix_tokens=cached))
            seconds = prefill_of(shaped)[1].seconds
            drafter = drafter_of(s)
            if drafter is not None:
                seconds += draft_prefill_seconds(drafter, s.machine, batch=prompts, prompt_tokens=prompt_tokens,
                                                 cached_tokens=cached)
            self._prefill[key] = seconds
        return seconds

    def decode_step_seconds(self, batch: int, context_tokens) -> np.ndarray:
        """Time per token of ``batch`` sequences each holding ``context_tokens`` tokens (numpy-friendly): one
        decode step, or decoding speculatively one draft-and-verify pass over the tokens it keeps."""
        s = self.setup
        contexts = np.asarray(context_tokens, dtype=np.float64)
        plain = decode_step_seconds(decode_step_of(s, batch), s.machine, contexts)
        drafter = drafter_of(s)
        if drafter is None:
            return plain
        sc = s.scenario
        k = sc.draft_tokens
        verify = decode_step_seconds(verify_work(s.deployment, batch=batch, draft_tokens=k), s.machine, contexts)
        if drafter.deployment is not None:
            draft = decode_step_seconds(decode_step_work(drafter.deployment, batch=batch), s.machine, contexts)
        else:
            draft = drafter.head_cost * plain
        return (k * draft + verify) / tokens_per_pass(sc.acceptance, k)

    def decode_bound(self, batch: int, context_tokens: float) -> str:
        """What limits that step: "compute" or "memory" (the report's ``decode.bound``)."""
        return time_pass(decode_step_of(self.setup, batch).at(context_tokens), self.setup.machine).bound

    def kv_tokens_held(self, prompt_tokens: int, output_tokens: int) -> int:
        """KV tokens one request holds from admission to its end: the pages of its tokens beside the shared
        prefix ("paged"), or its reservation ("reserved", never less than its own length)."""
        if self.paged:
            return pages(prompt_tokens + output_tokens - self.shared_prefix_tokens) * PAGE_TOKENS
        return max(reserved_tokens_per_sequence(self.scenario, self.setup.model), prompt_tokens + output_tokens)

    @property
    def kv_link(self) -> str:
        """Where a prompt's KV crosses from a prefill replica to a decode replica: "nvlink" (the node's own
        link) when both fit in one node, else "network" (``engine.levers.disaggregation``)."""
        return "nvlink" if 2 * self.gpus_per_replica <= self.gpu.node_gpus else "network"

    def kv_transfer_seconds(self, prompt_tokens) -> np.ndarray:
        """Moving a prompt's KV cache to a decode replica: each GPU sends its share over ``kv_link``."""
        s = self.setup
        return np.asarray(kv_transfer_seconds_of(s.deployment, s.machine.efficiency,
                                                 prompt_tokens=np.asarray(prompt_tokens, dtype=np.float64),
                                                 link=self.kv_link))

    def decode_lines(self, batch: int) -> DecodeLines:
        """``DecodeLines`` for batches 0 .. at least ``batch`` (worked out once, grown as needed)."""
        if not self._lines or len(self._lines[-1].low) <= batch:
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
    s = setup_of(scenario, catalog)
    sc, lay = s.scenario, s.layout
    paged = sc.kv_allocation == "paged"
    shared = shared_prefix_tokens(sc)
    most = _most_sequences(s, batch_limit, shared)
    tokens = _replica_tokens(s, max(most, 1))
    costs = ReplicaCosts(scenario=sc, setup=s, gpus_per_replica=lay.gpus, nodes_per_replica=lay.nodes,
                         batch_limit=batch_limit, most_sequences=most,
                         kv_token_capacity=max(0, tokens - shared) * lay.data, paged=paged,
                         shared_prefix_tokens=shared, longest_context_tokens=tokens)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = (catalog, costs)
    return costs


def _replica_tokens(s: Setup, batch: int) -> int:
    """KV tokens one attention replica holds beside the weights (the draft model's too) at ``batch``'s own
    allowance; each token at the scenario's mean bytes (a sliding window's saving kept) and the draft's."""
    sc = s.scenario
    memory = plan_memory(s.deployment, batch=batch, prompt_tokens=sc.prompt_tokens, output_tokens=sc.output_tokens)
    draft_weights, draft_kv_per_token = draft_bytes_per_gpu(s)
    room = memory.capacity_bytes_per_gpu - memory.weights_bytes_per_gpu - memory.allowance_bytes_per_gpu - draft_weights
    per_token = mean_kv_bytes_per_token(s) * s.kv_share_per_gpu + draft_kv_per_token
    return max(0, math.floor(room / per_token))


def _most_sequences(s: Setup, batch_limit: int, shared: int) -> int:
    """The largest batch b (at most ``batch_limit``) whose KV fits beside the weights and b's own allowance,
    each sequence holding what its allocation holds (``held_tokens_per_sequence``: the pages of its tokens
    or its reservation) and the shared prefix held once; every attention replica holds its own."""
    replicas = s.layout.data
    held = held_tokens_per_sequence(s.scenario, s.model)

    def fitting(batch: int) -> int:
        return math.floor(max(0, _replica_tokens(s, batch) - shared) / held) * replicas

    batch = min(batch_limit, fitting(1))
    while batch > 0:                   # a larger batch needs a larger allowance (logits, activations): step down
        most = fitting(batch)
        if most >= batch:
            return batch
        batch = most
    return 0
