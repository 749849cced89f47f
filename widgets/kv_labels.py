"""Placing the texts of the KV-cache pictures: at or above the stage's floor, never overlapping, in priority order.

The KV-cache widgets (``work_counter``, ``kv_factors``, ``kv_growth_plot``,
``kv_sharing``) each lay out a frame by asking for their texts most important
first; a text that does not fit its box at the floor, or would cover one
already placed, or would leave the widget, is left out (never shrunk below the
floor). What was placed is what ``drawn_texts()`` reports and what is painted.
``StaticLayer`` keeps what a playback does not change in a pixmap, with the
texts it holds, so a frame places and paints only what moves.
"""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter, QPixmap

from widgets.text_fit import DrawnText, FittedText, TextMeasure
from widgets.theme import Theme

# Gap kept between two texts, in pixels, so that neighbours never touch.
TEXT_GAP_PX = 2.0
# Qt's raster engine caches glyphs up to 64 px and draws larger ones as paths, about fifty times slower
# (5 ms for one 90 px line): texts that change every frame of a playback stay at or under this size.
MAX_TEXT_PX = 64


class LabelPlacer:
    """Collects the texts of one frame: ``place`` fits each or refuses it; ``paint`` draws what was placed."""

    def __init__(self, measure: TextMeasure, floor_px: float, bounds: QRectF):
        self.measure = measure
        self.floor_px = max(1, int(round(floor_px)))
        self.bounds = bounds
        self.placed: list[tuple[str, str, FittedText, str, bool]] = []    # key, text, fit, colour role, backdrop
        self._blocked: list[QRectF] = []
        self._reserved: list[QRectF] = []   # kept clear of texts here, but not in a placer ``continued`` from this
        self._painted = 0            # texts before this index were painted already (into a cached layer)

    def continued(self) -> "LabelPlacer":
        """A placer that keeps clear of everything placed here and paints only what is placed after this."""
        other = LabelPlacer(self.measure, self.floor_px, self.bounds)
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

    def free(self, rect: QRectF) -> bool:
        """Whether ``rect`` lies inside the widget and clear of every text placed and area blocked."""
        inside = self.bounds.adjusted(-0.01, -0.01, 0.01, 0.01)
        if not inside.contains(rect):
            return False
        grown = rect.adjusted(-TEXT_GAP_PX / 2, -TEXT_GAP_PX / 2, TEXT_GAP_PX / 2, TEXT_GAP_PX / 2)
        return not any(grown.intersects(other) for other in self._blocked + self._reserved)

    def fit(self, text: str, box: QRectF, px_max: float, bold: bool = False,
            align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignCenter, one_line: bool = False) -> FittedText | None:
        """``text`` fitted into ``box`` at or above the floor, or None (nothing is placed).

        ``one_line``: start at the size at which one line fills the width (a text that changes every frame,
        such as a counter, is then measured twice, not at every size down from the largest)."""
        if not text:
            return None
        px = max(self.floor_px, min(MAX_TEXT_PX, int(px_max)))
        if one_line and box.width() > 0:
            wide = self.measure.width(text, px, bold)
            if wide > box.width():
                px = max(self.floor_px, int(px * box.width() / wide))
        return self.measure.fit(text, box, px, bold, align, floor_px=self.floor_px)

    def place(self, key: str, text: str, box: QRectF, px_max: float, bold: bool = False,
              align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignCenter, role: str = "text",
              backdrop: bool = False, one_line: bool = False) -> FittedText | None:
        """Fit ``text`` into ``box`` and keep it, unless it does not fit or would cover what is already placed.
        ``backdrop``: painted on a patch of the surface colour (a text over a pattern)."""
        fitted = self.fit(text, box, px_max, bold, align, one_line)
        if fitted is None or not self.free(fitted.rect):
            return None
        self.placed.append((key, text, fitted, role, backdrop))
        self._blocked.append(QRectF(fitted.rect))
        return fitted

    def drawn_texts(self) -> list[DrawnText]:
        return [DrawnText(key, text, float(fitted.px), QRectF(fitted.rect)) for key, text, fitted, _, _ in self.placed]

    def paint(self, painter: QPainter, theme: Theme) -> None:
        for _, _, fitted, role, backdrop in self.placed[self._painted:]:
            if backdrop:
                painter.fillRect(fitted.rect.adjusted(-TEXT_GAP_PX, 0, TEXT_GAP_PX, 0), theme.color("surface"))
            painter.setPen(theme.color(role))
            fitted.paint(painter, self.measure.font(fitted.px, fitted.bold))
        self._painted = len(self.placed)


class StaticLayer:
    """What a widget draws that does not change during a playback, painted once into a pixmap and replayed.

    ``pixmap_for(key, widget, paint)``: the pixmap for ``key`` (size, theme, static texts...), painting it with
    ``paint(painter, placer)`` when the key changed; with it, the placer of the texts it holds, to continue from.
    """

    def __init__(self):
        self._key = None
        self._pixmap: QPixmap | None = None
        self._placer: LabelPlacer | None = None

    def pixmap_for(self, key, widget, measure: TextMeasure, floor_px: float, paint) -> tuple[QPixmap, LabelPlacer]:
        if key != self._key or self._pixmap is None:
            ratio = widget.devicePixelRatioF()
            pixmap = QPixmap(max(1, round(widget.width() * ratio)), max(1, round(widget.height() * ratio)))
            pixmap.setDevicePixelRatio(ratio)
            placer = LabelPlacer(measure, floor_px, QRectF(0, 0, widget.width(), widget.height()))
            painter = QPainter(pixmap)
            paint(painter, placer)
            painter.end()
            self._key, self._pixmap, self._placer = key, pixmap, placer
        return self._pixmap, self._placer.continued()
