"""The what-ifs as prompts or conversations grow: one point per length, for a scene's plot or table.

- ``flash_attention_curve``: the prefill with and without FlashAttention at each prompt
  length (``engine.levers.flash_attention``): the gap grows as the square of the prompt;
- ``reload_curve``: bringing a conversation of each length back from host memory over
  PCIe against recomputing it (``engine.levers.offload``);
- ``long_context_rows``: time per token, the KV's share of a step's bytes and the
  sequences that fit, for each KV precision and context (``engine.levers.kv_precision``).

Lengths above the model's maximum context are left out. The rest of the scenario is kept
(batch, GPUs, precisions, mode); a cached prefix does not apply to these curves.
"""
from __future__ import annotations

from dataclasses import replace

from engine.frozen import frozen
from engine.levers import flash_attention, offload
from engine.levers.kv_precision import kv_share_of_step_bytes

PROMPTS = (1024, 4096, 16384, 65536, 131072)
LONG_CONTEXTS = (2048, 8192, 32768, 131072)


def _setup_and_lengths(scenario, lengths, catalog):
    """The scenario's model on its GPUs (nothing that depends on the lengths), and the lengths it can read."""
    from engine.compute import setup_of
    short = replace(scenario, prompt_tokens=1, output_tokens=1, cached_prefix_tokens=0, reserve_tokens=0)
    s = setup_of(short, catalog)
    longest = s.model.max_context_tokens or max(lengths)
    return s, [n for n in lengths if n <= longest]


def flash_attention_curve(scenario, prompts=PROMPTS, catalog=None) -> list[flash_attention.FlashComparison]:
    """The scenario's prefill with and without FlashAttention at each prompt length."""
    s, lengths = _setup_and_lengths(scenario, prompts, catalog)
    return [flash_attention.compare(s.deployment, s.machine, batch=scenario.batch, prompt_tokens=n) for n in lengths]


@frozen
class ReloadPoint:
    context_tokens: int
    reload_seconds: float         # its KV back from host memory over PCIe
    recompute_seconds: float      # a prefill of the same tokens


def reload_curve(scenario, contexts=PROMPTS, catalog=None) -> list[ReloadPoint]:
    """One returning conversation of each length: reloaded against recomputed."""
    s, lengths = _setup_and_lengths(scenario, contexts, catalog)
    return [ReloadPoint(context_tokens=n, reload_seconds=offload.reload_seconds(s.deployment, s.machine.efficiency, tokens=n),
                        recompute_seconds=offload.recompute_seconds(s.deployment, s.machine, tokens=n))
            for n in lengths]


@frozen
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
    from engine.compute import compute_report

    rows = []
    for kv in kv_precisions:
        s, lengths = _setup_and_lengths(replace(scenario, kv=kv), contexts, catalog)
        for context in lengths:
            output = min(scenario.output_tokens, context - 1) or 1
            report = compute_report(replace(s.scenario, prompt_tokens=max(context - output, 1), output_tokens=output),
                                    catalog)
            share = kv_share_of_step_bytes(s.deployment, batch=scenario.batch,
                                           context_tokens=report.decode.context_tokens)
            rows.append(KvAtContext(kv=s.kv.id, context_tokens=context, tpot_seconds=report.tpot_seconds,
                                    kv_share_of_step_bytes=share, sequences_that_fit=report.max_batch,
                                    fits=report.fits))
    return rows
