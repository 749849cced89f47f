"""Engine speed against the DESIGN.md budgets: one full report < 0.2 ms; a 1..131072 context sweep < 5 ms.

Run from the repository root: ``python benchmarks/engine_speed.py``. Prints the
median of many runs for each and exits 1 if either is over its budget.
"""
from __future__ import annotations

import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Scenario, compute_report, sweep  # noqa: E402
from engine.units import format_seconds  # noqa: E402

REPORT_BUDGET_SECONDS = 0.2e-3
SWEEP_BUDGET_SECONDS = 5e-3


def median_seconds(work, repeats: int, inner: int) -> float:
    """Median over ``repeats`` timings of ``inner`` back-to-back calls, per call."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            work()
        times.append((time.perf_counter() - start) / inner)
    return statistics.median(times)


def main() -> int:
    # Different scenarios in turn, so nothing can be answered from a cache of whole reports.
    scenarios = [replace(Scenario(), model=m, weights=w, gpus=g, batch=b, prompt_tokens=p)
                 for m, w, g, b, p in (("llama-3.1-70b", "fp8", 1, 1, 1000), ("deepseek-v3", "fp8", 8, 32, 4000),
                                       ("mixtral-8x7b", "fp16", 2, 8, 2000), ("llama-3.1-8b", "bf16", 1, 64, 500))]
    compute_report(scenarios[0])                      # load the catalogue once, as the app does at start-up
    turn = iter(range(10 ** 9))

    def one_report():
        compute_report(scenarios[next(turn) % len(scenarios)])

    contexts = sweep.context_tokens(131072)

    def one_sweep():
        sweep.decode_step_seconds_for_contexts(scenarios[1], contexts)
        sweep.kv_bytes_for_contexts(scenarios[1], contexts)

    report_seconds = median_seconds(one_report, repeats=31, inner=200)
    sweep_seconds = median_seconds(one_sweep, repeats=31, inner=5)
    over = False
    for name, seconds, budget in (("one full report", report_seconds, REPORT_BUDGET_SECONDS),
                                  ("1..131072-token sweep", sweep_seconds, SWEEP_BUDGET_SECONDS)):
        verdict = "ok" if seconds <= budget else "OVER BUDGET"
        over |= seconds > budget
        print(f"{name:<24} median {format_seconds(seconds):>9}   budget {format_seconds(budget):>7}   {verdict}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
