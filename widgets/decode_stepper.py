"""The decode stepper: the context so far, one model pass fed by a belt of weights, the new token joining in.

Draws the ``DecodeStepperState`` it is handed (``widgets.decode_stepper_state``).
``set_state`` lays the picture out once (``widgets.decode_stepper_layout``);
``set_progress`` (0..1 of the current pass, from the scene clock) only moves
the belt and the new token, so a frame of playback costs little. At progress 1
(and whenever the model did not run at this build) the picture is at rest: the
new token in its place in the context.

Colour never carries meaning alone: prompt tokens are plain, answer tokens
bold, the tokens entering the model have a thick outline, bytes of a cut
character a dashed box with the character beneath, tokens not made yet a
dashed tile with "?".
"""
from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QWidget

from widgets.bar_paint import alpha, mixed
from widgets.decode_stepper_layout import Layout, TileBox, layout
from widgets.decode_stepper_state import DecodeStepperState
from widgets.state_widget import StateWidget
from widgets.still_picture import StillPicture
from widgets.text_fit import DrawnText, FittedText, TextMeasure
from widgets.theme import Theme
from widgets.transition import smoothstep

BELT_PHASE_END = 0.6          # of a pass: the weights cross the belt
TOKEN_APPEARS = 0.45          # the new token shows in the output slot
BLOCKS_ON_BELT = 5            # weight blocks visible on the belt at once
BLOCKS_PER_PASS = 8           # block spacings the belt moves in one pass
TILE_PICTURES_KEPT = 400      # tile pictures cached (a few tokenizers' worth of tiles in both languages)
TILE_LINE_MAX_PX = 2.0        # a tile's base border at most (the outline of a token entering is twice that)


class DecodeStepper(StateWidget):
    """Draws a ``DecodeStepperState``; holds no physics."""
    stage_sizes = ((160, 120), (900, 600))

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(theme, parent)
        self._progress = 1.0
        self._measure = TextMeasure()
        self._still = StillPicture()
        self._drawn_still: list[DrawnText] = []
        self._tile_pictures: dict[tuple, QPixmap] = {}

    # -- what a scene drives -------------------------------------------------------------------
    @property
    def progress(self) -> float:
        return self._progress

    def set_state(self, state: DecodeStepperState, progress: float = 1.0) -> None:
        progress = max(0.0, min(1.0, progress))
        if state == self._state and progress == self._progress:
            return
        self._state = state
        self._progress = progress
        self.update()

    def set_progress(self, progress: float) -> None:
        """Where the current pass is, 0..1 (1: at rest). Moves only the belt and the new token."""
        progress = max(0.0, min(1.0, progress))
        if progress != self._progress:
            token = self._progress >= TOKEN_APPEARS or progress >= TOKEN_APPEARS
            self._progress = progress
            if self.isVisible():
                self.update(self._moving_region(token))

    def _moving_region(self, token: bool):
        """What a frame of a pass changes: the belt and the model box; with the new token on its way (or just
        landed), the box its flight spans, from the output slot to its place among the tiles: every position it
        takes lies in it, so the frame before is painted over too. Everything for another picture."""
        placed = self.layout_now()
        if placed is None or self._state.picture != "pass":
            return self.rect()
        region = placed.belt.united(placed.model)
        target = next((t for t in placed.tiles if t.index == self._state.new_tile), None)
        if token and target is not None:
            start = QRectF(target.rect)
            start.moveCenter(placed.output.center())
            region = region.united(start).united(target.rect)
        pad = 2 + self._theme.scaled_line_width          # a tile's border is drawn half outside its rectangle
        return region.adjusted(-pad, -pad, pad, pad).toAlignedRect()

    def set_theme(self, theme: Theme) -> None:
        if theme != self._theme:
            self._still.forget()            # the still picture is painted in the theme's colours: paint it again
        super().set_theme(theme)

    def _lay_out(self) -> Layout:
        return layout(self._measure, self._state, self.width(), self.height(), self._theme.floor_px)

    # -- painting ----------------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        """The still parts come from a picture cached per layout (and per whether the new token is on its way);
        a frame of a pass draws only the belt's blocks, the model's progress and the flying token over it."""
        placed = self.layout_now()
        painter = QPainter(self)
        if placed is None:
            painter.fillRect(self.rect(), self._theme.color("background"))
            self._drawn = []
            return
        painter.drawPixmap(0, 0, self._still.pixmap(self._layout_key, self, lambda still: self._paint_still(still, placed),
                                                    self._theme.color("background")))
        self._drawn = list(self._drawn_still)
        if self._state.picture == "pass":
            self._paint_moving(painter, placed)

    def _paint_still(self, painter: QPainter, placed: Layout) -> None:
        # square tiles and counters, drawn without antialiasing: crisp, and a third of the cost of a still
        self._drawn = []
        for key in ("banner", "context"):
            self._text(painter, key, placed.labels.get(key))
        if self._state.picture == "compare":
            self._paint_compare(painter, placed)
        else:
            self._paint_pass(painter, placed)
        self._drawn_still = self._drawn

    def _text(self, painter: QPainter, key: str, fitted: FittedText | None, role: str = "text") -> None:
        if fitted is None:
            return
        painter.setPen(self._theme.color(role))
        fitted.paint(painter, self._measure.font(fitted.px, fitted.bold))
        self._drawn.append(fitted.drawn(key))

    def _moving(self) -> bool:
        return self._state.model_busy and self._progress < 1.0

    def _paint_pass(self, painter: QPainter, placed: Layout) -> None:
        """Everything but the moving parts and the new token (drawn over it, on its way or in its place)."""
        theme, state = self._theme, self._state
        self._paint_seen_frame(painter, placed)
        for tile in placed.tiles:
            if tile.index == state.new_tile:
                continue
            self._paint_tile(painter, tile)
        self._paint_machine(painter, placed)
        for key, rect, fitted in placed.counters:
            painter.setPen(QPen(theme.color("muted"), max(1.0, theme.scaled_line_width / 2)))
            painter.setBrush(theme.color("surface"))
            painter.drawRect(rect)
            self._text(painter, f"counter.{key}", fitted)

    def _paint_moving(self, painter: QPainter, placed: Layout) -> None:
        """The belt's blocks, the model's progress while the weights cross, the new token on its way."""
        theme, state = self._theme, self._state
        belt = placed.belt
        spacing = belt.width() / BLOCKS_ON_BELT
        travel = min(1.0, self._progress / BELT_PHASE_END) * BLOCKS_PER_PASS if self._moving() else 0.0
        shift = (travel % 1.0) * spacing
        block = QRectF(0, 0, spacing * 0.55, belt.height() * 0.6)
        painter.setPen(QPen(theme.color("memory"), max(1.0, theme.scaled_line_width / 2)))
        painter.setBrush(alpha(theme.color("memory"), 0.55))
        painter.save()
        painter.setClipRect(belt)
        for n in range(-1, BLOCKS_ON_BELT + 1):
            block.moveCenter(QPointF(belt.left() + (n + 0.5) * spacing + shift, belt.center().y()))
            painter.drawRect(block)
        painter.restore()
        if self._moving() and self._progress < BELT_PHASE_END:
            bar = QRectF(placed.model.left() + 2, placed.model.bottom() - 8,
                         (placed.model.width() - 4) * self._progress / BELT_PHASE_END, 6)
            painter.fillRect(bar, theme.color("compute"))
        target = next((t for t in placed.tiles if t.index == state.new_tile), None)
        flying = self._moving()
        if target is None or (flying and self._progress < TOKEN_APPEARS):
            return
        if not flying:
            self._paint_tile(painter, target)
            return
        start = QPointF(placed.output.center().x() - target.rect.width() / 2,
                        placed.output.center().y() - target.rect.height() / 2)
        p = smoothstep((self._progress - BELT_PHASE_END) / (1.0 - BELT_PHASE_END))
        painter.save()
        painter.translate((start - target.rect.topLeft()) * (1.0 - p))
        self._paint_tile(painter, target, record=False)
        painter.restore()

    def _paint_seen_frame(self, painter: QPainter, placed: Layout) -> None:
        """Where tokens not made yet are shown: a frame around what the model sees."""
        tiles = [t for t in placed.tiles if t.index < 0 or self._state.tiles[t.index].role != "future"]
        if len(tiles) == len(placed.tiles) or not tiles:
            return
        rows: dict[float, QRectF] = {}          # one frame per row of tiles, around the seen ones only
        for tile in tiles:
            top = round(tile.rect.top(), 1)
            rows[top] = rows[top].united(tile.rect) if top in rows else QRectF(tile.rect)
        pen = QPen(self._theme.color("accent"), self._theme.scaled_line_width, Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(alpha(self._theme.color("accent"), 0.06))
        pad = 3.0
        for area in rows.values():
            painter.drawRoundedRect(area.adjusted(-pad, -pad, pad, pad), 6, 6)

    def _paint_tile(self, painter: QPainter, tile: TileBox, record: bool = True) -> None:
        """A tile from its own small picture, drawn once per look and reused (a pass changes two or three)."""
        look = self._tile_look(tile)
        margin = math.ceil(look[1] / 2) + 1
        key = (look, tuple((p.text.lines, p.text.px, p.text.bold, p.partial, p.sub.lines if p.sub else None,
                            p.rect.left() - tile.rect.left(), p.rect.width()) for p in tile.parts),
               tile.rect.width(), tile.rect.height(), self.devicePixelRatioF())
        picture = self._tile_pictures.get(key)
        if picture is None:
            if len(self._tile_pictures) > TILE_PICTURES_KEPT:
                self._tile_pictures.clear()
            picture = self._tile_pictures[key] = self._draw_tile(tile, look, margin)
        painter.drawPixmap(QPointF(tile.rect.left() - margin, tile.rect.top() - margin), picture)
        if record:
            for part in tile.parts:
                self._drawn.append(DrawnText(f"tile.{tile.index}", part.text.lines[0], float(part.text.px),
                                             QRectF(part.text.rect)))
                if part.sub is not None:
                    self._drawn.append(DrawnText(f"tile.{tile.index}.part_of", part.sub.lines[0],
                                                 float(part.sub.px), QRectF(part.sub.rect)))

    def _tile_look(self, tile: TileBox) -> tuple:
        """(role, border width, border colour, fill): what a tile's frame shows."""
        theme, state = self._theme, self._state
        role = state.tiles[tile.index].role if tile.index >= 0 else "prompt"
        enters = tile.index >= 0 and state.tiles[tile.index].enters
        new = tile.index == state.new_tile and tile.index >= 0
        background = theme.color("background")       # fills blended onto it beforehand: opaque fills paint fastest
        fill = {"prompt": theme.color("surface"), "answer": mixed(theme.color("accent"), 0.14, background),
                "end": mixed(theme.color("compute"), 0.14, background), "future": background}[role]
        # a tile's border stays thin beside its text even in the projector theme's thick lines
        width = min(theme.scaled_line_width, TILE_LINE_MAX_PX) * (2.0 if enters or new else 0.75)
        # what goes in: the accent; what came out: the model box's colour (the labels name both as well)
        color = theme.color("compute") if new else theme.color("accent") if enters else theme.color("muted")
        return role, width, color.name(), fill.name(), theme.id, theme.text, theme.muted, theme.warning

    def _draw_tile(self, tile: TileBox, look: tuple, margin: int) -> QPixmap:
        theme = self._theme
        role, width, color, fill = look[:4]
        ratio = self.devicePixelRatioF()
        picture = QPixmap(math.ceil((tile.rect.width() + 2 * margin) * ratio),
                          math.ceil((tile.rect.height() + 2 * margin) * ratio))
        picture.setDevicePixelRatio(ratio)
        picture.fill(Qt.GlobalColor.transparent)
        painter = QPainter(picture)
        painter.translate(margin - tile.rect.left(), margin - tile.rect.top())
        style = Qt.PenStyle.DashLine if role == "future" else Qt.PenStyle.SolidLine
        painter.setPen(QPen(QColor(color), width, style))
        painter.setBrush(QColor(fill))
        painter.drawRect(tile.rect)
        for part in tile.parts:
            if part.partial:
                painter.setPen(QPen(theme.color("warning"), max(1.0, theme.scaled_line_width * 0.75),
                                    Qt.PenStyle.DashLine))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(part.rect)
            text_role = "muted" if role == "future" else ("warning" if part.partial else "text")
            painter.setPen(theme.color(text_role))
            part.text.paint(painter, self._measure.font(part.text.px, part.text.bold))
            if part.sub is not None:              # the cut character: full contrast, it is what the bytes mean
                painter.setPen(theme.color("text"))
                part.sub.paint(painter, self._measure.font(part.sub.px, False))
        painter.end()
        return picture

    def _paint_machine(self, painter: QPainter, placed: Layout) -> None:
        """Square boxes with opaque fills (the cheapest to paint again at every pass); arrows antialiased."""
        theme = self._theme
        line_w = theme.scaled_line_width
        background = theme.color("background")
        for rect, role, share in ((placed.warehouse, "memory", 0.15), (placed.belt, "muted", 0.12),
                                  (placed.model, "compute", 0.12)):
            painter.setPen(QPen(theme.color(role), line_w))
            painter.setBrush(mixed(theme.color(role), share, background))
            painter.drawRect(rect)
        painter.setPen(QPen(theme.color("muted"), max(1.0, line_w * 0.75), Qt.PenStyle.DashLine))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(placed.output)
        # arrows: the context into the model, the model to the output slot
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(theme.color("text"), line_w))
        top = QPointF(placed.input_x, placed.context.bottom())
        self._arrow(painter, top, QPointF(top.x(), placed.model.top()))
        self._arrow(painter, QPointF(placed.model.right(), placed.output.center().y()),
                    QPointF(placed.output.left(), placed.output.center().y()))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        for key in ("memory", "model", "input", "belt", "output"):
            self._text(painter, key, placed.labels.get(key))

    def _arrow(self, painter: QPainter, start: QPointF, end: QPointF) -> None:
        painter.drawLine(start, end)
        size = max(6.0 * self._theme.size_scale, self._theme.scaled_line_width * 4)
        direction = end - start
        length = max(1e-6, (direction.x() ** 2 + direction.y() ** 2) ** 0.5)
        ux, uy = direction.x() / length, direction.y() / length
        left = QPointF(end.x() - size * ux + size * 0.5 * uy, end.y() - size * uy - size * 0.5 * ux)
        right = QPointF(end.x() - size * ux - size * 0.5 * uy, end.y() - size * uy + size * 0.5 * ux)
        painter.drawLine(end, left)
        painter.drawLine(end, right)

    def _paint_compare(self, painter: QPainter, placed: Layout) -> None:
        theme = self._theme
        for n, row in enumerate(placed.rows):
            self._text(painter, f"row{n}.title", row["title"])
            for tile in row["tiles"]:
                self._paint_row_tile(painter, tile, self._state.rows[n].inputs, f"row{n}.in")
            for tile in row["output"]:
                self._paint_row_tile(painter, tile, (self._state.rows[n].output,), f"row{n}.out")
            painter.setPen(QPen(theme.color("compute"), theme.scaled_line_width))
            painter.setBrush(alpha(theme.color("compute"), 0.1))
            painter.drawRoundedRect(row["model"], 8, 8)
            painter.setPen(QPen(theme.color("text"), theme.scaled_line_width))
            mid = row["model"].center().y()
            self._arrow(painter, QPointF(row["inputs_right"], mid), QPointF(row["model"].left(), mid))
            if row["output"]:
                self._arrow(painter, QPointF(row["model"].right(), mid),
                            QPointF(row["output"][0].rect.left(), mid))
            self._text(painter, f"row{n}.model", row["model_text"])
            self._text(painter, f"row{n}.figures", row["figures"])

    def _paint_row_tile(self, painter: QPainter, tile: TileBox, tiles, key: str) -> None:
        """A compare row's tile: drawn with the pass picture's styles, from that row's own tiles."""
        saved = self._state
        self._state = DecodeStepperState(tiles=tuple(tiles), new_tile=-1)
        try:
            before = len(self._drawn)
            self._paint_tile(painter, tile)
            for n in range(before, len(self._drawn)):
                drawn = self._drawn[n]
                self._drawn[n] = DrawnText(drawn.key.replace("tile", key, 1), drawn.text, drawn.px, drawn.rect)
        finally:
            self._state = saved
