"""The GPU's compute in use under a timeline: one band per phase, filled to the phase's share of peak.

A helper the request timeline paints with (no widget of its own): linear in
the share of peak, so prefill's band is mostly full and decode's at batch 1 is a
hairline at the bottom, exactly as little as the engine says (never less than
one pixel, so a room can see that it is there). Compute-bound phases are filled
solid, memory-bound ones hatched; the bound is also written under each
phase by the timeline, so colour never carries the meaning alone.
"""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen

from widgets.request_timeline_state import strip_height_px
from widgets.theme import Theme, pattern_brush

MIN_VISIBLE_PX = 1.0
DIMMED_ALPHA = 0.35


def phase_colour(theme: Theme, phase: str) -> QColor:
    """Prefill is drawn in the compute colour, decode in the memory colour (each also labelled)."""
    return theme.color("compute" if phase == "prefill" else "memory")


def dimmed(colour: QColor, dim: bool) -> QColor:
    c = QColor(colour)
    if dim:
        c.setAlphaF(DIMMED_ALPHA)
    return c


def paint_strips(painter: QPainter, theme: Theme,
                 strips: list[tuple[QRectF, str, float, bool, bool]]) -> None:
    """Each phase's band, (rect, phase, utilisation, compute bound, dimmed): an outline for 100% of peak and a fill
    up to ``utilisation``. The bands never overlap, so they are drawn together: the outlines in one call per pen,
    the fills in one per colour, the hatches in one (a timeline's four bands are painted on every step of a
    dragged control, and each call costs more than the few pixels it fills). Leaves the pen and brush changed."""
    outlines: dict[bool, list[QRectF]] = {}
    fills: dict[tuple[str, bool], list[QRectF]] = {}
    hatches: list[QRectF] = []
    for rect, phase, utilisation, compute_bound, dim in strips:
        outlines.setdefault(dim, []).append(rect)
        filled = max(MIN_VISIBLE_PX, strip_height_px(utilisation, rect.height()))
        fill = QRectF(rect.left(), rect.bottom() - filled, rect.width(), filled)
        fills.setdefault((phase, dim), []).append(fill)
        if not compute_bound:             # waiting on memory: a hatch over the fill (a pattern, not colour alone)
            hatches.append(fill.adjusted(0, 0, 0, -MIN_VISIBLE_PX))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    for dim, rects in outlines.items():
        painter.setPen(QPen(dimmed(theme.color("muted"), dim), max(1.0, theme.scaled_line_width / 2)))
        painter.drawRects(rects)
    painter.setPen(Qt.PenStyle.NoPen)
    for (phase, dim), rects in fills.items():
        painter.setBrush(dimmed(phase_colour(theme, phase), dim))
        painter.drawRects(rects)
    if hatches:
        painter.setBrush(pattern_brush(theme.color("surface"), Qt.BrushStyle.BDiagPattern, theme))
        painter.drawRects(hatches)
