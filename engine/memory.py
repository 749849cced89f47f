"""What has to sit in each GPU's HBM: weights, KV cache and a stated allowance, and whether it fits.

Per GPU (``engine.deployment`` says how the layout shares weights and KV out)::

    used = weights per GPU + KV cache of its sequences * kv_share_per_gpu + allowance
    free = HBM capacity - used            (negative: short by that much)

The KV cache of a sequence grows with its context, except in sliding-window
layers, which hold at most their window (``kv_bytes_per_sequence``).

The weights are every parameter (MoE: all experts are resident, even though
each token uses only a few) times the weight precision's bytes per value, the
embedding, LM head and norms in 16 bits.

The allowance is stated, not hidden:

- ``RUNTIME_BYTES_PER_GPU`` = 1 GiB for the CUDA context, kernels, cuBLAS
  workspace and the serving framework's own buffers;
- the activation workspace of one forward pass: for every token in the pass
  the residual stream and its normalised copy (``2 * hidden``), the q/k/v
  projections and the MLP's gate and up outputs (split across GPUs), in 16-bit
  values; plus FP32 logits of the last position of every sequence
  (``batch * vocab * 4``). Flash attention never stores the ``prompt x prompt``
  score matrix, so it is not counted.

Tokens in one pass: ``min(batch * prompt_tokens, PREFILL_CHUNK_TOKENS)``.
Servers prefill long prompts in chunks: vLLM V1 always enables chunked
prefill and splits any prefill that does not fit its per-pass token budget
``max_num_batched_tokens`` (docs.vllm.ai, "Optimization and Tuning",
Chunked Prefill); the budget defaults to 8,192 tokens for ``vllm serve`` on
GPUs with at least 70 GiB (H100, H800, H200, MI300X) and 2,048 on smaller ones
(``EngineArgs`` defaults in vllm/engine/arg_utils.py). The allowance takes
the larger, 8,192, so it never understates a pass. Without the cap, DeepSeek-V3
on 8 GPUs at batch 64 with a 128K prompt would "need" over 400 GB of
activations per GPU, which no server allocates. A decode step (``batch`` tokens,
at most 4,096) always fits inside the cap.

Only memory uses chunks: the prefill's time (``engine.passes``) is still
reckoned as one pass. Chunking re-reads the weights once per chunk, but a
chunk of 8,192 tokens has an arithmetic intensity far above every GPU's ridge
point (a few hundred FLOP/byte), so the pass stays compute-bound and its time
changes little.

The longest context and the most sequences (``plan_memory``) use this same
allowance, so the three answers (fits, longest context, most sequences) agree.
The longest context also stops at the model's own maximum (its config's
``max_position_embeddings``): memory may hold more, the model reads no further.

Llama 3.1 70B at FP8 (72.7 GB: 70.6 GB at one byte a weight, plus the embedding
and LM head kept in 16 bits) plus KV for 1,500 tokens (0.49 GB) plus this
allowance (about 1.2 GB) fits on an 80 GB H800, as the seed says.
"""
from __future__ import annotations

import math
from typing import Callable

from engine.catalog_types import Model
from engine.deployment import Deployment
from engine.frozen import frozen
from engine.kv_cache import tokens_past_window
from engine.parallel import ACTIVATION_BYTES_PER_VALUE
from engine.scenario import MAX_CONTEXT_TOKENS
from engine.units import GiB

RUNTIME_BYTES_PER_GPU = 1 * GiB
LOGIT_BYTES_PER_VALUE = 4.0
PREFILL_CHUNK_TOKENS = 8192      # vLLM V1's default max_num_batched_tokens on >= 70 GiB GPUs (module docstring)


def mlp_width_per_token(model: Model) -> int:
    """Widest MLP a token passes through: the dense width, or its routed plus shared experts'."""
    widths = []
    if not model.is_moe or model.dense_layers > 0:
        widths.append(model.intermediate_size)
    if model.is_moe:
        widths.append((model.experts_per_token + model.shared_experts) * model.expert_intermediate_size)
    return max(widths)


def activation_bytes_per_token(model: Model, gpus: int) -> float:
    """Activation workspace one token in flight needs on each GPU (see the module docstring)."""
    if model.uses_mla:
        q = model.attention_heads * (model.qk_nope_head_dim + model.qk_rope_head_dim)
        kv = model.attention_heads * (model.qk_nope_head_dim + model.v_head_dim)
    else:
        q = model.attention_heads * model.head_dim
        kv = 2 * model.kv_heads * model.head_dim
    split = (q + kv + 2 * mlp_width_per_token(model)) / gpus
    return (2 * model.hidden_size + split) * ACTIVATION_BYTES_PER_VALUE


def tokens_per_pass(batch: int, prompt_tokens: int) -> int:
    """Tokens in the biggest forward pass: the batch's prompts, in chunks of at most ``PREFILL_CHUNK_TOKENS``."""
    return min(batch * prompt_tokens, PREFILL_CHUNK_TOKENS)


def allowance_bytes_per_gpu(model: Model, gpus: int, batch: int, prompt_tokens: int) -> float:
    """Runtime allowance plus the activation workspace of the biggest pass (a prefill chunk), per GPU."""
    activations = tokens_per_pass(batch, prompt_tokens) * activation_bytes_per_token(model, gpus)
    logits = batch * model.vocab_size * LOGIT_BYTES_PER_VALUE
    return RUNTIME_BYTES_PER_GPU + activations + logits


def kv_bytes_per_sequence(d: Deployment, context_tokens: float) -> float:
    """KV cache of one sequence at ``context_tokens``, all its layers: windowed layers hold at most their window."""
    return d.kv_bytes_per_token * context_tokens - d.kv_window_bytes_per_token * tokens_past_window(d.model, context_tokens)


def longest_context_in(d: Deployment, room_bytes_per_sequence: float) -> int:
    """The longest context whose KV cache (``kv_bytes_per_sequence``) fits in ``room_bytes_per_sequence``.

    Past a sliding window only the full-attention layers grow; a model whose every
    layer is windowed (Mistral 7B v0.1) stops growing at the window, so memory sets
    no limit once the window fits: the answer is then ``MAX_CONTEXT_TOKENS`` (and the
    model's own maximum caps it, ``plan_memory``).
    """
    per_token = d.kv_bytes_per_token
    window = d.model.sliding_window_tokens if d.kv_window_bytes_per_token else 0
    if not window or room_bytes_per_sequence <= per_token * window:
        return math.floor(room_bytes_per_sequence / per_token)
    per_token_past = per_token - d.kv_window_bytes_per_token
    if per_token_past <= 0:
        return MAX_CONTEXT_TOKENS
    return window + math.floor((room_bytes_per_sequence - per_token * window) / per_token_past)


@frozen
class MemoryPlan:
    """How one GPU's HBM is shared out in a scenario."""
    weights_bytes: float
    weights_bytes_per_gpu: float
    kv_bytes: float                  # whole KV cache, each token's K and V counted once
    kv_bytes_per_gpu: float
    allowance_bytes_per_gpu: float
    capacity_bytes_per_gpu: float
    used_bytes_per_gpu: float
    free_bytes_per_gpu: float        # negative: short by that much
    fits: bool
    max_context_tokens: int          # longest context each of the batch's sequences can reach (model's maximum at most)
    max_sequences: int               # most sequences of this context that fit together
    memory_context_tokens: int = 0   # longest context the memory alone would hold, above the model's maximum too
    context_capped_by_model: bool = False   # the model's own maximum, not memory, sets max_context_tokens


def gpus_sharing(total_bytes: float, per_gpu_bytes: float) -> int | None:
    """Over how many GPUs ``total_bytes`` is split evenly when each keeps ``per_gpu_bytes`` (1: each keeps it
    all); None when each keeps a share that is no whole fraction (a layout that copies part of it to every GPU)
    or either is nothing."""
    if total_bytes <= 0 or per_gpu_bytes <= 0:
        return None
    over = total_bytes / per_gpu_bytes
    return round(over) if abs(over - round(over)) < 1e-6 else None


def plan_memory(d: Deployment, *, batch: int, prompt_tokens: int, output_tokens: int,
                held_tokens: Callable[[int], float] | None = None) -> MemoryPlan:
    """Share out each GPU's HBM for ``batch`` sequences of ``prompt + output`` tokens.

    The longest context and the most sequences keep this scenario's allowance
    fixed and give all the rest to the KV cache: ``max_sequences >= batch``
    and ``memory_context_tokens >= prompt + output`` exactly when the scenario fits.
    ``held_tokens(n)``: the tokens of KV that ``n`` sequences hold, where a lever changes them from
    ``n * (prompt + output)`` (a reserved length, a shared prefix: ``engine.levers.kv_allocation``);
    each held token costs this context's mean bytes, so a sliding window's saving is kept.
    """
    capacity_bytes = d.gpu.memory_bytes
    context = prompt_tokens + output_tokens
    weights_per_gpu = d.weights_bytes_per_gpu
    per_sequence = kv_bytes_per_sequence(d, context)
    sequences = d.sequences_per_gpu(batch)            # those of the fullest attention replica
    if held_tokens is None or context <= 0:
        kv, kv_on_gpu = batch * per_sequence, sequences * per_sequence
    else:
        per_token = per_sequence / context
        kv, kv_on_gpu = held_tokens(batch) * per_token, held_tokens(sequences) * per_token
    kv_per_gpu = kv_on_gpu * d.kv_share_per_gpu
    allowance = allowance_bytes_per_gpu(d.model, d.layout.tensor, batch, prompt_tokens)
    used = weights_per_gpu + kv_per_gpu + allowance
    free = capacity_bytes - used
    room_for_kv = capacity_bytes - weights_per_gpu - allowance
    if room_for_kv > 0:
        memory_context = longest_context_in(d, room_for_kv / (sequences * d.kv_share_per_gpu))
        max_sequences = math.floor(room_for_kv / (per_sequence * d.kv_share_per_gpu)) * d.layout.data
    else:
        memory_context = max_sequences = 0
    longest = d.model.max_context_tokens
    capped = 0 < longest < memory_context
    return MemoryPlan(
        weights_bytes=d.weights_bytes, weights_bytes_per_gpu=weights_per_gpu,
        kv_bytes=kv, kv_bytes_per_gpu=kv_per_gpu, allowance_bytes_per_gpu=allowance,
        capacity_bytes_per_gpu=capacity_bytes, used_bytes_per_gpu=used, free_bytes_per_gpu=free,
        # Boundary: a card filled to its last byte fits (free 0); one byte more does not (test_memory.py).
        fits=free >= 0, max_context_tokens=longest if capped else memory_context, max_sequences=max_sequences,
        memory_context_tokens=memory_context, context_capped_by_model=capped,
    )
