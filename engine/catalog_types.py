"""What a catalogue entry is: GPUs, models, precisions, with their sources.

Plain frozen dataclasses; loading and validation live in ``engine.catalog``.
Every number is in SI units (bytes, bytes per second, FLOP per second).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine.errors import InputError

# How a GPU's interconnect joins GPUs (see ``engine.parallel``):
#   switch: every GPU reaches every other at the full figure (NVSwitch, or PCIe through the host);
#   mesh:   one direct link to each peer, the figure split over ``interconnect_links`` links
#           (MI300X Infinity Fabric, Ascend HCCS), so g GPUs use g - 1 of them;
#   pairs:  a bridge joins two cards only (H100 PCIe NVLink bridge); larger groups cross PCIe.
INTERCONNECT_TOPOLOGIES = ("switch", "mesh", "pairs")

# The precisions a GPU's ``flops_per_second`` table may name, in display order.
COMPUTE_PRECISIONS = ("fp32", "fp16", "bf16", "fp8", "int8", "int4")

# Where a GPU publishes no peak for a precision, the matmuls run on the next
# unit down that it has: an A100 has no FP8 tensor cores, so FP8 weights are
# widened and multiplied at the FP16 rate; a GPU without INT4 tensor cores
# runs INT4 at its INT8 rate, or failing that FP16. FP32 has no fallback: no
# other unit's figure is an honest FP32 peak.
FLOPS_FALLBACK: dict[str, tuple[str, ...]] = {
    "fp32": ("fp32",),
    "fp16": ("fp16",),
    "bf16": ("bf16", "fp16"),
    "fp8": ("fp8", "fp16"),
    "int8": ("int8", "fp16"),
    "int4": ("int4", "int8", "fp16"),
}


@dataclass(frozen=True)
class Precision:
    id: str                    # "fp16"
    name: str                  # "FP16"
    bytes_per_value: float     # 2.0; int4 is 0.5
    compute_precision: str     # which peak the matmuls run at: int4 weights run on fp16 tensor cores
    source: str


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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
    sources: dict[str, str] = field(default_factory=dict)   # field name -> source, where it differs
    origin: str = "built-in"        # "built-in", or the path of the user's catalogue file

    @property
    def is_moe(self) -> bool:
        return self.experts > 0

    @property
    def uses_mla(self) -> bool:
        return self.kv_lora_rank > 0
