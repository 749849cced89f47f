"""The one transition helper: eased, exactly the target at the end, independent of how it was driven."""
from __future__ import annotations

import pytest

from widgets.transition import TRANSITION_SECONDS, Transition, smoothstep


def test_the_value_ends_exactly_at_the_target_and_moves_in_between():
    t = Transition(1.0)
    t.retarget(3.0, now=10.0)
    assert t.value(10.0) == 1.0
    assert 1.0 < t.value(10.0 + TRANSITION_SECONDS / 2) < 3.0
    assert t.value(10.0 + TRANSITION_SECONDS) == 3.0
    assert not t.running(10.0 + TRANSITION_SECONDS)


def test_many_quick_retargets_still_end_at_the_last_target():
    t = Transition(0.1)
    now = 0.0
    for target in (5.0, 0.3, 7.7, 1.234567):
        t.retarget(target, now)
        now += 0.01                     # clicked faster than the transition lasts
    assert t.value(now + TRANSITION_SECONDS) == 1.234567


def test_not_animated_jumps_and_a_clock_set_back_ends_the_transition():
    t = Transition(2.0)
    t.retarget(4.0, now=5.0, animate=False)
    assert t.value(5.0) == 4.0
    t.retarget(8.0, now=5.0)
    assert t.value(1.0) == 8.0          # export and reset set the clock back: the end state, never a middle


def test_tuples_ease_component_by_component_and_log_space_keeps_ratios():
    t = Transition((0.0, 10.0))
    t.retarget((10.0, 0.0), now=0.0)
    a, b = t.value(TRANSITION_SECONDS / 2)
    assert a == pytest.approx(5.0) and b == pytest.approx(5.0)
    log = Transition(1.0, log=True)
    log.retarget(100.0, now=0.0)
    assert log.value(TRANSITION_SECONDS / 2) == pytest.approx(10.0)


def test_easing_is_monotonic_from_zero_to_one():
    values = [smoothstep(i / 20) for i in range(21)]
    assert values[0] == 0 and values[-1] == 1 and values == sorted(values)
