"""A fleet plan as readable text with units, for the CLI (all numbers through ``engine.units``)."""
from __future__ import annotations

from engine.plan import FleetPlan
from engine.plan_search import LATENCY_BOUND_SHARE
from engine.units import format_count, format_number, format_percent, format_seconds, format_usd

LABEL_WIDTH = 16

_BINDING = {
    "latency": "the latency targets: they keep each replica below {share} of what it sustains "
               "(it runs at {use})",
    "memory": "memory: the KV cache that fits caps the batch at {most} sequences while decoding still waits "
              "on HBM (replicas at {use} of what they sustain)",
    "compute": "compute: the GPUs' own speed (replicas at {use} of what they sustain)",
}


def _line(label: str, text: str) -> str:
    return f"  {label:<{LABEL_WIDTH}}{text}"


def _count(n: int, one: str, many: str) -> str:
    return f"{format_count(n)} {one if n == 1 else many}"


def plan_as_text(plan: FleetPlan) -> str:
    """The plan in a few lines: fleet, batch, load per GPU, P90s reached, what binds, price."""
    sc, traffic, targets = plan.scenario, plan.traffic, plan.targets
    layout = f"{_count(plan.gpus_per_replica, 'GPU', 'GPUs')} each"
    if plan.disaggregated:
        fleet = (f"{format_count(plan.prefill_replicas)} prefill + {format_count(plan.decode_replicas)} decode "
                 f"replicas × {layout}")
    else:
        fleet = f"{_count(plan.replicas, 'replica', 'replicas')} × {layout}"
    spread = ""
    if traffic.prompt_spread or traffic.output_spread:
        spread = (f" (spread {format_number(traffic.prompt_spread)} and {format_number(traffic.output_spread)}, "
                  f"seed {format_count(traffic.seed)})")
    lines = [
        f"Fleet for {format_number(traffic.requests_per_second)} requests/s of {plan.model_name} on {plan.gpu_name} "
        f"({sc.weights} weights, {sc.kv} KV cache, {sc.mode} mode)",
        f"prompt {format_count(sc.prompt_tokens)} and output {format_count(sc.output_tokens)} tokens{spread}; "
        f"P90 targets: first token {format_seconds(targets.ttft_p90_seconds)}, "
        f"{format_seconds(targets.tpot_p90_seconds)} per token",
        "",
        _line("fleet", f"{fleet} = {_count(plan.gpus, 'GPU', 'GPUs')} on {_count(plan.nodes, 'node', 'nodes')} "
                       f"({format_count(plan.gpus_per_node)} GPUs per node)"),
        _line("batch", f"{_count(plan.batch, 'sequence', 'sequences')} decoded together per replica on average "
                       f"(at most {format_count(plan.most_sequences)})"),
        _line("load", f"{format_number(plan.requests_per_second_per_gpu)} requests/s per GPU"),
        _line("P90 reached", f"first token {format_seconds(plan.ttft_p90_seconds)}, "
                             f"{format_seconds(plan.tpot_p90_seconds)} per token"),
        _line("binding", _BINDING[plan.binding].format(use=format_percent(plan.utilisation, 2),
                                                       share=format_percent(LATENCY_BOUND_SHARE, 2),
                                                       most=format_count(plan.most_sequences))),
        _line("price", f"{format_usd(plan.usd_per_million_input_tokens)} per million input tokens, "
                       f"{format_usd(plan.usd_per_million_output_tokens)} per million output tokens "
                       f"at {format_usd(sc.usd_per_gpu_hour)} per GPU-hour"),
        "",
        "Simulated: Poisson arrivals, whole prompts prefilled first, then continuous batching over the engine's "
        "step times (engine/plan.py).",
    ]
    return "\n".join(lines)
