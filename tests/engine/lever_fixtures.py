"""Catalogue entries the lever tests need beyond the built-in catalogue, each from its published config.

Where the built-in catalogue already has an entry of the same id it is used instead,
so these stand in only until the catalogue carries them. OPT's MLP has two matrices
of width 4h where the engine counts three (gated); an intermediate width of 2/3 x 4h
keeps the parameter count (checked against the published one in the tests).
"""
from __future__ import annotations

from engine.catalog_types import Catalog, Gpu, Model
from tests.engine.fixtures import CATALOG


def _prefer_built_in(model: Model) -> Model:
    return CATALOG.models.get(model.id, model)


LLAMA_32_1B = _prefer_built_in(Model(
    id="llama-3.2-1b", name="Llama 3.2 1B",
    source="https://huggingface.co/meta-llama/Llama-3.2-1B/blob/main/config.json (num_hidden_layers 16, hidden_size 2048, "
           "num_attention_heads 32, num_key_value_heads 8, head_dim 64, intermediate_size 8192, vocab_size 128256, "
           "tie_word_embeddings true, max_position_embeddings 131072); model card: 1.23B parameters",
    layers=16, hidden_size=2048, attention_heads=32, kv_heads=8, head_dim=64, intermediate_size=8192, vocab_size=128256,
    tied_embeddings=True, published_parameters=1.24e9, max_context_tokens=131072))

QWEN3_06B = _prefer_built_in(Model(
    id="qwen3-0.6b", name="Qwen3 0.6B",
    source="https://huggingface.co/Qwen/Qwen3-0.6B/blob/main/config.json (num_hidden_layers 28, hidden_size 1024, "
           "num_attention_heads 16, num_key_value_heads 8, head_dim 128, intermediate_size 3072, vocab_size 151936, "
           "tie_word_embeddings true, max_position_embeddings 40960); model card: 0.6B parameters",
    layers=28, hidden_size=1024, attention_heads=16, kv_heads=8, head_dim=128, intermediate_size=3072, vocab_size=151936,
    tied_embeddings=True, published_parameters=0.6e9, max_context_tokens=40960))

MISTRAL_7B = _prefer_built_in(Model(
    id="mistral-7b", name="Mistral 7B",
    source="https://huggingface.co/mistralai/Mistral-7B-Instruct-v0.2/blob/main/config.json (num_hidden_layers 32, "
           "hidden_size 4096, num_attention_heads 32, num_key_value_heads 8, intermediate_size 14336, vocab_size 32000, "
           "tie_word_embeddings false, max_position_embeddings 32768); 7.24B parameters",
    layers=32, hidden_size=4096, attention_heads=32, kv_heads=8, head_dim=128, intermediate_size=14336, vocab_size=32000,
    tied_embeddings=False, published_parameters=7.24e9, max_context_tokens=32768))


def _opt(size: str, layers: int, hidden: int, heads: int, parameters: float) -> Model:
    return Model(id=f"opt-{size.lower()}", name=f"OPT-{size}",
                 source=f"https://huggingface.co/facebook/opt-{size.lower()}/blob/main/config.json (num_hidden_layers "
                        f"{layers}, hidden_size {hidden}, num_attention_heads {heads}, ffn_dim {4 * hidden}, "
                        f"vocab_size 50272, max_position_embeddings 2048); Zhang et al., arXiv:2205.01068",
                 layers=layers, hidden_size=hidden, attention_heads=heads, kv_heads=heads, head_dim=hidden // heads,
                 intermediate_size=round(4 * hidden * 2 / 3), vocab_size=50272, tied_embeddings=True,
                 published_parameters=parameters, max_context_tokens=2048)


OPT_13B = _opt("13B", 40, 5120, 40, 12.85e9)
OPT_66B = _opt("66B", 64, 9216, 72, 65.7e9)
OPT_175B = _opt("175B", 96, 12288, 96, 174.6e9)

A40 = Gpu(id="a40", name="NVIDIA A40", vendor="NVIDIA", memory_bytes=48e9, memory_bandwidth_bytes_per_second=696e9,
          flops_per_second={"fp32": 37.4e12, "fp16": 149.7e12, "bf16": 149.7e12, "int8": 299.3e12},
          interconnect="PCIe 4.0 x16 (no NVLink bridge counted)", interconnect_bytes_per_second=0.0,
          pcie_bytes_per_second=64e9, pcie="PCIe 4.0 x16",
          source="NVIDIA A40 datasheet: 48 GB GDDR6, 696 GB/s, FP32 37.4 TFLOPS, TF32/BF16/FP16 tensor 149.7 | 299.4* "
                 "TFLOPS, INT8 299.3 | 598.6* TOPS (*with sparsity), PCIe Gen4 64 GB/s")

LEVER_CATALOG = Catalog(
    gpus={**CATALOG.gpus, A40.id: CATALOG.gpus.get(A40.id, A40)},
    models={**CATALOG.models, **{m.id: m for m in (LLAMA_32_1B, QWEN3_06B, MISTRAL_7B, OPT_13B, OPT_66B, OPT_175B)}},
    precisions=CATALOG.precisions)


def lever_report(**fields):
    """``compute_report`` of a Scenario with ``fields`` in the lever tests' catalogue."""
    from engine.compute import compute_report
    from engine.scenario import Scenario
    return compute_report(Scenario(**fields), LEVER_CATALOG)
