"""The KV cache: what each token leaves behind so that later tokens need not recompute it.

Bytes per token (one sequence, all layers):

- multi-head / grouped-query attention: ``2 * layers * kv_heads * head_dim * bytes``
  (a K and a V vector per KV head per layer). Llama 3.1 70B at FP16:
  2 * 80 * 8 * 128 * 2 = 327,680 B = 320 KiB, the seed's "about 320 KB".
- multi-head latent attention (DeepSeek-V3): each layer caches one compressed
  latent of ``kv_lora_rank`` values plus the shared rope key of
  ``qk_rope_head_dim`` values, not full per-head K and V:
  ``layers * (kv_lora_rank + qk_rope_head_dim) * bytes`` = 61 * 576 * 2 = 70,272 B at BF16.

Under tensor parallelism over g GPUs each GPU keeps the KV heads of its own
attention heads. When g divides ``kv_heads`` that is ``kv_heads / g`` heads; when
g is a multiple of ``kv_heads`` (more GPUs than KV heads) each GPU keeps one
head, copied on ``g / kv_heads`` GPUs, as vLLM does (``max(1, kv_heads // g)``
heads per GPU). Other counts are refused (``engine.parallel.check_gpu_count``).
The MLA latent is shared by all heads, so every GPU keeps all of it.

The work functions give the seed's N² versus N argument: without a cache,
generating token i reprocesses all i tokens so far; with one, only the new token.
All functions here accept numpy arrays as well as numbers.
"""
from __future__ import annotations

from engine.catalog_types import Model, Precision


def kv_values_per_token(model: Model) -> int:
    """Values cached per token of one sequence, all layers (see the module docstring)."""
    if model.uses_mla:
        return model.layers * (model.kv_lora_rank + model.qk_rope_head_dim)
    return 2 * model.layers * model.kv_heads * model.head_dim


def kv_bytes_per_token(model: Model, kv: Precision) -> float:
    """Bytes of KV cache one token of one sequence takes, all layers, K and V."""
    return kv_values_per_token(model) * kv.bytes_per_value


def kv_bytes(model: Model, kv: Precision, batch, context_tokens):
    """KV cache of ``batch`` sequences of ``context_tokens`` tokens each, in bytes (numpy-friendly)."""
    return kv_bytes_per_token(model, kv) * batch * context_tokens


def kv_share_per_gpu(model: Model, gpus: int) -> float:
    """Share of the whole KV cache that each of ``gpus`` tensor-parallel GPUs holds (and reads).

    ``max(1, kv_heads // gpus) / kv_heads`` for GQA, as vLLM splits them: 1/g when
    ``gpus`` divides the KV heads, 1/kv_heads (one head per GPU, copied on
    ``gpus / kv_heads`` GPUs) when ``gpus`` is a multiple of them; 1 for MLA,
    whose latent every GPU keeps. Only the counts ``engine.parallel.allowed_gpu_counts``
    lists are meaningful; the engine refuses the others before it gets here.
    """
    if model.uses_mla or gpus <= 1:
        return 1.0
    return max(1, model.kv_heads // gpus) / model.kv_heads


def attention_flops_per_position(model: Model) -> int:
    """FLOPs one query token spends on one earlier position, all layers.

    Scores q·k and the weighted sum of v are each a multiply-add per head
    dimension: ``2 * layers * heads * (qk_head_dim + v_head_dim)``; for ordinary
    attention that is ``2 * 2 * layers * heads * head_dim``. MLA uses its query/key
    head dim (no-rope + rope part) and its value head dim.
    """
    if model.uses_mla:
        qk_dim = model.qk_nope_head_dim + model.qk_rope_head_dim
        v_dim = model.v_head_dim
    else:
        qk_dim = v_dim = model.head_dim
    return 2 * model.layers * model.attention_heads * (qk_dim + v_dim)


def tokens_processed_without_cache(generated_tokens):
    """Token passes needed to generate N tokens when nothing is cached: 1 + 2 + ... + N = N(N+1)/2."""
    return generated_tokens * (generated_tokens + 1) / 2


def tokens_processed_with_cache(generated_tokens):
    """Token passes needed to generate N tokens with a KV cache: one new token per step, N."""
    return generated_tokens * 1.0


def work_ratio_without_cache(generated_tokens):
    """How many times more work generating N tokens takes without a cache: (N+1)/2 (250.5 at N=500)."""
    return tokens_processed_without_cache(generated_tokens) / tokens_processed_with_cache(generated_tokens)
