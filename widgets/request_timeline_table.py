"""A small table of figures beside one large figure: the request timeline's comparison and its batch sweep.

Draws the ``TableState`` it is handed (``widgets.request_timeline_state``):
a header row, then one row per line of the table, a cell optionally with a thin
gauge under its text (filled to a share of the cell's width: the compute in use); on the right,
a large figure with its label above and a note below. Columns named hidden keep
their place, so a column that appears later does not move the others. Text is
fitted at or above the theme's floor; when the table is too wide even at the
floor, columns are left out (``drop_order`` first, then from the right; the first, naming each row, stays);
rows that do not fit in height are left out from the bottom.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter, QPen
from PySide6.QtWidgets import QWidget

from widgets.request_timeline_state import LAYOUTS_KEPT, Cell, rows_kept
from widgets.state_widget import StateWidget
from widgets.text_fit import DrawnText, FittedText, RememberedFits
from widgets.theme import Theme

CELL_PAD_PX = 10            # either side of a cell's text
LABEL_PX_FACTOR = 1.2       # table text starts this much above the floor and shrinks to it when needed
FIGURE_SHARE = 0.27         # of the width, kept for the large figure whether it shows yet or not
FIGURE_PX_FACTOR = 4.0      # the large figure, at most this many times the floor
BAR_MIN_PX = 90             # a column with bars is at least this wide, so a bar can be seen to grow
FIGURE_TEMPLATE = "88.8%"    # as wide as a large figure usually is ("99%", "4,096", "205×")
BAR_PER_FLOOR = 0.28        # the gauge under a cell's text (full width = 100%), in text floors (5 px at 768)
# The colour role of a text other than a cell's or the large figure's label ("text").
TEXT_ROLES = {"figure_value": "accent", "figure_note": "muted", "footnote": "muted"}
# A cell's text: the first column (naming each row) left, the others centred; worked out once (an enum's ``|``
# costs more than fitting a remembered text, and a layout fits some forty).
CELL_ALIGN = {first: (Qt.AlignmentFlag.AlignLeft if first else Qt.AlignmentFlag.AlignHCenter)
              | Qt.AlignmentFlag.AlignVCenter for first in (False, True)}


def _gauge_foot_px(theme: Theme) -> int:
    """Room under a cell's gauge: clear of the highlight frame's line (drawn inside the row) and the divider."""
    return max(4, math.ceil(2 * theme.scaled_line_width) + 2)


@dataclass
class TableLayout:
    texts: list[tuple[str, FittedText, bool]] = field(default_factory=list)   # (key, fitted, in the figure)
    bars: list[tuple[QRectF, float, str]] = field(default_factory=list)   # (track, share, colour role)
    rows: list[QRectF] = field(default_factory=list)                       # each drawn row, header first
    highlight: QRectF | None = None


class RequestTable(StateWidget):
    """Draws a ``TableState``; holds no physics."""
    stage_sizes = ((160, 80), (1200, 260))
    layouts_kept = LAYOUTS_KEPT

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(theme, parent)
        self._measure = RememberedFits()

    def drawn_texts(self) -> list[DrawnText]:
        return super().drawn_texts() if self.isVisibleTo(self.parentWidget()) or self.parentWidget() is None else []

    def hideEvent(self, event) -> None:
        self._drawn, self._drawn_later = [], None       # a hidden table shows nothing
        super().hideEvent(event)

    # -- layout ----------------------------------------------------------------------------
    def _lay_out(self) -> TableLayout:
        s, f = self._state, self._theme.floor_px
        w, h = float(self.width()), float(self.height())
        figure_w = round(w * FIGURE_SHARE)
        table_w = w - figure_w - f
        layout = TableLayout()
        foot_h = self._measure.line_height(f, False) if s.footnote else 0.0
        gauged = [any(c.bar is not None for c in row) for row in s.rows]     # rows with a gauge are taller
        bar_px = max(4, round(f * BAR_PER_FLOOR))
        foot = _gauge_foot_px(self._theme)       # the gauge keeps clear of the row's divider and frame

        def gauged_row(row: int) -> bool:
            return row >= 0 and gauged[row]

        def heights(px: int) -> list[float]:
            text_h = self._measure.line_height(px, True) + 2
            return [text_h] + [text_h + (bar_px + foot if g else 0) for g in gauged]

        def sized_height(px: int) -> float:        # of the header and the rows the text is sized for
            rows = heights(px)
            return sum(rows) + max(0, s.rows_sized_for - len(s.rows)) * rows[-1]

        for px in (round(f * LABEL_PX_FACTOR), f):       # the larger size only if every column fits at it
            if px != f and sized_height(px) + foot_h > h:
                continue                           # too tall at this size: its widths need not be measured
            natural = self._natural_widths(px)
            if px == f or sum(natural.values()) <= table_w:
                break
        columns = self._column_widths(natural, table_w)
        row_heights = heights(px)
        room = max(0, len(s.rows))
        while room > 0 and row_heights[0] + sum(sorted(row_heights[1:])[:room]) + foot_h > h:
            room -= 1
        x = 0.0
        lefts = {}
        for column, width in columns.items():
            lefts[column] = x
            x += width
        all_rows = [(-1, tuple(Cell(text, key=f"header.{n}") for n, text in enumerate(s.header)))]
        all_rows += [(n, s.rows[n]) for n in rows_kept(s, room)]
        top = 0.0
        for row, cells in all_rows:
            row_h = row_heights[row + 1]
            layout.rows.append(QRectF(0, top, x, row_h))
            if row == s.highlight_row and row >= 0:
                layout.highlight = QRectF(0, top, x, row_h)
            text_h = row_h - (bar_px + foot if gauged_row(row) else 0)
            bold = row < 0 or row == s.highlight_row
            for column, cell in enumerate(cells):
                if column not in columns or column in s.hidden_columns:
                    continue
                left, width = lefts[column] + CELL_PAD_PX, columns[column] - 2 * CELL_PAD_PX
                if cell.bar is not None and row >= 0:      # a thin gauge along the cell's foot, under its text
                    share = max(0.0, min(1.0, cell.bar))
                    layout.bars.append((QRectF(left, top + row_h - bar_px - foot, width, bar_px), share,
                                        cell.bar_role))
                fitted = self._measure.fit(cell.text, QRectF(left, top, width, text_h), px, bold,
                                           CELL_ALIGN[column == 0], floor_px=f)
                if fitted is not None:
                    layout.texts.append((cell.key or f"cell.{row}.{column}", fitted, False))
            top += row_h
        if s.footnote:
            note = self._measure.fit(s.footnote, QRectF(0, top, table_w, h - top), f, False,
                                     Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, floor_px=f)
            if note is not None:
                layout.texts.append(("footnote", note, False))
        self._lay_out_figure(layout, QRectF(w - figure_w, 0, figure_w, h), f)
        return layout

    def _natural_widths(self, px: int) -> dict[int, float]:
        """Each column's width at ``px``: its widest text (header and ``widest`` included), at least ``BAR_MIN_PX``
        with bars."""
        s, width = self._state, self._measure.width
        widest = [width(text, px, True) for text in s.header]
        for column, texts in enumerate(s.widest[:len(widest)]):
            widest[column] = max([widest[column]] + [width(text, px, True) for text in texts])
        barred = [False] * len(widest)
        for row in s.rows:                    # one pass over the cells (a layout may measure them at two sizes)
            for column, cell in enumerate(row[:len(widest)]):
                wide = width(cell.text, px, True)
                if wide > widest[column]:
                    widest[column] = wide
                if cell.bar is not None:
                    barred[column] = True
        return {column: max(wide + 2 * CELL_PAD_PX, BAR_MIN_PX if barred[column] else 0)
                for column, wide in enumerate(widest)}

    def _column_widths(self, natural: dict[int, float], available: float) -> dict[int, float]:
        """The columns' ``natural`` widths, columns from the right left out while the table is wider than
        ``available``, and what is spare spread over the figures."""
        s = self._state
        count = len(natural)
        widths = dict(natural)
        order = [c for c in s.drop_order if 0 < c < count] + [c for c in reversed(range(1, count))
                                                               if c not in s.drop_order]
        while order and sum(widths.values()) > available:
            widths.pop(order.pop(0))
        spare = available - sum(widths.values())
        if spare > 0 and len(widths) > 1 and math.isfinite(available):  # spread over the figures, not the names
            extra = min(spare, sum(widths.values()) * 0.5) / (len(widths) - 1)
            widths = {c: v + (extra if c > 0 else 0) for c, v in widths.items()}
        return widths

    def _lay_out_figure(self, layout: TableLayout, area: QRectF, f: int) -> None:
        s = self._state
        if not s.figure_value:
            return
        label_h = 2 * self._measure.line_height(round(f * LABEL_PX_FACTOR), False)
        note_h = 2 * self._measure.line_height(f, False)
        value_box = QRectF(area.left(), area.top() + label_h, area.width(), max(0.0, area.height() - label_h - note_h))
        # One size for any figure in this box (the size a wide figure fits at), so a figure that changes on
        # every step of a dragged control keeps its size: steady to read, and its glyphs stay cached.
        steady = self._measure.fit(FIGURE_TEMPLATE, value_box, round(f * FIGURE_PX_FACTOR), True,
                                   Qt.AlignmentFlag.AlignCenter, floor_px=f)
        value = self._measure.fit(s.figure_value, value_box, steady.px if steady else f, True,
                                  Qt.AlignmentFlag.AlignCenter, floor_px=f)
        if value is None:
            return
        layout.texts.append(("figure_value", value, True))
        label = self._measure.fit(s.figure_label, QRectF(area.left(), value.rect.top() - label_h, area.width(),
                                  label_h), round(f * LABEL_PX_FACTOR), False,
                                  Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom, floor_px=f)
        if label is not None:
            layout.texts.append(("figure_label", label, True))
        note = self._measure.fit(s.figure_note, QRectF(area.left(), value.rect.bottom(), area.width(), note_h), f,
                                 False, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, floor_px=f)
        if note is not None:
            layout.texts.append(("figure_note", note, True))

    # -- painting --------------------------------------------------------------------------
    def _pieces(self, layout: TableLayout) -> list[tuple[QRectF, object]]:
        """The highlight, each row's divider, each gauge and each text (``StateWidget._pieces``): a dragged
        batch changes one row of the sweep, or the figures of the comparison, and only they are painted again."""
        pieces: list[tuple[QRectF, object]] = []
        if layout.highlight is not None:
            pieces.append((layout.highlight, "highlight"))
        pieces += [(QRectF(row.left(), row.top(), row.width(), 0.0), "divider") for row in layout.rows[1:]]
        pieces += [(track, ("gauge", share, role)) for track, share, role in layout.bars]
        pieces += [(fitted.rect, (key, fitted.lines, fitted.px, fitted.bold, fitted.align))
                   for key, fitted, _ in layout.texts]
        return pieces

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        theme = self._theme
        painter.fillRect(self.rect(), theme.color("background"))
        layout = self.layout_now()
        self._drawn, self._drawn_later = [], None
        if layout is None:
            painter.end()
            return
        self.painted(layout)
        exposed = self.exposure(event.region())
        if layout.highlight is not None and exposed(layout.highlight):
            painter.fillRect(layout.highlight, theme.color("surface"))
            painter.setPen(QPen(theme.color("accent"), max(1.0, theme.scaled_line_width)))
            painter.drawRect(layout.highlight.adjusted(1, 1, -1, -1))
        thin = QPen(theme.color("muted"), theme.size_scale)
        painter.setPen(thin)
        for row in layout.rows[1:]:
            if exposed(QRectF(row.left(), row.top(), row.width(), 0.0)):
                painter.drawLine(row.topLeft(), row.topRight())
        surface = theme.color("surface")
        for track, share, bar_role in layout.bars:       # the pen stays the thin one: fills take no pen
            if exposed(track):
                painter.fillRect(track, surface)
                painter.drawRect(track)
                painter.fillRect(QRectF(track.left(), track.top(), max(1.0, track.width() * share), track.height()),
                                 theme.color(bar_role))
        colours = {role: theme.color(role) for role in ("text", "accent", "muted")}
        for key, fitted, _ in layout.texts:
            if exposed(fitted.rect):
                painter.setPen(colours[TEXT_ROLES.get(key, "text")])
                fitted.paint(painter, self._measure.font(fitted.px, fitted.bold))
        painter.end()
        # every text of the layout is shown, painted now or kept from before (worked out when asked)
        self._drawn_later = lambda: [fitted.drawn(key) for key, fitted, _ in layout.texts]
