"""What a catalogue entry is: GPUs, models, precisions, with their sources.

Plain frozen dataclasses, and the ``Catalog`` that holds them and looks ids up;
loading and validation live in ``engine.catalog``, the listing in
``engine.catalog_text`` (both import this module; neither imports the other's
module back, so there is no import circle).
Every number is in SI units (bytes, bytes per second, FLOP per second).
"""
from __future__ import annotations

import unicodedata
from dataclasses import field
from typing import Callable, TypeVar

from engine.errors import InputError, refusal
from engine.frozen import frozen
from engine.units import (
    format_bandwidth, format_bytes, format_count, format_flops, format_parameters, format_value_size,
)

# How a GPU's interconnect joins GPUs (see ``engine.parallel``):
#   switch: every GPU reaches every other at the full figure (NVSwitch, or PCIe through the host);
#   mesh:   one direct link to each peer, the figure split over ``interconnect_links`` links
#           (MI300X Infinity Fabric, Ascend HCCS), so g GPUs use g - 1 of them;
#   pairs:  a bridge joins two cards only (H100 PCIe NVLink bridge); larger groups cross PCIe.
INTERCONNECT_TOPOLOGIES = ("switch", "mesh", "pairs")

# What a user's GPU entry without node fields is taken to be: one GPU of an 8-GPU
# HGX-style node with one 400 Gb/s NIC per GPU (InfiniBand NDR, 50 GB/s each way).
# Every built-in entry states its own (tests/engine/test_catalog.py).
DEFAULT_NODE_GPUS = 8
DEFAULT_NETWORK = "not stated: taken as 400 Gb/s per GPU (InfiniBand NDR)"
DEFAULT_NETWORK_BYTES_PER_SECOND = 100e9

# The precisions a GPU's ``flops_per_second`` table may name, in display order.
COMPUTE_PRECISIONS = ("fp32", "fp16", "bf16", "fp8", "int8", "int4", "fp4")

# Where a GPU publishes no peak for a precision, the matmuls run on the next
# unit down that it has: an A100 has no FP8 tensor cores, so FP8 weights are
# widened and multiplied at the FP16 rate; a GPU without INT4 tensor cores
# runs INT4 at its INT8 rate, or failing that FP16; a GPU without FP4 tensor
# cores (everything before Blackwell) widens FP4 weights to FP16 (vLLM's Marlin
# kernels run NVFP4 checkpoints on Hopper so). FP32 has no fallback: no other
# unit's figure is an honest FP32 peak.
FLOPS_FALLBACK: dict[str, tuple[str, ...]] = {
    "fp32": ("fp32",),
    "fp16": ("fp16",),
    "bf16": ("bf16", "fp16"),
    "fp8": ("fp8", "fp16"),
    "int8": ("int8", "fp16"),
    "int4": ("int4", "int8", "fp16"),
    "fp4": ("fp4", "fp16"),
}


# The physical range of every catalogue number: (smallest, largest, the unit's format function).
# Wide enough for any real part, narrow enough that no product of them overflows, underflows
# or makes a frame's work unbounded; a user's entry outside it is skipped with the range named.
PHYSICAL_RANGES: dict[str, tuple[float, float, Callable[[float], str]]] = {
    "memory_bytes": (1e9, 1e14, format_bytes),
    "memory_bandwidth_bytes_per_second": (1e9, 1e15, format_bandwidth),
    "interconnect_bytes_per_second": (1e8, 1e15, format_bandwidth),
    "pcie_bytes_per_second": (1e8, 1e15, format_bandwidth),
    "flops": (1e11, 1e18, format_flops),
    "interconnect_links": (1, 64, format_count),
    "node_gpus": (1, 1_024, format_count),
    "network_bytes_per_second": (1e8, 1e15, format_bandwidth),
    "layers": (1, 1_000, format_count),
    "hidden_size": (1, 1_000_000, format_count),
    "attention_heads": (1, 10_000, format_count),
    "kv_heads": (1, 10_000, format_count),
    "head_dim": (1, 10_000, format_count),
    "intermediate_size": (1, 10_000_000, format_count),
    "vocab_size": (1, 10_000_000, format_count),
    "experts": (0, 100_000, format_count),
    "experts_per_token": (0, 100_000, format_count),
    "expert_intermediate_size": (0, 10_000_000, format_count),
    "shared_experts": (0, 1_000, format_count),
    "dense_layers": (0, 1_000, format_count),
    "q_lora_rank": (0, 1_000_000, format_count),
    "kv_lora_rank": (0, 1_000_000, format_count),
    "qk_nope_head_dim": (0, 10_000, format_count),
    "qk_rope_head_dim": (0, 10_000, format_count),
    "v_head_dim": (0, 10_000, format_count),
    "published_parameters": (1e3, 1e15, format_parameters),
    "published_active_parameters": (1e3, 1e15, format_parameters),
    "max_context_tokens": (1, 1_000_000_000, format_count),
    "sliding_window_tokens": (0, 1_000_000_000, format_count),
    "sliding_window_layers": (0, 1_000, format_count),
    "bytes_per_value": (0.0625, 8, format_value_size),
}


def physical_range_text(name: str) -> str:
    """The range of field ``name`` as a sentence says it: "between 1 GB/s and 1 PB/s"."""
    low, high, shown = PHYSICAL_RANGES[name]
    return f"between {shown(low)} and {shown(high)}"


@frozen
class Precision:
    id: str                    # "fp16"
    name: str                  # "FP16"
    bytes_per_value: float     # 2.0; int4 is 0.5
    compute_precision: str     # which peak the matmuls run at: int4 weights run on fp16 tensor cores
    source: str


@frozen
class Gpu:
    id: str                                   # "h800"
    name: str                                 # "NVIDIA H800 SXM5"
    vendor: str
    memory_bytes: float                       # HBM capacity
    memory_bandwidth_bytes_per_second: float
    flops_per_second: dict[str, float]        # dense peak by precision id: {"fp16": 989e12, ...}
    interconnect: str                         # "NVLink 4", "PCIe 5.0 x16", ...
    interconnect_bytes_per_second: float      # GPU-to-GPU, as the datasheet states it (both directions summed)
    pcie_bytes_per_second: float              # GPU <-> CPU, both directions summed
    source: str                               # the datasheet all numbers come from, unless `sources` says otherwise
    sources: dict[str, str] = field(default_factory=dict)   # field name -> source, where it differs
    notes: str = ""
    pcie: str = ""                            # the host link in words: "PCIe 5.0 x16"
    estimated: tuple[str, ...] = ()           # fields that are estimates, not a vendor's published figure
    origin: str = "built-in"                  # "built-in", or the path of the user's catalogue file
    interconnect_topology: str = "switch"     # one of INTERCONNECT_TOPOLOGIES
    interconnect_links: int = 0               # mesh only: direct links per GPU sharing the figure
    node_gpus: int = DEFAULT_NODE_GPUS        # GPUs of one node, joined by the interconnect (8 on HGX, 72 on NVL72)
    network: str = DEFAULT_NETWORK            # the scale-out network between nodes, in words
    network_bytes_per_second: float = DEFAULT_NETWORK_BYTES_PER_SECOND   # per GPU, both directions summed

    def flops_precision_for(self, compute_precision: str) -> str:
        """The precision whose published peak the matmuls run at (see ``FLOPS_FALLBACK``)."""
        chain = FLOPS_FALLBACK.get(compute_precision)
        if chain is None:
            raise InputError(
                f"Unknown compute precision {compute_precision!r}; allowed: {', '.join(COMPUTE_PRECISIONS)}."
            )
        for candidate in chain:
            if candidate in self.flops_per_second:
                return candidate
        published = ", ".join(p for p in COMPUTE_PRECISIONS if p in self.flops_per_second)
        raise InputError(
            f"GPU {self.id!r} has no published {compute_precision.upper()} peak; "
            f"its catalogue entry gives: {published}."
        )

    def peak_flops_for(self, compute_precision: str) -> float:
        """Dense peak FLOP/s at ``compute_precision``, falling back as ``FLOPS_FALLBACK`` says."""
        return self.flops_per_second[self.flops_precision_for(compute_precision)]


@frozen
class Model:
    id: str                         # "llama-3.1-70b"
    name: str                       # "Llama 3.1 70B"
    source: str                     # the config.json (and model card) the numbers come from
    layers: int
    hidden_size: int
    attention_heads: int
    kv_heads: int
    head_dim: int
    intermediate_size: int          # dense MLP width (for MoE: the dense layers' width)
    vocab_size: int
    tied_embeddings: bool
    published_parameters: float     # from the model card, for checking the computed count
    # Mixture of experts (0 = dense)
    experts: int = 0
    experts_per_token: int = 0
    expert_intermediate_size: int = 0
    shared_experts: int = 0
    dense_layers: int = 0           # leading layers that stay dense (DeepSeek-V3: first_k_dense_replace)
    # Multi-head latent attention (0 = ordinary multi-head / grouped-query attention)
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    qk_nope_head_dim: int = 0
    qk_rope_head_dim: int = 0
    v_head_dim: int = 0
    notes: str = ""
    published_active_parameters: float = 0.0   # MoE: parameters used per token, from the model card (0 = dense)
    max_context_tokens: int = 0     # max_position_embeddings: the longest prompt plus output (0 = not given)
    # Sliding-window attention (0 = every layer attends to the whole context): ``sliding_window_layers``
    # of the layers attend only to the last ``sliding_window_tokens`` tokens, so they cache and read
    # at most that many (gpt-oss: half its layers, window 128; Mistral 7B v0.1: all, window 4,096).
    sliding_window_tokens: int = 0
    sliding_window_layers: int = 0
    sources: dict[str, str] = field(default_factory=dict)   # field name -> source, where it differs
    origin: str = "built-in"        # "built-in", or the path of the user's catalogue file

    @property
    def is_moe(self) -> bool:
        return self.experts > 0

    @property
    def uses_mla(self) -> bool:
        return self.kv_lora_rank > 0

    @property
    def has_sliding_window(self) -> bool:
        return self.sliding_window_tokens > 0 and self.sliding_window_layers > 0


Entry = TypeVar("Entry", Gpu, Model, Precision)


@frozen
class Catalog:
    gpus: dict[str, Gpu]
    models: dict[str, Model]
    precisions: dict[str, Precision]
    warnings: list[str] = field(default_factory=list)   # problems found in the user's file
    # Entries of the user's file that were skipped: table ("gpus", "models") -> id -> (file as shown, reason).
    skipped: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)

    def gpu(self, gpu_id: str) -> Gpu:
        return _lookup(self.gpus, gpu_id, "GPU", self.skipped.get("gpus", {}))

    def model(self, model_id: str) -> Model:
        return _lookup(self.models, model_id, "model", self.skipped.get("models", {}))

    def precision(self, precision_id: str) -> Precision:
        return _lookup(self.precisions, precision_id, "precision")


def normalise_id(text: str) -> str:
    """The form ids are stored and matched in: "H100 SXM" -> "h100-sxm".

    Unicode-normalised (NFC) before and after lower-casing, so an "é" typed as one
    code point finds one stored as "e" plus a combining accent, and the other way round.
    """
    lowered = unicodedata.normalize("NFC", text).strip().lower().replace("_", " ")
    return unicodedata.normalize("NFC", "-".join(lowered.split()))


def _lookup(table: dict[str, Entry], wanted: object, kind: str,
            skipped: dict[str, tuple[str, str]] | None = None) -> Entry:
    if not isinstance(wanted, str):
        raise refusal("catalog.not_text", {"kind": kind, "got": wanted, "known": list(table)})
    key = normalise_id(wanted)
    if key in table:
        return table[key]
    for entry in table.values():        # "NVIDIA H800 SXM5" finds h800 too
        if normalise_id(entry.name) == key:
            return entry
    if skipped and key in skipped:      # the user's file tried to define it: say why it is missing
        shown, reason = skipped[key]
        raise refusal("catalog.skipped", {"kind": kind, "got": wanted, "file": shown, "reason": reason,
                                          "known": list(table)})
    starting = [entry_id for entry_id in table if entry_id.startswith(key)]     # "h100" -> h100-sxm, h100-pcie
    import difflib                      # only for an id the catalogue lacks: not on every start
    similar = difflib.get_close_matches(key, list(table), n=3, cutoff=0.6)
    close = list(dict.fromkeys(starting + similar))[:3]
    raise refusal("catalog.unknown", {"kind": kind, "got": wanted, "close": close, "known": list(table)})
