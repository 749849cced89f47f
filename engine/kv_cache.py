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

Sliding-window attention (gpt-oss, Mistral 7B v0.1): ``sliding_window_layers``
of the layers attend to each token itself and at most ``W = sliding_window_tokens``
tokens before it, so those layers cache and read at most W tokens per sequence
(a rolling buffer), however long the context grows. ``kv_bytes_per_token`` stays
what one token writes into every layer (and costs while it is among the last W);
``kv_window_bytes_per_token`` is the part of it the windowed layers drop once the
token is older than W. At context c a sequence holds
``kv_bytes_per_token * c - kv_window_bytes_per_token * max(0, c - W)``:
gpt-oss-120b at BF16 keeps 36 layers x 2 x 8 x 64 x 2 = 73,728 B for each of its
last 128 tokens and half that, 36,864 B, for every older one. Attention work
follows the same rule (``attention_flops_decode``, ``attention_flops_prefill``).

The work functions give the seed's N² versus N argument: without a cache,
generating token i reprocesses all i tokens so far; with one, only the new token.
All functions here accept numpy arrays as well as numbers.

``kv_factors`` gives the factors of the bytes per token, for a scene to show the
product term by term; ``mha_factors`` the same model as if every attention head
kept its own K and V (no grouping, no latent): Llama 3.1 70B at FP16 would
cache 2 * 80 * 64 * 128 * 2 = 2,621,440 B = 2.5 MiB per token instead of 320 KiB.
"""
from __future__ import annotations


from engine.arrays import numpy_of
from engine.catalog_types import Model, Precision
from engine.frozen import frozen

KV_KINDS = ("mha", "gqa", "mla")


@frozen
class KvFactors:
    """The factors of one token's KV bytes; ``bytes_per_token`` is their product.

    mha / gqa: ``2 (K and V) * layers * kv_heads * head_dim * bytes_per_value``;
    mla: ``layers * (latent_dim + rope_dim) * bytes_per_value`` (``kv_heads`` and
    ``head_dim`` are then the attention heads and their value width, for showing only).
    """
    kind: str                 # "mha" (a K and V per attention head), "gqa" (heads share them), "mla"
    layers: int
    kv_heads: int
    head_dim: int
    bytes_per_value: float
    latent_dim: int = 0       # mla: kv_lora_rank
    rope_dim: int = 0         # mla: qk_rope_head_dim

    @property
    def values_per_layer(self) -> int:
        if self.kind == "mla":
            return self.latent_dim + self.rope_dim
        return 2 * self.kv_heads * self.head_dim

    @property
    def bytes_per_token(self) -> float:
        return self.layers * self.values_per_layer * self.bytes_per_value


def kv_factors(model: Model, kv: Precision) -> KvFactors:
    """The factors of ``kv_bytes_per_token(model, kv)``, which their product equals exactly."""
    if model.uses_mla:
        return KvFactors("mla", model.layers, model.attention_heads, model.v_head_dim, kv.bytes_per_value,
                         latent_dim=model.kv_lora_rank, rope_dim=model.qk_rope_head_dim)
    kind = "mha" if model.kv_heads == model.attention_heads else "gqa"
    return KvFactors(kind, model.layers, model.kv_heads, model.head_dim, kv.bytes_per_value)


def mha_factors(model: Model, kv: Precision) -> KvFactors:
    """The same model as if it used full multi-head attention: one K and one V per attention head.

    For MLA the K head has ``qk_nope + qk_rope`` values and the V head ``v_head_dim``;
    ``head_dim`` is their mean, so the product is ``layers * heads * (k + v) * bytes``.
    """
    if model.uses_mla:
        k_dim = model.qk_nope_head_dim + model.qk_rope_head_dim
        head_dim = (k_dim + model.v_head_dim) / 2
        head_dim = int(head_dim) if float(head_dim).is_integer() else head_dim
    else:
        head_dim = model.head_dim
    return KvFactors("mha", model.layers, model.attention_heads, head_dim, kv.bytes_per_value)


def mha_kv_bytes_per_token(model: Model, kv: Precision) -> float:
    """Bytes per token of ``model`` with full multi-head attention (``mha_factors``): 2.5 MiB for Llama 3.1 70B."""
    return mha_factors(model, kv).bytes_per_token


def _kv_values_per_layer(model: Model) -> int:
    if model.uses_mla:
        return model.kv_lora_rank + model.qk_rope_head_dim
    return 2 * model.kv_heads * model.head_dim


def kv_values_per_token(model: Model) -> int:
    """Values cached per token of one sequence, all layers (see the module docstring)."""
    return model.layers * _kv_values_per_layer(model)


def kv_bytes_per_token(model: Model, kv: Precision) -> float:
    """Bytes of KV cache one token of one sequence takes, all layers, K and V (what it writes)."""
    return kv_values_per_token(model) * kv.bytes_per_value


def kv_window_bytes_per_token(model: Model, kv: Precision) -> float:
    """The part of ``kv_bytes_per_token`` in sliding-window layers, dropped once a token is older than the window."""
    if not model.has_sliding_window:
        return 0.0
    return model.sliding_window_layers * _kv_values_per_layer(model) * kv.bytes_per_value


def tokens_past_window(model: Model, context_tokens):
    """How many of ``context_tokens`` cached tokens the windowed layers no longer hold: max(0, c - W) (numpy-friendly)."""
    if not model.has_sliding_window:
        return 0 * context_tokens
    np = numpy_of(context_tokens)
    if np is None or np.ndim(context_tokens) == 0:    # a number stays a Python number
        return max(context_tokens - model.sliding_window_tokens, 0)
    return np.maximum(context_tokens - model.sliding_window_tokens, 0)


def kv_bytes(model: Model, kv: Precision, batch, context_tokens):
    """KV cache of ``batch`` sequences of ``context_tokens`` tokens each, in bytes (numpy-friendly).

    Windowed layers hold at most their window of each sequence (module docstring).
    """
    held = (kv_bytes_per_token(model, kv) * context_tokens
            - kv_window_bytes_per_token(model, kv) * tokens_past_window(model, context_tokens))
    return batch * held


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


def window_attention_flops_per_position(model: Model) -> float:
    """The part of ``attention_flops_per_position`` spent in sliding-window layers (0 without a window)."""
    if not model.has_sliding_window:
        return 0.0
    return attention_flops_per_position(model) * model.sliding_window_layers / model.layers


def attention_flops_decode(model: Model, context_tokens):
    """FLOPs one new token spends on attention with ``context_tokens`` tokens cached (numpy-friendly).

    It attends to itself and to every cached token, ``a * (c + 1)``; a windowed layer
    only to itself and the last W cached tokens.
    """
    return (attention_flops_per_position(model) * (context_tokens + 1)
            - window_attention_flops_per_position(model) * tokens_past_window(model, context_tokens))


def attention_flops_prefill(model: Model, prompt_tokens):
    """FLOPs of causal attention over a prompt of L tokens, one sequence (numpy-friendly).

    Token i (1..L) attends to i positions: ``a * L(L+1)/2``; a windowed layer to at
    most W + 1, which takes ``(L - W - 1)(L - W)/2`` positions off when L > W + 1.
    """
    beyond = tokens_past_window(model, prompt_tokens - 1)
    return (attention_flops_per_position(model) * prompt_tokens * (prompt_tokens + 1) / 2
            - window_attention_flops_per_position(model) * beyond * (beyond + 1) / 2)


def tokens_processed_without_cache(generated_tokens):
    """Token passes needed to generate N tokens when nothing is cached: 1 + 2 + ... + N = N(N+1)/2."""
    return generated_tokens * (generated_tokens + 1) / 2


def tokens_processed_with_cache(generated_tokens):
    """Token passes needed to generate N tokens with a KV cache: one new token per step, N."""
    return generated_tokens * 1.0


def work_ratio_without_cache(generated_tokens):
    """How many times more work generating N tokens takes without a cache: (N+1)/2 (250.5 at N=500)."""
    return tokens_processed_without_cache(generated_tokens) / tokens_processed_with_cache(generated_tokens)
