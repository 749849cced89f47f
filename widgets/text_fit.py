"""Fitting a short label into a box: as large as allowed, on one line or two, never below a readable floor.

Everything is measured with ``QFontMetricsF`` on pixel-sized fonts and painted
line by line exactly as measured (no Qt word wrap at paint time), so the
rectangle a fit reports is the rectangle the text covers. Two-line splits
break after punctuation, at spaces, or (last) between Chinese characters, never
before closing punctuation or an operator, never after an opening bracket,
never between a number and its unit or measure word ("2 MB", "1 个 token").
A break inside a Chinese run may cut a word in two ("对 / 话"): it is taken only
where no break after punctuation or at a space is within ``WORD_BREAK_PREFERENCE``.

``RememberedFits`` is a ``TextMeasure`` that remembers its fits (for a picture
redrawn on every step of a dragged control); ``LabelPlacer`` places the texts
of one frame most important first, each at or above the floor or left out,
never overlapping another, never leaving the widget.
"""
from __future__ import annotations

import math
import re

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QPainter

from engine.frozen import frozen
from widgets.large_text import draws_from_glyph_images, paint_line
from widgets.shaped_text import font_key, shaped_line
from widgets.theme import Theme

# The smallest text drawn, in screen pixels: readable on a laptop and, on a
# 1024 x 768 projector, from the middle of a room.
FLOOR_PX = 12
# Boxes are computed in floating point from the same measures: allow for its rounding.
ROUNDING_PX = 0.01
# Each step down while looking for a size that fits.
SHRINK_STEP = 0.9
# A two-line split at a space is preferred to one between Chinese characters up to this much wider.
SPACE_BREAK_PREFERENCE = 1.3
# A split after punctuation ("，" "：") or at a space is preferred to one inside a Chinese run (which may cut a
# word: "对 / 话") up to this much wider; a split after punctuation to one at a space, up to the second factor.
WORD_BREAK_PREFERENCE = 1.6
PUNCTUATION_BREAK_PREFERENCE = 1.5
# A line may end after these: the natural places to break a label in two.
_BREAK_AFTER = set("，、：；。！？,;:!?")
# Tiers of a break, best first.
_AFTER_PUNCTUATION, _AT_SPACE, _IN_CJK_RUN = 0, 1, 2
# A line never starts with these (a space before them is not a break either).
_NO_BREAK_BEFORE = set("）)」』】，,。.、：:；;！!？?…%×·=÷+-/")
# A line never ends with these.
_NO_BREAK_AFTER = set("（(「『【")
# Gap a ``LabelPlacer`` keeps between two texts by default, in pixels, so that neighbours never touch.
TEXT_GAP_PX = 2.0
# Qt's raster engine caches glyphs up to 64 px and draws larger ones as paths, about fifty times slower
# (5 ms for one 90 px line): a ``LabelPlacer`` keeps its texts at or under this size by default.
MAX_TEXT_PX = 64


def _is_cjk(char: str) -> bool:
    return ord(char) >= 0x2E80


@frozen
class DrawnText:
    """One text a widget drew in its last paint: what the presenter-standard tests check (size, overlap, clipping).

    Every widget that paints text exposes ``drawn_texts() -> list[DrawnText]``."""
    key: str
    text: str
    px: float          # pixel size of the font
    rect: QRectF       # in the widget's coordinates


@frozen
class FittedText:
    """A label placed on screen: its lines, pixel size, and the rectangle they cover."""
    lines: tuple[str, ...]
    px: int
    bold: bool
    rect: QRectF
    align: Qt.AlignmentFlag          # horizontal alignment of each line within ``rect``
    line_height: float

    def drawn(self, key: str) -> DrawnText:
        """What painting this text draws, as a widget reports it (``drawn_texts()``), under ``key``."""
        return DrawnText(key, "\n".join(self.lines), self.px, QRectF(self.rect))

    def paint(self, painter: QPainter, font: QFont) -> None:
        painter.setFont(font)
        key = font_key(font)
        placed = self._placed(font, key)
        # drawn as paths by Qt above its glyph cache's size: from glyph images where the device allows
        if key[0] > MAX_TEXT_PX and draws_from_glyph_images(painter):
            for line, at in placed:
                paint_line(painter, line, font, at)       # the glyphs' images, not their paths again
            return
        for line, at in placed:
            painter.drawStaticText(at, shaped_line(line, font, key)[0])

    def _placed(self, font: QFont, key: tuple[int, bool, str]) -> tuple[tuple[str, QPointF], ...]:
        """Each line and the top left it is drawn at in ``font`` (whose ``font_key`` is ``key``): worked out at
        the first paint and kept with the fit, which never changes (a remembered fit is painted on every step of
        a dragged control, and placing its lines cost as much as drawing a short one)."""
        kept = self.__dict__.get("_kept_placement")
        if kept is None or kept[0] != key:
            left, top, width, _ = self.rect.getRect()
            across = _sides(self.align)[3]
            placed = []
            for n, line in enumerate(self.lines):
                _, line_width, line_height = shaped_line(line, font, key)
                placed.append((line, QPointF(left + (width - line_width) * across,
                                             top + n * self.line_height + (self.line_height - line_height) / 2)))
            kept = (key, tuple(placed))
            object.__setattr__(self, "_kept_placement", kept)     # not a field: equality and hash ignore it
        return kept[1]


# Widths and two-line splits one ``TextMeasure`` remembers, each: a width costs ~220 bytes (its text, key and
# entry), so ~1.1 MB of widths at most. A layout asks for a few hundred texts, scene 1's belt for ~1,300; a
# label whose number moves with the clock ("他只要 36.5 ms 就干完", with every prefix its split tries) adds
# ~340 new ones a lap of autoplay that are never asked again. At 20,000 that one belt grew ~1.4 MB over ten
# minutes of autoplay and would have kept ~4.6 MB; forty measures could have held 180 MB.
MEASURES_KEPT = 5000


class TextMeasure:
    """Widths and line heights of labels, cached (a layout asks for the same ones many times); at most
    ``MEASURES_KEPT`` widths and as many splits, started afresh when full."""

    def __init__(self):
        self._fonts: dict[tuple[int, bool], QFont] = {}
        self._metrics: dict[tuple[int, bool], QFontMetricsF] = {}
        self._widths: dict[tuple[str, int, bool], float] = {}
        self._splits: dict[tuple[str, int, bool], tuple[tuple[str, str], float] | None] = {}

    def font(self, px: int, bold: bool) -> QFont:
        """The font of ``px`` pixels (bold or not), made once: callers set it, never change it."""
        key = (px, bold)
        font = self._fonts.get(key)
        if font is None:
            font = self._fonts[key] = QFont()
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
            if len(self._widths) >= MEASURES_KEPT:
                self._widths.clear()
            self._widths[key] = math.ceil(self._fm(px, bold).horizontalAdvance(text)) + 1.0
        return self._widths[key]

    def narrowest_two_lines(self, text: str, px: int, bold: bool) -> tuple[tuple[str, str], float] | None:
        """The two-line split whose wider line is narrowest, and that width; None when it cannot break."""
        key = (text, px, bold)
        if key not in self._splits:
            if len(self._splits) >= MEASURES_KEPT:
                self._splits.clear()
            best: dict[int, tuple[tuple[str, str], float]] = {}
            for first, second, tier in _break_points(text):
                wide = max(self.width(first, px, bold), self.width(second, px, bold))
                if tier not in best or wide < best[tier][1]:
                    best[tier] = ((first, second), wide)
            # After punctuation reads best, then at a space; inside a Chinese run (a word may be cut) last.
            chosen = best.get(_AFTER_PUNCTUATION)
            space = best.get(_AT_SPACE)
            if space is not None and (chosen is None or chosen[1] > PUNCTUATION_BREAK_PREFERENCE * space[1]):
                chosen = space
            in_run = best.get(_IN_CJK_RUN)
            limit = SPACE_BREAK_PREFERENCE if chosen is space else WORD_BREAK_PREFERENCE
            if in_run is not None and (chosen is None or chosen[1] > limit * in_run[1]):
                chosen = in_run
            self._splits[key] = chosen
        return self._splits[key]

    def lines_within(self, text: str, px: int, bold: bool, max_width: float) -> tuple[tuple[str, ...], float] | None:
        """``text`` on one line if it fits ``max_width``, else on two, else None; with the width used. A text with
        line breaks keeps them, and each of its lines may wrap to two in the same way (a model's long name above
        "one pass")."""
        if "\n" in text:
            parts = [self.lines_within(part, px, bold, max_width) for part in text.split("\n")]
            if any(part is None for part in parts):
                return None
            return tuple(line for lines, _ in parts for line in lines), max(wide for _, wide in parts)
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
                    return FittedText(lines, px, bold, rect, _sides(align)[0], self.line_height(px, bold))
            if px <= floor_px:
                return None
            px = max(floor_px, math.floor(px * SHRINK_STEP))


class RememberedFits(TextMeasure):
    """A ``TextMeasure`` whose fits are remembered: most labels read the same, in the same box, from one step
    of a dragged control to the next, so only the ones that changed are fitted again. A box of the same size
    elsewhere (a table's row moved down by one inserted above it) takes the fit found there, moved: where a
    text fits depends on its box's size alone (unless it is centred on a point, ``centre_x``)."""

    CAPACITY = 4000           # fits kept, at a place and by size together (started afresh when full)

    def __init__(self):
        super().__init__()
        # fits by text and box, and (keys of seven) fits in a box at (0, 0) by the box's size
        self._fits: dict[tuple, FittedText | None] = {}

    def fit(self, text, box, px_max, bold, align=Qt.AlignmentFlag.AlignCenter, floor_px=FLOOR_PX, centre_x=None):
        x, y, width, height = box.getRect()
        key = (text, x, y, width, height, px_max, bold, align, floor_px, centre_x)   # (align: an int)
        if key not in self._fits:
            if len(self._fits) > self.CAPACITY:
                self._fits.clear()
            if centre_x is None:
                sized = (text, width, height, px_max, bold, align, floor_px)
                if sized not in self._fits:
                    self._fits[sized] = super().fit(text, QRectF(0.0, 0.0, width, height), px_max, bold, align,
                                                    floor_px=floor_px)
                found = self._fits[sized]
                self._fits[key] = None if found is None else FittedText(
                    found.lines, found.px, found.bold, found.rect.translated(x, y), found.align, found.line_height)
            else:
                self._fits[key] = super().fit(text, box, px_max, bold, align, floor_px=floor_px, centre_x=centre_x)
        return self._fits[key]


class LabelPlacer:
    """Collects the texts of one frame, most important first: ``place`` fits each at or above the floor, or
    refuses it when it does not fit, would cover a text already placed or an area blocked, or would leave
    ``bounds``; ``paint`` draws what was placed, ``drawn_texts`` reports it.

    ``gap_px``: kept between two texts; ``max_px``: the largest size a text is fitted at (None: as asked)."""

    def __init__(self, measure: TextMeasure, floor_px: int, bounds: QRectF, gap_px: float = TEXT_GAP_PX,
                 max_px: int | None = MAX_TEXT_PX):
        self.measure = measure
        self.floor_px = floor_px
        self.bounds = bounds
        self._inside = bounds.adjusted(-ROUNDING_PX, -ROUNDING_PX, ROUNDING_PX, ROUNDING_PX)
        self.gap_px = gap_px
        self.max_px = max_px
        self.placed: list[tuple[str, str, FittedText, str, bool]] = []    # key, text, fit, colour role, backdrop
        self._blocked: list[QRectF] = []
        self._reserved: list[QRectF] = []   # kept clear of texts here, but not in a placer ``continued`` from this
        self._painted = 0            # texts before this index were painted already (into a cached layer)

    def continued(self) -> "LabelPlacer":
        """A placer that keeps clear of everything placed here and paints only what is placed after this."""
        other = LabelPlacer(self.measure, self.floor_px, self.bounds, self.gap_px, self.max_px)
        other.placed = list(self.placed)
        other._blocked = list(self._blocked)
        other._painted = len(self.placed)
        return other

    def px(self, share_of_height: float, height: float) -> int:
        """A text size from a share of a height, never under the floor."""
        return max(self.floor_px, int(share_of_height * height))

    def block(self, rect: QRectF) -> None:
        """Keep texts off ``rect`` (a drawn mark that must stay readable)."""
        self._blocked.append(QRectF(rect))

    def reserve(self, rect: QRectF) -> None:
        """Keep this placer's texts off ``rect``, which a later, continued placer fills."""
        self._reserved.append(QRectF(rect))

    def clear(self, rect: QRectF) -> bool:
        """Whether ``rect`` keeps ``gap_px`` from every text placed and every area blocked."""
        if self.gap_px:
            half = self.gap_px / 2
            rect = rect.adjusted(-half, -half, half, half)
        return not any(map(rect.intersects, self._blocked)) and not any(map(rect.intersects, self._reserved))

    def free(self, rect: QRectF) -> bool:
        """Whether ``rect`` lies inside ``bounds`` and clear of every text placed and area blocked."""
        return self._inside.contains(rect) and self.clear(rect)

    def fit(self, text: str, box: QRectF, px_max: float, bold: bool = False,
            align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignCenter, one_line: bool = False,
            centre_x: float | None = None) -> FittedText | None:
        """``text`` fitted into ``box`` at or above the floor, or None (nothing is placed).

        ``one_line``: start at the size at which one line fills the width (a text that changes every frame,
        such as a counter, is then measured twice, not at every size down from the largest)."""
        if not text:
            return None
        px = max(self.floor_px, int(px_max) if self.max_px is None else min(self.max_px, int(px_max)))
        if one_line and box.width() > 0:
            wide = self.measure.width(text, px, bold)
            if wide > box.width():
                px = max(self.floor_px, int(px * box.width() / wide))
        return self.measure.fit(text, box, px, bold, align, floor_px=self.floor_px, centre_x=centre_x)

    def place(self, key: str, text: str, box: QRectF, px_max: float, bold: bool = False,
              align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignCenter, role: str = "text",
              backdrop: bool = False, one_line: bool = False, centre_x: float | None = None) -> FittedText | None:
        """Fit ``text`` into ``box`` and keep it, unless it does not fit or would cover what is already placed.
        ``backdrop``: painted on a patch of the surface colour (a text over a pattern)."""
        fitted = self.fit(text, box, px_max, bold, align, one_line, centre_x)
        if fitted is None or not self.free(fitted.rect):
            return None
        self.placed.append((key, text, fitted, role, backdrop))
        self._blocked.append(QRectF(fitted.rect))
        return fitted

    def drawn_texts(self) -> list[DrawnText]:
        return [DrawnText(key, text, float(fitted.px), QRectF(fitted.rect)) for key, text, fitted, _, _ in self.placed]

    def paint(self, painter: QPainter, theme: Theme, from_start: bool = False) -> None:
        """Paint what was placed since the last paint; ``from_start``: all of it (a layout kept between paints)."""
        for _, _, fitted, role, backdrop in self.placed[0 if from_start else self._painted:]:
            if backdrop:
                painter.fillRect(fitted.rect.adjusted(-self.gap_px, 0, self.gap_px, 0), theme.color("surface"))
            painter.setPen(theme.color(role))
            fitted.paint(painter, self.measure.font(fitted.px, fitted.bold))
        self._painted = len(self.placed)


_HORIZONTAL = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignHCenter
_SIDES: dict[Qt.AlignmentFlag, tuple[Qt.AlignmentFlag, float, float, float]] = {}


def _sides(align: Qt.AlignmentFlag) -> tuple[Qt.AlignmentFlag, float, float, float]:
    """``align``'s horizontal part; where a box sits across and down the room it is placed in (0: left or top,
    0.5: centred, 1: right or bottom); and where a line sits across its text's box (left unless said otherwise).
    Worked out once per alignment: a ``&`` of two of Qt's flags costs some 6,000 instructions in Python, more
    than drawing a short line, and a frame places and draws hundreds."""
    found = _SIDES.get(align)
    if found is None:
        flag = Qt.AlignmentFlag
        across = 0.0 if align & flag.AlignLeft else 1.0 if align & flag.AlignRight else 0.5
        down = 0.0 if align & flag.AlignTop else 1.0 if align & flag.AlignBottom else 0.5
        line = 1.0 if align & flag.AlignRight else 0.5 if align & flag.AlignHCenter else 0.0
        found = _SIDES[align] = (align & _HORIZONTAL, across, down, line)
    return found


def _aligned(box: QRectF, width: float, height: float, align: Qt.AlignmentFlag) -> QRectF:
    _, across, down, _ = _sides(align)
    return QRectF(box.left() + (box.width() - width) * across, box.top() + (box.height() - height) * down,
                  width, height)


# A number and the measure word after it ("1 个", "32,768 段"): a line never ends there (its noun follows).
_NUMBER_AND_MEASURE = re.compile(r"\d\s?[\u4e00-\u9fff]$")


_BARE_NUMBER_END = re.compile(r"(?:^|\s)[\d.,]+$")     # "… 2", not "Qwen3": a number, not a name that ends in one


def _break_points(text: str):
    """Every (first line, second line, tier) split allowed in ``text``; tier: ``_AFTER_PUNCTUATION``,
    ``_AT_SPACE`` or ``_IN_CJK_RUN``."""
    for i in range(1, len(text)):
        before, after = text[i - 1], text[i]
        if after == " ":
            continue
        if before == " ":
            first, second = text[:i - 1].rstrip(), text[i:]
            if first and second and second[0] not in _NO_BREAK_BEFORE and first[-1] not in _NO_BREAK_AFTER \
                    and not _BARE_NUMBER_END.search(first) \
                    and not _NUMBER_AND_MEASURE.search(first):  # a number stays with its unit ("2 MB", "1 个 token")
                yield first, second, _AFTER_PUNCTUATION if first[-1] in _BREAK_AFTER else _AT_SPACE
        elif (_is_cjk(before) or _is_cjk(after)) and after not in _NO_BREAK_BEFORE \
                and before not in _NO_BREAK_AFTER and not _NUMBER_AND_MEASURE.search(text[:i]):
            yield text[:i], text[i:], _AFTER_PUNCTUATION if before in _BREAK_AFTER else _IN_CJK_RUN
