"""Where the memory bars' static parts and texts go (geometry only; ``widgets.memory_bars`` paints).

Two steps, so that a state changing every frame costs no layout work:

- ``frame_layout`` (here, once per size, theme and set of static texts): the
  rows (title, node labels, bars, names, link, network, footer), the columns
  (capacity label, bars, annotation column), the node frames
  (``widgets.memory_bars_nodes``) and the texts that do not move. Numbers in
  texts are measured as templates (each as wide as "88.8"), so a value that
  changes each frame never changes the layout.
- ``widgets.memory_bars_place.place`` (every state): segment rectangles on the
  scale, the capacity line, the overflow, and the annotation column's labels.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from PySide6.QtCore import QRectF, Qt

from widgets.memory_bars_nodes import (
    FRAME_PAD_SHARE, NODE_GAP_PITCHES, bar_offsets, frame_spans, node_gap, node_labels,
)
from widgets.memory_bars_state import MAX_BARS, GpuBar, MemoryBarsState, bar_nodes, one_bar_for_each
from widgets.text_fit import FittedText, TextMeasure
from widgets.theme import REFERENCE_FLOOR_PX

LABEL_SCALE = 1.2          # annotation text, times the floor
TITLE_SCALE = 1.4          # title, times the floor
OVER_SCALE = 1.3           # the overflow label: the scene's headline number
MARGIN_PX = 8.0
GAP_PX = 10.0              # between texts, and between a label and what it names
SWATCH_SHARE = 0.8         # a swatch's side, of the label's line height
SWATCH_TEXT_GAP_SHARE = 0.35  # between a swatch and its text, of the swatch's side (never touching at 4K)
BAR_GAP_SHARE = 0.3        # the gap between bars, of the pitch
MAX_BAR_WIDTH_SHARE = 0.18  # one bar is never wider than this share of the widget
LEADER_PX = 16.0           # room for the line from a segment to its label
MIN_BAR_WIDTH_PX = 6.0
COLUMN_MAX_SHARE = 0.6    # the annotation column takes at most this share of the width (the bar keeps the rest)
MIN_SEQUENCE_PX = 3.0      # a sequence's band of the KV segment is drawn only when at least this tall
_NUMBER = re.compile(r"\d[\d,.]*")
# engine.units writes three significant digits: no number it formats is wider than this one.
WIDEST_NUMBER = "88.8"

LEFT, RIGHT, CENTRE = Qt.AlignmentFlag.AlignLeft, Qt.AlignmentFlag.AlignRight, Qt.AlignmentFlag.AlignCenter


def template(text: str) -> str:
    """``text`` with every number as wide as the widest three-digit one: a value changing every frame
    ("0.49 GB", "7.71 GB", "141 GB") never changes the layout."""
    return _NUMBER.sub(WIDEST_NUMBER, text)


@dataclass
class FrameLayout:
    """What depends only on the size, the theme's floor and the static texts."""
    width: float
    height: float
    label_px: int
    over_px: int
    floor_px: int
    plot: QRectF                              # the bars' area; its top stands for the scale
    bar_lefts: tuple[float, ...]
    bar_width: float
    column: QRectF                            # the annotation column beside the last bar
    left_column: QRectF                       # the capacity label's column
    texts: dict[str, FittedText] = field(default_factory=dict)   # title, footer, name.N, link, network, node.N, ...
    swatches: dict[str, QRectF] = field(default_factory=dict)    # "link", "network": the line beside its label
    node_frames: tuple[QRectF, ...] = ()      # one per node (none without nodes)
    node_repeated: tuple[bool, ...] = ()      # per node: drawn as a stack of frames
    bar_nodes: tuple[int, ...] = ()           # each bar's node (``widgets.memory_bars_state.bar_nodes``)


def annotation_texts(bar: GpuBar) -> list[tuple[str, str, bool]]:
    """(key, text, bold) of every label the column may show for ``bar``."""
    items = [(s.key, s.label, False) for s in bar.segments if s.label]
    if bar.free_label:
        items.append(("free", bar.free_label, False))
    if bar.over_label:
        items.append(("over", bar.over_label, True))
    return items


def static_key(state: MemoryBarsState) -> tuple:
    """What ``frame_layout`` depends on in a state: texts as templates, the number of bars."""
    last = state.bars[-1] if state.bars else None
    column = tuple((k, template(t), b) for k, t, b in annotation_texts(last)) if last else ()
    capacity = template(state.bars[0].capacity_label) if state.bars else ""
    return (len(state.bars), tuple(b.name for b in state.bars), state.title, state.footer, state.aligned_rows,
            state.link_label if len(state.bars) > 1 else "", capacity, column,
            state.labels.get("sequences", "") if state.kv_sequences > 1 else "", state.nodes, state.network_label,
            state.each_label)


def readable_layout(measure: TextMeasure, width: float, height: float, floor: int,
                    state: MemoryBarsState) -> tuple[FrameLayout, bool]:
    """``frame_layout`` of ``state``, or, where its bars by node would be narrower than half the floor (slivers,
    not bars: a card in a summary) and the state names one bar for each GPU, of ``one_bar_for_each(state)``;
    and whether it is that one bar. Bars carry no text inside, so half the floor still reads as a bar: 16 GPUs
    in two nodes keep their frames in a 1024x768 window beside the side panel."""
    frame = frame_layout(measure, width, height, floor, state)
    if state.nodes and state.each_label and frame.bar_width < max(MIN_BAR_WIDTH_PX, floor / 2):
        return frame_layout(measure, width, height, floor, one_bar_for_each(state)), True
    return frame, False


def frame_layout(measure: TextMeasure, width: float, height: float, floor: int,
                 state: MemoryBarsState) -> FrameLayout:
    """Where everything static goes; ``floor``: the theme's ``floor_px``."""
    label_px = max(floor, round(floor * LABEL_SCALE))
    over_px = max(floor, round(floor * OVER_SCALE))
    title_px = max(floor, round(floor * TITLE_SCALE))
    bars = state.bars[:MAX_BARS]
    n = max(1, len(bars))
    inner = QRectF(MARGIN_PX, MARGIN_PX, max(1.0, width - 2 * MARGIN_PX), max(1.0, height - 2 * MARGIN_PX))
    texts: dict[str, FittedText] = {}
    top, bottom = inner.top(), inner.bottom()
    line = measure.line_height(label_px, False)

    title = measure.fit(state.title, QRectF(inner.left(), top, inner.width(), 2 * measure.line_height(
        title_px, True)), title_px, True, floor_px=floor)
    if title is not None:
        texts["title"] = title
        top = title.rect.bottom() + GAP_PX
    elif state.aligned_rows:
        top += measure.line_height(title_px, True) + GAP_PX
    footer = measure.fit(state.footer, QRectF(inner.left(), bottom - 2 * line, inner.width(), 2 * line),
                         label_px, False, CENTRE | Qt.AlignmentFlag.AlignBottom, floor_px=floor)
    if footer is not None and bottom - footer.rect.height() - top > 4 * line:
        texts["footer"] = footer
        bottom = footer.rect.top() - GAP_PX
    if state.aligned_rows:                      # two footer lines, whatever this footer needs
        bottom = min(bottom, inner.bottom() - 2 * line - GAP_PX)

    # Columns: capacity label | bars | annotation column, centred as a group. A label keeps ``label_gap``
    # from the line it names, more on a large screen (the floor grows with it): it never seems to touch it.
    label_gap = GAP_PX * max(1.0, floor / REFERENCE_FLOOR_PX)
    capacity_text = template(bars[0].capacity_label) if bars else ""
    left_w = measure.width(capacity_text, label_px, False) + label_gap if capacity_text else 0.0
    # A narrow widget (a window's side strip): the capacity label goes above the bar, in a row of its own,
    # and the annotation column may take all but a thin bar, so the labels stay at the floor, not dropped.
    narrow = len(bars) == 1 and measure.width(capacity_text, floor, False) + GAP_PX > 0.25 * inner.width()
    if narrow:
        left_w = 0.0
        top += line
    left_w = min(left_w, 0.25 * inner.width())
    swatch = SWATCH_SHARE * line
    column_w = 0.0
    if bars:
        for _key, text, bold in annotation_texts(bars[-1]):
            px = over_px if bold else label_px
            column_w = max(column_w, measure.width(template(text), px, bold))
    column_w += swatch + max(GAP_PX / 2, SWATCH_TEXT_GAP_SHARE * swatch) + GAP_PX / 2 + LEADER_PX if column_w else 0.0
    column_w = min(column_w, max(COLUMN_MAX_SHARE * inner.width(), inner.width() - 2 * floor) if narrow
                   else COLUMN_MAX_SHARE * inner.width())
    owners = bar_nodes(state)
    nodes = max(owners) + 1 if owners else 1
    bars_w = max(n * MIN_BAR_WIDTH_PX, inner.width() - left_w - column_w)
    pitch = bars_w / (n + (nodes - 1) * NODE_GAP_PITCHES)
    name_w = max((measure.width(bar.name, floor, False) for bar in bars), default=0.0)
    bar_w = min(pitch * (1 - BAR_GAP_SHARE) if n > 1 else pitch, max(MAX_BAR_WIDTH_SHARE * width, name_w))
    gap = pitch - bar_w if n > 1 else 0.0
    if n > 1:
        gap = min(gap, bar_w * 0.6)     # bars stay a group, not spread over the whole width
    between_nodes = node_gap(gap, pitch, line)
    offsets = bar_offsets(owners or (0,) * n, bar_w, gap, between_nodes)
    group_w = left_w + offsets[-1] + bar_w + column_w
    x0 = inner.left() + max(0.0, (inner.width() - group_w) / 2)
    bar_lefts = tuple(x0 + left_w + x for x in offsets)
    pad = min(FRAME_PAD_SHARE * label_gap, between_nodes / 4) if owners else 0.0     # frames never touch
    spans = frame_spans(owners, bar_lefts, bar_w, pad) if owners else ()
    node_top = top
    if owners:                          # the node labels' row, inside the frames' tops
        node_texts, row_h = node_labels(measure, state.nodes, spans, top + pad / 2, label_px, floor, pad)
        texts.update(node_texts)
        top += row_h + pad / 2 if row_h else pad

    # Rows under the bars: names, then the link, then the network between nodes, then the sequences' note.
    rows_bottom = bottom
    swatches: dict[str, QRectF] = {}
    rows = (("network", state.network_label if owners else ""), ("link", state.link_label))
    for key, label in rows:             # bottom up
        if len(bars) < 2 or not label:
            continue
        swatch_w = 2.5 * swatch
        box = QRectF(inner.left() + swatch_w + label_gap, rows_bottom - 2 * line, inner.width() - swatch_w - label_gap,
                     2 * line)
        fitted = measure.fit(label, box, label_px, False, CENTRE | Qt.AlignmentFlag.AlignBottom, floor_px=floor)
        if fitted is not None:
            group_centre = (bar_lefts[0] + bar_lefts[-1] + bar_w) / 2
            fitted.rect.moveLeft(min(max(inner.left() + swatch_w + label_gap, group_centre - fitted.rect.width() / 2
                                         + (swatch_w + label_gap) / 2), inner.right() - fitted.rect.width()))
            texts[key] = fitted
            swatches[key] = QRectF(fitted.rect.left() - label_gap - swatch_w, fitted.rect.center().y() - swatch / 2,
                                   swatch_w, swatch)
            rows_bottom = fitted.rect.top() - GAP_PX / 2
    if state.aligned_rows:                      # a link row, linked or not
        rows_bottom = min(rows_bottom, bottom - line - GAP_PX / 2)
    if state.kv_sequences > 1 and state.labels.get("sequences"):
        box = QRectF(inner.left(), rows_bottom - 2 * line, inner.width(), 2 * line)
        note = measure.fit(state.labels["sequences"], box, label_px, False, CENTRE | Qt.AlignmentFlag.AlignBottom,
                           floor_px=floor)
        if note is not None:
            texts["sequences"] = note
            rows_bottom = note.rect.top() - GAP_PX / 2
    names_h = 0.0
    for i, bar in enumerate(bars):
        box = QRectF(bar_lefts[i] - gap / 2, rows_bottom - 2 * line, bar_w + gap, 2 * line)
        centre_x = None
        if n == 1:      # one bar ("each of 2 GPUs"): its name may use the whole width, centred under the bar
            box = QRectF(inner.left(), rows_bottom - 2 * line, inner.width(), 2 * line)
            centre_x = bar_lefts[i] + bar_w / 2
        one_line = QRectF(box.left(), box.top(), box.width(), line)
        top_centre = CENTRE | Qt.AlignmentFlag.AlignTop
        name = measure.fit(bar.name, one_line, label_px, False, top_centre, floor_px=floor, centre_x=centre_x) \
            or measure.fit(bar.short_name, one_line, label_px, False, top_centre, floor_px=floor) \
            or measure.fit(bar.name, box, label_px, False, top_centre, floor_px=floor, centre_x=centre_x)
        if name is not None:
            texts[f"name.{i}"] = name
            names_h = max(names_h, name.rect.height())
    if state.aligned_rows:
        names_h = max(names_h, line)
    plot_bottom = (rows_bottom - names_h - GAP_PX / 2 if names_h else rows_bottom) - pad
    for i in range(len(bars)):
        if f"name.{i}" in texts:
            texts[f"name.{i}"].rect.moveTop(plot_bottom + pad + GAP_PX / 2)     # below a node's frame
    plot = QRectF(bar_lefts[0], top + line / 2, offsets[-1] + bar_w, max(1.0, plot_bottom - top - line / 2))
    # The column may reach half a line above the scale's top (a label centred on the top segment), never
    # below the bars' bottom, where the names and the link are.
    column = QRectF(plot.right() + LEADER_PX, plot.top() - line / 2, column_w - LEADER_PX, plot.height() + line / 2)
    left_column = QRectF(bar_lefts[0] - left_w, plot.top(), max(0.0, left_w - label_gap), plot.height())
    frames = tuple(QRectF(left, node_top, right - left, plot.bottom() + pad - node_top) for left, right in spans)
    return FrameLayout(width, height, label_px, over_px, floor, plot, bar_lefts, bar_w, column, left_column,
                       texts, swatches, frames, tuple(node.repeated for node in state.nodes[:len(frames)]), owners)
