"""What the share bars draw: a hero figure over one or more labelled horizontal bars.

Qt-free. Each bar is a row: a title above it and its parts side by side, each
part a share of the row's full length (0..1) with its own colour role, pattern
and label (drawn under the part). The summary uses it for "why an LLM is
slow" (the request split into prefill and decode; the compute during decode
split into busy and idle) and for the recap's small form of the KV-cache
counters (one bar per total, on one scale). Every number arrives from the engine, formatted and
translated; nothing here computes physics.
"""
from __future__ import annotations


from engine.frozen import frozen

PATTERNS = ("solid", "hatched", "dotted")
# Texts, most important first: the widget drops from the end when there is no room (never shrinks them).
LABEL_PRIORITY = ("headline", "title", "part")


@frozen
class BarPart:
    """One part of a bar: ``share`` of the row's full length, drawn in ``role`` with ``pattern``."""
    key: str
    share: float
    label: str = ""
    role: str = "muted"          # a theme colour role
    pattern: str = "solid"       # one of PATTERNS: colour never tells the parts apart alone


@frozen
class BarRow:
    key: str
    title: str
    parts: tuple[BarPart, ...]


@frozen
class ShareBarsState:
    """``grow`` (0..1) draws every part at that fraction of its length: the bars growing in on a reveal."""
    rows: tuple[BarRow, ...]
    headline: str = ""               # the hero figure above the bars ("idle 99.8%")
    headline_role: str = "warning"
    grow: float = 1.0


def clamp_share(share: float) -> float:
    """A share drawn: 0..1, and 0 for anything that is not a finite number."""
    if not share == share or share in (float("inf"), float("-inf")):
        return 0.0
    return max(0.0, min(1.0, float(share)))


def drawn_shares(row: BarRow, grow: float) -> tuple[float, ...]:
    """Each part's drawn share of the full length after ``grow``; together at most 1."""
    grow = clamp_share(grow)
    shares, total = [], 0.0
    for part in row.parts:
        share = min(clamp_share(part.share), 1.0 - total)
        shares.append(share * grow)
        total += share
    return tuple(shares)
