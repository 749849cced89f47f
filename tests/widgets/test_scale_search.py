"""The scale search finds the grid point that bisecting the whole range finds, mostly asking fewer sizes."""
from __future__ import annotations

import math
import pytest

from widgets.scale_search import BISECTION_STEPS, HIGHEST_SCALE, LOWEST_SCALE, largest_scale


class Sizes:
    """A drawing whose logical size at scale s is ``size(s)``; counts the sizes asked for."""

    def __init__(self, size):
        self.size, self.asked = size, 0

    def __call__(self, s):
        self.asked += 1
        return self.size(s)


def bisected(size: Sizes, width: float, height: float) -> float:
    """The search as it was: bisecting LOWEST..HIGHEST ``BISECTION_STEPS`` times."""
    def fits(s):
        logical_width, logical_height = size(s)
        return logical_width * s <= width and logical_height * s <= height

    low, high = LOWEST_SCALE, HIGHEST_SCALE
    if not fits(low):
        return low
    for _ in range(BISECTION_STEPS):
        middle = (low + high) / 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    return low


def with_floor(shapes: float, text: float, floor: float):
    """Shapes that scale, and text that stops shrinking at ``floor``: logical size grows as s falls."""
    return lambda s: (shapes + text * max(1.0, floor / s), 0.6 * shapes + text * max(1.0, floor / s))


SIZES = {
    "shapes only": lambda s: (1000.0, 600.0),
    "text at a floor": with_floor(900.0, 300.0, 0.5),
    "text at a high floor": with_floor(500.0, 400.0, 2.0),
    "stepped (line breaks)": lambda s: (1000.0 + 200.0 * (s < 0.7), 700.0 + 150.0 * math.floor(3 * s) / 3),
}
ROOMS = [(499, 492), (1024, 768), (1920, 1080), (3840, 2160), (50, 40), (20000, 20000), (640, 4000)]


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
@pytest.mark.parametrize("room", ROOMS)
def test_the_search_lands_where_bisection_lands(size, room):
    old, new = Sizes(size), Sizes(size)
    expected = bisected(old, *room)
    assert largest_scale(new, *room) == pytest.approx(expected, abs=1e-12)
    # far from its guess (flat or stepped sizes) it may take more than bisection; never more than twice as many
    assert new.asked <= 2 * (BISECTION_STEPS + 2)


@pytest.mark.parametrize("room", [(1024, 768), (1920, 1080), (3840, 2160)])
def test_where_the_size_follows_the_scale_it_takes_fewer_sizes_than_bisection(room):
    for size in (SIZES["shapes only"], SIZES["text at a floor"]):
        old, new = Sizes(size), Sizes(size)
        assert largest_scale(new, *room) == pytest.approx(bisected(old, *room), abs=1e-12)
        assert new.asked < old.asked


def test_a_guess_near_the_answer_asks_few_sizes():
    size = SIZES["text at a floor"]
    answer = bisected(Sizes(size), 1920, 1080)
    near = Sizes(size)
    assert largest_scale(near, 1920, 1080, guess=answer) == pytest.approx(answer, abs=1e-12)
    assert near.asked <= 4
