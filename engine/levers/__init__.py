"""The acceleration levers: what each buys, what it costs, and where it stops paying.

Three kinds, as the tutorial frames them:

1. fewer bytes on the belt: weight and KV precision (``kv_precision`` for long context);
2. work for the waiting worker: batching, speculative decoding (``speculative``);
3. a smarter belt: paged KV (``kv_allocation``), prefix caching (``prefix_cache``),
   FlashAttention (``flash_attention``), KV offloading to host memory (``offload``),
   prefill/decode disaggregation (``disaggregation``).

Speculative decoding, prefix caching and KV allocation are scenario fields
(``fields``) and change the report itself (``on_report``); the others are
what-ifs on a report. ``outcome.lever_outcome`` and ``outcome.stacked`` give the
five figures a scene shows for each (time per output token, first-token time,
tokens/s per GPU, price per million output tokens, sequences that fit), base
against lever, with what it costs and where it stops paying.

This package's ``__init__`` imports nothing eagerly: ``engine.scenario`` imports
``engine.levers.fields``, and the modules that compute import the scenario back.
"""
from __future__ import annotations

import importlib

_EXPORTS = {"lever_outcome": "outcome", "stacked": "outcome", "LeverOutcome": "outcome",
            "LeverFigures": "outcome", "LEVERS": "outcome"}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"engine.levers.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'engine.levers' has no attribute {name!r}")
