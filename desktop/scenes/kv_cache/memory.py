"""The KV cache scene's memory bar and its sharing table: Qt-free, tested without Qt (``pictures`` has the rest).

The bar is one GPU of the scenario's tensor-parallel group (all of them hold the
same), built by the shared ``memory_bar_model``: the report's weights and
runtime allowance per GPU, and the KV cache at a context from the engine's
context sweep (growth: the sweep's whole cache at that context, each GPU
holding the report's share of it, and the sweep's free memory there), or as
many conversations of one context as the engine's ``max_sequences`` of a
what-if says (sharing). The table lists that number for 1 to 8 GPUs.
"""
from __future__ import annotations

from typing import Callable

from desktop.scenes.memory_bar_model import BarName, memory_bars_state
from desktop.kit.answers import refused
from desktop.kit.questions import ContextSweep
from engine.units import format_bytes, format_count
from widgets.kv_sharing_state import KvSharingState, SharingRow
from widgets.memory_bars_state import MemoryBarsState

Text = Callable[..., str]
BAR_SCALE_MAX = 2.5                   # the bar's drawn scale stops growing at this many capacities


# -- the memory bar -----------------------------------------------------------------------------------
def _bar(report, text: Text, kv_label: str, scale_bytes: float, kv_bytes_per_gpu: float | None = None,
         free_bytes_per_gpu: float | None = None, kv_sequences: int = 0) -> MemoryBarsState:
    def label(kind: str, n_bytes: float) -> str:
        return kv_label if kind == "kv" else text(f"label.bar_{kind}", size=format_bytes(n_bytes))
    legend = {key: text(f"label.legend_{key}") for key in ("weights", "kv", "runtime", "free", "over")}
    if kv_sequences > 1:
        legend["sequences"] = text("label.legend_sequences")
    name = BarName(text("label.bar_name", count=report.scenario.gpus, gpu=report.gpu.name))
    return memory_bars_state(report, label, name, kv_bytes_per_gpu=kv_bytes_per_gpu,
                             free_bytes_per_gpu=free_bytes_per_gpu, kv_sequences=kv_sequences,
                             scale_bytes=scale_bytes, labels=legend)


def bar_scale_bytes(report, context: ContextSweep) -> float:
    """One scale for every state of the growth bar: room for the whole axis, within ``BAR_SCALE_MAX`` cards
    (``context``: the sweep over the plot's contexts, the longest last)."""
    capacity = report.hbm_bytes_per_gpu
    used_at_end = capacity - float(context.free_bytes_per_gpu[-1])
    return max(capacity * 1.05, min(used_at_end, capacity * BAR_SCALE_MAX))


def kv_bytes_per_gpu(report, kv_bytes: float) -> float:
    """Each GPU's part of a whole KV cache of ``kv_bytes``: the report's share (heads split or replicated)."""
    return kv_bytes * report.kv_bytes_per_gpu / report.kv_bytes if report.kv_bytes > 0 else 0.0


def growth_bar(report, point: ContextSweep, scale_bytes: float, text: Text) -> MemoryBarsState:
    """The bar at the one context of ``point`` (the engine's sweep there): its KV cache and free memory."""
    kv = kv_bytes_per_gpu(report, float(point.kv_bytes[0]))
    return _bar(report, text, text("label.bar_kv", size=format_bytes(kv, binary=True)), scale_bytes,
                kv_bytes_per_gpu=kv, free_bytes_per_gpu=float(point.free_bytes_per_gpu[0]))


# -- sharing the card -----------------------------------------------------------------------------------
def sharing_changes(scenario, context_tokens: int) -> dict:
    """The what-if of one conversation of ``context_tokens`` (prompt plus output, at least 2) at batch 1."""
    context_tokens = max(2, int(context_tokens))
    output = max(1, min(scenario.output_tokens, context_tokens - 1))
    return {"batch": 1, "prompt_tokens": context_tokens - output, "output_tokens": output}


def weights_fit(result) -> bool:
    """Whether the weights and the allowance leave room for any cache at all: the engine's longest context > 0."""
    return result.max_context_tokens > 0


def sharing_state(results: dict[int, object], current_gpus: int, context_tokens: int, reveal: float,
                  text: Text) -> KvSharingState:
    """One row per GPU count the engine accepted (``results``: GPU count -> report or refusal)."""
    rows = []
    for gpus, result in sorted(results.items()):
        if refused(result):
            continue
        fits = weights_fit(result)
        value = text("label.conversations", count=result.max_sequences, value=format_count(result.max_sequences)) \
            if fits else text("label.sharing_none")
        rows.append(SharingRow(gpus, text("label.gpus", count=gpus, gpus=format_count(gpus)), result.max_sequences,
                               value, fits=fits, current=gpus == current_gpus))
    return KvSharingState(rows=tuple(rows), reveal=reveal, labels={
        "title": text("label.sharing_title", tokens=format_count(context_tokens)),
        "current_mark": text("label.current_mark")})


def sharing_bar(result, text: Text) -> MemoryBarsState | None:
    """The scenario's GPUs filled with as many conversations as fit: the engine's ``max_sequences``, each
    holding the what-if's one conversation's cache (a what-if at that batch would size the runtime allowance
    for the batch, and ``max_sequences`` keeps the one-conversation allowance)."""
    if refused(result):
        return None
    sequences = max(0, result.max_sequences)
    kv = sequences * result.kv_bytes_per_gpu
    # Under tensor parallelism each card holds its part of every conversation's cache: the label says so.
    key = "label.bar_conversations_share" if result.scenario.gpus > 1 else "label.bar_conversations"
    label = text(key, count=sequences, value=format_count(sequences), size=format_bytes(kv, binary=True)) \
        if sequences > 0 else ""
    return _bar(result, text, label, result.hbm_bytes_per_gpu * 1.05, kv_bytes_per_gpu=kv, kv_sequences=sequences)
