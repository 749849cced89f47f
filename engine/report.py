"""What the engine answers: one immutable ``Report`` per ``Scenario``.

The JSON form (``Report.to_json_dict``) is a stable contract (DESIGN.md):
SI units throughout (bytes, seconds, FLOP, US dollars).
"""
from __future__ import annotations

from dataclasses import dataclass, asdict


@dataclass(frozen=True)
class PrefillReport:
    flops: float            # whole prompt, whole batch
    bytes: float            # HBM traffic of the prefill pass, all GPUs together
    seconds: float
    bound: str              # "compute" or "memory"
    utilisation: float      # share of peak FLOPS reached, 0..1


@dataclass(frozen=True)
class DecodeReport:
    flops_per_token: float        # per generated token (a step's FLOP / batch), at the mean context
    bytes_per_token: float        # per generated token (a step's HBM bytes / batch), at the mean context
    seconds_per_token: float      # one decode step = time between two tokens of one sequence, at the mean context
    bound: str                    # "compute" or "memory"
    utilisation: float            # share of peak FLOPS reached, 0..1


@dataclass(frozen=True)
class Report:
    weights_bytes: float
    weights_bytes_per_gpu: float
    kv_bytes_per_token: float          # one token of one sequence, all layers, K and V
    kv_bytes: float                    # batch x (prompt + output) tokens, all GPUs together
    hbm_bytes_per_gpu: float
    free_bytes_per_gpu: float          # negative: short by that much
    fits: bool
    ridge_flops_per_byte: float
    prefill: PrefillReport
    decode: DecodeReport
    ttft_seconds: float
    tpot_seconds: float                # mean time per output token over the whole output
    total_seconds: float
    decode_share: float                # share of total_seconds spent decoding, 0..1
    usd_per_million_input_tokens: float
    usd_per_million_output_tokens: float
    # Beyond the JSON contract: useful to scenes, not part of --json.
    overhead_bytes_per_gpu: float = 0.0      # the stated runtime + activation allowance
    max_context_tokens: int = 0              # longest context one sequence can have at this batch
    max_sequences: int = 0                   # most sequences of prompt+output tokens that fit
    allreduce_seconds_per_step: float = 0.0  # tensor-parallel communication in one decode step

    JSON_KEYS = (
        "weights_bytes", "weights_bytes_per_gpu", "kv_bytes_per_token", "kv_bytes",
        "hbm_bytes_per_gpu", "free_bytes_per_gpu", "fits", "ridge_flops_per_byte",
        "prefill", "decode", "ttft_seconds", "tpot_seconds", "total_seconds",
        "decode_share", "usd_per_million_input_tokens", "usd_per_million_output_tokens",
    )

    @property
    def output_to_input_price_ratio(self) -> float:
        return self.usd_per_million_output_tokens / self.usd_per_million_input_tokens

    def to_json_dict(self) -> dict:
        """The contract's JSON object: exactly ``JSON_KEYS``, in that order."""
        full = asdict(self)
        out = {key: full[key] for key in self.JSON_KEYS}
        out["prefill"] = {k: full["prefill"][k] for k in ("flops", "bytes", "seconds", "bound")}
        out["decode"] = {k: full["decode"][k] for k in
                         ("flops_per_token", "bytes_per_token", "seconds_per_token", "bound")}
        return out
