"""``python -m engine probe [--model ID] [--memory-mb N] [--cpu-only] [--json]``: measure this machine.

The command's pair for ``engine.cli`` (its ``COMMANDS`` lists ``add_probe_command``),
kept in a module of its own so that the CLI stays one idea per module. The probe
(``engine.probe``) takes a few seconds; its figures go to standard output only
once every one of them is measured, and a probe that cannot run prints its one
sentence on stderr and exits 2 (``engine.cli.main``).
"""
from __future__ import annotations

import argparse
import json
import math


def add_probe_command(commands) -> None:
    p = commands.add_parser("probe", help="measure this machine: memory bandwidth, compute, a decode step, a prefill",
                            description="Measure this machine's memory bandwidth and compute, then predict a real "
                                        "model's decode step and prefill pass from them and time both "
                                        "(random weights of the real shapes; nothing is downloaded).")
    p.value_option("--model", "a dense model id such as llama-2-7b", metavar="ID",
                   help="the model whose shapes to run (default: Qwen3-0.6B or Llama 3.2 1B where the "
                        "catalogue has them, else its smallest dense model)")
    p.value_option("--memory-mb", "a number of megabytes such as 256", metavar="N",
                   help="the most memory the probe's arrays may take at once, in megabytes (default: four "
                        "times the last-level cache, 256 to 384, at most a quarter of the free memory)")
    p.add_argument("--cpu-only", action="store_true", help="measure the CPU only, even where a GPU is found")
    p.add_argument("--json", action="store_true", help="print the figures as JSON (SI units)")
    p.set_defaults(run=run_probe)


def _budget_bytes(text: str | None):
    """--memory-mb as bytes; text that is no finite number is handed on as typed, for the refusal to name."""
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        return text
    return round(value * 1_000_000) if math.isfinite(value) else text


def run_probe(args: argparse.Namespace, catalog=None) -> int:
    from engine.cli_parsing import catalog_with_warnings, finite, terminal_text
    from engine.probe import probe_machine
    from engine.probe_result import result_as_text

    catalog = catalog_with_warnings(catalog)
    result = probe_machine(args.model, catalog=catalog, memory_budget_bytes=_budget_bytes(args.memory_mb),
                           accelerators=not args.cpu_only)
    if args.json:
        print(json.dumps(finite(result.to_json_dict()), indent=2, ensure_ascii=False, allow_nan=False))
    else:
        print(terminal_text(result_as_text(result)))
    return 0
