"""What a catalogue entry is: GPUs, models, precisions, with their sources.

Plain frozen dataclasses; loading and validation live in ``engine.catalog``.
Every number is in SI units (bytes, bytes per second, FLOP per second).
"""
from __future__ import annotations

from dataclasses import dataclass, field


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

    @property
    def is_moe(self) -> bool:
        return self.experts > 0

    @property
    def uses_mla(self) -> bool:
        return self.kv_lora_rank > 0
