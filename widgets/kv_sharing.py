"""How many conversations fit beside the weights, one row per GPU count.

Draws a ``KvSharingState`` (``widgets.kv_sharing_state``): each row has its
name (“2 GPUs”), its conversations as blocks on one common length scale (one
block each; past ``MAX_BLOCKS`` a continuous bar of the same scale) and its
value text after them. A row whose weights alone overflow is hatched and says
so. The scenario's own GPU count is outlined and marked.
"""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QWidget

from widgets.kv_sharing_state import MAX_BLOCKS, drawn_blocks, longest_row
from widgets.state_widget import StateWidget
from widgets.text_fit import LabelPlacer, TextMeasure
from widgets.theme import Theme, pattern_brush

LEFT, V_CENTRE = Qt.AlignmentFlag.AlignLeft, Qt.AlignmentFlag.AlignVCenter


class KvSharing(StateWidget):
    """Draws a ``KvSharingState``."""

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(theme, parent)
        self.measure = TextMeasure()

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.NonCosmeticBrushPatterns, True)   # patterns scale (pattern_brush)
        painter.fillRect(self.rect(), self.theme.color("background"))
        state = self.state
        if state is None or not state.rows:
            self._drawn = []
            return
        w, h = float(self.width()), float(self.height())
        margin = max(4.0, 0.02 * min(w, h))
        placer = LabelPlacer(self.measure, self.theme.floor_px, QRectF(0, 0, w, h))
        title_px = placer.px(0.045, h)
        title_h = 2 * self.measure.line_height(title_px, False)
        placer.place("title", state.labels.get("title", ""), QRectF(margin, margin, w - 2 * margin, title_h),
                     title_px, False, LEFT | V_CENTRE, "muted")
        top = margin + title_h + margin
        rows = state.rows
        row_h = min((h - top - margin) / len(rows), 0.16 * h)
        px = max(placer.floor_px, min(int(0.45 * row_h), int(0.045 * h)))
        name_w = max(self.measure.width(row.name, px, True) for row in rows) + 2 * margin
        value_w = 0.3 * w
        bar_left = margin + name_w
        bar_full = max(1.0, w - margin - bar_left - value_w)
        most = max(1, longest_row(state))
        lw = self.theme.scaled_line_width
        for n, row in enumerate(rows):
            y = top + n * row_h
            band = QRectF(margin / 2, y + 0.05 * row_h, w - margin, 0.9 * row_h)
            if row.current:
                painter.setPen(QPen(self.theme.color("accent"), 2 * lw))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(band)
            bar = QRectF(bar_left, y + 0.2 * row_h, 0.0, 0.6 * row_h)
            if not row.fits:
                bar.setWidth(bar_full * 0.25)
                colour = self.theme.color("warning")
                painter.setPen(QPen(colour, lw))
                painter.setBrush(pattern_brush(colour, Qt.BrushStyle.BDiagPattern, self.theme))
                painter.drawRect(bar)
            else:
                self._paint_blocks(painter, bar, bar_full * drawn_blocks(state, row) / most,
                                   drawn_blocks(state, row), bar_full / most)
                bar.setWidth(bar_full * drawn_blocks(state, row) / most)
            placer.block(bar)
            placer.place("row_name", row.name, QRectF(margin, y, name_w - margin, row_h), px, True,
                         LEFT | V_CENTRE)
            value_box = QRectF(bar.right() + 3 * lw, y, w - margin - bar.right() - 3 * lw, row_h)
            text = row.value_text
            mark = state.labels.get("current_mark", "")
            if row.current and mark and placer.place("row_value", f"{text}  {mark}", value_box, px, True,
                                                     LEFT | V_CENTRE, "accent"):
                continue
            placer.place("row_value", text, value_box, px, row.current, LEFT | V_CENTRE,
                         "warning" if not row.fits else "text")
        placer.paint(painter, self.theme)
        self._drawn = placer.drawn_texts()

    def _paint_blocks(self, painter: QPainter, bar: QRectF, width: float, blocks: float, block_w: float) -> None:
        colour = self.theme.color("memory")
        tint = QColor(colour)
        tint.setAlpha(70)
        lw = self.theme.scaled_line_width
        if width <= 0:
            return
        if blocks > MAX_BLOCKS or block_w < 2.5 * lw:
            painter.fillRect(QRectF(bar.left(), bar.top(), width, bar.height()), tint)
            painter.setPen(QPen(colour, lw))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(QRectF(bar.left(), bar.top(), width, bar.height()))
            return
        painter.setPen(QPen(colour, lw))
        painter.setBrush(tint)
        whole = int(blocks)
        for k in range(whole):
            painter.drawRect(QRectF(bar.left() + k * block_w + lw, bar.top(), block_w - 2 * lw, bar.height()))
        part = blocks - whole
        if part > 0:
            painter.drawRect(QRectF(bar.left() + whole * block_w + lw, bar.top(), max(0.0, part * block_w - 2 * lw),
                                    bar.height()))
