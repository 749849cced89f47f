"""What the engine answers: one immutable ``Report`` per ``Scenario``.

The JSON form (``Report.to_json_dict``) is a stable contract (DESIGN.md):
SI units throughout (bytes, seconds, FLOP, US dollars). ``engine.compute``
fills it in; the formulas behind each field are in the module named beside it:
memory (``engine.memory``, ``engine.kv_cache``, ``engine.parameters``), the two
phases (``engine.passes``, ``engine.roofline``, ``engine.efficiency``), the
request (``engine.request``), prices (``engine.cost``).
"""
from __future__ import annotations

from dataclasses import dataclass, asdict, field

from engine.catalog_types import Gpu, Model, Precision
from engine.levers.speculative import SpeculativeReport
from engine.scenario import Scenario


@dataclass(frozen=True)
class PrefillReport:
    flops: float            # whole prompt, whole batch
    bytes: float            # HBM traffic of the prefill pass, all GPUs together
    seconds: float
    bound: str              # "compute" or "memory"
    utilisation: float      # share of peak FLOPS reached, 0..1
    # Beyond the JSON contract: the two roofline terms, at the mode's efficiencies.
    compute_seconds: float = 0.0   # FLOPs / (gpus x peak x compute share)
    memory_seconds: float = 0.0    # HBM bytes per GPU / (bandwidth x bandwidth share)
    allreduce_seconds: float = 0.0 # tensor-parallel communication of the pass (engine.parallel)
    flops_per_byte = property(lambda self: self.flops / self.bytes)   # arithmetic intensity of the pass


@dataclass(frozen=True)
class DecodeReport:
    flops_per_token: float        # per generated token (a step's FLOP / batch), at the mean context
    bytes_per_token: float        # per generated token (a step's HBM bytes / batch), at the mean context
    seconds_per_token: float      # one decode step = time between two tokens of one sequence, at the mean context
    bound: str                    # "compute" or "memory"
    utilisation: float            # share of peak FLOPS reached, 0..1
    # Beyond the JSON contract: the two roofline terms of one step, at the mode's efficiencies.
    compute_seconds: float = 0.0
    memory_seconds: float = 0.0
    context_tokens: float = 0.0   # tokens cached per sequence at the step described (the mean context)
    flops_per_byte = property(lambda self: self.flops_per_token / self.bytes_per_token)   # arithmetic intensity


@dataclass(frozen=True)
class Report:
    weights_bytes: float
    weights_bytes_per_gpu: float
    kv_bytes_per_token: float          # one token of one sequence, all layers, K and V
    kv_bytes: float                    # batch x (prompt + output) tokens, each token's K and V counted once
    hbm_bytes_per_gpu: float           # the GPU's HBM capacity (the full length of a memory bar)
    free_bytes_per_gpu: float          # capacity - weights - KV - allowance; negative: short by that much
    fits: bool
    ridge_flops_per_byte: float
    prefill: PrefillReport
    decode: DecodeReport
    ttft_seconds: float
    tpot_seconds: float                # mean time per output token after the first: decode time / (output - 1)
    total_seconds: float
    decode_share: float                # share of total_seconds spent decoding, 0..1
    usd_per_million_input_tokens: float
    usd_per_million_output_tokens: float
    # Beyond the JSON contract: useful to scenes, not part of --json.
    overhead_bytes_per_gpu: float = 0.0      # the stated runtime + activation allowance (engine.memory)
    max_context_tokens: int = 0              # longest context each sequence can reach at this batch
    max_sequences: int = 0                   # most sequences of prompt+output tokens that fit
    allreduce_seconds_per_step: float = 0.0  # tensor-parallel communication in one decode step
    kv_bytes_per_gpu: float = 0.0            # each GPU's share of the KV cache (heads split or replicated)
    used_bytes_per_gpu: float = 0.0          # weights + KV + allowance on each GPU
    parameters: float = 0.0                  # all parameters, computed from the config (MoE: all experts)
    active_parameters: float = 0.0           # parameters one token uses (MoE: top-k + shared experts)
    peak_flops_per_gpu: float = 0.0          # the peak the matmuls run at
    compute_precision: str = ""              # whose peak that is ("fp8", "fp16", ...)
    weight_only: bool = False                # the GPU lacks the weights' own peak: matmuls at FP16/BF16
    decode_seconds: float = 0.0              # all decode steps together (total - ttft)
    output_to_input_price_ratio: float = 0.0  # how many times an output token costs an input token
                                              # (from times, so defined even at a price of 0)
    # Levers (engine.levers), in the JSON contract: the most sequences of this length that fit under the
    # scenario's KV allocation, and what speculative decoding does (None when it is off).
    max_batch: int = 0
    speculative: SpeculativeReport | None = None
    # What the report was computed from (beyond the JSON contract, not compared or hashed):
    # the validated scenario and its catalogue entries, so a scene never looks them up twice.
    scenario: Scenario | None = field(default=None, compare=False, repr=False)
    gpu: Gpu | None = field(default=None, compare=False, repr=False)
    model: Model | None = field(default=None, compare=False, repr=False)
    weights_precision: Precision | None = field(default=None, compare=False, repr=False)
    kv_precision: Precision | None = field(default=None, compare=False, repr=False)

    JSON_KEYS = (
        "weights_bytes", "weights_bytes_per_gpu", "kv_bytes_per_token", "kv_bytes",
        "hbm_bytes_per_gpu", "free_bytes_per_gpu", "fits", "ridge_flops_per_byte",
        "prefill", "decode", "ttft_seconds", "tpot_seconds", "total_seconds",
        "decode_share", "usd_per_million_input_tokens", "usd_per_million_output_tokens",
        "max_batch", "speculative",
    )

    # Byte counts the JSON gives as whole numbers (ints): memory is counted in whole bytes, and a
    # fraction (an average over MoE experts or over a batch) says nothing a person could use.
    # Seconds, FLOP, shares and dollars stay floats.
    JSON_WHOLE_BYTES = ("weights_bytes", "weights_bytes_per_gpu", "kv_bytes_per_token", "kv_bytes",
                        "hbm_bytes_per_gpu", "free_bytes_per_gpu", "prefill.bytes", "decode.bytes_per_token")

    def to_json_dict(self) -> dict:
        """The contract's JSON object: exactly ``JSON_KEYS``, in that order; byte counts rounded to whole bytes."""
        out = {key: getattr(self, key) for key in self.JSON_KEYS}
        prefill, decode = asdict(self.prefill), asdict(self.decode)
        out["prefill"] = {k: prefill[k] for k in ("flops", "bytes", "seconds", "bound")}
        out["decode"] = {k: decode[k] for k in
                         ("flops_per_token", "bytes_per_token", "seconds_per_token", "bound")}
        out["speculative"] = None if self.speculative is None else self.speculative.to_json_dict()
        for path in self.JSON_WHOLE_BYTES:
            *parent, key = path.split(".")
            table = out[parent[0]] if parent else out
            table[key] = round(table[key])
        return out
