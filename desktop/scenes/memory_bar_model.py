"""One GPU memory bar from an engine report: the one builder scenes 2, 3, 5 and the summary share (Qt-free).

In: a report (weights, KV cache, runtime allowance, capacity and free memory per
GPU are its fields: ``weights_bytes_per_gpu``, ``kv_bytes_per_gpu``,
``overhead_bytes_per_gpu``, ``hbm_bytes_per_gpu``, ``free_bytes_per_gpu``), an
optional KV cache per GPU that replaces the report's (before a cache exists:
0; scene 5's cache at another context) with, where the engine gives it, the
free memory that goes with it, an optional number of sequences the KV segment
is split into, the bars' names and a ``label(kind, n_bytes)`` callable for the
texts. Out: a ``widgets.memory_bars_state.MemoryBarsState``. Nothing here
computes physics: with the KV cache replaced and no free memory given, the free
memory is the report's with the difference of the two caches (the engine's free
memory is capacity - weights - KV - allowance).
"""
from __future__ import annotations

from typing import Callable

from engine.frozen import frozen
from engine.units import format_bytes
from widgets.memory_bars_state import GpuBar, MemoryBarsState, Segment

# label(kind, n_bytes) -> the text beside a segment or the free/over part, in the current language;
# "" leaves it unlabelled. kind: "weights", "kv", "runtime", "free" or "over".
Label = Callable[[str, float], str]
SEGMENT_KINDS = ("weights", "kv", "runtime")


@frozen
class BarName:
    """The text under a bar, and a shorter one where that does not fit."""
    name: str
    short_name: str = ""


def kv_and_free_bytes(report, kv_bytes_per_gpu: float | None = None,
                      free_bytes_per_gpu: float | None = None) -> tuple[float, float]:
    """Each GPU's KV cache and free memory: the report's, or with ``kv_bytes_per_gpu`` in place of its cache
    (and ``free_bytes_per_gpu``, the engine's free memory with that cache, where given)."""
    if kv_bytes_per_gpu is None:
        return report.kv_bytes_per_gpu, report.free_bytes_per_gpu
    if free_bytes_per_gpu is None:
        free_bytes_per_gpu = report.free_bytes_per_gpu + report.kv_bytes_per_gpu - kv_bytes_per_gpu
    return kv_bytes_per_gpu, free_bytes_per_gpu


def gpu_bar(report, label: Label, name: BarName, kv_bytes_per_gpu: float | None = None,
            free_bytes_per_gpu: float | None = None, capacity_label: bool = True) -> GpuBar:
    """One GPU of ``report`` (under tensor parallelism every GPU holds the same), bottom up: weights, KV, runtime."""
    kv, free = kv_and_free_bytes(report, kv_bytes_per_gpu, free_bytes_per_gpu)
    sizes = dict(zip(SEGMENT_KINDS, (report.weights_bytes_per_gpu, kv, report.overhead_bytes_per_gpu)))
    segments = []
    for kind, n_bytes in sizes.items():
        text = label(kind, n_bytes)
        segments.append(Segment(kind, n_bytes, text, format_bytes(n_bytes) if text else ""))
    return GpuBar(name=name.name, short_name=name.short_name, capacity_bytes=report.hbm_bytes_per_gpu,
                  segments=tuple(segments),
                  free_label=label("free", free) if free >= 0 else "",
                  over_label=label("over", -free) if free < 0 else "",
                  capacity_label=format_bytes(report.hbm_bytes_per_gpu) if capacity_label else "")


def memory_bars_state(report, label: Label, names: tuple[BarName, ...] | BarName, *,
                      kv_bytes_per_gpu: float | None = None, free_bytes_per_gpu: float | None = None,
                      kv_sequences: int = 0, scale_bytes: float = 0.0, **fields) -> MemoryBarsState:
    """Bars of ``report``'s GPUs, one per name (all alike; the capacity is written beside the first).

    ``fields``: the state's other fields (``labels``, ``link_label``, ``title``, ``footer``, ``footer_role``,
    ``aligned_rows``)."""
    names = (names,) if isinstance(names, BarName) else tuple(names)
    bars = tuple(gpu_bar(report, label, name, kv_bytes_per_gpu, free_bytes_per_gpu, capacity_label=n == 0)
                 for n, name in enumerate(names))
    return MemoryBarsState(bars=bars, scale_bytes=scale_bytes, kv_sequences=kv_sequences, **fields)
