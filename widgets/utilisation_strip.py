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


def paint_strip(painter: QPainter, theme: Theme, rect: QRectF, phase: str, utilisation: float,
                compute_bound: bool, dim: bool) -> None:
    """One phase's band in ``rect``: an outline for 100% of peak and a fill up to ``utilisation``."""
    colour = dimmed(phase_colour(theme, phase), dim)
    painter.save()
    painter.setPen(QPen(dimmed(theme.color("muted"), dim), max(1.0, theme.scaled_line_width / 2)))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRect(rect)
    filled = max(MIN_VISIBLE_PX, strip_height_px(utilisation, rect.height()))
    fill = QRectF(rect.left(), rect.bottom() - filled, rect.width(), filled)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(colour)
    painter.drawRect(fill)
    if not compute_bound:                 # waiting on memory: a hatch over the fill (a pattern, not colour alone)
        painter.setBrush(pattern_brush(theme.color("surface"), Qt.BrushStyle.BDiagPattern, theme))
        painter.drawRect(fill.adjusted(0, 0, 0, -MIN_VISIBLE_PX))
    painter.restore()
