"""The entries engine tests compute with: the real built-in catalogue, plus one hand-made model.

Tests use the catalogue the app ships (``resources/catalog/``), read without the
user's own file so that a person's additions cannot change a test. The names
below are shortcuts into it. Only ``TINY_TIED`` is made by hand: a model small
enough that its exact count can be written out, for the tied-embeddings branch of
the parameter count (Qwen3 0.6B to 4B and Llama 3.2 tie theirs too).
"""
from __future__ import annotations

from engine.catalog import load_catalog
from engine.catalog_types import Model

CATALOG = load_catalog(user_file=None)

FP32, FP16, BF16, FP8, INT8, INT4 = (CATALOG.precision(p) for p in ("fp32", "fp16", "bf16", "fp8", "int8", "int4"))
H800, A100_80GB, RTX_4090 = (CATALOG.gpu(g) for g in ("h800", "a100-80gb", "rtx-4090"))
LLAMA_2_7B, LLAMA_31_8B, LLAMA_31_70B, MIXTRAL_8X7B, DEEPSEEK_V3 = (
    CATALOG.model(m) for m in ("llama-2-7b", "llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b", "deepseek-v3"))

_TINY_ATTENTION = 2 * 64 * 4 * 16 + 2 * 64 * 2 * 16       # q, o: h x heads x d; k, v: h x kv_heads x d
_TINY_LAYER = _TINY_ATTENTION + 3 * 64 * 128 + 2 * 64      # + gated MLP + two norms
TINY_TIED = Model(   # a small model with tied embeddings, to exercise that branch
    id="tiny-tied", name="Tiny tied", source="hand-made",
    layers=2, hidden_size=64, attention_heads=4, kv_heads=2, head_dim=16,
    intermediate_size=128, vocab_size=1000, tied_embeddings=True,
    published_parameters=2 * _TINY_LAYER + 64 + 1000 * 64)   # + final norm + the one shared table


def report(**fields):
    """``compute_report`` of a Scenario with ``fields``, looked up in the built-in catalogue."""
    from engine.compute import compute_report
    from engine.scenario import Scenario
    return compute_report(Scenario(**fields), CATALOG)
