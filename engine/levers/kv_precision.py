"""KV quantisation at long context: the KV's share of every step's bytes, and what a narrower cache buys.

A decode step reads every weight once and every cached token's KV once per
sequence. At a short context the weights dominate and a narrower KV cache
(FP8: half the bytes of FP16) changes little; at long context the KV
dominates, and halving it nearly halves the step and doubles the sequences
or the context that fit. ``kv_share_of_step_bytes`` says which regime a
scenario is in; ``long_context_rows`` tabulates it over contexts and KV
precisions for the scene. The accuracy cost of a narrow cache is not modelled
(FP8 KV is within noise on common benchmarks; INT4 KV needs care).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from engine.passes import decode_step_work

LONG_CONTEXTS = (2048, 8192, 32768, 131072)


def kv_share_of_step_bytes(d, *, batch: int, context_tokens: float) -> float:
    """The share of one decode step's HBM bytes that is cached KV read (0..1)."""
    step = decode_step_work(d, batch=batch)
    kv_read = step.bytes_per_gpu_per_context_token * context_tokens
    return kv_read / step.at(context_tokens).bytes_per_gpu


@dataclass(frozen=True)
class KvAtContext:
    kv: str                          # KV precision id
    context_tokens: int              # prompt plus output per sequence
    tpot_seconds: float
    kv_share_of_step_bytes: float    # at the mean decode context
    sequences_that_fit: int          # max_batch at this context
    fits: bool


def long_context_rows(scenario, kv_precisions=("fp16", "fp8"), contexts=LONG_CONTEXTS, catalog=None) -> list[KvAtContext]:
    """For each KV precision and each context up to the model's maximum: time per token, KV share, sequences.

    The context is prompt plus output; the output stays the scenario's (or 1 token when the
    context is shorter). Refusals (an unknown precision) are the engine's ``InputError``.
    """
    from engine.compute import compute_report, setup_of

    rows = []
    for kv in kv_precisions:
        short = replace(scenario, kv=kv, prompt_tokens=1, output_tokens=1, cached_prefix_tokens=0, reserve_tokens=0)
        s = setup_of(short, catalog)          # what does not depend on the lengths: the model on its GPUs
        longest = s.model.max_context_tokens or max(contexts)
        for context in (c for c in contexts if c <= longest):
            output = min(scenario.output_tokens, context - 1) or 1
            report = compute_report(replace(short, prompt_tokens=max(context - output, 1), output_tokens=output),
                                    catalog)
            share = kv_share_of_step_bytes(s.deployment, batch=scenario.batch,
                                           context_tokens=report.decode.context_tokens)
            rows.append(KvAtContext(kv=s.kv.id, context_tokens=context, tpot_seconds=report.tpot_seconds,
                                    kv_share_of_step_bytes=share, sequences_that_fit=report.max_batch,
                                    fits=report.fits))
    return rows
