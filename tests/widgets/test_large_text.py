"""Lines above Qt's glyph-cache size are drawn from glyph images: the pixels of Qt's own path fill, and kept text
where the device is not a raster one."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPicture, QStaticText, QTransform

import widgets.large_text as large_text
from widgets.text_fit import FittedText, MAX_TEXT_PX

PX = 110


def _font() -> QFont:
    font = QFont()
    font.setPixelSize(PX)
    font.setBold(True)
    return font


def _canvas() -> QImage:
    image = QImage(700, 180, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor("#fafafa"))
    return image


def _drawn(draw) -> QImage:
    image = _canvas()
    painter = QPainter(image)
    painter.setFont(_font())
    painter.setPen(QColor("#1565c0"))
    draw(painter)
    painter.end()
    return image


def _differences(a: QImage, b: QImage) -> tuple[int, int]:
    """(pixels that differ, the largest difference of one channel)."""
    count = worst = 0
    for y in range(a.height()):
        for x in range(a.width()):
            if a.pixel(x, y) != b.pixel(x, y):
                count += 1
                one, two = QColor(a.pixel(x, y)), QColor(b.pixel(x, y))
                worst = max(worst, abs(one.red() - two.red()), abs(one.green() - two.green()),
                            abs(one.blue() - two.blue()))
    return count, worst


@pytest.mark.parametrize("line", ["97.6% 1,024", "快 97.6%"])       # a Chinese one: runs of a fallback font
def test_a_large_line_has_the_pixels_of_qt_drawing_it(qapp, line):
    """Each glyph's offset within a pixel is rounded to a quarter (as Qt's own glyph cache does across): the
    pixels of Qt's path fill but at its edges, and never by much; a line one pixel off fails the same check."""
    font = _font()
    shaped = QStaticText(line)
    shaped.setTextFormat(Qt.TextFormat.PlainText)
    shaped.prepare(QTransform(), font)
    for at in (QPointF(10, 20), QPointF(10.37, 20.5)):
        qt = _drawn(lambda painter: painter.drawStaticText(at, shaped))
        ink = _differences(qt, _canvas())[0]
        assert ink > 6_000                                          # the line has ink
        ours = _drawn(lambda painter: large_text.paint_line(painter, line, font, at))
        count, worst = _differences(qt, ours)
        assert count <= 0.25 * ink and worst <= 64, (at, ink, count, worst)
        off = _drawn(lambda painter: large_text.paint_line(painter, line, font, at + QPointF(1, 0)))
        count, worst = _differences(qt, off)
        assert count > 0.25 * ink or worst > 64


def test_each_glyph_is_filled_once(qapp):
    large_text._GLYPH_IMAGES.clear()
    font = _font()
    _drawn(lambda painter: large_text.paint_line(painter, "1111", font, QPointF(0, 0)))
    made = len(large_text._GLYPH_IMAGES)
    assert 1 <= made <= 4                                        # one glyph, at most four offsets along the line
    _drawn(lambda painter: large_text.paint_line(painter, "1111", font, QPointF(0, 0)))
    assert len(large_text._GLYPH_IMAGES) == made


def test_only_a_raster_device_without_scaling_draws_from_glyph_images(qapp):
    image = _canvas()
    painter = QPainter(image)
    assert large_text.draws_from_glyph_images(painter)
    painter.translate(3, 4)
    assert large_text.draws_from_glyph_images(painter)
    painter.translate(0.5, 0)                      # between pixels: Qt's own drawing
    assert not large_text.draws_from_glyph_images(painter)
    painter.resetTransform()
    painter.scale(2, 2)
    assert not large_text.draws_from_glyph_images(painter)
    painter.end()
    picture = QPicture()                          # a recording (as a PDF): the text stays text
    painter = QPainter(picture)
    assert not large_text.draws_from_glyph_images(painter)
    painter.end()


def test_a_fitted_text_above_the_cache_size_is_drawn_from_glyph_images(qapp):
    large_text._LINES.clear()
    assert PX > MAX_TEXT_PX
    fitted = FittedText(("42%",), PX, True, QRectF(0, 0, 600, 150), Qt.AlignmentFlag.AlignHCenter, 150.0)
    ours = _drawn(lambda painter: fitted.paint(painter, _font()))
    assert ("42%", _font().key()) in large_text._LINES
    assert _differences(ours, _canvas())[0] > 3_000


def test_the_glyph_images_kept_stay_within_their_bytes(qapp, monkeypatch):
    large_text._GLYPH_IMAGES.clear()
    monkeypatch.setattr(large_text, "GLYPH_IMAGE_BYTES_KEPT", 200_000)      # a few glyphs at 110 px
    font = _font()
    _drawn(lambda painter: large_text.paint_line(painter, "0123456789%,.", font, QPointF(0.3, 0)))
    held = [kept[0].sizeInBytes() for kept in large_text._GLYPH_IMAGES.values()]
    assert 1 <= len(held) < 13 and sum(held) <= 200_000
    large_text._GLYPH_IMAGES.clear()
