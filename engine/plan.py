"""How many GPUs serve this traffic within these latency targets, and what a million tokens then costs.

``plan_fleet(scenario, traffic, targets)`` sizes a fleet of replicas, each a
copy of the scenario's deployment (its GPUs and their layout over nodes, its
precisions, mode and levers), for requests
arriving at ``traffic.requests_per_second`` (a Poisson stream), so that the 90th
percentile of the time to first token (TTFT) and of the time per output token
(TPOT) stay within ``targets``. ``python -m engine plan`` is its command line.

Method (a small serving simulator in the spirit of Vidur, over the engine's
own step times instead of profiled ones):

1. Sample the requests once for the seed (``engine.plan_simulation.sample_workload``):
   arrival times at one request per second, scaled to any rate, so every rate
   sees the same requests (common random numbers keep the search monotone),
   and prompt and output lengths (the scenario's, or log-normal around them).
2. Simulate one replica at a rate of ``requests_per_second / replicas``
   (``simulate_replica``): continuous batching at the level of single steps
   (Orca, OSDI 2022), the batch bounded by the KV cache that fits beside the
   weights (vLLM, SOSP 2023), whole prompts prefilled first (module docstring
   there; chunked prefill, Sarathi-Serve, OSDI 2024, would shorten the pauses it
   puts into decoding). A router that splits the stream at random gives each of
   n replicas a Poisson stream of rate R / n, so one replica's P90 is the fleet's.
   A router that balances load does better, so the plan errs towards more GPUs.
3. The fleet is the fewest replicas whose simulated P90s meet both targets
   (a binary search over the count; at most ``MAX_FLEET_GPUS`` GPUs).
4. Disaggregated (``disaggregated=True``; DistServe, OSDI 2024; Splitwise,
   ISCA 2024): a pool of prefill-only replicas sized for the TTFT target and a
   pool of decode-only replicas sized for the TPOT target, each of the
   scenario's layout; a request's KV cache crosses the link between them after
   its prefill, which delays its second token (``ReplicaCosts.kv_transfer_seconds``).
   The decode pool's arrivals are taken as Poisson too.

Results (``FleetPlan``): the replicas and their GPUs and nodes
(``engine.plan_costs.fleet_nodes``: a replica fills its layout's nodes, smaller ones share a node), ``batch`` (the mean number of sequences a
replica decodes together, rounded), the P90s reached, what binds, and the price.
A rate above a replica's sustained rate (``sustained_rate``: what it completes
when requests never stop waiting) is never accepted, however loose the
targets: the queue would only grow. ``binding`` asks whether a replica could
take ``plan_search.LATENCY_BOUND_SHARE`` of that sustained rate within the targets: if
not, ``"latency"`` (a target stops the replica, not the hardware); otherwise ``"memory"`` when its largest
batch is set by the KV cache that fits and its decode step still waits on
memory (more room would serve more), else ``"compute"``. In a disaggregated
fleet the pool with more replicas names it. The price spreads the
whole fleet's rent over the tokens it serves: a colocated fleet's hours are
shared between input and output tokens in the proportion of time the
simulation spent prefilling and decoding; a disaggregated fleet's prefill
pool is paid by input tokens, its decode pool by output tokens.

The scenario's levers apply (``engine.plan_costs``): a cached prefix shortens
every prefill and its pages are held once; a draft model or heads make the time
per token that of a draft-and-verify pass over the tokens it keeps, the draft's
prefill and memory included; the KV allocation sets what a request holds.

Assumptions: one stream of requests, all alike in their lengths' law; no
preemption: every request holds its whole KV cache from admission (the pages of
all its tokens, or its reservation), as TensorRT-LLM's default scheduler does
(vLLM instead admits on the pages a request holds now and recomputes the newest
when pages run out, which packs more sequences until the recomputing costs
more than it gains); speculative decoding at the mean acceptance rate; the KV
transfer over the node's link when a prefill and a decode replica fit in one
node, else over the network; ``plan_search.PLAN_REQUESTS`` requests per
simulation, of which the first and last 15% are not measured. The P90 is then
an estimate from about 1,000 requests: a different seed moves it by a few percent.

Sources: Yu et al., "Orca: A Distributed Serving System for Transformer-Based
Generative Models", OSDI 2022. Kwon et al., "Efficient Memory Management for
Large Language Model Serving with PagedAttention" (vLLM), SOSP 2023. Agrawal et
al., "Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve",
OSDI 2024. Zhong et al., "DistServe: Disaggregating Prefill and Decoding for
Goodput-optimized Large Language Model Serving", OSDI 2024 (goodput: the most
requests per second served within both P90 targets). Patel et al., "Splitwise:
Efficient Generative LLM Inference Using Phase Splitting", ISCA 2024. Agrawal
et al., "Vidur: A Large-Scale Simulation Framework for LLM Inference", MLSys 2024.
Checked against published capacity in ``tests/engine/test_plan_calibration.py``.
"""
from __future__ import annotations

from dataclasses import field

import numpy as np

from engine.errors import refusal
from engine.frozen import frozen
from engine.memory import plan_memory
from engine.plan_costs import ReplicaCosts, fleet_nodes, replica_costs
from engine.plan_search import ReplicaSearch, workload_for
from engine.plan_simulation import Workload
from engine.plan_traffic import Targets, Traffic, validate_demand
from engine.scenario import MAX_BATCH, Scenario
from engine.units import format_about, format_bytes, format_seconds

MAX_FLEET_GPUS = 1024
SECONDS_PER_HOUR = 3600.0


@frozen
class FleetPlan:
    """The smallest fleet found for a scenario, traffic and targets (module docstring)."""
    gpus: int
    replicas: int
    gpus_per_replica: int
    nodes: int
    batch: int                           # mean sequences decoded together per (decode) replica, rounded
    requests_per_second_per_gpu: float
    ttft_p90_seconds: float
    tpot_p90_seconds: float
    binding: str                         # "memory", "compute" or "latency"
    usd_per_million_input_tokens: float
    usd_per_million_output_tokens: float
    # Beyond the JSON contract:
    disaggregated: bool = False
    prefill_replicas: int = 0            # disaggregated: the prefill pool; colocated: 0
    decode_replicas: int = 0             # disaggregated: the decode pool; colocated: 0
    mean_batch: float = 0.0
    replica_capacity_requests_per_second: float = 0.0   # what one (decode) replica sustains at its largest batch
    utilisation: float = 0.0             # each (decode) replica's rate over that capacity
    most_sequences: int = 0              # the largest batch one replica holds (KV cache or batch limit)
    gpus_per_node: int = 0
    input_time_share: float = 0.0        # of the fleet's GPU time, what input tokens pay for (the rest: output)
    input_tokens_per_second: float = 0.0   # the traffic's input tokens (rate × mean prompt)
    output_tokens_per_second: float = 0.0
    model_name: str = ""
    gpu_name: str = ""
    scenario: Scenario | None = field(default=None, compare=False, repr=False)
    traffic: Traffic | None = field(default=None, compare=False, repr=False)
    targets: Targets | None = field(default=None, compare=False, repr=False)

    JSON_KEYS = ("gpus", "replicas", "gpus_per_replica", "nodes", "batch", "requests_per_second_per_gpu",
                 "ttft_p90_seconds", "tpot_p90_seconds", "binding", "usd_per_million_input_tokens",
                 "usd_per_million_output_tokens")

    def to_json_dict(self) -> dict:
        """The contract's JSON object: exactly ``JSON_KEYS``, in that order."""
        return {key: getattr(self, key) for key in self.JSON_KEYS}


def plan_fleet(scenario: Scenario, traffic: Traffic, targets: Targets, *, disaggregated: bool = False,
               batch_limit: int | None = None, catalog=None) -> FleetPlan:
    """The fewest replicas of ``scenario``'s layout that serve ``traffic`` within ``targets``.

    ``scenario.batch`` is not used: the plan finds the batch. ``batch_limit`` caps it (a serving
    stack's most sequences at once; default: as many as fit). Raises ``InputError`` for bad input
    and for targets or rates no fleet of at most ``MAX_FLEET_GPUS`` GPUs can meet.
    """
    traffic, targets = validate_demand(traffic, targets)
    costs = replica_costs(scenario, catalog, MAX_BATCH if batch_limit is None else _batch_limit(batch_limit))
    refuse_unless_a_request_fits(costs)
    workload = workload_for(costs, traffic)
    _refuse_unreachable(costs, workload, targets, disaggregated)
    most_replicas = MAX_FLEET_GPUS // costs.gpus_per_replica
    kinds = ("prefill", "decode") if disaggregated else ("colocated",)
    if disaggregated and workload.output_tokens.max() <= 1:
        kinds = ("prefill",)                 # nothing to decode: the first token is the whole answer
    pools = [ReplicaSearch(costs, workload, targets, kind) for kind in kinds]
    for pool in pools:
        pool.fewest_replicas(traffic.requests_per_second, most_replicas)
    if not all(pool.replicas for pool in pools) or sum(pool.replicas for pool in pools) > most_replicas:
        _refuse_rate(pools, traffic.requests_per_second, most_replicas)
    return _plan(costs, traffic, targets, pools, workload)


def _batch_limit(value) -> int:
    from engine.scenario import _whole_number   # the batch's own range and sentence
    return _whole_number(value, "batch")


def _binding(costs: ReplicaCosts, kind: str, hardware_bound: bool) -> str:
    if not hardware_bound:
        return "latency"
    sc = costs.scenario
    kv_sets_batch = costs.most_sequences < costs.batch_limit
    waits_on_memory = costs.decode_bound(max(costs.most_sequences, 1),
                                         sc.prompt_tokens + (sc.output_tokens - 1) / 2) == "memory"
    return "memory" if kind != "prefill" and kv_sets_batch and waits_on_memory else "compute"


def _plan(costs: ReplicaCosts, traffic: Traffic, targets: Targets, pools: list[ReplicaSearch],
          workload: Workload) -> FleetPlan:
    """The plan for ``pools`` (one colocated pool, or a prefill and a decode pool), each already sized."""
    by_kind = {pool.kind: pool for pool in pools}
    rate, g = traffic.requests_per_second, costs.gpus_per_replica
    replicas = sum(pool.replicas for pool in pools)
    gpus = replicas * g
    first = by_kind.get("prefill") or by_kind["colocated"]
    decoder = by_kind.get("decode") or by_kind.get("colocated")
    binding_pool = max(pools, key=lambda pool: (pool.replicas, pool.kind != "prefill"))   # the larger names it
    usd_per_second = costs.scenario.usd_per_gpu_hour / SECONDS_PER_HOUR
    if "colocated" in by_kind:
        run = by_kind["colocated"].run
        busy = run.prefill_busy_seconds + run.decode_busy_seconds
        input_share = run.prefill_busy_seconds / busy if busy > 0 else 0.5
    else:
        input_share = by_kind["prefill"].replicas / replicas
    input_tokens = rate * float(np.mean(workload.prompt_tokens))
    output_tokens = rate * float(np.mean(workload.output_tokens))
    mean_batch = decoder.run.mean_batch if decoder else 0.0
    return FleetPlan(
        gpus=gpus, replicas=replicas, gpus_per_replica=g, nodes=fleet_nodes(costs.gpu, g, replicas, costs.nodes_per_replica),
        batch=max(1, min(round(mean_batch), max(costs.most_sequences, 1))),
        requests_per_second_per_gpu=rate / gpus,
        ttft_p90_seconds=first.run.ttft_percentile(),
        tpot_p90_seconds=decoder.run.tpot_percentile() if decoder else 0.0,
        binding=_binding(costs, binding_pool.kind, binding_pool.hardware_bound(rate)),
        usd_per_million_input_tokens=gpus * usd_per_second * input_share / input_tokens * 1e6,
        usd_per_million_output_tokens=gpus * usd_per_second * (1 - input_share) / output_tokens * 1e6,
        disaggregated="colocated" not in by_kind,
        prefill_replicas=by_kind["prefill"].replicas if "prefill" in by_kind else 0,
        decode_replicas=by_kind["decode"].replicas if "decode" in by_kind else 0,
        mean_batch=mean_batch, replica_capacity_requests_per_second=binding_pool.sustained,
        utilisation=rate / binding_pool.replicas / binding_pool.sustained, most_sequences=costs.most_sequences,
        gpus_per_node=costs.gpu.node_gpus, input_time_share=input_share, input_tokens_per_second=input_tokens,
        output_tokens_per_second=output_tokens,
        model_name=costs.setup.model.name, gpu_name=costs.gpu.name,
        scenario=costs.scenario, traffic=traffic, targets=targets)


# ----------------------------------------------------------------------------- refusals

def zero_load_floors(costs: ReplicaCosts, workload: Workload, disaggregated: bool = False) -> tuple[float, float]:
    """The P90 TTFT and TPOT of the requests each served alone: what no fleet can beat."""
    measured = workload.measured
    prompts, outputs = workload.prompt_tokens[measured], workload.output_tokens[measured]
    ttft = [costs.prefill_seconds(1, int(p)) for p in prompts]
    decoding = outputs > 1
    if not decoding.any():
        return float(np.percentile(ttft, 90)), 0.0
    p, o = prompts[decoding], outputs[decoding]
    tpot = costs.decode_step_seconds(1, p + (o - 2) / 2)      # the mean step of each request's own contexts
    if disaggregated:
        tpot = tpot + costs.kv_transfer_seconds(p) / (o - 1)
    return float(np.percentile(ttft, 90)), float(np.percentile(tpot, 90))


def refuse_unless_a_request_fits(costs: ReplicaCosts) -> None:
    """Refuse a replica that cannot hold its weights, or beside them the KV cache of one request."""
    sc = costs.scenario
    where = {"gpus": sc.gpus, "gpu": costs.gpu.name, "model": costs.setup.model.name}
    if costs.most_sequences >= 1:
        return
    memory = plan_memory(costs.setup.deployment, batch=1, prompt_tokens=sc.prompt_tokens,
                         output_tokens=sc.output_tokens)
    needed = memory.weights_bytes_per_gpu + memory.allowance_bytes_per_gpu
    if needed >= memory.capacity_bytes_per_gpu:
        raise refusal("plan.weights_do_not_fit", {**where, "weights": format_bytes(needed),
                                                  "memory": format_bytes(memory.capacity_bytes_per_gpu)})
    raise refusal("plan.does_not_fit", {**where, "context": sc.prompt_tokens + sc.output_tokens})


def _refuse_unreachable(costs, workload, targets, disaggregated) -> None:
    sc = costs.scenario
    where = {"gpus": sc.gpus, "gpu": costs.gpu.name, "model": costs.setup.model.name}
    ttft_floor, tpot_floor = zero_load_floors(costs, workload, disaggregated)
    if targets.ttft_p90_seconds < ttft_floor:
        raise refusal("plan.ttft_unreachable", {**where, "got": targets.ttft_p90_seconds,
                                                "floor": format_seconds(ttft_floor), "floor_seconds": ttft_floor})
    if targets.tpot_p90_seconds < tpot_floor:
        raise refusal("plan.tpot_unreachable", {**where, "got": targets.tpot_p90_seconds,
                                                "floor": format_seconds(tpot_floor), "floor_seconds": tpot_floor})


def _refuse_rate(pools: list[ReplicaSearch], rate: float, most_replicas: int) -> None:
    """Refuse ``rate``: it needs more than ``MAX_FLEET_GPUS`` GPUs; say about how much they do serve."""
    replicas_per_request = sum(1.0 / pool.largest_ok_rate(rate / most_replicas * 1e-3, rate / most_replicas)
                               for pool in pools)
    most = most_replicas / replicas_per_request
    raise refusal("plan.too_many_gpus", {"rate": rate, "high": MAX_FLEET_GPUS, "most": format_about(most),
                                         "most_requests_per_second": most})


__all__ = ["FleetPlan", "Targets", "Traffic", "plan_fleet", "zero_load_floors"]
