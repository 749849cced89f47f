"""The levers' lines of the CLI's readable report (``engine.report_text``); numbers through ``engine.units``."""
from __future__ import annotations

from typing import Callable

from engine.levers.fields import speculative_on
from engine.levers.kv_allocation import held_tokens_per_sequence
from engine.units import format_count, format_number, format_percent, format_ratio, format_seconds


def lever_lines(scenario, report, line: Callable[[str, str], str]) -> list[str]:
    """The block on KV allocation, prefix caching and speculative decoding (``line(label, text)`` lays one out)."""
    sc, r = scenario, report
    held = held_tokens_per_sequence(sc, r.model) if r.model is not None else 0
    how = (f"paged, {format_count(held)} tokens a sequence in pages of 16" if sc.kv_allocation == "paged"
           else f"reserved, {format_count(held)} tokens a sequence")
    lines = ["", "Levers", line("KV allocation", f"{how}: {format_count(r.max_batch)} sequences fit")]
    if sc.cached_prefix_tokens:
        computed = max(sc.prompt_tokens - sc.cached_prefix_tokens, 1)
        lines.append(line("cached prefix", f"{format_count(sc.cached_prefix_tokens)} tokens reused; the prefill "
                                           f"computes {format_count(computed)}"))
    spec = r.speculative
    if speculative_on(sc) and spec is not None:
        drafter = sc.draft_model or f"heads at {format_percent(sc.draft_head_cost)} of a step a token"
        loss = ("no loss up to 4,096 sequences" if spec.loss_batch is None
                else f"a loss from batch {format_count(spec.loss_batch)}")
        lines += [
            line("speculative decoding", f"{drafter}, k = {format_count(sc.draft_tokens)}, a = {format_number(sc.acceptance)}: "
                                         f"{format_number(spec.tokens_per_pass)} tokens a pass"),
            line("pass", f"draft {format_seconds(spec.draft_seconds_per_pass)} + verify "
                         f"{format_seconds(spec.verify_seconds_per_pass)} ({spec.verify_bound}-bound) against a "
                         f"step of {format_seconds(spec.plain_step_seconds)}"),
            line("speed-up", f"{format_ratio(spec.speedup)}; {loss}"),
        ]
    return lines
