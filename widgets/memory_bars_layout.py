"""Where the memory bars' parts and texts go (geometry only; ``widgets.memory_bars`` paints).

Two steps, so that a state changing every frame costs no layout work:

- ``frame_layout`` (once per size, theme and set of static texts): the rows
  (title, bars, names, link, footer), the columns (capacity label, bars,
  annotation column) and the texts that do not move. Numbers in texts are
  measured as templates (each as wide as "88.8"), so a value that changes each frame
  never changes the layout.
- ``place`` (every state): segment rectangles on the scale, the capacity
  line, the overflow, and the annotation column's labels, pushed apart so that
  they never overlap and dropped in ``LABEL_PRIORITY`` order when they do not fit.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt

from widgets.memory_bars_state import (
    LABEL_PRIORITY, MAX_BARS, MAX_DRAWN_SEQUENCES, GpuBar, MemoryBarsState, drawn_scale_bytes, segment_spans,
    used_bytes,
)
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
    texts: dict[str, FittedText] = field(default_factory=dict)   # title, footer, name.N, link, sequences
    link_swatch: QRectF | None = None


@dataclass
class Placed:
    """Everything one paint draws, in widget pixels."""
    scale_bytes: float
    segments: list[tuple[int, str, QRectF]]          # (bar, key, rect), bottom up
    free: list[QRectF]                               # per bar (may be empty)
    overflow: list[QRectF]                           # per bar (may be empty)
    capacity_lines: list[tuple[float, float, float]]  # (y, x0, x1)
    texts: dict[str, FittedText]                     # key -> text, all drawn
    roles: dict[str, str]                            # key -> colour role
    swatches: dict[str, tuple[str, QRectF]]          # text key -> (segment kind, swatch rect)
    leaders: list[tuple[QPointF, QPointF]]
    sequence_lines: list[tuple[float, float, float]]  # (y, x0, x1) inside KV segments


def _annotation_texts(bar: GpuBar) -> list[tuple[str, str, bool]]:
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
    column = tuple((k, template(t), b) for k, t, b in _annotation_texts(last)) if last else ()
    capacity = template(state.bars[0].capacity_label) if state.bars else ""
    return (len(state.bars), tuple(b.name for b in state.bars), state.title, state.footer, state.aligned_rows,
            state.link_label if len(state.bars) > 1 else "", capacity, column,
            state.labels.get("sequences", "") if state.kv_sequences > 1 else "")


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
        for _key, text, bold in _annotation_texts(bars[-1]):
            px = over_px if bold else label_px
            column_w = max(column_w, measure.width(template(text), px, bold))
    column_w += swatch + max(GAP_PX / 2, SWATCH_TEXT_GAP_SHARE * swatch) + GAP_PX / 2 + LEADER_PX if column_w else 0.0
    column_w = min(column_w, max(COLUMN_MAX_SHARE * inner.width(), inner.width() - 2 * floor) if narrow
                   else COLUMN_MAX_SHARE * inner.width())
    bars_w = max(n * MIN_BAR_WIDTH_PX, inner.width() - left_w - column_w)
    pitch = bars_w / n
    name_w = max((measure.width(bar.name, floor, False) for bar in bars), default=0.0)
    bar_w = min(pitch * (1 - BAR_GAP_SHARE) if n > 1 else pitch, max(MAX_BAR_WIDTH_SHARE * width, name_w))
    gap = pitch - bar_w if n > 1 else 0.0
    if n > 1:
        gap = min(gap, bar_w * 0.6)     # bars stay a group, not spread over the whole width
    group_w = left_w + n * bar_w + (n - 1) * gap + column_w
    x0 = inner.left() + max(0.0, (inner.width() - group_w) / 2)
    bar_lefts = tuple(x0 + left_w + i * (bar_w + gap) for i in range(n))

    # Rows under the bars: names, then the link, then the sequences' note.
    rows_bottom = bottom
    link_swatch = None
    if len(bars) > 1 and state.link_label:
        swatch_w = 2.5 * swatch
        box = QRectF(inner.left() + swatch_w + label_gap, rows_bottom - 2 * line,
                     inner.width() - swatch_w - label_gap,
                     2 * line)
        link = measure.fit(state.link_label, box, label_px, False, CENTRE | Qt.AlignmentFlag.AlignBottom,
                           floor_px=floor)
        if link is not None:
            group_centre = (bar_lefts[0] + bar_lefts[-1] + bar_w) / 2
            link.rect.moveLeft(min(max(inner.left() + swatch_w + label_gap, group_centre - link.rect.width() / 2
                                       + (swatch_w + label_gap) / 2), inner.right() - link.rect.width()))
            texts["link"] = link
            link_swatch = QRectF(link.rect.left() - label_gap - swatch_w, link.rect.center().y() - swatch / 2,
                                 swatch_w, swatch)
            rows_bottom = link.rect.top() - GAP_PX / 2
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
    plot_bottom = rows_bottom - names_h - GAP_PX / 2 if names_h else rows_bottom
    for i in range(len(bars)):
        if f"name.{i}" in texts:
            texts[f"name.{i}"].rect.moveTop(plot_bottom + GAP_PX / 2)
    plot = QRectF(bar_lefts[0], top + line / 2, n * bar_w + (n - 1) * gap, max(1.0, plot_bottom - top - line / 2))
    # The column may reach half a line above the scale's top (a label centred on the top segment), never
    # below the bars' bottom, where the names and the link are.
    column = QRectF(plot.right() + LEADER_PX, plot.top() - line / 2, column_w - LEADER_PX, plot.height() + line / 2)
    left_column = QRectF(bar_lefts[0] - left_w, plot.top(), max(0.0, left_w - label_gap), plot.height())
    return FrameLayout(width, height, label_px, over_px, floor, plot, bar_lefts, bar_w, column, left_column,
                       texts, link_swatch)


def _relax(items: list[tuple[str, float, FittedText]], top: float, bottom: float) -> dict[str, QRectF] | None:
    """Rectangles for (key, wanted centre y, text), in order of y, none overlapping and all in [top, bottom];
    None when they cannot all fit."""
    heights = [fitted.rect.height() for _, _, fitted in items]
    if sum(heights) + GAP_PX / 2 * (len(items) - 1) > bottom - top:
        return None
    tops: list[float] = []
    for (key, centre, fitted), h in zip(items, heights):
        want = min(max(centre - h / 2, top), bottom - h)
        tops.append(want if not tops else max(want, tops[-1] + heights[len(tops) - 1] + GAP_PX / 2))
    for i in range(len(tops) - 1, -1, -1):          # push back up from the bottom
        limit = bottom if i == len(tops) - 1 else tops[i + 1] - GAP_PX / 2
        tops[i] = min(tops[i], limit - heights[i])
    if tops and tops[0] < top - 0.01:
        return None
    return {key: QRectF(fitted.rect.left(), t, fitted.rect.width(), fitted.rect.height())
            for (key, _, fitted), t in zip(items, tops)}


def place(measure: TextMeasure, frame: FrameLayout, state: MemoryBarsState) -> Placed:
    """The picture of ``state`` in ``frame``: shapes on the scale and the texts that fit."""
    bars = state.bars[:MAX_BARS]
    scale = drawn_scale_bytes(state)
    plot = frame.plot

    def y(n_bytes: float) -> float:
        return plot.bottom() - max(0.0, n_bytes) / scale * plot.height()

    placed = Placed(scale, [], [], [], [], dict(frame.texts), {}, {}, [], [])
    for key in placed.texts:
        placed.roles[key] = "text"
    if "footer" in placed.texts:
        placed.roles["footer"] = state.footer_role
    if "link" in placed.texts:
        placed.swatches["link"] = ("link", frame.link_swatch)
    wanted_y: dict[str, float] = {}
    for i, bar in enumerate(bars):
        left, width = frame.bar_lefts[i], frame.bar_width
        for key, low, high in segment_spans(bar):
            rect = QRectF(left, y(high), width, y(low) - y(high))
            placed.segments.append((i, key, rect))
            if i == len(bars) - 1:
                wanted_y[key] = rect.center().y()
            if key == "kv" and 1 < state.kv_sequences <= MAX_DRAWN_SEQUENCES \
                    and rect.height() / state.kv_sequences >= MIN_SEQUENCE_PX:
                step = (high - low) / state.kv_sequences
                placed.sequence_lines += [(y(low + k * step), left, left + width)
                                          for k in range(1, state.kv_sequences)]
        used, cap_y = used_bytes(bar), y(bar.capacity_bytes)
        placed.capacity_lines.append((cap_y, left - GAP_PX / 2, left + width + GAP_PX / 2))
        placed.free.append(QRectF(left, cap_y, width, y(used) - cap_y) if used < bar.capacity_bytes else QRectF())
        over = QRectF(left, y(used), width, cap_y - y(used)) if used > bar.capacity_bytes else QRectF()
        placed.overflow.append(over)
        if i == len(bars) - 1:
            wanted_y["free"] = placed.free[-1].center().y()
            wanted_y["over"] = over.center().y()
    _place_capacity(measure, frame, bars, placed)
    if bars:
        _place_column(measure, frame, bars[-1], wanted_y, placed)
        _place_values(measure, frame, bars, placed)
    return placed


def _place_capacity(measure: TextMeasure, frame: FrameLayout, bars, placed: Placed) -> None:
    if not bars or not bars[0].capacity_label:
        return
    cap_y = placed.capacity_lines[0][0]
    line = measure.line_height(frame.label_px, False)
    if frame.left_column.width() <= 0:          # a narrow widget: above the capacity line, ending at the column
        box = QRectF(MARGIN_PX, cap_y - line - GAP_PX / 4, max(0.0, frame.column.left() - MARGIN_PX), line)
        fitted = measure.fit(bars[0].capacity_label, box, frame.label_px, False, RIGHT, floor_px=frame.floor_px)
        if fitted is not None:
            placed.texts["capacity"] = fitted
            placed.roles["capacity"] = "text"
        return
    box = QRectF(frame.left_column.left(), cap_y - line, frame.left_column.width(), 2 * line)
    fitted = measure.fit(bars[0].capacity_label, box, frame.label_px, False, RIGHT, floor_px=frame.floor_px)
    if fitted is not None:
        # Beside its line, but never below the bars' bottom, where the names and the link are.
        plot = frame.plot
        fitted.rect.moveTop(min(max(cap_y - fitted.rect.height() / 2, plot.top() - fitted.rect.height() / 2),
                                plot.bottom() - fitted.rect.height()))
        placed.texts["capacity"] = fitted
        placed.roles["capacity"] = "text"


def _place_column(measure: TextMeasure, frame: FrameLayout, bar: GpuBar, wanted_y: dict[str, float],
                  placed: Placed) -> None:
    """The last bar's labels beside it, each at its segment's height; dropped from the least important."""
    column = frame.column
    if column.width() <= 0:
        return
    line = measure.line_height(frame.label_px, False)
    swatch_side = SWATCH_SHARE * line
    text_box_left = column.left() + swatch_side + max(GAP_PX / 2, SWATCH_TEXT_GAP_SHARE * swatch_side)
    candidates = []
    for key, text, bold in _annotation_texts(bar):
        if key == "over" and placed.overflow[-1].isEmpty() or key == "free" and placed.free[-1].isEmpty():
            continue
        px = frame.over_px if bold else frame.label_px
        lines = max(2, text.count("\n") + 1)          # a label written on three lines keeps all three
        box = QRectF(text_box_left, 0, column.right() - text_box_left, lines * measure.line_height(px, bold))
        fitted = measure.fit(text, box, px, bold, LEFT | Qt.AlignmentFlag.AlignTop, floor_px=frame.floor_px)
        if fitted is not None and key in wanted_y:
            candidates.append((key, wanted_y[key], fitted))
    rank = {key: n for n, key in enumerate(LABEL_PRIORITY)}
    while candidates:
        ordered = sorted(candidates, key=lambda item: item[1])
        rects = _relax(ordered, column.top(), column.bottom())
        if rects is not None:
            break
        candidates.remove(max(candidates, key=lambda item: rank.get(item[0], len(rank))))
    else:
        return
    bar_right = frame.bar_lefts[-1] + frame.bar_width
    for key, centre, fitted in candidates:
        rect = rects[key]
        text_key = f"column.{key}"
        placed.texts[text_key] = FittedText(fitted.lines, fitted.px, fitted.bold, rect, fitted.align,
                                            fitted.line_height)
        placed.roles[text_key] = "warning" if key == "over" else "text"
        first_line_y = rect.top() + fitted.line_height / 2
        placed.swatches[text_key] = (key, QRectF(column.left(), first_line_y - swatch_side / 2,
                                                 swatch_side, swatch_side))
        placed.leaders.append((QPointF(bar_right + 2, centre), QPointF(column.left() - 2, first_line_y)))


def _place_values(measure: TextMeasure, frame: FrameLayout, bars, placed: Placed) -> None:
    """A value inside another bar's segment, where it differs from the last bar's and fits."""
    last_values = {s.key: s.value for s in bars[-1].segments}
    for i, bar in enumerate(bars[:-1]):
        for segment in bar.segments:
            if not segment.value or segment.value == last_values.get(segment.key):
                continue
            rect = next((r for b, k, r in placed.segments if b == i and k == segment.key), None)
            if rect is None:
                continue
            fitted = measure.fit(segment.value, rect.adjusted(2, 2, -2, -2), frame.label_px, False,
                                 floor_px=frame.floor_px)
            if fitted is not None:
                placed.texts[f"value.{i}.{segment.key}"] = fitted
                placed.roles[f"value.{i}.{segment.key}"] = "text"
