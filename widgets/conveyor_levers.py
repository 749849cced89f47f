"""The parts scene 7's levers add to the conveyor belt's picture (``widgets.conveyor_state``), painted.

Drawn by ``widgets.conveyor_belt.ConveyorBelt`` in its logical units, inside shapes the layout already
keeps free of labels, so the layout is the same with or without them:

- the tray under the bench (``Tray``): tokens kept (filled), guesses thrown away (empty, crossed out) and
  guesses drafted but not checked yet (hatched): each look differs in shape and fill, not colour alone;
- the KV shelf (``KvShelf``): the warehouse's lower shelf as the KV cache, one crate per sequence, its used
  part filled and the rest left empty; long crates mostly empty for reservations, small full ones for pages.
"""
from __future__ import annotations

import math
from typing import Callable

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPolygonF

from widgets.conveyor_layout import BENCH_HEIGHT, BENCH_WIDTH, ConveyorLayout
from widgets.conveyor_state import KvShelf, Tray, shelf_slots

Pen = Callable[[str, float], QPen]          # pen(role, width factor)
Tint = Callable[[str, float], QColor]       # tint(role, alpha): opaque, over the background

# The tray: a grid of tokens between the bench's legs (the bench's top is 16 units, its legs 14 in), as
# large as the tokens shown allow.
TRAY_INSET_X, TRAY_TOP, TRAY_BOTTOM_GAP, TOKEN_GAP = 18.0, 22.0, 4.0, 5.0
# The KV shelf: crates with this gap between them, a sliver at least for a used part.
CRATE_GAP, MIN_USED = 3.0, 2.0


def smaller(box: QRectF, side: float) -> QRectF:
    """``box`` with its sides ``side`` times as long, standing where it stood (the same weights in fewer
    bytes); ``box`` itself at 1."""
    if side == 1.0:
        return box
    return QRectF(box.center().x() - box.width() * side / 2, box.bottom() - box.height() * side,
                  box.width() * side, box.height() * side)


def tray_rects(layout: ConveyorLayout, count: int) -> list[QRectF]:
    """Where ``count`` tokens of the tray go (logical units), row by row, each as large as the grid that
    holds them all allows (``count``: the most the state ever shows, so tokens keep their size)."""
    if count <= 0:
        return []
    bench = layout.bench
    width, height = BENCH_WIDTH - 2 * TRAY_INSET_X, BENCH_HEIGHT - TRAY_TOP - TRAY_BOTTOM_GAP
    best = (0.0, 1)
    for columns in range(1, count + 1):
        rows = math.ceil(count / columns)
        size = min((width - (columns - 1) * TOKEN_GAP) / columns, (height - (rows - 1) * TOKEN_GAP) / rows)
        best = max(best, (size, columns))
    size, columns = best
    return [QRectF(bench.left() + TRAY_INSET_X + (n % columns) * (size + TOKEN_GAP),
                   bench.top() + TRAY_TOP + (n // columns) * (size + TOKEN_GAP), size, size) for n in range(count)]


def paint_tray(painter: QPainter, layout: ConveyorLayout, tray: Tray, capacity: int, pen: Pen, tint: Tint,
               solid: QColor) -> None:
    """The tray's tokens: kept ones filled, thrown ones crossed out, drafted ones hatched."""
    looks = ["kept"] * tray.kept + ["thrown"] * tray.thrown + ["drafted"] * tray.drafted
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    for look, rect in zip(looks, tray_rects(layout, capacity)):
        if look == "kept":
            painter.setPen(pen("compute", 0.5))
            painter.setBrush(solid)
            painter.drawRect(rect)
        elif look == "thrown":
            painter.setPen(pen("muted", 0.5))
            painter.setBrush(tint("muted", 0.1))
            painter.drawRect(rect)
            painter.drawLine(rect.topLeft(), rect.bottomRight())
            painter.drawLine(rect.topRight(), rect.bottomLeft())
        else:
            painter.setPen(pen("accent", 0.5))
            painter.setBrush(tint("accent", 0.2))
            painter.drawRect(rect)
            painter.drawLine(QPointF(rect.left(), rect.bottom()), QPointF(rect.right(), rect.top()))
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)


def crate_rects(left: float, right: float, top: float, height: float,
                shelf: KvShelf) -> list[tuple[QRectF, QRectF, bool]]:
    """(crate, its used part, runs off the shelf) for each sequence the shelf holds, between ``left`` and
    ``right`` (logical units). A reservation larger than the shelf is one crate that runs off its end."""
    room = right - left
    if shelf.held_share > 1.0:
        used = room * min(1.0, shelf.used_share * shelf.held_share)
        return [(QRectF(left, top, room, height), QRectF(left, top, max(MIN_USED, used), height), True)]
    slots = shelf_slots(shelf)
    pitch = min(room * shelf.held_share, (room + CRATE_GAP) / slots)
    width = max(MIN_USED, pitch - CRATE_GAP)
    used = min(width, max(MIN_USED, width * shelf.used_share))
    return [(QRectF(left + n * pitch, top, width, height), QRectF(left + n * pitch, top, used, height), False)
            for n in range(slots)]


def paint_kv_shelf(painter: QPainter, left: float, right: float, top: float, height: float, shelf: KvShelf,
                   pen: Pen, tint: Tint) -> None:
    """The KV shelf: each sequence's crate outlined, the part it uses hatched-filled, the rest empty."""
    for crate, used, overflowing in crate_rects(left, right, top, height, shelf):
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(tint("background", 1.0))
        painter.drawRect(crate)
        painter.setBrush(tint("compute", 0.45))
        painter.drawRect(used)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(pen("compute", 0.5))
        if overflowing:          # no right wall: it runs on past the shelf
            painter.drawPolyline(QPolygonF([crate.topRight(), crate.topLeft(), crate.bottomLeft(),
                                            crate.bottomRight()]))
            dashes = QPen(pen("compute", 0.5))
            dashes.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(dashes)
            painter.drawLine(crate.topRight(), crate.bottomRight())
        else:
            painter.drawRect(crate)
        painter.drawLine(used.topRight(), used.bottomRight())
