"""Texts cut into tokens: one outlined, shaded chip per token, in a grid of cells (``widgets.token_view_state``).

Draws the ``TokenViewState`` it is handed; tokenizes nothing. The layout is
computed once per state, size and floor (``StateWidget.layout_now``): the chip
text starts at ``max_scale`` times the floor and steps down until every cell's
chips fit, never below the floor; where the row titles are optional (they repeat
the first cell) they give their column to the cells before a cell is cut; at
the floor a cell that still overflows keeps the chips that fit and ends with
"…". Rows take the height their chips need, no more, so short texts sit
together rather than spread over the stage. A chip's outline and alternating shade mark the cut, so colour is
never alone: a byte chip (part of a cut character) has a dashed outline and
names its character on the chip's second line.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter, QPen
from PySide6.QtWidgets import QWidget

from widgets.bar_paint import alpha, pen_px
from widgets.state_widget import StateWidget
from widgets.text_fit import DrawnText, FittedText, TextMeasure
from widgets.theme import Theme
from widgets.token_view_state import Chip, TokenViewState

GAP_PX = 4            # between chips, and between a cell's chips and its summary
PAD_PX = 4            # inside a chip, around its text
CELL_GAP_PX = 10      # between columns and between rows
ELLIPSIS = "…"
# Rows whose chips need less than this share of an equal share of the height take only what they need.
PACK_BELOW = 0.7
SHADE_ROLES = ("accent", "memory")


@dataclass
class _Placed:
    chips: list = field(default_factory=list)      # (rect, chip, label, px, the id fitted under it or None)
    texts: list = field(default_factory=list)      # (key, FittedText, role)
    lines: list = field(default_factory=list)      # grid rules (x0, y0, x1, y1)


class TokenView(StateWidget):
    """Draws a ``TokenViewState``; holds no tokenizer."""
    stage_sizes = ((160, 120), (900, 500))

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(theme, parent)
        self._measure = TextMeasure()

    def drawn_chips(self) -> list[tuple[QRectF, Chip]]:
        """The chips the last layout placed (rect in widget coordinates, chip), in order."""
        placed = self.placed()
        return [(rect, chip) for rect, chip, *_ in placed.chips] if placed else []

    # -- layout ----------------------------------------------------------------------------------
    def placed(self) -> _Placed | None:
        return self.layout_now()

    def _fit(self, placed: _Placed, key: str, text: str, box: QRectF, px: int, role: str = "text",
             bold: bool = False, align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter) -> float:
        """Place one text; returns the height it takes (0 when it does not fit and is left out)."""
        fitted = self._measure.fit(text, box, px, bold, align, floor_px=self.theme.floor_px)
        if fitted is None:
            return 0.0
        placed.texts.append((key, fitted, role))
        return fitted.rect.height()

    def _lay_out(self) -> _Placed:
        state: TokenViewState = self.state
        floor = self.theme.floor_px
        m = self._measure
        placed = _Placed()
        area = QRectF(0, 0, self.width(), self.height()).adjusted(2, 2, -2, -2)
        if state.title:
            box = QRectF(area.left(), area.top(), area.width(), m.line_height(round(floor * 1.15), True) * 2)
            used = self._fit(placed, "title", state.title, box, round(floor * 1.15), bold=True,
                             align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
            area.setTop(area.top() + used + (GAP_PX if used else 0))
        if state.footer:
            height = m.line_height(floor, False) * 2
            box = QRectF(area.left(), area.bottom() - height, area.width(), height)
            used = self._fit(placed, "footer", state.footer, box, floor, state.footer_role,
                             align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom)
            if used:
                area.setBottom(area.bottom() - used - GAP_PX)
        if not state.rows or area.height() <= 0:
            return placed
        top_px = max(floor, int(floor * state.max_scale))
        attempts = (True, False) if state.row_titles_optional else (True,)
        for n, titles in enumerate(attempts):
            px = top_px
            while True:
                final = n == len(attempts) - 1 and px <= floor
                grid = self._grid(state, area, px, floor, final, titles)
                if grid is not None:
                    needed = grid[3]
                    if needed < PACK_BELOW * grid[4]:         # rows as tall as their chips: no empty bands
                        grid = self._grid(state, area, px, floor, True, titles, row_h=needed)
                    placed.chips = [(*chip, self._id_fit(chip, floor)) for chip in grid[0]]
                    placed.lines = grid[1]
                    placed.texts += grid[2]
                    return placed
                if px <= floor:
                    break
                px = max(floor, int(px * 0.9))
        return placed

    def _id_fit(self, chip, floor: int) -> FittedText | None:
        """A chip's token id fitted under its label, once per layout (not on every paint)."""
        rect, token, _label, px = chip
        second = self._second_line(token)
        if not second:
            return None
        top = rect.top() + PAD_PX + self._measure.line_height(px, False)
        box = QRectF(rect.left() + PAD_PX, top, rect.width() - 2 * PAD_PX, self._measure.line_height(floor, False))
        return self._measure.fit(second, box, floor, False, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                                 floor_px=floor)

    def _grid(self, state: TokenViewState, area: QRectF, px: int, floor: int, final: bool, titles: bool = True,
              row_h: float | None = None):
        """Chips at ``px`` in every cell: (chips, lines, texts, the height the tallest row needs, the row height);
        None when some cell overflows and ``final`` is False. ``titles`` False: no row-title column."""
        m = self._measure
        texts: list = []
        chips: list = []
        lines: list = []
        two_lines = state.show_ids
        chip_h = m.line_height(px, False) + 2 * PAD_PX + (m.line_height(floor, False) if two_lines else 0)
        header_h = m.line_height(floor, True) if state.columns else 0
        names = [row.title for row in state.rows] + ([state.columns[0]] if state.columns else [])
        title_w = min(area.width() * 0.3, max((m.width(t, floor, True) for t in names if t), default=0) + 8) \
            if titles else -CELL_GAP_PX
        n_cells = max(1, state.cell_count)
        cell_w = (area.width() - title_w - CELL_GAP_PX * n_cells) / n_cells
        if cell_w < 40:
            return None if not final else ([], [], [])
        top = area.top()
        if state.columns:
            for n, name in enumerate(state.columns):
                if n == 0 and not titles:
                    continue
                x = area.left() if n == 0 else area.left() + title_w + CELL_GAP_PX + (n - 1) * (cell_w + CELL_GAP_PX)
                w = title_w if n == 0 else cell_w
                fitted = m.fit(name, QRectF(x, top, w, header_h), floor, True,
                               Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, floor_px=floor)
                if fitted is not None:
                    texts.append(("header", fitted, "muted"))
            top += header_h + GAP_PX
        share_h = (area.bottom() - top - CELL_GAP_PX * (len(state.rows) - 1)) / len(state.rows)
        row_h = share_h if row_h is None else min(row_h, share_h)
        summary_h = m.line_height(floor, False)
        needed = 0.0
        for r, row in enumerate(state.rows):
            y = top + r * (row_h + CELL_GAP_PX)
            if r:
                lines.append((area.left(), y - CELL_GAP_PX / 2, area.right(), y - CELL_GAP_PX / 2))
            fitted = m.fit(row.title, QRectF(area.left(), y, title_w, row_h), floor, True,
                           Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, floor_px=floor) if titles else None
            if fitted is not None:
                texts.append(("row", fitted, row.title_role))
                needed = max(needed, fitted.rect.bottom() - y)
            for c, cell in enumerate(row.cells):
                x = area.left() + title_w + CELL_GAP_PX + c * (cell_w + CELL_GAP_PX)
                box = QRectF(x, y, cell_w, row_h)
                has_summary = bool(cell.summary) and row_h >= summary_h + chip_h + GAP_PX
                chip_box = QRectF(box.left(), box.top(), box.width(), box.height() - (summary_h + GAP_PX if has_summary else 0))
                flowed = self._flow(cell, chip_box, px, floor, chip_h, final)
                if flowed is None:
                    return None
                chips += flowed
                bottom = flowed[-1][0].bottom() + GAP_PX if flowed else box.top()
                needed = max(needed, bottom - GAP_PX - y + (summary_h + GAP_PX if has_summary else 0))
                if has_summary:
                    for summary in (cell.summary, cell.summary_short):
                        fitted = m.fit(summary, QRectF(box.left(), bottom, box.width(), summary_h), floor, False,
                                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, floor_px=floor)
                        if fitted is not None:
                            break
                    if fitted is not None:
                        texts.append((f"summary.{r}.{c}", fitted, cell.summary_role))    # row, cell: a card's label
        return chips, lines, texts, needed, row_h

    def _flow(self, cell, box: QRectF, px: int, floor: int, chip_h: float, final: bool):
        """The cell's chips flowed into ``box``; None when they do not all fit and ``final`` is False."""
        m = self._measure
        out = []
        x, y = box.left(), box.top()
        chips = list(cell.chips)
        ellipsis_w = m.width(ELLIPSIS, px, False) + 2 * PAD_PX
        for n, chip in enumerate(chips):
            label = chip.label
            width = max(self._first_width(chip, label, px), self._second_width(chip, floor)) + 2 * PAD_PX
            if width > box.width():                         # one very long token: cut its label to the cell
                label = self._elided(label, px, box.width() - 2 * PAD_PX - self._part_width(chip, px))
                width = max(self._first_width(chip, label, px), self._second_width(chip, floor)) + 2 * PAD_PX
            if x + width > box.right() + 0.01 and x > box.left():
                x, y = box.left(), y + chip_h + GAP_PX
            if y + chip_h > box.bottom() + 0.01:
                if not final:
                    return None
                return self._with_ellipsis(out, box, ellipsis_w, chip_h, px)
            out.append((QRectF(x, y, width, chip_h), chip, label, px))
            x += width + GAP_PX
        if cell.cut and (out or chips == []):
            return self._with_ellipsis(out, box, ellipsis_w, chip_h, px)
        return out

    def _part_width(self, chip: Chip, px: int) -> float:
        """A byte chip names the character its bytes belong to after its label ("E6 8E ⊂推")."""
        return GAP_PX + self._measure.width(chip.part_of, px, False) if chip.kind == "bytes" and chip.part_of else 0.0

    def _first_width(self, chip: Chip, label: str, px: int) -> float:
        return self._measure.width(label, px, False) + self._part_width(chip, px)

    def _second_width(self, chip: Chip, floor: int) -> float:
        """The width of a chip's second line: its id, when ids are shown."""
        second = self._second_line(chip)
        return self._measure.width(second, floor, False) if second else 0.0

    def _second_line(self, chip: Chip) -> str:
        return chip.id_label if self.state is not None and self.state.show_ids and chip.kind != "mark" else ""

    def _with_ellipsis(self, out: list, box: QRectF, ellipsis_w: float, chip_h: float, px: int) -> list:
        """``out`` with a "…" chip after the last chip that leaves room for it on its line."""
        while out and out[-1][0].right() + GAP_PX + ellipsis_w > box.right() + 0.01:
            out.pop()
        if out:
            last = out[-1][0]
            rect = QRectF(last.right() + GAP_PX, last.top(), ellipsis_w, chip_h)
        elif chip_h <= box.height() + 0.01 and ellipsis_w <= box.width():
            rect = QRectF(box.left(), box.top(), ellipsis_w, chip_h)
        else:
            return []
        out.append((rect, Chip(ELLIPSIS, "mark"), ELLIPSIS, px))
        return out

    def _elided(self, label: str, px: int, width: float) -> str:
        while label and self._measure.width(label + ELLIPSIS, px, False) > width:
            label = label[:-1]
        return label + ELLIPSIS

    # -- painting ----------------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        theme = self.theme
        painter.fillRect(self.rect(), theme.color("background"))
        self._drawn = []
        placed = self.placed()
        if placed is None:
            return
        m = self._measure
        painter.setPen(QPen(theme.color("muted"), pen_px(theme, 1.0)))
        for x0, y0, x1, y1 in placed.lines:
            painter.drawLine(int(x0), int(y0), int(x1), int(y1))
        width = pen_px(theme, theme.line_width / 2)        # thicker on a large screen: a 1 px dash vanishes
        solid = QPen(theme.color("text"), width)
        dashed = QPen(theme.color("warning"), width, Qt.PenStyle.DashLine)
        inset = width / 2
        for rect, chip, label, px, id_fit in placed.chips:
            if chip.kind == "mark":
                painter.setPen(theme.color("muted"))
            else:
                fill = theme.color("compute") if chip.kind == "bytes" else theme.color(SHADE_ROLES[chip.shade % 2])
                painter.fillRect(rect, alpha(fill, 0.16 if chip.shade % 2 == 0 else 0.28))
                painter.setPen(dashed if chip.kind == "bytes" else solid)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(rect.adjusted(inset, inset, -inset, -inset))
                painter.setPen(theme.color("text"))
            line_h = m.line_height(px, False)
            label_rect = QRectF(rect.left() + PAD_PX, rect.top() + PAD_PX, rect.width() - 2 * PAD_PX, line_h)
            painter.setFont(m.font(px, False))
            painter.drawText(label_rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), label)
            label_w = m.width(label, px, False)
            self._drawn.append(DrawnText("chip", label, px, QRectF(label_rect.left(), label_rect.top(), label_w - 1,
                                                                   line_h)))
            if self._part_width(chip, px):
                part_rect = QRectF(label_rect.left() + label_w + GAP_PX, label_rect.top(),
                                   m.width(chip.part_of, px, False), line_h)
                painter.setPen(theme.color("muted"))
                painter.drawText(part_rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                                 chip.part_of)
                self._drawn.append(DrawnText("part_of", chip.part_of, px, QRectF(part_rect.adjusted(0, 0, -1, 0))))
            if id_fit is not None:
                painter.setPen(theme.color("muted"))
                self._paint_text(painter, "id", id_fit)
        for key, fitted, role in placed.texts:
            painter.setPen(theme.color(role))
            self._paint_text(painter, key, fitted)

    def _paint_text(self, painter: QPainter, key: str, fitted: FittedText) -> None:
        fitted.paint(painter, self._measure.font(fitted.px, fitted.bold))
        self._drawn.append(fitted.drawn(key))
