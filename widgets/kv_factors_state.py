"""What the KV-factor picture draws: one token's KV bytes built up factor by factor, then compared.

Qt-free. The top row is the product, term by term ("2 × 80 × 8 × 128 × 2 bytes
= 320 KiB"): each ``Factor`` is a tile with its value on top and its name
below, revealed one after another (``revealed`` counts tiles, fractional while
one fades in), then the result. Below, ``Comparison`` rows: the same model with
full multi-head attention, this model, an FP8 cache, DeepSeek-V3's latent
attention, as bars on one linear scale, each with its name and value. Every
number arrives from the engine (``engine.kv_cache.kv_factors``), every text
formatted and translated.
"""
from __future__ import annotations

from dataclasses import field

from engine.frozen import frozen

LABEL_PRIORITY = ("factor_value", "result", "factor_name", "row_name", "row_value", "title", "compare_title")


@frozen
class Factor:
    key: str                 # "kv", "layers", "kv_heads", "head_dim", "bytes", "latent", ...
    value: float             # the number itself (tests compare it with the engine's)
    value_text: str          # "80"
    name: str                # "layers"
    operator: str = "×"      # drawn before the tile (none before the first)


@frozen
class Comparison:
    key: str                 # "mha", "this", "fp8", "mla"
    name: str                # "Llama 3.1 70B, full multi-head attention"
    bytes_per_token: float
    value_text: str          # "2.5 MiB"
    current: bool = False    # the scenario's own model and cache: outlined and marked


@frozen
class KvFactorsState:
    factors: tuple[Factor, ...]
    result_text: str                      # "= 320 KiB per token"
    revealed: float = 0.0                 # tiles shown, 0..len(factors) (+1 shows the result)
    comparisons: tuple[Comparison, ...] = ()
    compare_reveal: float = 0.0           # 0..1: the bars grow from nothing
    labels: dict[str, str] = field(default_factory=dict)   # "title", "compare_title", "current_mark"

    def __hash__(self) -> int:
        return hash((self.factors, self.result_text, self.revealed, self.comparisons, self.compare_reveal,
                     tuple(sorted(self.labels.items()))))


def bar_share(state: KvFactorsState, comparison: Comparison) -> float:
    """The share of the full width ``comparison``'s bar takes (the largest row is full width)."""
    largest = max((c.bytes_per_token for c in state.comparisons), default=0.0)
    if largest <= 0:
        return 0.0
    return max(0.0, min(1.0, comparison.bytes_per_token / largest)) * max(0.0, min(1.0, state.compare_reveal))
