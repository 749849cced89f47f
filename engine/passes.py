"""What one forward pass computes and moves: a prefill pass and a decode step.

FLOPs (all GPUs together), with P = weights a token multiplies through
(``ParameterCounts.matmul_per_token``: MoE counts only the top-k and shared
experts) and a = ``kv_cache.attention_flops_per_position``:

- prefill of ``batch`` prompts of L tokens:
  ``2 * (P - LM head) * batch * L`` + ``2 * LM head * batch`` (logits are
  needed only for the last position) + causal attention
  ``a * batch * (1 + 2 + ... + L) = a * batch * L(L+1)/2``.
- one decode step at context c (tokens already cached per sequence):
  ``2 * P * batch + a * batch * (c + 1)`` (the new token also attends to itself).

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

Decode FLOPs and bytes are linear in the context, ``fixed + per_context_token * c``,
which lets ``engine.request`` sum a whole output in closed form.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.catalog_types import Gpu, Model
from engine.kv_cache import attention_flops_per_position
from engine.parallel import allreduce_calls_per_pass, allreduce_link_seconds_per_pass
from engine.parameters import ParameterCounts


@dataclass(frozen=True)
class PassWork:
    """One forward pass: its arithmetic, its HBM traffic per GPU, its communication."""
    flops: float                # all GPUs together
    bytes_per_gpu: float        # HBM traffic through each GPU
    link_seconds: float         # all-reduce time at full link speed, no latency
    allreduce_calls: int


@dataclass(frozen=True)
class DecodeStepWork:
    """One decode step of the whole batch as a linear function of the context c."""
    flops_fixed: float
    flops_per_context_token: float
    bytes_per_gpu_fixed: float
    bytes_per_gpu_per_context_token: float
    link_seconds: float
    allreduce_calls: int

    def at(self, context_tokens: float) -> PassWork:
        """The step when each sequence already has ``context_tokens`` tokens cached."""
        return PassWork(
            flops=self.flops_fixed + self.flops_per_context_token * context_tokens,
            bytes_per_gpu=self.bytes_per_gpu_fixed + self.bytes_per_gpu_per_context_token * context_tokens,
            link_seconds=self.link_seconds, allreduce_calls=self.allreduce_calls)


def prefill_work(model: Model, counts: ParameterCounts, gpu: Gpu, gpus: int,
                 weight_bytes_per_value: float, kv_bytes_per_token: float, kv_share_per_gpu: float,
                 batch: int, prompt_tokens: int) -> PassWork:
    """The prefill pass over ``batch`` prompts of ``prompt_tokens`` tokens (module docstring)."""
    tokens = batch * prompt_tokens
    body = counts.matmul_per_token - counts.lm_head_matmul
    flops = (2.0 * body * tokens + 2.0 * counts.lm_head_matmul * batch
             + attention_flops_per_position(model) * batch * prompt_tokens * (prompt_tokens + 1) / 2)
    weights = counts.streamed(tokens) * weight_bytes_per_value / gpus
    kv_written = tokens * kv_bytes_per_token * kv_share_per_gpu
    return PassWork(flops=flops, bytes_per_gpu=weights + kv_written,
                    link_seconds=allreduce_link_seconds_per_pass(model, gpu, gpus, tokens),
                    allreduce_calls=allreduce_calls_per_pass(model, gpus))


def decode_step_work(model: Model, counts: ParameterCounts, gpu: Gpu, gpus: int,
                     weight_bytes_per_value: float, kv_bytes_per_token: float, kv_share_per_gpu: float,
                     batch: int) -> DecodeStepWork:
    """One decode step of ``batch`` sequences, linear in their context (module docstring)."""
    attention = attention_flops_per_position(model) * batch
    kv_per_gpu = batch * kv_bytes_per_token * kv_share_per_gpu
    weights = counts.streamed(batch) * weight_bytes_per_value / gpus
    return DecodeStepWork(
        flops_fixed=2.0 * counts.matmul_per_token * batch + attention,
        flops_per_context_token=attention,
        bytes_per_gpu_fixed=weights + kv_per_gpu,          # the new token's K and V written
        bytes_per_gpu_per_context_token=kv_per_gpu,        # every cached token's K and V read
        link_seconds=allreduce_link_seconds_per_pass(model, gpu, gpus, batch),
        allreduce_calls=allreduce_calls_per_pass(model, gpus))
