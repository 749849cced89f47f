"""Lines larger than Qt's glyph cache takes, drawn from images of their glyphs, each glyph filled once.

Qt's raster engine caches glyphs up to 64 px (``text_fit.MAX_TEXT_PX``) and fills larger ones as paths on every
paint: 250-400 us for a five-character figure at 110 px, and a scene's large figure changes on every step of a
dragged control. Here each glyph of such a line is filled as the same path once, into an image, at its offset
within a pixel (to ``OFFSET_STEPS`` of a pixel), and the image is blitted after: a tenth of the cost, and the
pixels of the path to within that fraction of a pixel.

Only on a raster device (a widget, an image, a pixmap) without scaling or rotation
(``draws_from_glyph_images``): a PDF keeps its text as text, a scaled painter its sharp outlines.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPaintEngine, QPainter, QRawFont, QTextLayout, QTextOption, QTransform

from widgets.recent import recent

# A glyph's position within a pixel is rounded to this many steps per pixel, across and down (so a glyph has at
# most OFFSET_STEPS ** 2 images per colour): a shift of an eighth of a pixel at most, not to be seen at this size.
OFFSET_STEPS = 4
# Glyph images kept, the least recently drawn going first: at most this many, and this many bytes (~20 kB each at
# 70 px: scene 4 in Chinese on a 4K projector draws its table at 70 px, ~280 glyph images, 5.6 MB, over its builds).
GLYPH_IMAGES_KEPT = 2048
GLYPH_IMAGE_BYTES_KEPT = 16_000_000
# Lines shaped (their glyphs and positions), kept likewise.
LINES_KEPT = 200

_GLYPH_IMAGES: dict[tuple, tuple[QImage, int, int]] = {}
_LINES: dict[tuple, list[tuple[QRawFont, tuple, list[tuple[int, float, float]]]]] = {}


def draws_from_glyph_images(painter: QPainter) -> bool:
    """Whether ``painter`` paints pixels one for one: a raster device, translated at most, by whole pixels."""
    if painter.paintEngine().type() != QPaintEngine.Type.Raster:
        return False
    transform = painter.deviceTransform()
    return (transform.type().value <= QTransform.TransformationType.TxTranslate.value
            and transform.dx().is_integer() and transform.dy().is_integer())


def paint_line(painter: QPainter, line: str, font: QFont, top_left: QPointF) -> None:
    """``line`` in ``font`` with its top left at ``top_left``, in the painter's pen colour, as ``drawStaticText``
    draws it there (for a painter that ``draws_from_glyph_images``)."""
    colour = painter.pen().color()
    x0, y0 = top_left.x(), top_left.y()
    for raw, raw_key, glyphs in _shaped(line, font):
        for index, x, y in glyphs:
            gx, gy = x0 + x, y0 + y
            ix, iy = math.floor(gx), math.floor(gy)
            image, left, top = _glyph_image(raw, raw_key, index, colour, round((gx - ix) * OFFSET_STEPS),
                                            round((gy - iy) * OFFSET_STEPS))
            painter.drawImage(QPoint(ix + left, iy + top), image)


def _shaped(line: str, font: QFont) -> list:
    """Each run of ``line``'s glyphs (a fallback font makes a run of its own): its raw font, that font's key and
    (glyph, x, y) from the line's top left, y on the baseline."""
    key = (line, font.key())
    runs = recent(_LINES, key, LINES_KEPT)
    if runs is None:
        layout = QTextLayout(line, font)
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.NoWrap)
        layout.setTextOption(option)
        layout.beginLayout()
        layout.createLine()
        layout.endLayout()
        runs = []
        for run in layout.glyphRuns():
            raw = run.rawFont()
            raw_key = (raw.familyName(), raw.styleName(), raw.pixelSize(), raw.weight(), raw.style().value)
            runs.append((raw, raw_key, [(index, position.x(), position.y())
                                        for index, position in zip(run.glyphIndexes(), run.positions())]))
        _LINES[key] = runs
    return runs


def _glyph_image(raw: QRawFont, raw_key: tuple, index: int, colour: QColor, step_x: int, step_y: int):
    """The glyph filled in ``colour`` at (``step_x``, ``step_y``) / ``OFFSET_STEPS`` px from a pixel's corner:
    (image, its left and top from that pixel)."""
    key = (raw_key, index, colour.rgba(), step_x, step_y)
    found = recent(_GLYPH_IMAGES, key, GLYPH_IMAGES_KEPT)
    if found is None:
        path = raw.pathForGlyph(index)
        box = path.boundingRect()
        dx, dy = step_x / OFFSET_STEPS, step_y / OFFSET_STEPS
        left, top = math.floor(box.left() + dx) - 1, math.floor(box.top() + dy) - 1
        image = QImage(max(1, math.ceil(box.right() + dx) - left + 1), max(1, math.ceil(box.bottom() + dy) - top + 1),
                       QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.translate(dx - left, dy - top)
        painter.fillPath(path, colour)
        painter.end()
        found = _GLYPH_IMAGES[key] = (image, left, top)
        held = sum(kept[0].sizeInBytes() for kept in _GLYPH_IMAGES.values())      # (only when one is made)
        while held > GLYPH_IMAGE_BYTES_KEPT and len(_GLYPH_IMAGES) > 1:           # the least recently drawn go
            held -= _GLYPH_IMAGES.pop(next(iter(_GLYPH_IMAGES)))[0].sizeInBytes()
    return found
