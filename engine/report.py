"""What the engine answers: one immutable ``Report`` per ``Scenario``.

The JSON form (``Report.to_json_dict``) is a stable contract (DESIGN.md):
SI units throughout (bytes, seconds, FLOP, US dollars). ``engine.compute``
fills it in; the formulas behind each field are in the module named beside it:
memory (``engine.memory``, ``engine.kv_cache``, ``engine.parameters``), the two
phases (``engine.passes``, ``engine.roofline``, ``engine.efficiency``), the
request (``engine.request``), prices (``engine.cost``).
"""
from __future__ import annotations

from dataclasses import asdict, field
from typing import TYPE_CHECKING

from engine.catalog_types import Gpu, Model, Precision
from engine.frozen import frozen
from engine.layout import Layout
from engine.levers.kv_allocation import SequenceFit
from engine.scenario import Scenario

if TYPE_CHECKING:       # made only when speculative decoding is on: a report without it never imports the lever
    from engine.levers.speculative import SpeculativeReport


@frozen
class PrefillReport:
    flops: float            # whole prompt, whole batch
    bytes: float            # HBM traffic of the prefill pass, all GPUs together
    seconds: float
    bound: str              # "compute" or "memory"
    utilisation: float      # share of peak FLOPS reached, 0..1
    # Beyond the JSON contract: the two roofline terms, at the mode's efficiencies.
    compute_seconds: float = 0.0   # the path's FLOPs at the mode's rates (engine.passes)
    memory_seconds: float = 0.0    # the path's HBM bytes at the mode's bandwidth
    communication_seconds: float = 0.0   # every level of the pass's communication (engine.communication); in JSON
    communication_levels: tuple[tuple[str, str, float], ...] = ()   # (level, link, seconds) of each level
    flops_per_byte = property(lambda self: self.flops / self.bytes)   # arithmetic intensity of the pass
    allreduce_seconds = property(lambda self: self.communication_seconds)   # the name scenes knew it by


@frozen
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
    communication_seconds: float = 0.0   # every level of one step's communication (engine.communication); in JSON
    communication_levels: tuple[tuple[str, str, float], ...] = ()   # (level, link, seconds) of each level
    sequences_per_step: int = 1   # sequences one step carries: the batch, or one pipeline stage's micro-batch
    flops_per_byte = property(lambda self: self.flops_per_token / self.bytes_per_token)   # arithmetic intensity


@frozen
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
    nodes: int = 1                           # nodes the GPUs fill (engine.layout)
    layout: Layout | None = None             # tensor, pipeline, expert degrees (JSON: parallel{...})
    longest_context_tokens: int = 0          # longest context per sequence that fits at this batch, at most
                                             # the model's own maximum
    longest_context_capped: bool = False     # True when the model's maximum, not memory, sets it
    # Levers (engine.levers), in the JSON contract: the most sequences of this length that fit under the
    # scenario's KV allocation, and what speculative decoding does (None when it is off).
    max_batch: int = 0
    speculative: SpeculativeReport | None = None
    # Beyond the JSON contract: useful to scenes, not part of --json.
    memory_context_tokens: int = 0           # longest context the memory alone would hold (may pass the model's)
    overhead_bytes_per_gpu: float = 0.0      # the stated runtime + activation allowance (engine.memory)
    max_context_tokens: int = 0              # = longest_context_tokens (the name scenes know it by)
    max_sequences: int = 0                   # most sequences of prompt+output tokens that fit
    sequence_fit: SequenceFit | None = None  # what max_batch is worked out from (its room and one sequence's KV)
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
        "nodes", "parallel", "longest_context_tokens", "longest_context_capped",
        "max_batch", "speculative",
    )

    @property
    def allreduce_seconds_per_step(self) -> float:
        """One decode step's communication (the name scenes knew it by)."""
        return self.decode.communication_seconds

    # Byte counts the JSON gives as whole numbers (ints): memory is counted in whole bytes, and a
    # fraction (an average over MoE experts or over a batch) says nothing a person could use.
    # Seconds, FLOP, shares and dollars stay floats.
    JSON_WHOLE_BYTES = ("weights_bytes", "weights_bytes_per_gpu", "kv_bytes_per_token", "kv_bytes",
                        "hbm_bytes_per_gpu", "free_bytes_per_gpu", "prefill.bytes", "decode.bytes_per_token")

    def to_json_dict(self) -> dict:
        """The contract's JSON object: exactly ``JSON_KEYS``, in that order; byte counts rounded to whole bytes."""
        out = {key: getattr(self, key) for key in self.JSON_KEYS if key != "parallel"}
        prefill, decode = asdict(self.prefill), asdict(self.decode)
        out["prefill"] = {k: prefill[k] for k in ("flops", "bytes", "seconds", "bound", "communication_seconds")}
        out["decode"] = {k: decode[k] for k in
                         ("flops_per_token", "bytes_per_token", "seconds_per_token", "bound", "communication_seconds")}
        lay = self.layout
        out["parallel"] = {"tensor": lay.tensor if lay else 1, "pipeline": lay.pipeline if lay else 1,
                           "expert": lay.expert if lay else 1}
        out["speculative"] = None if self.speculative is None else self.speculative.to_json_dict()
        out = {key: out[key] for key in self.JSON_KEYS}
        for path in self.JSON_WHOLE_BYTES:
            *parent, key = path.split(".")
            table = out[parent[0]] if parent else out
            table[key] = round(table[key])
        return out
