"""KV quantisation at long context: the KV's share of every step's bytes, and what a narrower cache buys.

A decode step reads every weight once and every cached token's KV once per
sequence. At a short context the weights dominate and a narrower KV cache
(FP8: half the bytes of FP16) changes little; at long context the KV
dominates, and halving it nearly halves the step and doubles the sequences
or the context that fit. ``kv_share_of_step_bytes`` says which regime a
scenario is in; ``engine.levers.curves.long_context_rows`` tabulates it over
contexts and KV precisions for the scene.

Halving the bytes halves the read only where the attention kernel reads the
narrow values directly (FlashAttention 3, FlashInfer, TensorRT-LLM); stacks that
widen them in a separate pass first gain capacity but little time (vLLM's
quantised KV cache documentation says so of its older versions). The accuracy
cost of a narrow cache is not modelled.
"""
from __future__ import annotations

from engine.passes import decode_step_work


def kv_share_of_step_bytes(d, *, batch: int, context_tokens: float) -> float:
    """The share of one decode step's HBM bytes that is cached KV read (0..1)."""
    step = decode_step_work(d, batch=batch)
    work = step.at(context_tokens)
    kv_read = work.kv_bytes_per_gpu - step.kv_bytes_per_gpu_fixed          # all but the new token's own K and V
    return kv_read / work.bytes_per_gpu
