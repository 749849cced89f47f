"""FlashAttention: the attention scores of a prefill stay on chip instead of crossing HBM twice.

Plain ("eager") attention over a prompt of L tokens materialises, for every
head of every layer, the L x L matrix of scores S = QK^T, writes it to HBM,
reads it back for the softmax, writes the probabilities P and reads them
again for PV (Dao et al., "FlashAttention", NeurIPS 2022, arXiv:2205.14135,
section 2.2: Theta(Nd + N^2) HBM accesses against FlashAttention's
Theta(N^2 d^2 / M)). It also computes the whole square, the masked half
included. FlashAttention tiles the computation so that S and P live in on-chip
SRAM, never in HBM, and skips the blocks the causal mask removes.

Without it, per GPU (heads split over the tensor group of T GPUs; ``b`` the sequences
of the GPU's attention replica; the pass's path runs through every layer, one GPU
per pipeline stage, ``engine.passes``)::

    extra HBM bytes = b * layers * heads/T * 4 * L^2 * 2        (S, P written and read, 16-bit)
    extra FLOPs     = attention FLOPs of the masked half: a * batch * (L^2 - L(L+1)/2)
    scores held     = b * heads/T * L^2 * 2                     (one layer's S at a time, in HBM)

The engine's prefill (``engine.passes``) is the fused one: FlashAttention is what
every serving stack runs. ``without_flash`` is the what-if: the prefill pass
with that traffic and work added, timed by the same roofline. The quadratic
term is small next to the weights' FLOPs at a thousand tokens and dominates at
tens of thousands; the score matrix alone outgrows any GPU's memory (Llama 3.1
70B on 2 GPUs at 32K tokens: 32 heads x 32,768^2 x 2 bytes = 69 GB).
Decode steps are left alone: one query's scores are a vector, not a square.
"""
from __future__ import annotations

from dataclasses import replace

from engine.frozen import frozen
from engine.kv_cache import attention_flops_per_position
from engine.parallel import ACTIVATION_BYTES_PER_VALUE
from engine.passes import PassWork, computed_prompt_tokens, path_share, prefill_work
from engine.request import time_pass

SCORE_PASSES_THROUGH_HBM = 4      # S written, S read (softmax), P written, P read (PV)


def attention_heads_per_gpu(model, tensor_gpus: int) -> float:
    """Attention (query) heads each GPU of the tensor-parallel group computes."""
    return model.attention_heads / tensor_gpus


def score_bytes_per_gpu(d, *, batch: int, prompt_tokens: int) -> float:
    """One layer's L x L score matrices of the batch's sequences on one GPU, in 16-bit values."""
    return (d.sequences_per_gpu(batch) * attention_heads_per_gpu(d.model, d.layout.tensor) * prompt_tokens ** 2
            * ACTIVATION_BYTES_PER_VALUE)


def unfused_prefill_work(d, *, batch: int, prompt_tokens: int, cached_tokens: int = 0) -> PassWork:
    """The prefill pass without FlashAttention: the fused pass plus the scores' HBM traffic and the masked half.

    With a cached prefix the new tokens' scores cover the whole prompt: ``computed x L`` each.
    """
    fused = prefill_work(d, batch=batch, prompt_tokens=prompt_tokens, cached_tokens=cached_tokens)
    computed = computed_prompt_tokens(prompt_tokens, cached_tokens)
    cached = prompt_tokens - computed
    square = computed * prompt_tokens
    attended = (prompt_tokens * (prompt_tokens + 1) - cached * (cached + 1)) / 2
    masked_flops = attention_flops_per_position(d.model) * batch * (square - attended)
    scores = (d.sequences_per_gpu(batch) * d.model.layers * attention_heads_per_gpu(d.model, d.layout.tensor)
              * SCORE_PASSES_THROUGH_HBM * square * ACTIVATION_BYTES_PER_VALUE)     # along the path
    # the scores cross HBM beside the attention's KV traffic; the masked half is 16-bit attention work
    return replace(fused, flops=fused.flops + masked_flops, bytes=fused.bytes + scores * d.layout.stage_gpus,
                   kv_bytes_per_gpu=fused.kv_bytes_per_gpu + scores,
                   wide_flops_per_gpu=fused.wide_flops_per_gpu + masked_flops * path_share(d, batch))


@frozen
class FlashComparison:
    """One prompt length's prefill with and without FlashAttention."""
    prompt_tokens: int
    with_flash_seconds: float
    without_flash_seconds: float
    score_traffic_bytes_per_gpu: float    # the HBM traffic FlashAttention saves
    score_bytes_per_gpu: float            # one layer's scores, which must sit in HBM without it

    @property
    def slowdown(self) -> float:
        """How many times longer the prefill takes without FlashAttention."""
        return self.without_flash_seconds / self.with_flash_seconds


def compare(d, machine, *, batch: int, prompt_tokens: int, cached_tokens: int = 0) -> FlashComparison:
    """The prefill of ``batch`` prompts timed with and without FlashAttention."""
    fused = prefill_work(d, batch=batch, prompt_tokens=prompt_tokens, cached_tokens=cached_tokens)
    unfused = unfused_prefill_work(d, batch=batch, prompt_tokens=prompt_tokens, cached_tokens=cached_tokens)
    return FlashComparison(
        prompt_tokens=prompt_tokens, with_flash_seconds=time_pass(fused, machine).seconds,
        without_flash_seconds=time_pass(unfused, machine).seconds,
        score_traffic_bytes_per_gpu=unfused.bytes_per_gpu - fused.bytes_per_gpu,
        score_bytes_per_gpu=score_bytes_per_gpu(d, batch=batch, prompt_tokens=prompt_tokens))
