"""Fitting a short label into a box: as large as allowed, on one line or two, never below a readable floor.

Everything is measured with ``QFontMetricsF`` on pixel-sized fonts and painted
line by line exactly as measured (no Qt word wrap at paint time), so the
rectangle a fit reports is the rectangle the text covers. Two-line splits
break at spaces, or between Chinese characters, never before closing
punctuation or an operator, never after an opening bracket.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QPainter

# The smallest text drawn, in screen pixels: readable on a laptop and, on a
# 1024 x 768 projector, from the middle of a room.
FLOOR_PX = 12
# Boxes are computed in floating point from the same measures: allow for its rounding.
ROUNDING_PX = 0.01
# Each step down while looking for a size that fits.
SHRINK_STEP = 0.9
# A two-line split at a space is preferred to one between Chinese characters up to this much wider.
SPACE_BREAK_PREFERENCE = 1.3
# A line never starts with these (a space before them is not a break either).
_NO_BREAK_BEFORE = set("）)」』】，,。.、：:；;！!？?…%×·=÷+-/")
# A line never ends with these.
_NO_BREAK_AFTER = set("（(「『【")


def _is_cjk(char: str) -> bool:
    return ord(char) >= 0x2E80


@dataclass(frozen=True)
class DrawnText:
    """One text a widget drew in its last paint: what the presenter-standard tests check (size, overlap, clipping).

    Every widget that paints text exposes ``drawn_texts() -> list[DrawnText]``."""
    key: str
    text: str
    px: float          # pixel size of the font
    rect: QRectF       # in the widget's coordinates


@dataclass(frozen=True)
class FittedText:
    """A label placed on screen: its lines, pixel size, and the rectangle they cover."""
    lines: tuple[str, ...]
    px: int
    bold: bool
    rect: QRectF
    align: Qt.AlignmentFlag          # horizontal alignment of each line within ``rect``
    line_height: float

    def paint(self, painter: QPainter, font: QFont) -> None:
        painter.setFont(font)
        for n, line in enumerate(self.lines):
            line_rect = QRectF(self.rect.left(), self.rect.top() + n * self.line_height,
                               self.rect.width(), self.line_height)
            painter.drawText(line_rect, int(self.align | Qt.AlignmentFlag.AlignVCenter), line)


class TextMeasure:
    """Widths and line heights of labels, cached (a layout asks for the same ones many times)."""

    def __init__(self):
        self._metrics: dict[tuple[int, bool], QFontMetricsF] = {}
        self._widths: dict[tuple[str, int, bool], float] = {}
        self._splits: dict[tuple[str, int, bool], tuple[tuple[str, str], float] | None] = {}

    def font(self, px: int, bold: bool) -> QFont:
        font = QFont()
        font.setPixelSize(max(1, px))
        font.setBold(bold)
        return font

    def _fm(self, px: int, bold: bool) -> QFontMetricsF:
        key = (px, bold)
        if key not in self._metrics:
            self._metrics[key] = QFontMetricsF(self.font(px, bold))
        return self._metrics[key]

    def line_height(self, px: int, bold: bool) -> float:
        return math.ceil(self._fm(px, bold).lineSpacing())

    def width(self, text: str, px: int, bold: bool) -> float:
        key = (text, px, bold)
        if key not in self._widths:
            if len(self._widths) > 20000:
                self._widths.clear()
            self._widths[key] = math.ceil(self._fm(px, bold).horizontalAdvance(text)) + 1.0
        return self._widths[key]

    def narrowest_two_lines(self, text: str, px: int, bold: bool) -> tuple[tuple[str, str], float] | None:
        """The two-line split whose wider line is narrowest, and that width; None when it cannot break."""
        key = (text, px, bold)
        if key not in self._splits:
            best: dict[bool, tuple[tuple[str, str], float]] = {}
            for first, second, at_space in _break_points(text):
                wide = max(self.width(first, px, bold), self.width(second, px, bold))
                if at_space not in best or wide < best[at_space][1]:
                    best[at_space] = ((first, second), wide)
            # A break between words reads better than one inside a Chinese word: taken unless much wider.
            chosen = best.get(True)
            if False in best and (chosen is None or chosen[1] > SPACE_BREAK_PREFERENCE * best[False][1]):
                chosen = best[False]
            self._splits[key] = chosen
        return self._splits[key]

    def lines_within(self, text: str, px: int, bold: bool, max_width: float) -> tuple[tuple[str, ...], float] | None:
        """``text`` on one line if it fits ``max_width``, else on two, else None; with the width used."""
        if "\n" in text:
            lines = tuple(text.split("\n"))
            wide = max(self.width(line, px, bold) for line in lines)
            return (lines, wide) if wide <= max_width else None
        one = self.width(text, px, bold)
        if one <= max_width:
            return (text,), one
        split = self.narrowest_two_lines(text, px, bold)
        if split is not None and split[1] <= max_width:
            return split
        return None

    def fit(self, text: str, box: QRectF, px_max: int, bold: bool,
            align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignCenter, floor_px: int = FLOOR_PX,
            centre_x: float | None = None) -> FittedText | None:
        """The largest size from ``px_max`` down to ``floor_px`` at which ``text`` fits ``box``
        (one line preferred to two at each size); None when it does not fit even at the floor.
        With ``centre_x`` the text is centred there as far as the box allows (centred under a shape
        whose place reaches further to one side)."""
        if not text or box.width() <= 0 or box.height() <= 0:
            return None
        px = max(floor_px, int(px_max))
        while True:
            found = self.lines_within(text, px, bold, box.width() + ROUNDING_PX)
            if found is not None:
                lines, wide = found
                height = len(lines) * self.line_height(px, bold)
                if height <= box.height() + ROUNDING_PX:
                    rect = _aligned(box, wide, height, align)
                    if centre_x is not None:
                        rect.moveLeft(min(max(box.left(), centre_x - wide / 2), box.right() - wide))
                    return FittedText(lines, px, bold, rect, align & _HORIZONTAL, self.line_height(px, bold))
            if px <= floor_px:
                return None
            px = max(floor_px, math.floor(px * SHRINK_STEP))


_HORIZONTAL = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignHCenter


def _aligned(box: QRectF, width: float, height: float, align: Qt.AlignmentFlag) -> QRectF:
    if align & Qt.AlignmentFlag.AlignLeft:
        x = box.left()
    elif align & Qt.AlignmentFlag.AlignRight:
        x = box.right() - width
    else:
        x = box.center().x() - width / 2
    if align & Qt.AlignmentFlag.AlignTop:
        y = box.top()
    elif align & Qt.AlignmentFlag.AlignBottom:
        y = box.bottom() - height
    else:
        y = box.center().y() - height / 2
    return QRectF(x, y, width, height)


def _break_points(text: str):
    """Every (first line, second line, at a space) split allowed in ``text``."""
    for i in range(1, len(text)):
        before, after = text[i - 1], text[i]
        if after == " ":
            continue
        if before == " ":
            first, second = text[:i - 1].rstrip(), text[i:]
            if first and second and second[0] not in _NO_BREAK_BEFORE and first[-1] not in _NO_BREAK_AFTER \
                    and not first[-1].isdigit():          # a number stays with its unit ("2 MB")
                yield first, second, True
        elif (_is_cjk(before) or _is_cjk(after)) and after not in _NO_BREAK_BEFORE \
                and before not in _NO_BREAK_AFTER:
            yield text[:i], text[i:], False
