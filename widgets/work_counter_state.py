"""What the work counter draws: token computations with and without a KV cache, as tokens are generated.

Qt-free. The scene hands over the two cumulative curves (from the engine's
``tokens_processed_without_cache`` / ``tokens_processed_with_cache``, one value
per generated token 0..N) and how many tokens have been generated so far; the
widget draws both counters, the plot of both curves up to that token, and the
last step's work as a strip: every earlier token recomputed (hatched) without a
cache, read from the cache (dotted) with one. Every text arrives formatted and
translated. Nothing here computes physics.
"""
from __future__ import annotations

from dataclasses import field

from engine.frozen import frozen

# Texts the widget knows, most important first: dropped from the end when there is no room.
LABEL_PRIORITY = ("naive_count", "cached_count", "ratio", "naive_title", "cached_title",
                  "naive_step", "cached_step", "recomputed", "read", "new", "y_axis", "x_axis",
                  "naive_line", "cached_line", "x_end")


@frozen
class WorkCounterState:
    """``naive_curve[n]`` / ``cached_curve[n]``: token computations after ``n`` generated tokens (n = 0..max).

    ``generated_tokens`` (0..max) is where the playback is; ``show_cached`` adds the second counter, its
    line and its strip (the "cache" build). ``labels`` keys: see ``LABEL_PRIORITY``.
    """
    naive_curve: tuple[float, ...]
    cached_curve: tuple[float, ...]
    generated_tokens: int
    show_cached: bool = False
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def max_tokens(self) -> int:
        return len(self.naive_curve) - 1

    def __hash__(self) -> int:
        return hash((len(self.naive_curve), self.generated_tokens, self.show_cached,
                     tuple(sorted(self.labels.items()))))


def shown_tokens(state: WorkCounterState) -> int:
    """The generated tokens the picture shows, clamped to the curves."""
    return max(0, min(state.generated_tokens, state.max_tokens))


def naive_computations(state: WorkCounterState) -> float:
    """Token computations so far without a cache (what the first counter shows)."""
    return state.naive_curve[shown_tokens(state)]


def cached_computations(state: WorkCounterState) -> float:
    """Token computations so far with a cache (what the second counter shows)."""
    return state.cached_curve[shown_tokens(state)]
