"""The one playback helper: a position that runs on the scene clock, with play, pause, speed and step.

A scene plays something through (tokens generated one after another, a context
growing from one token to the model's longest, factor tiles appearing in
turn): the position moves from ``start`` to ``end`` at ``rate`` units per
second of the scene clock while playing, and stops exactly at ``end``. Like a
``Transition`` it is a function of the clock's seconds only, so a slow frame
never changes where it is, only how smoothly it gets there; a clock set back to
before the playback began shows its starting position.

Qt-free: stories and tests use it without a clock.
"""
from __future__ import annotations

import math


class Playback:
    """``position(now)`` runs from where it was at ``play`` towards ``end`` at ``rate`` per second."""

    def __init__(self, start: float, end: float, rate: float, position: float | None = None):
        if not (math.isfinite(start) and math.isfinite(end) and end >= start):
            raise ValueError(f"a playback runs from a start to an end at or after it; got {start} to {end}")
        self.start, self.end = float(start), float(end)
        self._rate = self._checked_rate(rate)
        self._from = self.end if position is None else self._clamped(position)
        self._started_at: float | None = None       # clock seconds of the last play; None while paused

    # -- reading -----------------------------------------------------------------------------------
    @property
    def rate(self) -> float:
        """Units per second of the scene clock while playing."""
        return self._rate

    def position(self, now: float) -> float:
        if self._started_at is None or not math.isfinite(now):
            return self._from
        if now < self._started_at:               # the clock was set back before the start: the start
            return self._from
        return min(self.end, self._from + (now - self._started_at) * self._rate)

    def playing(self, now: float) -> bool:
        """Whether the position still moves at ``now`` (it stops by itself at the end)."""
        return self._started_at is not None and self.position(now) < self.end

    def at_end(self, now: float) -> bool:
        return self.position(now) >= self.end

    # -- driving --------------------------------------------------------------------------------------
    def play(self, now: float, from_start: bool = False) -> None:
        """Run from the current position (from ``start`` when asked, or when already at the end)."""
        position = self.position(now)
        self._from = self.start if from_start or position >= self.end else position
        self._started_at = now

    def pause(self, now: float) -> None:
        self._from, self._started_at = self.position(now), None

    def seek(self, position: float, now: float) -> None:
        """Stand at ``position`` (clamped to the range), paused."""
        self._from, self._started_at = self._clamped(position), None

    def step(self, now: float, by: float = 1.0, wrap: bool = False) -> None:
        """Pause and move ``by`` units; from the end: nowhere, or (``wrap``) back to the start."""
        position = self.position(now)
        self.seek(self.start if wrap and position >= self.end else position + by, now)

    def set_rate(self, rate: float, now: float) -> None:
        """A new speed from ``now`` on; the position does not jump."""
        position, playing = self.position(now), self.playing(now)
        self._rate = self._checked_rate(rate)
        self._from = position
        self._started_at = now if playing else None

    def _clamped(self, position: float) -> float:
        return self.start if not math.isfinite(position) else max(self.start, min(self.end, float(position)))

    @staticmethod
    def _checked_rate(rate: float) -> float:
        if not (math.isfinite(rate) and rate > 0):
            raise ValueError(f"a playback's rate must be a positive number of units per second; got {rate}")
        return float(rate)
