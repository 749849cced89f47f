"""A small table of figures with a title and notes under it (``widgets.figure_table_state``).

Laid out once per state, size and floor (``StateWidget.layout_now``): texts
start at ``max_text_scale`` times the floor and step down to it until the
title, the header, every row and every note fit; at the floor, columns of
``drop_order`` are left out, then notes from the last; where nothing fits even
then, the title alone is drawn. Row labels may take two lines, notes up to
``MAX_NOTE_LINES``. Every text is placed by a
``LabelPlacer`` (never below the floor, never over another, never outside the
widget) and reported by ``drawn_texts``. Rows are ruled, the header is bold,
so the table reads in black and white.
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QPainter, QPen
from PySide6.QtWidgets import QWidget

from widgets.bar_paint import pen_px
from widgets.figure_table_state import MAX_NOTE_LINES, FigureTableState
from widgets.state_widget import StateWidget
from widgets.text_fit import LabelPlacer, TextMeasure, _break_points
from widgets.theme import Theme

COLUMN_GAP_EM = 0.6          # between two columns, in line heights
ROW_PAD_EM = 0.25            # above and below each row's text
SHRINK = 0.92
LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
TOP_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
BOTTOM_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom


def wrapped(measure: TextMeasure, text: str, px: int, bold: bool, width: float, max_lines: int) -> tuple[str, ...] | None:
    """``text`` broken into at most ``max_lines`` lines of at most ``width`` px (each line as long as it can
    be, at the breaks ``widgets.text_fit`` allows), or None."""
    lines: list[str] = []
    rest = text
    while measure.width(rest, px, bold) > width:
        if len(lines) + 1 >= max_lines:
            return None
        fits = [(first, second) for first, second, _ in _break_points(rest) if measure.width(first, px, bold) <= width]
        if not fits:
            return None
        first, rest = max(fits, key=lambda pair: len(pair[0]))
        lines.append(first)
    return (*lines, rest)


@dataclass
class _Plan:
    px: int
    columns: list[int]                        # the cell columns drawn, in order
    widths: list[float]                       # theirs
    label_width: float
    title: tuple[str, ...]
    notes: list[tuple[int, tuple[str, ...]]]  # (note index, its text's lines)
    lead_width: float


class FigureTable(StateWidget):
    stage_sizes = ((160, 120), (600, 400))

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(theme, parent)
        self._measure = TextMeasure()

    # -- layout ------------------------------------------------------------------------------------
    def _label_lines(self, label: str, px: int, width: float) -> tuple[str, ...] | None:
        """A row label on one line, or on two balanced ones (the narrowest split), or as two filled lines."""
        found = self._measure.lines_within(label, px, False, width)
        return found[0] if found is not None else wrapped(self._measure, label, px, False, width, 2)

    def _plan(self, px: int, columns: list[int], notes: list[int], split_headers: bool = False) -> _Plan | None:
        """The table at ``px`` with these columns and notes (headers on two lines where ``split_headers`` and
        a header is wider than its cells), or None when it does not fit."""
        state: FigureTableState = self.state
        m, width, height = self._measure, self.width() - 4, self.height() - 4
        line = m.line_height(px, False)
        gap = COLUMN_GAP_EM * line
        title = ()
        used = 0.0
        if state.title:
            title = wrapped(m, state.title, round(px * 1.1), True, width, 2)
            if title is None:
                return None
            used += len(title) * m.line_height(round(px * 1.1), True) + 0.5 * line
        widths = []
        header_lines = 1
        for c in columns:
            header = state.headers[c] if c < len(state.headers) else ""
            cells = [row.cells[c] for row in state.rows if c < len(row.cells)]
            wide = max([m.width(cell.text, px, cell.bold) for cell in cells], default=0.0)
            one = m.width(header, px, True) if header else 0.0
            split = m.narrowest_two_lines(header, px, True) if split_headers and one > wide else None
            if split is not None and split[1] < one:
                header_lines = 2
                wide = max(wide, split[1])
            else:
                wide = max(wide, one)
            widths.append(wide)
        label_width = width - sum(widths) - gap * len(columns)
        if state.message:
            body = wrapped(m, state.message, px, False, width, 4)
            if body is None:
                return None
            used += len(body) * line + line
        else:
            longest = max([m.width(row.label, px, False) for row in state.rows], default=0.0)
            if label_width < min(longest, 4 * line):
                return None
            label_width = min(label_width, longest)
            if state.headers:
                used += header_lines * m.line_height(px, True) + 2 * ROW_PAD_EM * line
            for row in state.rows:
                lines = self._label_lines(row.label, px, label_width)
                if lines is None:
                    return None
                used += len(lines) * line + 2 * ROW_PAD_EM * line
        lead_width = max([m.width(state.notes[n].lead, px, True) for n in notes], default=0.0)
        placed_notes = []
        for n in notes:
            text = wrapped(m, state.notes[n].text, px, False, width - lead_width - gap / 2, MAX_NOTE_LINES)
            if text is None:
                return None
            placed_notes.append((n, text))
            used += len(text) * line + 0.3 * line
        if notes:
            used += 0.5 * line
        if used > height:
            return None
        return _Plan(px, columns, widths, label_width, title, placed_notes, lead_width)

    def plan(self) -> _Plan | None:
        state: FigureTableState = self.state
        floor = self.theme.floor_px
        columns = list(range(state.columns))
        notes = list(range(len(state.notes)))
        px = max(floor, round(floor * state.max_text_scale))
        while True:                                           # the largest text at which everything fits
            found = self._plan(px, columns, notes) or self._plan(px, columns, notes, split_headers=True)
            if found is not None or px <= floor:
                break
            px = max(floor, int(px * SHRINK))
        for dropped in state.drop_order:                      # at the floor: columns, then notes, left out
            if found is not None:
                break
            columns = [c for c in columns if c != dropped]
            found = self._plan(floor, columns, notes, split_headers=True)
        while found is None and notes:
            notes = notes[:-1]
            found = self._plan(floor, columns, notes, split_headers=True)
        return found

    def _lay_out(self) -> tuple[LabelPlacer, list[QLineF]]:
        state: FigureTableState = self.state
        m = self._measure
        texts = LabelPlacer(m, self.theme.floor_px, QRectF(0, 0, self.width(), self.height()), gap_px=1, max_px=None)
        rules: list[QLineF] = []
        plan = self.plan()
        if plan is None:                  # not even at the floor: at least the title says what would be here
            if state.title:
                texts.place("title", state.title, QRectF(2, 2, self.width() - 4, self.height() - 4),
                            self.theme.floor_px, True, TOP_LEFT)
            return texts, rules
        px, line, width = plan.px, m.line_height(plan.px, False), self.width() - 4
        gap = COLUMN_GAP_EM * line
        y = 2.0
        if plan.title:
            title_px = round(px * 1.1)
            h = len(plan.title) * m.line_height(title_px, True)
            texts.place("title", "\n".join(plan.title), QRectF(2, y, width, h), title_px, True, TOP_LEFT)
            y += h + 0.5 * line
        if state.message:
            body = wrapped(m, state.message, px, False, width, 4) or (state.message,)
            texts.place("message", "\n".join(body), QRectF(2, y, width, len(body) * line), px, False, TOP_LEFT,
                        role=state.message_role)
            y += (len(body) + 1) * line
        else:
            lefts, x = [], 2 + plan.label_width + gap
            for w in plan.widths:
                lefts.append(x)
                x += w + gap
            if state.headers:
                head_h = max(len((m.lines_within(state.headers[c], px, True, w + 0.5) or (("",), 0))[0])
                             for c, w in zip(plan.columns, plan.widths)) * m.line_height(px, True)
                for c, left, w in zip(plan.columns, lefts, plan.widths):
                    if c < len(state.headers):
                        texts.place(f"header.{c}", state.headers[c], QRectF(left, y, w + 0.5, head_h), px, True,
                                    BOTTOM_RIGHT, role="muted")
                y += head_h + ROW_PAD_EM * line
                rules.append(QLineF(2, y, 2 + width, y))
                y += ROW_PAD_EM * line
            for r, row in enumerate(state.rows):
                lines = self._label_lines(row.label, px, plan.label_width) or (row.label,)
                h = len(lines) * line
                texts.place(f"label.{r}", "\n".join(lines), QRectF(2, y, plan.label_width + 0.5, h), px, False, LEFT)
                for c, left, w in zip(plan.columns, lefts, plan.widths):
                    if c < len(row.cells):
                        cell = row.cells[c]
                        texts.place(f"cell.{r}.{c}", cell.text, QRectF(left, y, w + 0.5, h), px, cell.bold, RIGHT,
                                    role=cell.role)
                y += h + ROW_PAD_EM * line
                rules.append(QLineF(2, y, 2 + width, y))
                y += ROW_PAD_EM * line
        if plan.notes:
            y += 0.5 * line
        for n, lines in plan.notes:
            note = state.notes[n]
            h = len(lines) * line
            texts.place(f"lead.{n}", note.lead, QRectF(2, y, plan.lead_width + 0.5, line), px, True, TOP_LEFT)
            texts.place(f"note.{n}", "\n".join(lines), QRectF(2 + plan.lead_width + gap / 2, y,
                                                              width - plan.lead_width - gap / 2 + 0.5, h),
                        px, False, TOP_LEFT, role=note.role)
            y += h + 0.3 * line
        return texts, rules

    # -- painting ------------------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        theme = self.theme
        painter.fillRect(self.rect(), theme.color("background"))
        self._drawn = []
        laid_out = self.layout_now()
        if laid_out is None:
            return
        texts, rules = laid_out
        painter.setPen(QPen(theme.color("muted"), pen_px(theme, theme.line_width / 3)))
        for rule in rules:
            painter.drawLine(rule)
        texts.paint(painter, theme, from_start=True)
        painter.end()
        self._drawn = texts.drawn_texts()
