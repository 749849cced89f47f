"""The question the user asks: one immutable ``Scenario``.

A control in the desktop changes a field with ``dataclasses.replace``; the
engine turns the scenario into a ``Report``. Validation (ids that exist,
counts and lengths in range) happens in ``engine.report.compute_report``
through ``validate_scenario`` so that every entry point gives the same sentence.
"""
from __future__ import annotations

from dataclasses import dataclass

MODES = ("ideal", "realistic")


@dataclass(frozen=True)
class Scenario:
    gpu: str = "h800"
    model: str = "llama-3.1-70b"
    weights: str = "fp16"            # precision id of the weights
    kv: str = "fp16"                 # precision id of the KV cache
    gpus: int = 1                    # tensor-parallel degree
    batch: int = 1                   # sequences decoded together
    prompt_tokens: int = 1000
    output_tokens: int = 500
    usd_per_gpu_hour: float = 2.0
    mode: str = "realistic"          # "ideal": pure roofline at 100% of peak; "realistic": documented efficiencies
