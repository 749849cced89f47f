"""Catalogue entries built by hand from public specs, so the physics is testable on its own.

GPU numbers are dense (non-sparse) peaks from the vendors' datasheets; model
numbers are the fields of each model's config.json on Hugging Face.
``FixtureCatalog`` answers the same lookups as ``engine.catalog.Catalog``.
"""
from __future__ import annotations

import difflib

from engine.catalog_types import Gpu, Model, Precision
from engine.errors import InputError

FP32 = Precision("fp32", "FP32", 4.0, "fp32", "IEEE 754 single precision")
FP16 = Precision("fp16", "FP16", 2.0, "fp16", "IEEE 754 half precision")
BF16 = Precision("bf16", "BF16", 2.0, "bf16", "bfloat16")
FP8 = Precision("fp8", "FP8", 1.0, "fp8", "OCP FP8 (E4M3)")
INT8 = Precision("int8", "INT8", 1.0, "int8", "W8A8 INT8")
INT4 = Precision("int4", "INT4", 0.5, "fp16", "weight-only INT4 (AWQ/GPTQ), FP16 compute")

H800 = Gpu(
    id="h800", name="NVIDIA H800 SXM5", vendor="NVIDIA",
    memory_bytes=80e9, memory_bandwidth_bytes_per_second=3.35e12,
    flops_per_second={"fp32": 67e12, "tf32": 494.7e12, "fp16": 989.4e12, "bf16": 989.4e12,
                      "fp8": 1978.9e12, "int8": 1978.9e12},
    interconnect="NVLink 4", interconnect_bytes_per_second=400e9, pcie_bytes_per_second=128e9,
    source="NVIDIA H800 Tensor Core GPU datasheet")
A100_80GB = Gpu(
    id="a100-80gb", name="NVIDIA A100 80GB SXM4", vendor="NVIDIA",
    memory_bytes=80e9, memory_bandwidth_bytes_per_second=2.039e12,
    flops_per_second={"fp32": 19.5e12, "tf32": 156e12, "fp16": 312e12, "bf16": 312e12, "int8": 624e12},
    interconnect="NVLink 3", interconnect_bytes_per_second=600e9, pcie_bytes_per_second=64e9,
    source="NVIDIA A100 Tensor Core GPU datasheet")
RTX_4090 = Gpu(
    id="rtx-4090", name="NVIDIA GeForce RTX 4090", vendor="NVIDIA",
    memory_bytes=24e9, memory_bandwidth_bytes_per_second=1.008e12,
    flops_per_second={"fp32": 82.6e12, "fp16": 165.2e12, "bf16": 165.2e12, "fp8": 330.3e12, "int8": 660.6e12},
    interconnect="PCIe 4.0 x16", interconnect_bytes_per_second=0.0, pcie_bytes_per_second=64e9,
    source="NVIDIA Ada Lovelace architecture whitepaper, appendix A")

LLAMA_2_7B = Model(
    id="llama-2-7b", name="Llama 2 7B", source="meta-llama/Llama-2-7b-hf config.json",
    layers=32, hidden_size=4096, attention_heads=32, kv_heads=32, head_dim=128,
    intermediate_size=11008, vocab_size=32000, tied_embeddings=False, published_parameters=6.74e9)
LLAMA_31_8B = Model(
    id="llama-3.1-8b", name="Llama 3.1 8B", source="meta-llama/Llama-3.1-8B config.json",
    layers=32, hidden_size=4096, attention_heads=32, kv_heads=8, head_dim=128,
    intermediate_size=14336, vocab_size=128256, tied_embeddings=False, published_parameters=8.03e9)
LLAMA_31_70B = Model(
    id="llama-3.1-70b", name="Llama 3.1 70B", source="meta-llama/Llama-3.1-70B config.json",
    layers=80, hidden_size=8192, attention_heads=64, kv_heads=8, head_dim=128,
    intermediate_size=28672, vocab_size=128256, tied_embeddings=False, published_parameters=70.6e9)
MIXTRAL_8X7B = Model(
    id="mixtral-8x7b", name="Mixtral 8x7B", source="mistralai/Mixtral-8x7B-v0.1 config.json",
    layers=32, hidden_size=4096, attention_heads=32, kv_heads=8, head_dim=128,
    intermediate_size=14336, vocab_size=32000, tied_embeddings=False, published_parameters=46.7e9,
    experts=8, experts_per_token=2, expert_intermediate_size=14336)
DEEPSEEK_V3 = Model(
    id="deepseek-v3", name="DeepSeek-V3", source="deepseek-ai/DeepSeek-V3 config.json",
    layers=61, hidden_size=7168, attention_heads=128, kv_heads=128, head_dim=128,
    intermediate_size=18432, vocab_size=129280, tied_embeddings=False, published_parameters=671e9,
    experts=256, experts_per_token=8, expert_intermediate_size=2048, shared_experts=1, dense_layers=3,
    q_lora_rank=1536, kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128)
TINY_TIED = Model(   # a small model with tied embeddings, to exercise that branch
    id="tiny-tied", name="Tiny tied", source="hand-made",
    layers=2, hidden_size=64, attention_heads=4, kv_heads=2, head_dim=16,
    intermediate_size=128, vocab_size=1000, tied_embeddings=True, published_parameters=2 * (4 * 64 * 16 * 2 + 2 * 64 * 2 * 16 + 3 * 64 * 128 + 128) + 64 + 64000)

GPUS = {g.id: g for g in (H800, A100_80GB, RTX_4090)}
MODELS = {m.id: m for m in (LLAMA_2_7B, LLAMA_31_8B, LLAMA_31_70B, MIXTRAL_8X7B, DEEPSEEK_V3)}
PRECISIONS = {p.id: p for p in (FP32, FP16, BF16, FP8, INT8, INT4)}


def _lookup(table: dict, key, kind: str):
    if isinstance(key, str) and key.strip().lower() in table:
        return table[key.strip().lower()]
    close = difflib.get_close_matches(str(key).lower(), list(table), n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise InputError(f"Unknown {kind} {key!r}; known: {', '.join(sorted(table))}.{hint}")


class FixtureCatalog:
    gpus, models, precisions = GPUS, MODELS, PRECISIONS
    warnings: list[str] = []

    def gpu(self, key) -> Gpu:
        return _lookup(self.gpus, key, "GPU")

    def model(self, key) -> Model:
        return _lookup(self.models, key, "model")

    def precision(self, key) -> Precision:
        return _lookup(self.precisions, key, "precision")


CATALOG = FixtureCatalog()


def report(**fields):
    """``compute_report`` of a Scenario with ``fields``, looked up in the fixture catalogue."""
    from engine.compute import compute_report
    from engine.scenario import Scenario
    return compute_report(Scenario(**fields), CATALOG)
