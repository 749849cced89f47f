"""Where the memory bars' node frames go (geometry only): bars grouped by node, a wider gap between nodes.

``widgets.memory_bars_layout.frame_layout`` asks these for a state with
``nodes`` (``widgets.memory_bars_state.NodeGroup``): the bars' left edges with
the network's gap between nodes, each frame's horizontal span, and the node
labels fitted at the frames' tops (one line preferred to two at each size,
then the short label; never below the floor, dropped when nothing fits).
"""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt

from widgets.memory_bars_state import NodeGroup
from widgets.text_fit import FittedText, TextMeasure

# The gap between two nodes, in bar pitches: room for the network's dashed link and two frame edges.
NODE_GAP_PITCHES = 1.5
NODE_GAP_LINES = 2.5       # ... and at least this many label lines wide, so the link reads as a link
FRAME_PAD_SHARE = 0.6      # a frame's margin around its bars, of the gap kept between a label and its line
REPEAT_OFFSET_SHARE = 0.5  # a repeated node's frames behind it, offset by this share of the frame's margin


def node_gap(gap: float, pitch: float, line: float) -> float:
    """The gap between two nodes' bars: wider than between bars, within the pitches kept for it."""
    return min(max(2 * gap, NODE_GAP_LINES * line), gap + NODE_GAP_PITCHES * pitch)


def bar_offsets(owners: tuple[int, ...], bar_w: float, gap: float, between_nodes: float) -> tuple[float, ...]:
    """Each bar's left edge from the first's: ``gap`` between bars of one node, ``between_nodes`` between nodes."""
    offsets, x = [], 0.0
    for i, owner in enumerate(owners):
        if i:
            x += bar_w + (gap if owner == owners[i - 1] else between_nodes)
        offsets.append(x)
    return tuple(offsets)


def frame_spans(owners: tuple[int, ...], bar_lefts: tuple[float, ...], bar_w: float,
                pad: float) -> tuple[tuple[float, float], ...]:
    """(left, right) of each node's frame: its bars with ``pad`` either side."""
    spans = []
    for node in sorted(set(owners)):
        lefts = [left for left, owner in zip(bar_lefts, owners) if owner == node]
        spans.append((lefts[0] - pad, lefts[-1] + bar_w + pad))
    return tuple(spans)


def node_labels(measure: TextMeasure, nodes: tuple[NodeGroup, ...], spans, top: float, label_px: int,
                floor: int, pad: float) -> tuple[dict[str, FittedText], float]:
    """The node labels (``node.N``) at ``top`` inside their frames (``pad`` from their sides), and the height
    of their row (0: none fits)."""
    line = measure.line_height(label_px, False)
    texts, height = {}, 0.0
    centre = Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop
    for n, (node, (left, right)) in enumerate(zip(nodes, spans)):
        left, width = left + pad, max(0.0, right - left - 2 * pad)
        one_line, two_lines = QRectF(left, top, width, line), QRectF(left, top, width, 2 * line)
        fitted = measure.fit(node.label, two_lines, label_px, False, centre, floor_px=floor) \
            or measure.fit(node.short_label, one_line, label_px, False, centre, floor_px=floor)
        if fitted is not None:
            texts[f"node.{n}"] = fitted
            height = max(height, fitted.rect.height())
    return texts, height
