"""Scene 5's memory bar and its sharing table: Qt-free, tested without Qt (``kv_cache_model`` has the rest).

The bar is one GPU of the scenario's tensor-parallel group (all of them hold the
same): the engine's weights and runtime allowance per GPU, and the KV cache the
engine's context sweep leaves out of the free memory at a context (growth), or
as many conversations of one context as the engine's ``max_sequences`` of a
what-if says (sharing). The table lists that number for 1 to 8 GPUs.
"""
from __future__ import annotations

from typing import Callable

from engine import InputError
from engine.units import format_bytes, format_count
from widgets.kv_sharing_state import KvSharingState, SharingRow
from widgets.memory_bars_state import GpuBar, MemoryBarsState, Segment

Text = Callable[..., str]
BAR_SCALE_MAX = 2.5                   # the bar's drawn scale stops growing at this many capacities


def refused(result) -> bool:
    return isinstance(result, InputError)


# -- the memory bar -----------------------------------------------------------------------------------
def _bar(report, kv_bytes_per_gpu: float, scale_bytes: float, text: Text, kv_label: str,
         kv_sequences: int = 0) -> MemoryBarsState:
    scenario = report.scenario
    gpus = scenario.gpus if scenario is not None else 1
    gpu_name = report.gpu.name if report.gpu is not None else ""
    capacity = report.hbm_bytes_per_gpu
    used = report.weights_bytes_per_gpu + kv_bytes_per_gpu + report.overhead_bytes_per_gpu
    free = capacity - used
    segments = (
        Segment("weights", report.weights_bytes_per_gpu,
                text("label.bar_weights", size=format_bytes(report.weights_bytes_per_gpu)),
                format_bytes(report.weights_bytes_per_gpu)),
        Segment("kv", kv_bytes_per_gpu, kv_label, format_bytes(kv_bytes_per_gpu)),
        Segment("runtime", report.overhead_bytes_per_gpu,
                text("label.bar_runtime", size=format_bytes(report.overhead_bytes_per_gpu)),
                format_bytes(report.overhead_bytes_per_gpu)),
    )
    bar = GpuBar(
        name=text("label.bar_name", count=gpus, gpu=gpu_name),
        capacity_bytes=capacity, segments=segments,
        free_label=text("label.bar_free", size=format_bytes(free)) if free >= 0 else "",
        over_label=text("label.bar_over", size=format_bytes(-free)) if free < 0 else "",
        capacity_label=format_bytes(capacity),
    )
    legend = {key: text(f"label.legend_{key}") for key in ("weights", "kv", "runtime", "free", "over")}
    if kv_sequences > 1:
        legend["sequences"] = text("label.legend_sequences")
    return MemoryBarsState(bars=(bar,), scale_bytes=scale_bytes, labels=legend, kv_sequences=kv_sequences)


def bar_scale_bytes(report, context) -> float:
    """One scale for every state of the growth bar: room for the whole axis, within ``BAR_SCALE_MAX`` cards."""
    capacity = report.hbm_bytes_per_gpu
    used_at_end = capacity - context.free_at(context.max_tokens)
    return max(capacity * 1.05, min(used_at_end, capacity * BAR_SCALE_MAX))


def kv_bytes_per_gpu_at(report, context, tokens: float) -> float:
    """Each GPU's KV cache at ``tokens`` of context: what the engine's free memory there leaves out."""
    return (report.hbm_bytes_per_gpu - report.weights_bytes_per_gpu - report.overhead_bytes_per_gpu
            - context.free_at(tokens))


def growth_bar(report, context, tokens: float, text: Text) -> MemoryBarsState:
    kv = kv_bytes_per_gpu_at(report, context, tokens)
    return _bar(report, kv, bar_scale_bytes(report, context), text,
                text("label.bar_kv", size=format_bytes(kv)))


# -- sharing the card -----------------------------------------------------------------------------------
def sharing_changes(scenario, context_tokens: int) -> dict:
    """The what-if of one conversation of ``context_tokens`` (prompt plus output, at least 2) at batch 1."""
    context_tokens = max(2, int(context_tokens))
    output = max(1, min(scenario.output_tokens, context_tokens - 1))
    return {"batch": 1, "prompt_tokens": context_tokens - output, "output_tokens": output}


def sharing_state(results: dict[int, object], current_gpus: int, context_tokens: int, reveal: float,
                  text: Text) -> KvSharingState:
    """One row per GPU count the engine accepted (``results``: GPU count -> report or refusal)."""
    rows = []
    for gpus, result in sorted(results.items()):
        if refused(result):
            continue
        weights_fit = result.hbm_bytes_per_gpu > result.weights_bytes_per_gpu + result.overhead_bytes_per_gpu
        if not weights_fit:
            value = text("label.sharing_none")
        else:
            value = text("label.conversations", count=result.max_sequences, value=format_count(result.max_sequences))
        rows.append(SharingRow(gpus, text("label.gpus", count=gpus, gpus=format_count(gpus)), result.max_sequences,
                               value, fits=weights_fit, current=gpus == current_gpus))
    return KvSharingState(rows=tuple(rows), reveal=reveal, labels={
        "title": text("label.sharing_title", tokens=format_count(context_tokens)),
        "current_mark": text("label.current_mark")})


def sharing_bar(result, text: Text) -> MemoryBarsState | None:
    """The scenario's GPUs filled with as many conversations as fit (the engine's ``max_sequences``)."""
    if refused(result):
        return None
    sequences = max(0, result.max_sequences)
    kv = sequences * result.kv_bytes_per_gpu
    label = text("label.bar_conversations", count=sequences, value=format_count(sequences), size=format_bytes(kv)) \
        if sequences > 0 else ""
    return _bar(result, kv, result.hbm_bytes_per_gpu * 1.05, text, label, kv_sequences=sequences)
