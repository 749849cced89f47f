"""Where the memory bars' moving parts go for one state (geometry only; ``widgets.memory_bars`` paints).

``place`` runs for every state (``widgets.memory_bars_layout.frame_layout`` has
laid out what does not move): segment rectangles on the scale, the capacity
line, the overflow, and the annotation column's labels, pushed apart so that
they never overlap and dropped in ``LABEL_PRIORITY`` order when they do not fit.
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt

from widgets.memory_bars_layout import (
    GAP_PX, LEFT, MARGIN_PX, MIN_SEQUENCE_PX, RIGHT, SWATCH_SHARE, SWATCH_TEXT_GAP_SHARE, FrameLayout,
    annotation_texts,
)
from widgets.memory_bars_state import (
    LABEL_PRIORITY, MAX_BARS, MAX_DRAWN_SEQUENCES, GpuBar, MemoryBarsState, drawn_scale_bytes, segment_spans,
    used_bytes,
)
from widgets.text_fit import FittedText, TextMeasure


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


PIXEL_STEP = 0.5           # what a frame draws, to the half pixel: a change smaller than that shows nothing


def _px(rect: QRectF) -> tuple[float, ...]:
    return tuple(round(v / PIXEL_STEP) for v in (rect.x(), rect.y(), rect.width(), rect.height()))


def drawn_key(placed: Placed) -> tuple:
    """What ``placed`` puts on the screen, to the half pixel: two frames with the same key look the same, so a
    transition whose step moves nothing visibly (a KV cache of 3 MB growing on a scale of 80 GB) repaints nothing."""
    return (tuple((bar, key, _px(rect)) for bar, key, rect in placed.segments),
            tuple(_px(r) for r in placed.free), tuple(_px(r) for r in placed.overflow),
            tuple(tuple(round(v / PIXEL_STEP) for v in line) for line in placed.capacity_lines + placed.sequence_lines),
            tuple((key, text.lines, text.px, _px(text.rect)) for key, text in placed.texts.items()),
            tuple((key, kind, _px(rect)) for key, (kind, rect) in placed.swatches.items()),
            tuple(round(v / PIXEL_STEP) for a, b in placed.leaders for v in (a.x(), a.y(), b.x(), b.y())),
            tuple(placed.roles.items()))


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
    for key, rect in frame.swatches.items():       # the link's and the network's lines beside their labels
        placed.swatches[key] = (key, rect)
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
    for key, text, bold in annotation_texts(bar):
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
