"""How a bar (or a part of one, or a legend swatch) is filled: one look per kind, shared by every bar picture.

A kind names a pattern, so colour never carries the meaning alone, and the
same kind looks the same in every widget (the ratio bars and the share bars
of the summary draw side by side). ``"solid"`` is the role's colour; every
other kind is a light tint of it, its pattern in the colour, and an outline in
the colour. Patterns and pen widths grow with the text floor
(``line_scale``): a 1 px hatch or outline reads at 768 lines but vanishes on a
4K screen seen from the back of a room.
"""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QImage, QPainter, QPen

from widgets.theme import Theme

# Kinds of fill, by the pattern they draw. "solid": the colour itself.
PATTERNS = {
    "hatched": Qt.BrushStyle.BDiagPattern,       # diagonal lines
    "crossed": Qt.BrushStyle.DiagCrossPattern,   # diagonal lattice
    "dotted": Qt.BrushStyle.Dense6Pattern,       # sparse dots
    "striped": Qt.BrushStyle.HorPattern,         # horizontal lines
    "ruled": Qt.BrushStyle.VerPattern,           # vertical lines
}
KINDS = ("solid", *PATTERNS)
TINT_ALPHA = 0.2              # under a pattern: the colour, lightly
# The floor (in px) at which patterns and pens are drawn at their base size: 1024x768's floor.
BASE_FLOOR_PX = 18
PATTERN_TILE_PX = 8           # Qt's patterns repeat every 8 px
_tiles: dict[tuple, QImage] = {}


def alpha(color: QColor, share: float) -> QColor:
    """``color`` with opacity ``share`` (0..1)."""
    c = QColor(color)
    c.setAlphaF(max(0.0, min(1.0, share)))
    return c


def mixed(color: QColor, share: float, background: QColor) -> QColor:
    """``color`` at opacity ``share`` over ``background``, as one opaque colour: filling a large area with it
    costs a fraction of blending a translucent one, every frame."""
    return QColor.fromRgbF(*(share * c + (1 - share) * b for c, b in zip(color.getRgbF()[:3], background.getRgbF()[:3])))


def line_scale(theme: Theme) -> float:
    """How much thicker lines and patterns are drawn than at 1024x768: the text floor's share of its base."""
    return max(1.0, theme.floor_px / BASE_FLOOR_PX)


def pen_px(theme: Theme, base_px: float) -> float:
    """A pen ``base_px`` wide at 1024x768, scaled with the screen (``line_scale``), never under 1 px."""
    return max(1.0, base_px * line_scale(theme))


def fill_bar(painter: QPainter, rect: QRectF, theme: Theme, role: str, kind: str = "solid") -> None:
    """Fill ``rect`` in the colour of ``role`` with the look of ``kind`` (an unknown kind draws hatched)."""
    if rect.width() <= 0 or rect.height() <= 0:
        return
    colour = theme.color(role)
    if kind == "solid":
        painter.fillRect(rect, colour)
        return
    painter.fillRect(rect, alpha(colour, TINT_ALPHA))
    painter.fillRect(rect, pattern_brush(colour, kind, line_scale(theme)))
    width = pen_px(theme, theme.line_width / 2)
    painter.setPen(QPen(colour, width))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    half = width / 2
    painter.drawRect(rect.adjusted(half, half, -half, -half) if rect.width() > width and rect.height() > width
                     else rect)


def pattern_brush(colour: QColor, kind: str, scale: float = 1.0) -> QBrush:
    """The brush of ``kind`` in ``colour``, its lines and gaps ``scale`` times (whole) as wide as Qt's 1 px
    pattern (a brush transform is ignored for patterns by the raster engine: a scaled tile is drawn instead)."""
    style = PATTERNS.get(kind, Qt.BrushStyle.BDiagPattern)
    times = max(1, round(scale))
    if times == 1:
        return QBrush(colour, style)
    key = (colour.rgba(), style, times)
    tile = _tiles.get(key)
    if tile is None:
        base = QImage(PATTERN_TILE_PX, PATTERN_TILE_PX, QImage.Format.Format_ARGB32_Premultiplied)
        base.fill(Qt.GlobalColor.transparent)
        painter = QPainter(base)
        painter.fillRect(base.rect(), QBrush(colour, style))
        painter.end()
        size = PATTERN_TILE_PX * times
        tile = base.scaled(size, size, Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.FastTransformation)
        if len(_tiles) > 64:
            _tiles.clear()
        _tiles[key] = tile
    return QBrush(tile)
