"""Lines shaped once for a font and kept: what ``text_fit.FittedText.paint`` draws with.

Shaping a line (its glyphs and their positions) costs about as much as drawing it, and a picture that follows a
dragged control draws the same lines on every step; asking Qt a shaped line's size, or a font its size and
family, costs more than the rest of placing the line. Both are kept here.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QStaticText, QTransform

from widgets.recent import recent

STATIC_TEXTS_KEPT = 1000         # about 2 kB each: a frame draws a few hundred lines at most
FONT_KEYS_KEPT = 256             # a widget's measure makes a font per size and weight: a few dozen in the app

_STATIC_TEXTS: dict[tuple, tuple[QStaticText, float, float]] = {}
_FONT_KEYS: dict[int, tuple[QFont, tuple[int, bool, str]]] = {}


def font_key(font: QFont) -> tuple[int, bool, str]:
    """``font``'s pixel size, boldness and family, asked of Qt once per font: texts are painted in fonts made once
    and never changed (``text_fit.TextMeasure.font``). An entry holds its font, so while it is kept no other font
    has that id."""
    found = recent(_FONT_KEYS, id(font), FONT_KEYS_KEPT)
    if found is None:
        found = _FONT_KEYS[id(font)] = (font, (font.pixelSize(), font.bold(), font.family()))
    return found[1]


def shaped_line(line: str, font: QFont, key: tuple[int, bool, str] | None = None) -> tuple[QStaticText, float, float]:
    """``line`` shaped once for ``font`` (kept by the line and the font's size, boldness and family: ``key``, its
    ``font_key`` when the caller has it), with its width and height."""
    key = (line,) + (font_key(font) if key is None else key)
    found = recent(_STATIC_TEXTS, key, STATIC_TEXTS_KEPT)
    if found is None:
        shaped = QStaticText(line)
        shaped.setTextFormat(Qt.TextFormat.PlainText)
        shaped.prepare(QTransform(), font)
        size = shaped.size()
        found = _STATIC_TEXTS[key] = (shaped, size.width(), size.height())
    return found
