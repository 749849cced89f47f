"""A fleet drawn to count: nodes of GPUs, each replica framed, the node's link and the network between nodes.

Draws a ``FleetPictureState`` (``widgets.fleet_picture_state``) with QPainter.
A headline at the top, a legend at the bottom (each line beside a sample of
what it names), and between them the nodes on a grid sized so that the GPU
squares are as large as the room allows: inside each node the GPUs sit on a
solid bar (the node's link), a frame round each replica's GPUs, free slots
dashed; every node drops a dashed line to the network that joins them. Past
the nodes drawn, a dashed box says how many more there are. Static: painted
once per state and size; texts are placed by a ``LabelPlacer`` (never under
the floor, never over each other).
"""
from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QPen
from PySide6.QtWidgets import QWidget

from widgets.bar_paint import alpha
from widgets.fleet_picture_state import FREE, FleetPictureState, replica_runs
from widgets.state_widget import StateWidget
from widgets.text_fit import LabelPlacer, TextMeasure
from widgets.theme import Theme

LEFT, H_CENTRE, V_CENTRE = Qt.AlignmentFlag.AlignLeft, Qt.AlignmentFlag.AlignHCenter, Qt.AlignmentFlag.AlignVCenter
HEADLINE_SHARE = 0.055        # of the height: the headline's text (never under the floor)
# In units of one GPU square's side:
SLOT_GAP, NODE_PAD, BAR, NODE_GAP_X, NODE_GAP_Y = 0.22, 0.35, 0.3, 0.7, 1.0
MAX_SLOT_SHARE = 0.14         # a GPU square is never taller than this share of the widget (one small node)
SAMPLE_EM = 2.2               # a legend's line sample, in line heights


class FleetPicture(StateWidget):
    """Draws a ``FleetPictureState``."""

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(theme, parent)
        self.measure = TextMeasure()
        self.node_rects: list[QRectF] = []       # where each drawn node went (the last paint), then the "more" box
        self.slot_px = 0.0

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), self.theme.color("background"))
        self._drawn = []
        state = self.state
        if state is None or self.width() <= 0 or self.height() <= 0:
            return
        floor = self.theme.floor_px
        placer = LabelPlacer(self.measure, floor, QRectF(0, 0, self.width(), self.height()))
        headline_px = max(floor, int(HEADLINE_SHARE * self.height()))
        if state.message or not state.nodes:
            placer.place("message", state.message, QRectF(self.rect()).adjusted(8, 8, -8, -8),
                         round(headline_px * 1.1), False, H_CENTRE | V_CENTRE, state.message_role)
        else:
            self._paint_fleet(painter, placer, state, headline_px)
        placer.paint(painter, self.theme)
        self._drawn = placer.drawn_texts()

    # -- layout ------------------------------------------------------------------------------------
    def _legend_lines(self, state: FleetPictureState, width: float) -> list[tuple[str, str, int]]:
        """(kind, text, lines) of each legend entry that fits ``width`` on one line or two (others left out)."""
        lines = [("bar", state.node_link_label), ("network", state.network_label), ("frame", state.replica_label)]
        if state.has_free_slots:
            lines.append(("free", state.free_label))
        found = []
        for kind, text in lines:
            fits = self.measure.lines_within(text, self.theme.floor_px, False, width) if text else None
            if fits is not None:
                found.append((kind, text, len(fits[0])))
        return found

    def _grid(self, area: QRectF, boxes: int, columns: int, rows: int) -> tuple[float, int]:
        """The GPU square's side and the nodes per row that make it largest in ``area``."""
        node_w = columns + (columns - 1) * SLOT_GAP + 2 * NODE_PAD
        node_h = rows + (rows - 1) * SLOT_GAP + 2 * NODE_PAD + BAR + SLOT_GAP
        best = (0.0, 1)
        for across in range(1, boxes + 1):
            down = math.ceil(boxes / across)
            side = min(area.width() / (across * node_w + (across - 1) * NODE_GAP_X),
                       area.height() / (down * node_h + down * NODE_GAP_Y))
            if side > best[0]:
                best = (side, across)
        return min(best[0], MAX_SLOT_SHARE * self.height()), best[1]

    def _paint_fleet(self, painter: QPainter, placer: LabelPlacer, state: FleetPictureState, headline_px: int) -> None:
        theme, floor = self.theme, self.theme.floor_px
        w, h = float(self.width()), float(self.height())
        margin = max(4.0, 0.015 * min(w, h))
        headline_line = self.measure.line_height(headline_px, True)
        placer.place("headline", state.headline, QRectF(margin, margin, w - 2 * margin, headline_line * 2),
                     headline_px, True, LEFT | Qt.AlignmentFlag.AlignTop, "text")
        headline_used = max((f.rect.bottom() for k, _, f, _, _ in placer.placed if k == "headline"),
                            default=margin + headline_line)
        line = self.measure.line_height(floor, False)
        legend = self._legend_lines(state, w - 2 * margin - (SAMPLE_EM + 0.5) * line)
        legend_top = h - margin - sum(rows for _, _, rows in legend) * line - 0.15 * line * len(legend)
        more_line = line * 1.3 if state.hidden_nodes else 0.0     # room for the count under the nodes if need be
        area = QRectF(margin, headline_used + line * 0.6, w - 2 * margin,
                      legend_top - headline_used - line * 1.2 - more_line)
        columns = max(1, state.slot_columns)
        rows = max(math.ceil(len(node.slots) / columns) for node in state.nodes)
        boxes = len(state.nodes) + (1 if state.hidden_nodes else 0)
        side, across = self._grid(area, boxes, columns, rows)
        self.slot_px = side
        if side < 1.0:                             # no room for the nodes: the texts alone
            self.node_rects = []
            return
        node_w = side * (columns + (columns - 1) * SLOT_GAP + 2 * NODE_PAD)
        node_h = side * (rows + (rows - 1) * SLOT_GAP + 2 * NODE_PAD + BAR + SLOT_GAP)
        down = math.ceil(boxes / across)
        grid_w = across * node_w + (across - 1) * NODE_GAP_X * side
        grid_h = down * (node_h + NODE_GAP_Y * side)
        x0 = area.left() + max(0.0, (area.width() - grid_w) / 2)
        y0 = area.top() + max(0.0, (area.height() - grid_h) / 2)
        self.node_rects = [QRectF(x0 + (i % across) * (node_w + NODE_GAP_X * side),
                                  y0 + (i // across) * (node_h + NODE_GAP_Y * side), node_w, node_h)
                           for i in range(boxes)]
        lw = theme.scaled_line_width
        if len(self.node_rects) > 1:
            self._paint_network(painter, across, side, lw)
        for node, rect in zip(state.nodes, self.node_rects):
            self._paint_node(painter, node.slots, rect, columns, side, lw)
        self._join_replicas(painter, state, side, lw)
        legend_area = QRectF(margin, legend_top, w - 2 * margin, h - legend_top)
        if state.hidden_nodes:
            rect = self.node_rects[-1]
            painter.setPen(QPen(theme.color("muted"), lw, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(rect, side * 0.2, side * 0.2)
            # Inside its box, or (a small box) under the nodes: the count is never left out for want of room.
            px = max(floor, int(headline_px * 0.85))
            if not placer.place("more", state.more_label, rect.adjusted(lw * 2, lw * 2, -lw * 2, -lw * 2), px, True,
                                H_CENTRE | V_CENTRE, "text"):
                below = QRectF(margin, max(r.bottom() for r in self.node_rects) + NODE_GAP_Y * side,
                               w - 2 * margin, line * 1.2)
                placer.place("more", state.more_label, below, floor, True, LEFT | V_CENTRE, "text")
        self._paint_legend(painter, placer, legend, legend_area, line)

    # -- drawing -------------------------------------------------------------------------------------
    def _paint_network(self, painter: QPainter, across: int, side: float, lw: float) -> None:
        """A dashed spine under each row of nodes, every node dropping to it, the rows joined on the left."""
        pen = QPen(self.theme.color("muted"), 1.5 * lw, Qt.PenStyle.DashLine)
        painter.setPen(pen)
        rows: dict[int, list[QRectF]] = {}
        for index, rect in enumerate(self.node_rects):
            rows.setdefault(index // across, []).append(rect)
        spine_x = min(rect.left() for rect in self.node_rects) - 0.35 * side
        spines = []
        for rects in rows.values():
            y = rects[0].bottom() + 0.5 * NODE_GAP_Y * side
            spines.append(y)
            painter.drawLine(QPointF(spine_x, y), QPointF(rects[-1].center().x(), y))
            for rect in rects:
                painter.drawLine(QPointF(rect.center().x(), rect.bottom()), QPointF(rect.center().x(), y))
        if len(spines) > 1:
            painter.drawLine(QPointF(spine_x, spines[0]), QPointF(spine_x, spines[-1]))

    def _join_replicas(self, painter: QPainter, state: FleetPictureState, side: float, lw: float) -> None:
        """A replica larger than a node: its frames in neighbouring nodes of one row joined by a bar of the frame's
        colour, so its nodes read as one replica."""
        painter.setPen(QPen(self.theme.color("accent"), 2 * lw))       # between nodes: no GPU under it to cover
        for (a, b), (left, right) in zip(zip(state.nodes, state.nodes[1:]), zip(self.node_rects, self.node_rects[1:])):
            last = next((slot for slot in reversed(a.slots) if slot != FREE), FREE)
            if last == FREE or last not in b.slots or abs(left.top() - right.top()) > 0.5:
                continue
            y = left.top() + NODE_PAD * side + side / 2
            painter.drawLine(QPointF(left.right() - NODE_PAD * side * 0.6, y), QPointF(right.left() + NODE_PAD * side * 0.6, y))

    def _paint_node(self, painter: QPainter, slots: tuple[int, ...], rect: QRectF, columns: int, side: float,
                    lw: float) -> None:
        theme = self.theme
        painter.setPen(QPen(theme.color("muted"), lw))
        painter.setBrush(theme.color("surface"))
        painter.drawRoundedRect(rect, side * 0.2, side * 0.2)
        gap, pad = SLOT_GAP * side, NODE_PAD * side

        def slot_rect(index: int) -> QRectF:
            row, column = divmod(index, columns)
            return QRectF(rect.left() + pad + column * (side + gap), rect.top() + pad + row * (side + gap), side, side)

        rows = math.ceil(len(slots) / columns)
        bar_y = rect.top() + pad + rows * side + (rows - 1) * gap + gap
        bar = QRectF(rect.left() + pad, bar_y, rect.width() - 2 * pad, BAR * side)
        painter.fillRect(bar, theme.color("text"))          # the node's own link: solid
        compute = theme.color("compute")
        for index, replica in enumerate(slots):
            box = slot_rect(index)
            if replica == FREE:
                painter.setPen(QPen(theme.color("muted"), min(lw, max(1.0, side * 0.08)), Qt.PenStyle.DashLine))
                painter.setBrush(Qt.BrushStyle.NoBrush)
            else:
                painter.setPen(QPen(compute, min(lw, max(1.0, side * 0.08))))
                painter.setBrush(alpha(compute, 0.35))
            inset = min(lw, side * 0.08) / 2
            painter.drawRect(box.adjusted(inset, inset, -inset, -inset))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(theme.color("accent"), min(2 * lw, max(1.0, side * 0.1))))   # thick, never filling a GPU
        for row in range(rows):
            row_slots = slots[row * columns:(row + 1) * columns]
            for _, first, last in replica_runs(row_slots):
                a, b = slot_rect(row * columns + first), slot_rect(row * columns + last)
                frame = QRectF(a.topLeft(), b.bottomRight()).adjusted(-gap * 0.4, -gap * 0.4, gap * 0.4, gap * 0.4)
                painter.drawRoundedRect(frame, side * 0.12, side * 0.12)

    def _paint_legend(self, painter: QPainter, placer: LabelPlacer, legend: list[tuple[str, str, int]],
                      area: QRectF, line: float) -> None:
        theme, lw, floor = self.theme, self.theme.scaled_line_width, self.theme.floor_px
        sample_w = SAMPLE_EM * line
        y = area.top()
        for kind, text, rows in legend:
            box = QRectF(area.left() + sample_w + line * 0.5, y, area.width() - sample_w - line * 0.5, rows * line)
            y += rows * line + 0.15 * line
            fitted = placer.place("legend", text, box, floor, False, LEFT | V_CENTRE, "text")
            if fitted is None:
                continue
            mid = QPointF(area.left(), fitted.rect.top() + line / 2)
            sample = QRectF(mid.x(), mid.y() - line * 0.3, sample_w, line * 0.6)
            if kind == "bar":
                painter.fillRect(QRectF(sample.left(), mid.y() - line * 0.12, sample_w, line * 0.24), theme.color("text"))
            elif kind == "network":
                painter.setPen(QPen(theme.color("muted"), 1.5 * lw, Qt.PenStyle.DashLine))
                painter.drawLine(QPointF(sample.left(), mid.y()), QPointF(sample.right(), mid.y()))
            elif kind == "frame":
                painter.setPen(QPen(theme.color("accent"), 2 * lw))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRoundedRect(sample, line * 0.1, line * 0.1)
            else:
                painter.setPen(QPen(theme.color("muted"), lw, Qt.PenStyle.DashLine))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(QRectF(sample.left(), sample.top(), sample.height(), sample.height()))
