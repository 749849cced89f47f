"""One request drawn to scale in time: a prefill block, then one block per decode step, and the GPU under it.

The top bar is the whole request to scale (decode steps grouped when there are
too many to draw, the group size written beside the title). Below it, a zoom
(titled with the stretch it shows, which is outlined on the top bar the same
way): the end of prefill and the first few decode steps, each its own block,
large enough to label; a prefill too long to show whole is cut on the left,
where a zigzag marks the cut. Under each bar, the compute in use per phase
(``widgets.utilisation_strip``) and, under the zoom, which bound applies in each phase.

The widget draws the ``TimelineState`` it is handed and nothing else; where the
blocks go is ``widgets.request_timeline_state``'s arithmetic. Texts are fitted
at or above the theme's floor and dropped in ``LABEL_PRIORITY`` order when they
do not fit; ``drawn_texts()`` reports what the last paint drew.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QPainter, QPen
from PySide6.QtWidgets import QWidget

from widgets.request_timeline_state import (
    LABEL_PRIORITY, LAYOUTS_KEPT, PHASES, Block, TimelineState, blocks_for_width, x_of, zoom_window,
)
from widgets.dashed_outline import CLEAR, DashedOutline
from widgets.pattern_fill import PatternFill
from widgets.recent import recent
from widgets.state_widget import StateWidget
from widgets.still_picture import StillPicture
from widgets.text_fit import DrawnText, FittedText, LabelPlacer, RememberedFits
from widgets.theme import Theme, pattern_brush
from widgets.utilisation_strip import DIMMED_ALPHA, dimmed, paint_strips, phase_colour

MIN_BLOCK_PX = 10.0         # a decode block narrower than this (or half the text floor) is grouped with others
GAP_PER_FLOOR = 1 / 18      # between two blocks, so each reads as its own pass: 1 px at 768, 3 px at 2160
LABEL_PX_FACTOR = 1.25      # labels start this much above the floor and shrink to it when needed
# Decode's blocks carry a light hatch over their colour, prefill's are solid: in a black-and-white print the
# two colours turn into much the same grey, and the texture still tells them apart (and colour never carries
# the meaning alone). The words on a block sit on a plate of its plain colour, so the hatch never crosses them.
PHASE_PATTERNS = {"decode": Qt.BrushStyle.FDiagPattern}
PATTERN_ALPHA = 0.6            # the hatch a little transparent: the phase's colour still reads first on a screen
# Where a label sits in its box (worked out once: a ``|`` of Qt's flags is a call into Python's enum module)
LEFT, RIGHT, CENTRE = (side | Qt.AlignmentFlag.AlignVCenter for side in (
    Qt.AlignmentFlag.AlignLeft, Qt.AlignmentFlag.AlignRight, Qt.AlignmentFlag.AlignHCenter))
# The colour role of each label (each label also says in words what it is).
LABEL_ROLE = {"prefill_bound": "compute", "decode_bound": "memory", "zoom": "muted", "scale": "muted",
              "strip": "muted", "start": "muted", "end": "text", "groups": "muted"}


@dataclass
class TimelineLayout:
    """Where everything goes for one size and state (screen pixels)."""
    main_bar: QRectF
    main_strip: QRectF
    zoom_bar: QRectF
    zoom_strip: QRectF
    main_blocks: tuple[Block, ...]
    zoom_blocks: tuple[Block, ...]
    labels: dict[str, FittedText] = field(default_factory=dict)
    token_labels: list[tuple[FittedText, str]] = field(default_factory=list)


_GAPS: dict[tuple, tuple[tuple[Block, ...], list[QRect]]] = {}


def gap_rects(blocks: tuple[Block, ...], window: tuple[float, float], bar: QRectF, gap: float) -> list[QRect]:
    """The gap at the end of each block (but one at the bar's left edge) on ``bar`` showing ``window``: the
    rectangle a line of the gap's width (square caps) covers, filled rather than stroked (the same pixels, a
    fraction of the cost of a wide pen), given as the whole pixels Qt's aliased fill of it covers (each edge
    rounded half up, as Qt does), which Qt fills at half the cost of fractional ones. Kept for the blocks
    (``request_timeline_state.group_blocks`` hands the same blocks back for the same seconds)."""
    top, bottom, left, width = bar.top(), bar.bottom(), bar.left(), bar.width()
    key = (id(blocks), window, left, width, top, bottom, gap)
    kept = recent(_GAPS, key, 2 * LAYOUTS_KEPT)        # a whole bar and a zoom per layout kept
    if kept is not None:       # the entry holds its blocks: no other object has their id while it is kept
        return kept[1]
    y0, y1 = math.floor(top - gap / 2 + 0.5), math.floor(bottom + gap / 2 + 0.5)
    rects = []
    for block in blocks:
        x = x_of(block.end_seconds, window, left, width) - gap / 2
        if x > left:
            x0 = math.floor(x - gap / 2 + 0.5)
            rects.append(QRect(x0, y0, math.floor(x + gap / 2 + 0.5) - x0, y1 - y0))
    _GAPS[key] = (blocks, rects)
    return rects


def _around(whole: QRect, covered: list[QRectF]) -> list[QRect]:
    """``whole`` but the whole pixels inside each of ``covered`` (side by side across ``whole``, top to bottom,
    none overlapping another's rows): bands above, between and below them, and beside each."""
    rects, y = [], whole.top()
    for rect in covered:
        left, right = math.ceil(rect.left()), math.floor(rect.right())
        top, bottom = max(y, math.ceil(rect.top())), math.floor(rect.bottom())
        if right <= left or bottom <= top:
            continue
        rects.append(QRect(whole.left(), y, whole.width(), top - y))
        rects.append(QRect(whole.left(), top, left - whole.left(), bottom - top))
        rects.append(QRect(right, top, whole.right() + 1 - right, bottom - top))
        y = bottom
    rects.append(QRect(whole.left(), y, whole.width(), whole.bottom() + 1 - y))
    return [rect for rect in rects if rect.width() > 0 and rect.height() > 0]


class RequestTimeline(StateWidget):
    """Draws a ``TimelineState``; holds no physics."""
    stage_sizes = ((200, 120), (1200, 360))
    layouts_kept = LAYOUTS_KEPT

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(theme, parent)
        self._measure = RememberedFits()
        self._hatches = (PatternFill(), PatternFill())      # the decode hatch of the whole bar, of the zoom
        self._break = StillPicture()                        # the zigzag of a cut zoom
        self._outline = DashedOutline()                     # the zoom's dashed outline

    # -- layout ----------------------------------------------------------------------------
    def _lay_out(self) -> TimelineLayout:
        s, w, h = self._state, float(self.width()), float(self.height())
        f = self._theme.floor_px
        bar_min = self._measure.line_height(f, True) + 4          # a block's label fits inside at the floor
        # Labels a little above the floor where the height allows it (five rows of text, a half-row gap,
        # two bars and two strips), else at the floor.
        for px in (round(f * LABEL_PX_FACTOR), f):
            row = self._measure.line_height(px, True) + 2
            if 5.5 * row + 2 * max(bar_min, 1.3 * row) + 2 * 0.5 * row <= h:
                break
        margin = round(f * 0.5)
        left, width = margin, w - 2 * margin
        free = max(0.0, h - 5.5 * row)                # five rows of text and a half-row gap
        bar_h = max(bar_min, min(2.6 * row, free * 0.32))
        strip_h = max(0.4 * row, min(1.6 * row, free * 0.18))
        y = 0.0
        title_row = QRectF(left, y, width, row)
        y += row
        main_bar = QRectF(left, y, width, bar_h)
        main_strip = QRectF(left, main_bar.bottom(), width, strip_h)
        axis_row = QRectF(left, main_strip.bottom(), width, row)
        y = axis_row.bottom() + row * 0.5
        zoom_title = QRectF(left, y, width, row)
        zoom_bar = QRectF(left, zoom_title.bottom(), width, bar_h)
        zoom_strip = QRectF(left, zoom_bar.bottom(), width, strip_h)
        bound_row = QRectF(left, zoom_strip.bottom(), width, row)
        layout = TimelineLayout(main_bar, main_strip, zoom_bar, zoom_strip,
                                blocks_for_width(s, width, max(MIN_BLOCK_PX, f / 2)),
                                blocks_for_width(s, width, MIN_BLOCK_PX, zoom=True))
        prefill_end = x_of(s.prefill_seconds, zoom_window(s), left, width)
        boxes = {
            "scale": (title_row, LEFT),
            "groups": (title_row, RIGHT),
            "decode_block": (self._decode_part(main_bar, s), CENTRE),
            "start": (axis_row, LEFT),
            "end": (axis_row, RIGHT),
            "zoom": (QRectF(left, zoom_title.top(), prefill_end - left, row), LEFT),
            "decode_step": (QRectF(prefill_end, zoom_title.top(), left + width - prefill_end, row), LEFT),
            "prefill_block": (QRectF(left, zoom_bar.top(), prefill_end - left, zoom_bar.height()).adjusted(
                4, 1, -4, -1), CENTRE),
            "prefill_bound": (QRectF(left, bound_row.top(), prefill_end - left, row), LEFT),
            "decode_bound": (QRectF(prefill_end, bound_row.top(), left + width - prefill_end, row), LEFT),
            # under the whole bar's strip, between the axis' ends: it names the thin track just above it
            "strip": (axis_row, CENTRE),
        }
        texts = dict(s.labels)
        if len(layout.main_blocks) > 1 and layout.main_blocks[1].tokens > 1:
            texts["groups"] = s.group_text(layout.main_blocks[1].tokens)
        if not s.strip_phases:
            texts.pop("strip", None)
        # Texts touch but never overlap; a row that falls below a too-short widget loses its labels.
        placer = LabelPlacer(self._measure, f, QRectF(0, 0, w, h), gap_px=0.0, max_px=None)
        for key in LABEL_PRIORITY:
            if key in texts and key in boxes:
                box, align = boxes[key]
                placer.place(key, texts[key], box, px, key in ("decode_block", "prefill_block"), align)
        layout.labels = {key: fitted for key, _, fitted, _, _ in placer.placed}
        self._lay_out_token_numbers(layout, placer)
        return layout

    def _decode_part(self, bar: QRectF, s: TimelineState) -> QRectF:
        start = x_of(s.prefill_seconds, (0.0, s.total_seconds), bar.left(), bar.width())
        return QRectF(start, bar.top(), bar.right() - start, bar.height()).adjusted(4, 1, -4, -1)

    def _lay_out_token_numbers(self, layout: TimelineLayout, placer: LabelPlacer) -> None:
        """Each zoomed decode step's token number inside its block, all or none (a partial count misleads)."""
        s = self._state
        window, bar = zoom_window(s), layout.zoom_bar
        numbered = []
        left, top, width, height = bar.getRect()
        f = placer.floor_px
        for n, block in enumerate(b for b in layout.zoom_blocks if b.phase == "decode"):
            x0 = x_of(block.start_seconds, window, left, width)
            x1 = x_of(block.end_seconds, window, left, width)
            text = s.token_text(n + 2)          # token 1 comes out of prefill
            # at the floor, as the placer fits it (a dozen a layout, on every step of the dragged batch)
            fitted = self._measure.fit(text, QRectF(x0 + 1, top, x1 - x0 - 2, height), f, False, CENTRE, floor_px=f)
            if fitted is None or not placer.clear(fitted.rect):
                return
            numbered.append((fitted, text))
        layout.token_labels = numbered

    # -- painting --------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.NonCosmeticBrushPatterns, True)   # patterns scale (pattern_brush)
        layout = self.layout_now()
        self._drawn, self._drawn_later = [], None
        if layout is None:
            painter.fillRect(self.rect(), self._theme.color("background"))
            painter.end()
            return
        s = self._state
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self._theme.color("background"))
        # the background but where the two bars lay opaque colour over every pixel anyway (none is dimmed)
        painter.drawRects(_around(QRect(0, 0, self.width(), self.height()),
                                  [] if s.highlight is not None else [layout.main_bar, layout.zoom_bar]))
        strips = (self._paint_bar(painter, layout.main_bar, layout.main_strip, layout.main_blocks,
                                  (0.0, s.total_seconds), self._hatches[0])
                  + self._paint_bar(painter, layout.zoom_bar, layout.zoom_strip, layout.zoom_blocks, zoom_window(s),
                                    self._hatches[1]))
        paint_strips(painter, self._theme, strips)      # the two bars' strips together (none overlaps another)
        self._paint_zoom_lines(painter, layout)
        theme = self._theme
        if layout.token_labels:       # the plates in one call, then the numbers in one pen (none overlaps another)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(phase_colour(theme, "decode"))
            painter.drawRects([fitted.rect for fitted, _ in layout.token_labels])
            painter.setPen(theme.color("surface"))
            for fitted, _ in layout.token_labels:
                fitted.paint(painter, self._measure.font(fitted.px, fitted.bold))
        for key, fitted in layout.labels.items():
            inside = key in ("decode_block", "prefill_block")
            if inside:          # a plate of the block's colour, so the gaps between blocks do not cut the words
                painter.fillRect(fitted.rect.adjusted(-4, 0, 4, 0), phase_colour(theme, key.removesuffix("_block")))
            painter.setPen(theme.color("surface") if inside else theme.color(LABEL_ROLE.get(key, "text")))
            fitted.paint(painter, self._measure.font(fitted.px, fitted.bold))
        painter.end()
        self._drawn_later = lambda: self._texts_of(layout)

    @staticmethod
    def _texts_of(layout: TimelineLayout) -> list[DrawnText]:
        """What a paint of ``layout`` draws: each token number, then each label."""
        return ([DrawnText("token", text, fitted.px, QRectF(fitted.rect)) for fitted, text in layout.token_labels]
                + [fitted.drawn(key) for key, fitted in layout.labels.items()])

    def _paint_bar(self, painter: QPainter, bar: QRectF, strip: QRectF, blocks: tuple[Block, ...],
                   window: tuple[float, float], hatch_fill: PatternFill) -> list[tuple]:
        """The blocks of ``window`` = (start, end) seconds (what falls before the start is cut off); returns its
        strips, for ``paint_strips``."""
        s, theme = self._state, self._theme
        painter.setPen(Qt.PenStyle.NoPen)
        split = x_of(s.prefill_seconds, window, bar.left(), bar.width())
        # Each phase in one fill, then a gap at the end of every block in one call: hundreds of blocks
        # cost one draw, not hundreds (the bar repaints on every step of a dragged control).
        for phase, x0, x1 in (("prefill", bar.left(), split), ("decode", split, bar.right())):
            if x1 > x0:
                dim = s.highlight not in (None, phase)
                colour = dimmed(phase_colour(theme, phase), dim)
                if phase in PHASE_PATTERNS:      # printed in grey, the two phases still differ: a texture
                    # the colour and its hatch over the background, laid in one blit (widgets.pattern_fill)
                    hatch = theme.color("surface")
                    hatch.setAlphaF(PATTERN_ALPHA * (DIMMED_ALPHA if dim else 1.0))
                    colour = hatch_fill.brush(self, bar, theme.color("background"), colour,
                                              pattern_brush(hatch, PHASE_PATTERNS[phase], theme))
                painter.setBrush(colour)
                painter.drawRect(QRectF(x0, bar.top(), x1 - x0, bar.height()))
        gap = max(1.0, round(self._theme.floor_px * GAP_PER_FLOOR))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(theme.color("background"))
        painter.drawRects(gap_rects(blocks, window, bar, gap))
        spans = {"prefill": (bar.left(), split), "decode": (split, bar.right())}
        strips = []
        for phase in s.strip_phases:
            x0, x1 = spans[phase]
            if x1 - x0 < 1:
                continue
            dim = s.highlight is not None and s.highlight != phase
            utilisation = s.prefill_utilisation if phase == "prefill" else s.decode_utilisation
            utilisation *= max(0.0, min(1.0, s.strip_reveal[PHASES.index(phase)]))
            strips.append((QRectF(x0, strip.top() + 2, x1 - x0 - gap, strip.height() - 4), phase, utilisation,
                           phase in s.compute_bound, dim))
        return strips

    def _paint_zoom_lines(self, painter: QPainter, layout: TimelineLayout) -> None:
        """A dashed outline around the stretch of the whole bar that the zoom enlarges, and the same around
        the zoom (its title says what it is), so the two read as one stretch at two scales. A zoom that starts
        after 0 (a long prefill, cut) shows a break at its left edge."""
        s = self._state
        main, zoom = layout.main_bar, layout.zoom_bar
        start, end = (x_of(seconds, (0.0, s.total_seconds), main.left(), main.width()) for seconds in zoom_window(s))
        # a whole-pixel width: Qt's raster engine strokes a dashed pen of 1.4 px some twenty times slower than one
        # of 1 px, and this outline is redrawn on every step of a dragged slider
        width = max(1.0, float(round(self._theme.floor_px / 18)))
        pen = QPen(self._theme.color("text"), width, Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(QRectF(start - 2, main.top() - 2, max(3.0, end - start) + 3,
                                layout.main_strip.bottom() - main.top() + 4))
        # the zoom's own outline stays put while the batch is dragged: laid from a picture (widgets.dashed_outline)
        self._outline.paint(painter, self, QRectF(zoom.left() - 2, zoom.top() - 2, zoom.width() + 3,
                                                  layout.zoom_strip.bottom() - zoom.top() + 4), pen)
        if zoom_window(s)[0] > 0:
            self._paint_break(painter, zoom.left() + zoom.height() * 0.4, zoom.top(), layout.zoom_strip.bottom())

    def _paint_break(self, painter: QPainter, x: float, top: float, bottom: float) -> None:
        """The usual mark of a cut axis: a zigzag band across the bar (time before it is left out). Kept as a
        picture (the band's wide pens are stroked as paths, some fifty times the cost of laying the picture)."""
        reach, widest = 4.0, 5.0
        area = QRect(math.floor(x - reach - widest), math.floor(top - widest), math.ceil(2 * (reach + widest)) + 2,
                     math.ceil(bottom - top + 2 * widest) + 2)
        colours = [(self._theme.color(role), width) for role, width in (("background", widest), ("text", 1.5))]

        def paint(band: QPainter) -> None:
            teeth = max(2, round((bottom - top) / 10))
            step = (bottom - top) / teeth
            points = [QPointF(x + (reach if n % 2 else -reach), top + n * step) for n in range(teeth + 1)]
            for colour, width in colours:
                band.setPen(QPen(colour, width))
                band.drawPolyline(points)
        key = (x, top, bottom) + tuple(colour.rgba() for colour, _ in colours)
        painter.drawPixmap(area.topLeft(), self._break.pixmap(key, self, paint, CLEAR, area))
