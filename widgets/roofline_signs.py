"""How the roofline plot marks its named points: each key's colour role and symbol, and the legend's sign.

The legend draws the same symbol as the point's marker, so a point is found by
its shape as well as its colour (colour never carries meaning alone). Hollow
markers are drawn larger, over the filled ones: where the control's diamond
sits on a preset's point, both show.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QPolygonF

from widgets.theme import Theme

# Colour role and symbol of each named point (``widgets.roofline_state.POINT_KEYS``).
POINT_STYLES = {
    "reference": ("text", "o"),
    "decode": ("warning", "o"),
    "prefill": ("compute", "s"),
    "control": ("accent", "d"),
}
HOLLOW_POINTS = frozenset({"control", "reference"})
HOLLOW_SIZE = 1.6          # the hollow marker's size, times a filled one's


def marker_size(key: str, marker_px: float) -> float:
    """The size of point ``key``'s marker where a filled one is ``marker_px``."""
    return marker_px * (HOLLOW_SIZE if key in HOLLOW_POINTS else 1)


def style_marker(marker: pg.PlotDataItem, key: str, theme: Theme) -> None:
    """Point ``key``'s marker in ``theme``: filled in its role's colour, or hollow with an outline of it."""
    role = POINT_STYLES[key][0]
    width = theme.scaled_line_width
    if key in HOLLOW_POINTS:
        marker.setSymbolBrush(None)
        marker.setSymbolPen(pg.mkPen(theme.color(role), width=max(2.0, width * 1.2)))
    else:
        marker.setSymbolBrush(pg.mkBrush(theme.color(role)))
        marker.setSymbolPen(pg.mkPen(theme.color("background"), width=2 * theme.size_scale))


def paint_sign(painter: QPainter, key: str, sign: QRectF, theme: Theme) -> None:
    """The legend's sign of point ``key`` in ``sign``: its marker's symbol, filled or hollow alike."""
    role, symbol = POINT_STYLES[key]
    if key in HOLLOW_POINTS:
        painter.setPen(pg.mkPen(theme.color(role), width=max(2.0, theme.scaled_line_width)))
        painter.setBrush(Qt.BrushStyle.NoBrush)
    else:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(theme.color(role))
    if symbol == "o":
        painter.drawEllipse(sign)
    elif symbol == "s":
        painter.drawRect(sign)
    else:
        c = sign.center()
        painter.drawPolygon(QPolygonF([QPointF(c.x(), sign.top()), QPointF(sign.right(), c.y()),
                                       QPointF(c.x(), sign.bottom()), QPointF(sign.left(), c.y())]))
