"""One search over batch sizes (or any count from 1 up), for questions whose answer flips once as it grows."""
from __future__ import annotations

from typing import Callable

from engine.scenario import MAX_BATCH


def smallest_batch(holds: Callable[[int], bool], largest: int = MAX_BATCH) -> int | None:
    """The smallest batch from 1 to ``largest`` for which ``holds`` is true, or None if it never is.

    ``holds`` must be monotone: false below some batch, true from there on (bisection).
    """
    if not holds(largest):
        return None
    low, high = 1, largest          # holds(high) is true; find the smallest such batch
    while low < high:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle + 1
    return low
