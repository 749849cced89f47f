"""The levers that are scenario fields, as ``engine.compute`` builds the report.

Prefix caching and the KV allocation enter where the report's own numbers are
made (the prefill pass computes only the uncached tokens,
``engine.passes.prefill_work``; the memory plan holds the KV the allocation
holds, ``engine.levers.kv_allocation``). This module gives the rest:

- ``max_batch_of``: the most sequences of this length that fit, page by page or
  reservation by reservation (the report always gives it; "paged" is the default, as in vLLM);
- ``with_speculative_decoding``: the finished report with the decode phase's
  time divided by the speed-up at the mean context (``engine.levers.speculative``),
  the draft's prefill added to the first token's time, its weights and KV added
  to each GPU's memory, and prices recomputed from the new times (``engine.cost``).
  The report's ``decode`` block keeps describing one plain step of the target.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from engine.cost import token_prices
from engine.levers.fields import speculative_on
from engine.levers.kv_allocation import SequenceFit, kv_tokens_held_by, sequence_fit

if TYPE_CHECKING:
    from engine.levers.speculative import Drafter


def drafter_of(s) -> Drafter | None:
    """The drafter of setup ``s`` (a draft model's deployment, or heads of a stated cost); None when off."""
    sc = s.scenario
    if not speculative_on(sc):
        return None
    from engine.levers.speculative import Drafter     # only with speculative decoding on: no other report loads it
    return Drafter(deployment=s.draft, head_cost=0.0 if s.draft is not None else sc.draft_head_cost)


def draft_bytes_per_gpu(s) -> tuple[float, float]:
    """The draft model's weights per GPU, and one token of its KV per GPU (0, 0 without a draft model)."""
    if s.draft is None:
        return 0.0, 0.0
    return s.draft.weights_bytes_per_gpu, s.draft.kv_bytes_per_token * s.draft.kv_share_per_gpu


def mean_kv_bytes_per_token(s) -> float:
    """KV bytes per held token at the scenario's context: less than ``kv_bytes_per_token`` past a sliding window."""
    from engine.memory import kv_bytes_per_sequence
    context = s.scenario.prompt_tokens + s.scenario.output_tokens
    return kv_bytes_per_sequence(s.deployment, context) / context if context > 0 else s.kv_bytes_per_token


def sequence_fit_of(s, room: float) -> SequenceFit:
    """How many sequences of ``s``'s length fit in ``room`` (each GPU's HBM less weights and allowance) beside the
    draft model (``engine.levers.kv_allocation.sequence_fit``), in every attention replica."""
    draft_weights, draft_kv_per_token = draft_bytes_per_gpu(s)
    return sequence_fit(room - draft_weights, mean_kv_bytes_per_token(s) * s.kv_share_per_gpu, s.scenario,
                        s.model, draft_kv_per_token, s.layout.data)


def max_batch_of(s, room: float) -> int:
    """The most sequences of ``s``'s length that fit in ``room`` (``sequence_fit_of``)."""
    return sequence_fit_of(s, room).sequences


def room_bytes_per_gpu(report) -> float:
    """What a report's GPU has for KV: HBM less the weights and the allowance."""
    return report.hbm_bytes_per_gpu - report.weights_bytes_per_gpu - report.overhead_bytes_per_gpu


def with_speculative_decoding(s, report):
    """``report`` with speculative decoding applied when it is on (module docstring); else ``report`` itself."""
    drafter = drafter_of(s)
    if drafter is None:
        return report
    draft_weights, draft_kv_per_token = draft_bytes_per_gpu(s)
    return replace(report, **_speculative_changes(s, report, drafter, draft_weights, draft_kv_per_token))


def _speculative_changes(s, report, drafter: Drafter, draft_weights: float, draft_kv_per_token: float) -> dict:
    from engine.levers.speculative import (
        SpeculativeReport, draft_prefill_seconds, loss_batch, pass_times, speedup, tokens_per_pass,
    )
    sc, machine = s.scenario, s.machine
    k, a = sc.draft_tokens, sc.acceptance
    context = report.decode.context_tokens
    times = pass_times(s.deployment, drafter, machine, batch=sc.batch, context_tokens=context, draft_tokens=k)
    expected = tokens_per_pass(a, k)
    gain = speedup(times, expected)
    draft_kv = draft_kv_per_token * kv_tokens_held_by(sc, s.model, s.deployment.sequences_per_gpu(sc.batch))
    draft_bytes = draft_weights + draft_kv
    prefill = draft_prefill_seconds(drafter, machine, batch=sc.batch, prompt_tokens=sc.prompt_tokens,
                                    cached_tokens=sc.cached_prefix_tokens)
    ttft = report.ttft_seconds + prefill
    tpot = report.tpot_seconds / gain
    decode = report.decode_seconds / gain
    total = ttft + decode
    prices = token_prices(ttft, tpot, sc.gpus, sc.batch, sc.prompt_tokens, sc.usd_per_gpu_hour)
    free = report.free_bytes_per_gpu - draft_bytes
    return {
        "speculative": SpeculativeReport(
            tokens_per_pass=expected, speedup=gain,
            loss_batch=loss_batch(s.deployment, drafter, machine, context_tokens=context, draft_tokens=k,
                                  acceptance=a),
            draft_seconds_per_pass=times.draft_seconds, verify_seconds_per_pass=times.verify_seconds,
            plain_step_seconds=times.plain_step_seconds, verify_bound=times.verify_bound,
            wasted_tokens_per_pass=k + 1 - expected, draft_prefill_seconds=prefill, draft_bytes_per_gpu=draft_bytes),
        "ttft_seconds": ttft, "tpot_seconds": tpot, "decode_seconds": decode, "total_seconds": total,
        "decode_share": decode / total,
        "usd_per_million_input_tokens": prices.usd_per_million_input_tokens,
        "usd_per_million_output_tokens": prices.usd_per_million_output_tokens,
        "output_to_input_price_ratio": prices.output_to_input_ratio,
        "used_bytes_per_gpu": report.used_bytes_per_gpu + draft_bytes, "free_bytes_per_gpu": free,
        "fits": free >= 0,
    }
