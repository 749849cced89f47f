"""What one forward pass computes and moves: a prefill pass and a decode step.

FLOPs (all GPUs together), with P = weights a token multiplies through
(``ParameterCounts.matmul_per_token``: MoE counts only the top-k and shared
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

Bytes through each GPU's HBM (under tensor parallelism each GPU reads its slice):

- weights, read once per pass: every streamed weight (``ParameterCounts.streamed``:
  not the input embedding table, which is only looked up). For MoE only the
  experts that the pass's tokens touch: ``E * (1 - (1 - k/E)^tokens)`` per MoE
  layer, k of E for a single token, nearly all E for a prompt or a big batch.
- KV cache: prefill writes ``batch * L`` tokens; a decode step reads the ``c``
  cached tokens of each sequence and writes one.
- activations are left out: they stay in on-chip memory or are small next to
  weights and KV (a few MB per pass against GB).

The prefill is timed as one pass, although servers run a long prompt in chunks
(``engine.memory.PREFILL_CHUNK_TOKENS``): each chunk reads the weights again,
but a chunk of thousands of tokens stays far above the ridge point, so the
prefill stays compute-bound and its time changes little.

Each pass also says which of its FLOPs are routed-expert matmuls (``2 * top-k
experts' weights * tokens``), because measured stacks run those at a rate of
their own (``engine.efficiency``). Every function takes the model on its GPUs
as one ``engine.deployment.Deployment`` and the batch and lengths by keyword.

Decode FLOPs and bytes are linear in the context, ``fixed + per_context_token * c``,
which lets ``engine.request`` sum a whole output in closed form. With a sliding
window they are linear up to c = W and linear again, with the smaller slopes of
the full-attention layers alone, beyond it: ``DecodeStepWork.pieces`` gives the
two lines and the contexts each one covers.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from engine.deployment import Deployment
from engine.kv_cache import attention_flops_per_position, attention_flops_prefill, window_attention_flops_per_position
from engine.parallel import allreduce_calls_per_pass, allreduce_link_seconds_per_pass


@dataclass(frozen=True)
class PassWork:
    """One forward pass: its arithmetic, its HBM traffic per GPU, its communication."""
    flops: float                # all GPUs together
    bytes_per_gpu: float        # HBM traffic through each GPU
    link_seconds: float         # all-reduce time at full link speed, no latency
    allreduce_calls: int
    expert_flops: float = 0.0   # the part of ``flops`` spent in routed-expert matmuls (MoE; engine.efficiency)


@dataclass(frozen=True)
class DecodeStepWork:
    """One decode step of the whole batch as a linear function of the context c.

    With a sliding window (``window_tokens`` W > 0) the line holds for c <= W; beyond
    it the slopes are the ``..._past_window`` ones (the full-attention layers alone).
    """
    flops_fixed: float
    flops_per_context_token: float
    bytes_per_gpu_fixed: float
    bytes_per_gpu_per_context_token: float
    link_seconds: float
    allreduce_calls: int
    expert_flops: float = 0.0   # routed-expert matmuls, part of flops_fixed
    window_tokens: int = 0      # W: the context past which windowed layers stop growing (0: no window)
    flops_per_context_token_past_window: float = 0.0
    bytes_per_gpu_per_context_token_past_window: float = 0.0

    def past_window(self) -> DecodeStepWork:
        """The line that holds beyond the window, c > W (the same line when there is no window)."""
        if not self.window_tokens:
            return self
        w = self.window_tokens
        return replace(
            self, window_tokens=0,
            flops_fixed=self.flops_fixed + (self.flops_per_context_token - self.flops_per_context_token_past_window) * w,
            flops_per_context_token=self.flops_per_context_token_past_window,
            bytes_per_gpu_fixed=self.bytes_per_gpu_fixed
            + (self.bytes_per_gpu_per_context_token - self.bytes_per_gpu_per_context_token_past_window) * w,
            bytes_per_gpu_per_context_token=self.bytes_per_gpu_per_context_token_past_window)

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
            bytes_per_gpu=line.bytes_per_gpu_fixed + line.bytes_per_gpu_per_context_token * context_tokens,
            link_seconds=self.link_seconds, allreduce_calls=self.allreduce_calls, expert_flops=self.expert_flops)


def computed_prompt_tokens(prompt_tokens: int, cached_tokens: int = 0) -> int:
    """Prompt tokens a prefill computes when the first ``cached_tokens`` are cached: at least the last one,
    whose logits give the first output token (vLLM recomputes it on a full hit)."""
    return max(prompt_tokens - cached_tokens, 1)


def prefill_work(d: Deployment, *, batch: int, prompt_tokens: int, cached_tokens: int = 0) -> PassWork:
    """The prefill pass over ``batch`` prompts of ``prompt_tokens`` tokens (module docstring).

    With ``cached_tokens`` (prefix caching, ``engine.levers.prefix_cache``) only the rest is computed:
    its tokens attend to positions ``cached + 1 .. prompt`` and read the cached prefix's KV once.
    """
    counts = d.counts
    computed = computed_prompt_tokens(prompt_tokens, cached_tokens)
    cached = prompt_tokens - computed
    tokens = batch * computed
    body = counts.matmul_per_token - counts.lm_head_matmul
    flops = (2.0 * body * tokens + 2.0 * counts.lm_head_matmul * batch
             + (attention_flops_prefill(d.model, prompt_tokens) - attention_flops_prefill(d.model, cached)) * batch)
    weights = counts.streamed(tokens) * d.weight_bytes_per_value / d.gpus
    kv_written = tokens * d.kv_bytes_per_token * d.kv_share_per_gpu
    kv_read = batch * cached * d.kv_bytes_per_token * d.kv_share_per_gpu
    return PassWork(flops=flops, bytes_per_gpu=weights + kv_written + kv_read,
                    link_seconds=allreduce_link_seconds_per_pass(d.model, d.gpu, d.gpus, tokens),
                    allreduce_calls=allreduce_calls_per_pass(d.model, d.gpus),
                    expert_flops=2.0 * counts.routed_matmul_per_token * tokens)


def decode_step_work(d: Deployment, *, batch: int) -> DecodeStepWork:
    """One decode step of ``batch`` sequences, linear in their context (module docstring)."""
    attention = attention_flops_per_position(d.model) * batch
    kv_per_gpu = batch * d.kv_bytes_per_token * d.kv_share_per_gpu
    weights = d.counts.streamed(batch) * d.weight_bytes_per_value / d.gpus
    window = d.model.sliding_window_tokens if d.model.has_sliding_window else 0
    return DecodeStepWork(
        flops_fixed=2.0 * d.counts.matmul_per_token * batch + attention,
        flops_per_context_token=attention,
        bytes_per_gpu_fixed=weights + kv_per_gpu,          # the new token's K and V written
        bytes_per_gpu_per_context_token=kv_per_gpu,        # every cached token's K and V read
        link_seconds=allreduce_link_seconds_per_pass(d.model, d.gpu, d.gpus, batch),
        allreduce_calls=allreduce_calls_per_pass(d.model, d.gpus),
        expert_flops=2.0 * d.counts.routed_matmul_per_token * batch,
        window_tokens=window,                              # past it, windowed layers read no more
        flops_per_context_token_past_window=attention - window_attention_flops_per_position(d.model) * batch,
        bytes_per_gpu_per_context_token_past_window=kv_per_gpu
        - batch * d.kv_window_bytes_per_token * d.kv_share_per_gpu)
