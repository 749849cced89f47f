"""What one forward pass computes and moves: a prefill pass and a decode step.

FLOPs of the whole pass (all GPUs together), with P = weights a token multiplies
through (``ParameterCounts.matmul_per_token``: MoE counts only the top-k and shared
experts) and a = ``kv_cache.attention_flops_per_position``:

- prefill of ``batch`` prompts of L tokens:
  ``2 * (P - LM head) * batch * L`` + ``2 * LM head * batch`` (logits are
  needed only for the last position) + causal attention
  ``a * batch * (1 + 2 + ... + L) = a * batch * L(L+1)/2``. With the first C
  tokens cached (prefix caching) only L - C tokens are computed, attending to
  positions C+1 .. L, and the cached KV is read once per sequence.
- one decode step at context c (tokens already cached per sequence):
  ``2 * P * batch + a * batch * (c + 1)`` (the new token also attends to itself).
- sliding-window layers attend to at most W cached tokens, so past the window
  their share of the attention and of the KV reads stops growing
  (``kv_cache.attention_flops_prefill``, ``attention_flops_decode``).

Bytes through HBM (``engine.deployment`` says which weights each GPU holds):

- weights, read once per pass: every streamed weight (``ParameterCounts.streamed``:
  not the input embedding table, which is only looked up). For MoE only the
  experts that the pass's tokens touch: ``E * (1 - (1 - k/E)^tokens)`` per MoE
  layer, k of E for a single token, nearly all E for a prompt or a big batch.
- KV cache: prefill writes ``batch * L`` tokens; a decode step reads the ``c``
  cached tokens of each sequence and writes one.
- activations are left out: they stay in on-chip memory or are small next to
  weights and KV (a few MB per pass against GB).

The time of a pass is set by the GPUs on its path: one GPU of each pipeline stage,
in turn (``engine.layout``). Its share, summed over the stages: the dense matmuls of
its replica's sequences over T, the routed experts' matmuls of all the stage's tokens
over its T x D GPUs, and the arithmetic that stays 16-bit whatever the weights
(attention, and the LM head; ``engine.deployment``) over T. The three run at rates of
their own (``engine.efficiency``).

A pipeline of P stages runs ``min(P, batch)`` micro-batches at once
(``micro_batches``): each decode step of a micro-batch crosses all P stages while the
other micro-batches keep the other stages busy, so every sequence gets one token per
pass of its micro-batch; a prefill of m micro-batches takes ``(m + P - 1) / P`` passes
(the pipeline fills, then drains). At batch 1 the one token passes every stage in turn.

The prefill is timed as one pass, although servers run a long prompt in chunks
(``engine.memory.PREFILL_CHUNK_TOKENS``): each chunk reads the weights again,
but a chunk of thousands of tokens stays far above the ridge point, so the
prefill stays compute-bound and its time changes little.

Decode FLOPs and bytes are linear in the context, ``fixed + per_context_token * c``,
which lets ``engine.request`` sum a whole output in closed form. With a sliding
window they are linear up to c = W and linear again, with the smaller slopes of
the full-attention layers alone, beyond it: ``DecodeStepWork.pieces`` gives the
two lines and the contexts each one covers.
"""
from __future__ import annotations

import math
from dataclasses import replace

from engine.communication import Transfer, pass_transfers
from engine.deployment import Deployment
from engine.frozen import frozen
from engine.kv_cache import (
    attention_flops_per_position, attention_flops_prefill, tokens_past_window, window_attention_flops_per_position,
)


@frozen
class PassWork:
    """One forward pass: its arithmetic and HBM traffic, in all and along its path, and its communication."""
    flops: float                    # all GPUs together
    bytes: float                    # HBM traffic of all GPUs together
    matmul_flops_per_gpu: float     # dense matmuls at the weights' precision, along the path (module docstring)
    expert_flops_per_gpu: float     # routed-expert matmuls, along the path
    wide_flops_per_gpu: float       # attention and the LM head: 16-bit whatever the weights
    weight_bytes_per_gpu: float     # weights read along the path
    kv_bytes_per_gpu: float         # KV cache read and written along the path
    narrow_weights_per_gpu: float = 0.0   # weights in the weights' precision read along the path (widened if narrow)
    transfers: tuple[Transfer, ...] = ()
    layers: int = 0                 # layers on the path (every one pays the mode's per-layer cost)

    @property
    def bytes_per_gpu(self) -> float:
        return self.weight_bytes_per_gpu + self.kv_bytes_per_gpu

    @property
    def flops_per_gpu(self) -> float:
        return self.matmul_flops_per_gpu + self.expert_flops_per_gpu + self.wide_flops_per_gpu

    @classmethod
    def plain(cls, flops: float, bytes_read: float) -> "PassWork":
        """A pass of dense matmuls on one GPU reading ``bytes_read`` (the probe's passes, a ridge-point check)."""
        return cls(flops=flops, bytes=bytes_read, matmul_flops_per_gpu=flops, expert_flops_per_gpu=0.0,
                   wide_flops_per_gpu=0.0, weight_bytes_per_gpu=bytes_read, kv_bytes_per_gpu=0.0)


@frozen
class DecodeStepWork:
    """One decode step of a micro-batch as a linear function of the context c.

    With a sliding window (``window_tokens`` W > 0) the line holds for c <= W; beyond
    it the four slopes are the ``..._past_window`` ones (the full-attention layers alone).
    """
    flops_fixed: float                       # all GPUs
    flops_per_context_token: float
    bytes_fixed: float                       # all GPUs
    bytes_per_context_token: float
    matmul_flops_per_gpu: float
    expert_flops_per_gpu: float
    wide_flops_per_gpu_fixed: float
    wide_flops_per_gpu_per_context_token: float
    weight_bytes_per_gpu: float
    kv_bytes_per_gpu_fixed: float            # the new token's K and V written
    kv_bytes_per_gpu_per_context_token: float
    narrow_weights_per_gpu: float = 0.0
    transfers: tuple[Transfer, ...] = ()
    layers: int = 0
    sequences: int = 1                       # sequences in the micro-batch
    window_tokens: int = 0                   # W: the context past which windowed layers stop growing (0: no window)
    flops_per_context_token_past_window: float = 0.0
    bytes_per_context_token_past_window: float = 0.0
    wide_flops_per_gpu_per_context_token_past_window: float = 0.0
    kv_bytes_per_gpu_per_context_token_past_window: float = 0.0

    def past_window(self) -> DecodeStepWork:
        """The line that holds beyond the window, c > W (the same line when there is no window)."""
        if not self.window_tokens:
            return self
        changes = {"window_tokens": 0}
        for fixed, slope in _WINDOWED_LINES:
            past = getattr(self, f"{slope}_past_window")
            changes[fixed] = getattr(self, fixed) + (getattr(self, slope) - past) * self.window_tokens
            changes[slope] = past
        return replace(self, **changes)

    def pieces(self, first: int, last: int) -> list[tuple[DecodeStepWork, int, int]]:
        """The contexts ``first .. last`` cut where the line changes: (a line without a window, from, to)."""
        if not self.window_tokens:
            return [(self, first, last)]
        if last <= self.window_tokens:
            return [(replace(self, window_tokens=0), first, last)]
        if first > self.window_tokens:
            return [(self.past_window(), first, last)]
        return [(replace(self, window_tokens=0), first, self.window_tokens),
                (self.past_window(), self.window_tokens + 1, last)]

    def at(self, context_tokens: float) -> PassWork:
        """The step when each sequence already has ``context_tokens`` tokens cached."""
        line = self.past_window() if self.window_tokens and context_tokens > self.window_tokens else self
        return PassWork(
            flops=line.flops_fixed + line.flops_per_context_token * context_tokens,
            bytes=line.bytes_fixed + line.bytes_per_context_token * context_tokens,
            matmul_flops_per_gpu=line.matmul_flops_per_gpu, expert_flops_per_gpu=line.expert_flops_per_gpu,
            wide_flops_per_gpu=line.wide_flops_per_gpu_fixed + line.wide_flops_per_gpu_per_context_token * context_tokens,
            weight_bytes_per_gpu=line.weight_bytes_per_gpu,
            kv_bytes_per_gpu=line.kv_bytes_per_gpu_fixed + line.kv_bytes_per_gpu_per_context_token * context_tokens,
            narrow_weights_per_gpu=line.narrow_weights_per_gpu, transfers=line.transfers, layers=line.layers)


# (intercept, slope) of each line a sliding window bends: past W the slope drops to its ``_past_window`` value
# and the intercept rises by the difference times W, so the line stays continuous at c = W.
_WINDOWED_LINES = (("flops_fixed", "flops_per_context_token"), ("bytes_fixed", "bytes_per_context_token"),
                   ("wide_flops_per_gpu_fixed", "wide_flops_per_gpu_per_context_token"),
                   ("kv_bytes_per_gpu_fixed", "kv_bytes_per_gpu_per_context_token"))


def micro_batches(d: Deployment, batch: int) -> int:
    """Micro-batches a pipeline keeps in flight: ``min(P, batch)`` (1 without a pipeline)."""
    return min(d.layout.pipeline, batch)


def micro_batch_sequences(d: Deployment, batch: int) -> int:
    """Sequences in the largest micro-batch."""
    return math.ceil(batch / micro_batches(d, batch))


def path_share(d: Deployment, sequences: int) -> float:
    """Share of a pass's per-sequence work on the path's GPU: the fullest replica's sequences, over T."""
    return math.ceil(sequences / d.layout.data) / sequences / d.layout.tensor


def _path_flops(d: Deployment, *, sequences: int, tokens: float, lm_head_tokens: float, attention_flops: float):
    """(dense matmul, routed-expert, 16-bit) FLOPs of the path's GPU for a pass over ``sequences`` sequences."""
    c, share = d.counts, path_share(d, sequences)
    dense = 2.0 * (c.matmul_per_token - c.lm_head_matmul - c.routed_matmul_per_token) * tokens * share
    experts = 2.0 * c.routed_matmul_per_token * tokens / d.layout.stage_gpus
    wide = (2.0 * c.lm_head_matmul * lm_head_tokens + attention_flops) * share
    return dense, experts, wide


def computed_prompt_tokens(prompt_tokens: int, cached_tokens: int = 0) -> int:
    """Prompt tokens a prefill computes when the first ``cached_tokens`` are cached: at least the last one,
    whose logits give the first output token (vLLM recomputes it on a full hit)."""
    return max(prompt_tokens - cached_tokens, 1)


def prefill_work(d: Deployment, *, batch: int, prompt_tokens: int, cached_tokens: int = 0) -> PassWork:
    """The prefill pass over ``batch`` prompts of ``prompt_tokens`` tokens (module docstring).

    With ``cached_tokens`` (prefix caching, ``engine.levers``) only the rest is computed: its tokens
    attend to positions ``cached + 1 .. prompt`` and read the cached prefix's KV (what its layers hold) once.
    """
    counts = d.counts
    computed = computed_prompt_tokens(prompt_tokens, cached_tokens)
    cached = prompt_tokens - computed
    tokens = batch * computed
    attention = (attention_flops_prefill(d.model, prompt_tokens) - attention_flops_prefill(d.model, cached)) * batch
    flops = 2.0 * (counts.matmul_per_token - counts.lm_head_matmul) * tokens + 2.0 * counts.lm_head_matmul * batch
    dense, experts, wide = _path_flops(d, sequences=batch, tokens=tokens, lm_head_tokens=batch,
                                       attention_flops=attention)
    narrow = d.streamed_narrow_weights_per_gpu(tokens)
    weights = d.streamed_weight_bytes_per_gpu(narrow)
    held = d.kv_bytes_per_token * cached - d.kv_window_bytes_per_token * tokens_past_window(d.model, cached)
    kv = d.sequences_per_gpu(batch) * (computed * d.kv_bytes_per_token + held) * d.path_kv_share   # written, read
    return PassWork(flops=flops + attention, bytes=_all_gpus_bytes(d, weights, kv),
                    matmul_flops_per_gpu=dense, expert_flops_per_gpu=experts, wide_flops_per_gpu=wide,
                    weight_bytes_per_gpu=weights, kv_bytes_per_gpu=kv,
                    narrow_weights_per_gpu=narrow,
                    transfers=pass_transfers(d.model, d.gpu, d.layout, tokens), layers=d.model.layers)


def decode_step_work(d: Deployment, *, batch: int, tokens_per_sequence: int = 1) -> DecodeStepWork:
    """One decode step of the largest micro-batch of ``batch`` sequences, linear in their context.

    ``tokens_per_sequence`` > 1: a pass in which each sequence brings that many new tokens (speculative
    decoding's verify pass, ``engine.levers.speculative``): all of them attend to the sequence's cached
    tokens, whose KV is read once, and each writes its own.
    """
    b = micro_batch_sequences(d, batch)
    n = b * tokens_per_sequence              # new tokens in the pass
    per_position = attention_flops_per_position(d.model)
    dense, experts, wide = _path_flops(d, sequences=b, tokens=n, lm_head_tokens=n, attention_flops=per_position * n)
    kv_per_gpu = d.sequences_per_gpu(b) * d.kv_bytes_per_token * d.path_kv_share
    written = kv_per_gpu * tokens_per_sequence
    narrow = d.streamed_narrow_weights_per_gpu(n)
    weights = d.streamed_weight_bytes_per_gpu(narrow)
    # past the window the windowed layers attend to and read no more: the full layers' slopes alone
    window = d.model.sliding_window_tokens if d.model.has_sliding_window else 0
    full_position = per_position - window_attention_flops_per_position(d.model)
    full_kv_per_gpu = d.sequences_per_gpu(b) * (d.kv_bytes_per_token - d.kv_window_bytes_per_token) * d.path_kv_share
    return DecodeStepWork(
        flops_fixed=2.0 * d.counts.matmul_per_token * n + per_position * n,
        flops_per_context_token=per_position * n,
        bytes_fixed=_all_gpus_bytes(d, weights, written), bytes_per_context_token=_all_gpus_bytes(d, 0.0, kv_per_gpu),
        matmul_flops_per_gpu=dense, expert_flops_per_gpu=experts,
        wide_flops_per_gpu_fixed=wide, wide_flops_per_gpu_per_context_token=per_position * n * path_share(d, b),
        weight_bytes_per_gpu=weights, kv_bytes_per_gpu_fixed=written, kv_bytes_per_gpu_per_context_token=kv_per_gpu,
        narrow_weights_per_gpu=narrow, transfers=pass_transfers(d.model, d.gpu, d.layout, n, returns_tokens=True),
        layers=d.model.layers, sequences=b, window_tokens=window,
        flops_per_context_token_past_window=full_position * n,
        bytes_per_context_token_past_window=_all_gpus_bytes(d, 0.0, full_kv_per_gpu),
        wide_flops_per_gpu_per_context_token_past_window=full_position * n * path_share(d, b),
        kv_bytes_per_gpu_per_context_token_past_window=full_kv_per_gpu)


def _all_gpus_bytes(d: Deployment, weight_bytes_on_path: float, kv_bytes_on_path: float) -> float:
    """HBM traffic of all GPUs from the path's: each stage's T x D GPUs (replicas each read the dense weights)."""
    return (weight_bytes_on_path + kv_bytes_on_path) * d.layout.stage_gpus
