"""``engine plan`` against the DESIGN.md budget: under 1 s for any accepted input.

Run from the repository root: ``python benchmarks/plan_speed.py [--trials N]``. Times
each plan cold (the per-scenario step-time tables built afresh) over a spread of
inputs: named hard cases (the largest batches, the longest contexts, MoE, 16-GPU
replicas, spreads of 4, fleets near 1,024 GPUs, disaggregated) and ``--trials``
random ones drawn from the whole catalogue (seeded, so the same every run).
Refusals (targets or rates no fleet meets) are timed too. Also times the scene's
two calls, the latency curve and the per-language prices. Prints the median,
the 95th percentile and the slowest of each kind, and exits 1 if any is over 1 s.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import InputError, Scenario  # noqa: E402
from engine.catalog import default_catalog  # noqa: E402
from engine.parallel import allowed_gpu_counts  # noqa: E402
from engine.plan import Targets, Traffic, plan_fleet  # noqa: E402
from engine.plan_costs import _CACHE  # noqa: E402
from engine.plan_curve import latency_curve  # noqa: E402
from engine.plan_language import language_prices  # noqa: E402
from engine.units import format_seconds  # noqa: E402

BUDGET_SECONDS = 1.0

HARD_CASES = [   # scenario, traffic, targets, disaggregated
    (Scenario(gpu="b200", model="llama-3.1-8b", weights="fp8", kv="fp8", prompt_tokens=100, output_tokens=100),
     Traffic(5000), Targets(10.0, 1.0), False),                              # batches of thousands
    (Scenario(gpu="h200", weights="fp8", kv="fp8", prompt_tokens=100_000, output_tokens=20_000),
     Traffic(0.05, 1.0, 1.0), Targets(600.0, 0.5), False),                   # 120K-token contexts
    (Scenario(gpu="h200", model="deepseek-v3", weights="fp8", kv="fp8", gpus=8, prompt_tokens=2000,
              output_tokens=1000), Traffic(20), Targets(3.0, 0.1), True),    # MoE, disaggregated
    (Scenario(gpu="h200", model="llama-3.1-405b", weights="fp8", kv="fp8", gpus=16), Traffic(30, 4.0, 4.0),
     Targets(5.0, 0.1), False),                                              # 16-GPU replicas, wide spreads
    (Scenario(gpus=2), Traffic(500), Targets(1.0, 0.05), False),             # near 1,024 GPUs
    (Scenario(gpus=2), Traffic(300, 2.0, 2.0), Targets(2.0, 0.06), True),
    (Scenario(gpu="rtx-4090", model="qwen2.5-7b", weights="int4", kv="fp8", prompt_tokens=4000, output_tokens=50),
     Traffic(40, 1.5, 0.5), Targets(1.0, 0.05), False),
    (Scenario(gpus=2), Traffic(1e5), Targets(1.0, 0.05), False),             # refused: beyond 1,024 GPUs
    (Scenario(gpus=2), Traffic(10), Targets(1.0, 0.001), False),             # refused: below one step
]


def random_cases(trials: int, seed: int = 22):
    catalog = default_catalog()
    rng = random.Random(seed)
    for _ in range(trials):
        model = rng.choice(list(catalog.models))
        counts = [g for g in allowed_gpu_counts(catalog.model(model)) if g <= 16]
        scenario = Scenario(gpu=rng.choice(list(catalog.gpus)), model=model, weights=rng.choice(["fp16", "fp8", "int4"]),
                            kv=rng.choice(["fp16", "fp8"]), gpus=rng.choice(counts),
                            prompt_tokens=int(10 ** rng.uniform(0, 4.5)), output_tokens=int(10 ** rng.uniform(0, 3.5)),
                            mode=rng.choice(["realistic", "ideal"]))
        traffic = Traffic(10 ** rng.uniform(-2, 3), rng.choice([0, 0.5, 1.5, 4]), rng.choice([0, 0.5, 1.5, 4]),
                          rng.randrange(1000))
        yield scenario, traffic, Targets(10 ** rng.uniform(-1.5, 1.5), 10 ** rng.uniform(-2.5, 0)), rng.random() < 0.3


def cold_seconds(work) -> tuple[float, bool]:
    """Seconds of one call of ``work`` with the step-time tables cleared, and whether it was refused."""
    _CACHE.clear()
    start = time.perf_counter()
    try:
        work()
        refused = False
    except InputError:
        refused = True
    return time.perf_counter() - start, refused


def summary(name: str, seconds: list[float]) -> bool:
    if not seconds:
        return False
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    worst = ordered[-1]
    over = worst > BUDGET_SECONDS
    print(f"{name:<28} n={len(ordered):<4} median {format_seconds(statistics.median(ordered)):>9}  "
          f"p95 {format_seconds(p95):>9}  slowest {format_seconds(worst):>9}  budget {format_seconds(BUDGET_SECONDS)}  "
          f"{'OVER BUDGET' if over else 'ok'}")
    return over


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200, help="random inputs besides the hard cases")
    args = parser.parse_args()
    plan_fleet(Scenario(gpus=2), Traffic(1), Targets(1.0, 0.05))       # the catalogue loaded, as in the app
    timings = {"plans": [], "refusals": []}
    slowest = (0.0, None)
    for scenario, traffic, targets, split in [*HARD_CASES, *random_cases(args.trials)]:
        seconds, refused = cold_seconds(lambda: plan_fleet(scenario, traffic, targets, disaggregated=split))
        timings["refusals" if refused else "plans"].append(seconds)
        slowest = max(slowest, (seconds, (scenario, traffic, targets, split)), key=lambda pair: pair[0])
    scene = [cold_seconds(lambda: latency_curve(Scenario(gpus=2), Traffic(1, 1.0, 1.0), replicas))[0]
             for replicas in (1, 4, 64)]
    prices = [cold_seconds(lambda: language_prices(Scenario(gpus=2), Traffic(rate), Targets(2.0, 0.06),
                                                   {"en": 250.0, "zh": 350.0}, list_usd_per_million_input_tokens=0.5,
                                                   list_usd_per_million_output_tokens=3.0))[0] for rate in (1, 30)]
    over = summary("plan (accepted)", timings["plans"])
    over |= summary("plan (refused)", timings["refusals"])
    over |= summary("latency curve (24 points)", scene)
    over |= summary("prices per language (2)", prices)
    print(f"slowest plan: {slowest[1]}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
