"""The machine probe against DESIGN.md: prediction within 35% of measurement, the whole probe under 60 s.

Run from the repository root on a quiet machine: ``python benchmarks/probe.py
[--model ID] [--memory-mb N]``. Runs the full probe (the CPU, and a GPU where
CuPy or PyTorch finds one), prints the measured figures and, for the decode step
and the prefill pass of each device, the measured time against the predicted
one. Exits 1 if the CPU's decode or prefill is more than 35% away from its
prediction, or the probe took more than 60 s. A GPU's agreement is printed,
not judged: a kernel launch per matrix dominates its decode step (see
``engine.probe``).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.probe import probe_machine  # noqa: E402
from engine.probe_result import result_as_text  # noqa: E402
from engine.units import format_percent, format_seconds  # noqa: E402

AGREEMENT = 0.35           # |measured / predicted - 1| on a quiet machine
BUDGET_SECONDS = 60.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=None)
    parser.add_argument("--memory-mb", type=float, default=None)
    args = parser.parse_args()
    budget = None if args.memory_mb is None else round(args.memory_mb * 1_000_000)
    result = probe_machine(args.model, memory_budget_bytes=budget)
    print(result_as_text(result))
    print()
    over = False
    devices = [("cpu", result.cpu, True)] + ([("gpu", result.accelerator, False)] if result.accelerator else [])
    for label, device, judged in devices:
        for phase, measured in (("decode", device.decode), ("prefill", device.prefill)):
            off = measured.measured_seconds / measured.predicted_seconds - 1
            verdict = ("ok" if abs(off) <= AGREEMENT else "DISAGREES") if judged else "(not judged)"
            over |= judged and abs(off) > AGREEMENT
            print(f"{label} {phase:<8} predicted {format_seconds(measured.predicted_seconds):>9}   "
                  f"measured {format_seconds(measured.measured_seconds):>9}   "
                  f"off by {format_percent(abs(off)):>6}   allowed {format_percent(AGREEMENT)}   {verdict}"
                  + (f"   (the BLAS had {format_percent(measured.core_share)} of its cores)" if measured.core_share else ""))
    if result.busy:
        print(f"the machine was busy (the BLAS had {format_percent(result.cpu.core_share)} of its cores at times): "
              f"run this again when it is quiet")
    slow = result.probe_seconds > BUDGET_SECONDS
    print(f"whole probe {format_seconds(result.probe_seconds)}   budget {format_seconds(BUDGET_SECONDS)}   "
          f"{'OVER BUDGET' if slow else 'ok'}")
    return 1 if over or slow else 0


if __name__ == "__main__":
    sys.exit(main())
