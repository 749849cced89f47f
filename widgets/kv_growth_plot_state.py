"""What the KV growth plot draws: KV-cache bytes against context length, both axes logarithmic.

Qt-free. The curve arrives as points the scene took from the engine's context
sweep (``engine.sweep.kv_bytes_for_contexts``); the marks (2K, 32K, 128K) are
points on it with their texts; ``limit_tokens`` is the engine's longest context
that fits (``Report.max_context_tokens``): beyond it the plot is hatched and
the curve dashed, "does not fit". ``room_bytes`` is the KV cache that fits,
drawn as a level line the curve crosses at the limit. ``context_tokens`` is the
playback's or slider's position, drawn as a point with its value. The widget
interpolates nothing but pixels.
"""
from __future__ import annotations

import math
from dataclasses import field, replace

from engine.frozen import frozen

LABEL_PRIORITY = ("current", "limit", "mark", "overflow", "room", "y_axis", "x_axis", "tick")


@frozen
class GrowthMark:
    key: str                 # "2k", "32k", "128k"
    tokens: float
    bytes: float
    label: str               # "32K: 10 GiB"


@frozen
class KvGrowthState:
    curve: tuple[tuple[float, float], ...]       # (context tokens, KV bytes), increasing, from the engine
    context_tokens: float                        # where the point is
    context_bytes: float                         # the engine's KV bytes there
    marks: tuple[GrowthMark, ...] = ()
    limit_tokens: float = 0.0                    # longest context that fits; 0: not even one token fits
    room_bytes: float = 0.0                      # KV bytes that fit (the level line); 0: none
    x_ticks: tuple[tuple[float, str], ...] = ()  # (tokens, text)
    y_ticks: tuple[tuple[float, str], ...] = ()  # (bytes, text)
    labels: dict[str, str] = field(default_factory=dict)   # see LABEL_PRIORITY ("current", "limit", ...)

    def __hash__(self) -> int:
        return hash((self.curve, self.context_tokens, self.context_bytes, self.marks, self.limit_tokens,
                     self.room_bytes, self.x_ticks, self.y_ticks, tuple(sorted(self.labels.items()))))


def x_range(state: KvGrowthState) -> tuple[float, float]:
    """log10 of the first and last context on the axis."""
    low = max(state.curve[0][0], 1.0) if state.curve else 1.0
    high = state.curve[-1][0] if state.curve else 10.0
    return math.log10(low), math.log10(max(high, low * 10))


def y_range(state: KvGrowthState) -> tuple[float, float]:
    """log10 of the lowest and highest bytes on the axis (the curve and the room line both inside)."""
    values = [b for _, b in state.curve if b > 0]
    if state.room_bytes > 0:
        values.append(state.room_bytes)
    if not values:
        return 0.0, 1.0
    low, high = math.log10(min(values)), math.log10(max(values))
    return low, max(high, low + 1)


def static_part(state: KvGrowthState) -> KvGrowthState:
    """``state`` without the moving point: what stays the same while a playback moves the context."""
    labels = {k: v for k, v in state.labels.items() if k != "current"}
    return replace(state, context_tokens=0.0, context_bytes=0.0, labels=labels)


def overflows(state: KvGrowthState) -> bool:
    """Whether the point stands beyond the longest context that fits."""
    return state.context_tokens > state.limit_tokens
