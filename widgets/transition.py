"""The one transition helper: a value easing to a target on the scene clock.

A build change, a new scenario or a preset moves a value (an intensity, a
segment of a memory bar) from where it is now to where it belongs, over a short
time measured on the scene's ``AnimationClock``. The value is a function of the
clock's seconds only, so a slow frame never changes where it ends, and it is
exactly the target once the time is up: whatever the number or speed of the
clicks that led there, the last build shows the engine's numbers, not a
rounding of them.

Qt-free: models and widgets both use it.
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

# A few hundred milliseconds: the eye follows the change, a room never waits for it.
TRANSITION_SECONDS = 0.3

Value = float | tuple[float, ...]


def smoothstep(progress: float) -> float:
    """Eased progress: slow at both ends, 0 at 0 and exactly 1 at 1."""
    p = max(0.0, min(1.0, progress))
    return p * p * (3 - 2 * p)


def _as_tuple(value: Value) -> tuple[float, ...]:
    return tuple(float(v) for v in value) if isinstance(value, Sequence) else (float(value),)


class Transition:
    """``value(now)`` eases from the value at the last ``retarget`` to its target over ``seconds``.

    Values are floats or tuples of floats (eased component by component; a tuple
    of another length jumps). ``log=True`` eases in log space (for intensities
    and other quantities drawn on a log axis; every value must then be > 0).
    """

    def __init__(self, value: Value, seconds: float = TRANSITION_SECONDS, log: bool = False,
                 ease: Callable[[float], float] = smoothstep):
        self._is_tuple = isinstance(value, Sequence)
        self._start = self._target = _as_tuple(value)
        self._started_at = 0.0
        self._seconds = max(0.0, float(seconds))
        self._log = log
        self._ease = ease

    @property
    def target(self) -> Value:
        return self._shape(self._target)

    def retarget(self, target: Value, now: float, animate: bool = True) -> None:
        """Move towards ``target`` from where the value is at ``now`` (or jump there when not ``animate``)."""
        target_tuple = _as_tuple(target)
        self._is_tuple = isinstance(target, Sequence)
        current = self._current(now)
        if not animate or self._seconds == 0 or len(current) != len(target_tuple) or not all(
                map(math.isfinite, current + target_tuple)):
            self._start = target_tuple
        else:
            self._start = current
        self._target = target_tuple
        self._started_at = now

    def running(self, now: float) -> bool:
        """Whether the value still moves at ``now`` (a clock set back to before the start ends it too)."""
        return self._start != self._target and self._started_at <= now < self._started_at + self._seconds

    def value(self, now: float) -> Value:
        return self._shape(self._current(now))

    def _current(self, now: float) -> tuple[float, ...]:
        if not self.running(now):
            return self._target
        p = self._ease((now - self._started_at) / self._seconds)
        if self._log and all(v > 0 for v in self._start + self._target):
            return tuple(math.exp(math.log(a) + p * (math.log(b) - math.log(a)))
                         for a, b in zip(self._start, self._target))
        return tuple(a + p * (b - a) for a, b in zip(self._start, self._target))

    def _shape(self, values: tuple[float, ...]) -> Value:
        return values if self._is_tuple else values[0]
