"""``python -m engine plan``: the fleet for a traffic and its latency targets (``engine.plan``), from a terminal.

    python -m engine plan [--gpu H800 --model llama-3.1-70b --weights fp16 --kv fp16 --gpus 2
        --prompt 1000 --output 500 --mode realistic --usd-per-gpu-hour 2.0 --batch N]
        --rate R --ttft-slo S --tpot-slo S [--prompt-spread CV] [--output-spread CV] [--seed N]
        [--disaggregated] [--json]

The scenario's options are ``report``'s, except ``--batch``: here the most
sequences one replica may decode together (default: as many as fit).
"""
from __future__ import annotations

import argparse
import json

from engine.cli_input import BadUsage
from engine.cli_parsing import add_scenario_options, catalog_with_warnings, finite, number_option, scenario_from, \
    terminal_text
from engine.plan_traffic import MAX_REQUESTS_PER_SECOND, MAX_SEED, MAX_SPREAD, MAX_TARGET_SECONDS, Targets, Traffic
from engine.units import format_count

_POSITIVE = "a number above 0 and at most {high}"


def add_plan_command(commands) -> None:
    p = commands.add_parser(
        "plan", help="size a fleet for a request rate within P90 latency targets",
        description="Size the smallest fleet of replicas (each the scenario's GPUs) that serves a Poisson stream "
                    "of requests within P90 targets for the first token and the time per token, by simulating "
                    "continuous batching over the engine's own step times.")
    add_scenario_options(p, batch_help="the most sequences one replica decodes together (default: as many as fit)",
                         batch_default=None)
    for option, dest, allowed, whole, text in (
            ("--rate", "rate", _POSITIVE.format(high=format_count(MAX_REQUESTS_PER_SECOND)) + " requests per second",
             False, "requests per second, arriving as a Poisson stream (required)"),
            ("--ttft-slo", "ttft_slo", _POSITIVE.format(high=format_count(MAX_TARGET_SECONDS)) + " seconds", False,
             "P90 target for the time to the first token, seconds (required)"),
            ("--tpot-slo", "tpot_slo", _POSITIVE.format(high=format_count(MAX_TARGET_SECONDS)) + " seconds", False,
             "P90 target for the time per output token after the first, seconds (required)"),
            ("--prompt-spread", "prompt_spread", f"a number from 0 to {format_count(MAX_SPREAD)}", False,
             "spread of prompt lengths as a coefficient of variation (log-normal; default: 0, all alike)"),
            ("--output-spread", "output_spread", f"a number from 0 to {format_count(MAX_SPREAD)}", False,
             "spread of output lengths as a coefficient of variation (log-normal; default: 0, all alike)"),
            ("--seed", "seed", f"a whole number from 0 to {format_count(MAX_SEED)}", True,
             "seed of the simulated requests (default: 0); the same seed gives the same plan")):
        p.value_option(option, allowed, dest=dest, type=number_option(p, option, dest, allowed, whole), help=text)
    p.add_argument("--disaggregated", action="store_true",
                   help="separate prefill and decode pools, the KV cache moved over the link between them")
    p.add_argument("--json", action="store_true", help="print the plan as JSON (SI units)")
    p.set_defaults(run=run_plan)


def run_plan(args: argparse.Namespace, catalog=None) -> int:
    from engine.plan import plan_fleet
    from engine.plan_text import plan_as_text

    catalog = catalog_with_warnings(catalog)
    for option, value in (("--rate R", args.rate), ("--ttft-slo S", args.ttft_slo), ("--tpot-slo S", args.tpot_slo)):
        if value is None:
            raise BadUsage(f"A plan needs {option}; see 'python -m engine plan --help'.")
    traffic = Traffic(requests_per_second=args.rate, prompt_spread=_or(args.prompt_spread, 0.0),
                      output_spread=_or(args.output_spread, 0.0), seed=_or(args.seed, 0))
    targets = Targets(ttft_p90_seconds=args.ttft_slo, tpot_p90_seconds=args.tpot_slo)
    plan = plan_fleet(scenario_from(args), traffic, targets, disaggregated=args.disaggregated,
                      batch_limit=args.batch, catalog=catalog)
    if args.json:
        print(json.dumps(finite(plan.to_json_dict()), indent=2, allow_nan=False))
    else:
        print(terminal_text(plan_as_text(plan)))
    return 0


def _or(value, default):
    return default if value is None else value
