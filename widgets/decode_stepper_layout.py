"""Where the decode stepper draws everything, for one state and one size (computed once, not per frame).

Sizes: token text as large as the context allows, from ``TOKEN_PX_SHARE`` of
the height down to the theme's text floor, never below it; when the context
does not fit at the floor, its first tiles are left out behind a "…" tile
(the newest tokens always stay). Labels are fitted at or above the floor, in
their own places, so none can push another out: one that does not fit there
is drawn in its short form (``memory_short``, ``belt_short``) or left out;
counters are left out from the last (the KV cache's, which its bar also shows).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QRectF, Qt

from widgets.decode_stepper_state import DecodeStepperState, TokenTile
from widgets.text_fit import FittedText, TextMeasure
from widgets.token_view_state import SPACE_MARK

TOKEN_PX_SHARE = 0.065        # of the widget's height: the largest token text
LABEL_PX_SHARE = 0.034        # of the widget's height: labels
LABEL_PX_FACTOR = 1.5         # labels at most this much above the floor: the tokens are the picture
ELLIPSIS = "…"
ALIGN_CENTER = Qt.AlignmentFlag.AlignCenter
ALIGN_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter


@dataclass
class PartBox:
    rect: QRectF                      # the part's own box (dashed for bytes of a cut character)
    text: FittedText
    partial: bool
    sub: FittedText | None = None     # the cut character, beneath


@dataclass
class TileBox:
    index: int                        # in state.tiles; -1: the "…" tile
    rect: QRectF
    parts: list[PartBox]


@dataclass
class Layout:
    px: int = 0
    tiles: list[TileBox] = field(default_factory=list)
    labels: dict[str, FittedText] = field(default_factory=dict)
    counters: list[tuple[str, QRectF, FittedText]] = field(default_factory=list)
    warehouse: QRectF = field(default_factory=QRectF)
    belt: QRectF = field(default_factory=QRectF)
    model: QRectF = field(default_factory=QRectF)
    output: QRectF = field(default_factory=QRectF)
    context: QRectF = field(default_factory=QRectF)
    input_x: float = 0.0
    rows: list[dict] = field(default_factory=list)       # compare: per row its boxes and texts

    def tile_rect(self, index: int) -> QRectF | None:
        return next((tile.rect for tile in self.tiles if tile.index == index), None)


def _label_px(height: float, floor: int) -> int:
    """Labels grow with the picture, up to ``LABEL_PX_FACTOR`` x the floor: the tokens stay the largest text."""
    return max(floor, int(min(height * LABEL_PX_SHARE, floor * LABEL_PX_FACTOR)))


def shown_text(text: str) -> str:
    return text.replace(" ", SPACE_MARK)


class Tiler:
    """Token tiles at one text size: their widths and height, and rows that wrap in a width."""

    def __init__(self, measure: TextMeasure, px: int, sub_px: int, with_sub: bool):
        self.measure, self.px, self.sub_px, self.with_sub = measure, px, sub_px, with_sub
        self.pad = max(3.0, px * 0.22)
        self.gap = max(4.0, px * 0.3)
        self.main_h = measure.line_height(px, False)
        self.sub_h = measure.line_height(sub_px, False) if with_sub else 0.0
        self.height = self.main_h + self.sub_h + 2 * self.pad

    def part_width(self, text: str, partial: bool, part_of: str) -> float:
        wide = self.measure.width(text, self.px, not partial)
        if partial and self.with_sub:
            wide = max(wide, self.measure.width(part_of, self.sub_px, False))
        return wide + (self.pad if partial else 0.0)

    def width(self, tile: TokenTile | None) -> float:
        if tile is None:
            return self.measure.width(ELLIPSIS, self.px, False) + 2 * self.pad
        return sum(self.part_width(p.text if p.partial else shown_text(p.text), p.partial, p.part_of)
                   for p in tile.parts) \
            + self.pad * (len(tile.parts) + 1)

    def flow(self, tiles: list[tuple[int, TokenTile | None]], box: QRectF) -> list[tuple[int, QRectF]] | None:
        """Tiles placed left to right, wrapping; None when they do not fit in ``box``."""
        placed, x, y = [], box.left(), box.top()
        for index, tile in tiles:
            wide = self.width(tile)
            if wide > box.width():
                return None
            if x + wide > box.right() + 0.01:
                x, y = box.left(), y + self.height + self.gap
            if y + self.height > box.bottom() + 0.01:
                return None
            placed.append((index, QRectF(x, y, wide, self.height)))
            x += wide + self.gap
        return placed

    def boxes(self, tiles: dict[int, TokenTile | None], placed: list[tuple[int, QRectF]]) -> list[TileBox]:
        out = []
        for index, rect in placed:
            tile = tiles[index]
            if tile is None:
                text = FittedText((ELLIPSIS,), self.px, False, QRectF(rect), ALIGN_CENTER, self.main_h)
                out.append(TileBox(-1, rect, [PartBox(QRectF(rect), text, False)]))
                continue
            parts, x = [], rect.left() + self.pad
            for part in tile.parts:
                text = part.text if part.partial else shown_text(part.text)
                wide = self.part_width(text, part.partial, part.part_of)
                box = QRectF(x, rect.top() + self.pad * 0.5, wide, self.main_h + self.pad)
                fitted = FittedText((text,), self.px, not part.partial and tile.role != "prompt",
                                    QRectF(x, rect.top() + self.pad, wide, self.main_h), ALIGN_CENTER, self.main_h)
                sub = None
                if part.partial and self.with_sub and part.part_of:
                    sub = FittedText((part.part_of,), self.sub_px, False,
                                     QRectF(x, rect.top() + self.pad + self.main_h, wide, self.sub_h),
                                     ALIGN_CENTER, self.sub_h)
                parts.append(PartBox(box, fitted, part.partial, sub))
                x += wide + self.pad
            out.append(TileBox(index, rect, parts))
        return out


def fit_tiles(measure: TextMeasure, tiles: tuple[TokenTile, ...], box: QRectF, px_max: int, floor: int,
              keep: int) -> tuple[int, list[TileBox]]:
    """The largest size at which the tiles fit ``box``; at the floor, the first ones left out behind "…"
    (never ``keep``, the newest token, nor anything after it)."""
    with_sub = any(part.partial and part.part_of for tile in tiles for part in tile.parts)
    indexed = dict(enumerate(tiles))
    px = max(floor, px_max)
    while True:
        tiler = Tiler(measure, px, floor, with_sub)
        placed = tiler.flow(list(indexed.items()), box)
        if placed is not None:
            return px, tiler.boxes(indexed, placed)
        if px <= floor:
            break
        px = max(floor, int(px * 0.9))
    tiler = Tiler(measure, floor, floor, with_sub)
    last_droppable = min(keep if keep >= 0 else len(tiles), len(tiles) - 1)
    for dropped in range(1, last_droppable + 1):
        shown = {-1: None, **{n: tiles[n] for n in range(dropped, len(tiles))}}
        placed = tiler.flow(list(shown.items()), box)
        if placed is not None:
            return floor, tiler.boxes(shown, placed)
    return floor, []


def _start(measure: TextMeasure, state: DecodeStepperState, width: float, height: float,
           floor: int) -> tuple[Layout, float, int, float, float]:
    """A layout with the banner across the top (bold, up to two lines), where it fits; with the margin, the
    labels' size and line height, and the top of what comes under the banner."""
    out = Layout()
    margin = max(6.0, min(width, height) * 0.02)
    label_px = _label_px(height, floor)
    line = measure.line_height(label_px, False)
    top = margin
    fitted = measure.fit(state.labels.get("banner", ""), QRectF(margin, top, width - margin - margin, 2 * line),
                         label_px, True, floor_px=floor)
    if fitted is not None:
        out.labels["banner"] = fitted
        top = fitted.rect.bottom() + margin
    return out, margin, label_px, line, top


def layout_pass(measure: TextMeasure, state: DecodeStepperState, width: float, height: float,
                floor: int) -> Layout:
    out, margin, label_px, line, top = _start(measure, state, width, height, floor)
    left, right, bottom = margin, width - margin, height - margin
    labels = state.labels
    counter_h = 2 * measure.line_height(label_px, False) + margin
    counters_top = bottom - counter_h
    _place_counters(measure, out, state, QRectF(left, counters_top, right - left, counter_h), label_px, floor)
    if out.counters:
        bottom = counters_top - margin
    machine_h = max(height * 0.3, 2 * line + 2 * line + 2 * margin)
    machine_top = bottom - machine_h
    if labels.get("context"):
        fitted = measure.fit(labels["context"], QRectF(left, top, right - left, line), label_px, False, ALIGN_LEFT,
                             floor_px=floor)
        if fitted is not None:
            out.labels["context"] = fitted
            top += line + margin * 0.5
    out.context = QRectF(left, top, right - left, max(0.0, machine_top - margin - top))
    out.px, out.tiles = fit_tiles(measure, state.tiles, out.context, int(height * TOKEN_PX_SHARE), floor,
                                  state.new_tile)
    _place_machine(measure, out, state, QRectF(left, machine_top, right - left, machine_h), label_px, floor, line)
    return out


def _place_counters(measure: TextMeasure, out: Layout, state: DecodeStepperState, box: QRectF, px: int,
                    floor: int) -> None:
    """All counters in one row (two lines each), else in two rows (one line each), else without the last."""
    counters = list(state.counters)
    while counters:
        for rows in (1, 2):
            per_row = -(-len(counters) // rows)
            cell_w, cell_h = box.width() / per_row, box.height() / rows
            cells = [QRectF(box.left() + (n % per_row) * cell_w, box.top() + (n // per_row) * cell_h,
                            cell_w - 4, cell_h - (2 if rows > 1 else 0)) for n in range(len(counters))]
            fitted = [measure.fit(c.text, cell, px, False, floor_px=floor) for c, cell in zip(counters, cells)]
            if all(f is not None for f in fitted):
                out.counters = [(c.key, cell, f) for c, cell, f in zip(counters, cells, fitted)]
                return
        counters.pop()            # the last counter is the least needed (the KV cache has its bar)


def _place_machine(measure: TextMeasure, out: Layout, state: DecodeStepperState, box: QRectF, label_px: int,
                   floor: int, line: float) -> None:
    """Warehouse (HBM) -> belt -> model box -> output slot; the input label above, belt and output below."""
    w = box.width()
    box_top, box_h = box.top() + line, box.height() - 2 * line
    out.warehouse = QRectF(box.left(), box_top, w * 0.22, box_h)
    out.model = QRectF(box.left() + w * 0.34, box_top, w * 0.38, box_h)
    out.belt = QRectF(out.warehouse.right(), box_top + box_h * 0.35, out.model.left() - out.warehouse.right(),
                      box_h * 0.3)
    out.input_x = out.model.left() + min(out.model.width() * 0.25, 2 * line)    # the arrow into the model
    slot_w = min(w * 0.18, box_h * 1.4)
    out.output = QRectF(out.model.right() + w * 0.06, box_top + box_h * 0.2, slot_w, box_h * 0.6)
    inner = 0.08 * box_h
    texts = {
        "memory": (out.warehouse.adjusted(inner, inner, -inner, -inner), ALIGN_CENTER),
        "model": (out.model.adjusted(inner, inner, -inner, -inner), ALIGN_CENTER),
        "input": (QRectF(out.input_x + line * 0.8, box.top(), box.right() - out.input_x - line * 0.8, line),
                  ALIGN_LEFT),                     # clear of the arrow's head, even the projector's thick one
        "belt": (QRectF(box.left(), out.model.bottom(), out.model.left() - box.left(), line), ALIGN_CENTER),
        "output": (QRectF(out.model.right(), out.model.bottom(), box.right() - out.model.right(), line),
                   ALIGN_CENTER),
    }
    for key, (rect, align) in texts.items():
        fitted = measure.fit(state.labels.get(key, ""), rect, label_px, False, align, floor_px=floor)
        if fitted is None:          # the short form ("HBM"), where the state gives one
            fitted = measure.fit(state.labels.get(f"{key}_short", ""), rect, label_px, False, align, floor_px=floor)
        if fitted is not None:
            out.labels[key] = fitted


def layout_compare(measure: TextMeasure, state: DecodeStepperState, width: float, height: float,
                   floor: int) -> Layout:
    """Two rows, prefill above decode: inputs -> the same model box -> one token; figures under the model."""
    out, margin, label_px, line, top = _start(measure, state, width, height, floor)
    left, right = margin, width - margin
    rows = state.rows[:2]
    row_h = (height - margin - top) / max(1, len(rows))
    w = right - left

    def body_of(n: int) -> QRectF:
        y = top + n * row_h
        return QRectF(left, y + line + margin * 0.5, w, row_h - line - 2 * margin)

    # One token size for both rows (the largest at which every row's inputs fit): a token is as large
    # coming out of the prefill as going into the decode.
    px_max = int(height * TOKEN_PX_SHARE * 0.8)
    for n, row in enumerate(rows):
        body = body_of(n)
        px_max = min(px_max, fit_tiles(measure, row.inputs, QRectF(body.left(), body.top(), w * 0.42, body.height()),
                                       px_max, floor, len(row.inputs) - 1)[0])
    for n, row in enumerate(rows):
        y = top + n * row_h
        title = measure.fit(row.title, QRectF(left, y, w, line), label_px, True, ALIGN_LEFT, floor_px=floor)
        body = body_of(n)
        inputs_box = QRectF(body.left(), body.top(), w * 0.42, body.height())
        model = QRectF(body.left() + w * 0.5, body.top(), w * 0.28, body.height() - line)
        px, tiles = fit_tiles(measure, row.inputs, inputs_box, px_max, floor, len(row.inputs) - 1)
        out_box = QRectF(model.right() + w * 0.05, body.top(), right - model.right() - w * 0.05, body.height())
        _, output = fit_tiles(measure, (row.output,), out_box, px, floor, 0)
        # The inputs and the output centred on the arrows' line through the model, so the arrows join them.
        _centre_on(tiles, model.center().y(), body)
        _centre_on(output, model.center().y(), body)
        inner = 0.08 * model.height()
        model_text = measure.fit(state.labels.get("model", ""), model.adjusted(inner, inner, -inner, -inner),
                                 label_px, True, floor_px=floor)
        figures = measure.fit(row.figures, QRectF(body.left() + w * 0.42, model.bottom(), w * 0.58, line), floor,
                              False, floor_px=floor)
        inputs_right = max((t.rect.right() for t in tiles), default=inputs_box.right()) + 0.02 * w
        out.rows.append({"title": title, "tiles": tiles, "model": model, "model_text": model_text,
                         "output": output, "figures": figures, "inputs_box": inputs_box,
                         "inputs_right": min(inputs_right, model.left() - 0.02 * w)})
    return out


def _centre_on(tiles: list[TileBox], centre_y: float, body: QRectF) -> None:
    """Move ``tiles`` (in place) so that their block is centred on ``centre_y``, staying inside ``body``."""
    if not tiles:
        return
    block_top = min(t.rect.top() for t in tiles)
    block_bottom = max(t.rect.bottom() for t in tiles)
    dy = centre_y - (block_top + block_bottom) / 2
    dy = max(body.top() - block_top, min(dy, body.bottom() - block_bottom))
    for tile in tiles:
        tile.rect.translate(0, dy)
        for part in tile.parts:
            part.rect.translate(0, dy)
            part.text.rect.translate(0, dy)
            if part.sub is not None:
                part.sub.rect.translate(0, dy)


def layout(measure: TextMeasure, state: DecodeStepperState, width: float, height: float, floor: int) -> Layout:
    if width < 40 or height < 40:
        return Layout()
    if state.picture == "compare":
        return layout_compare(measure, state, width, height, floor)
    return layout_pass(measure, state, width, height, floor)
