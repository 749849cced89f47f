"""What every widget that draws a frozen state has in common.

A ``StateWidget`` keeps the theme and the state it is handed (``theme`` and
``state``, read-only), repaints only when either changes, and reports the texts
its last paint drew (``drawn_texts()``: a subclass's paint fills ``_drawn``) and where (``label_rects()``).
It paints every pixel itself, so the stage behind it need not be repainted first.
A subclass that lays out per size and state defines ``_lay_out()`` and asks
``layout_now()``, which lays out again only when the size, state or floor changed.
A subclass that takes whatever room the stage gives it names its ``stage_sizes``.
One whose state follows a dragged control names ``layouts_kept`` (its states then must be hashable): the layouts
of that many recent states are kept, so a control dragged back over values it passed lays none of them out again.

Paint only what changed: a subclass that names the pieces of its layout
(``_pieces(layout)``: each piece's rectangle and what is drawn there) is
repainted, on a new state, only where a piece differs from the last paint's
(Qt keeps the rest of the widget's pixels); its paint skips the pieces outside
the region asked for (``exposure(event.region())(rect)``). A piece's rectangle covers
every pixel it touches (a text's box, a bar with its outline), and pieces are
painted in the same order whatever the region, so the pixels are those of a
whole repaint.
"""
from __future__ import annotations

import math
from typing import Callable, ClassVar

from PySide6.QtCore import QRect, QRectF, QSize, Qt
from PySide6.QtGui import QRegion
from PySide6.QtWidgets import QSizePolicy, QWidget

from widgets.text_fit import DrawnText
from widgets.theme import Theme


# A change whose region has more rectangles than this repaints their bounding rectangle: Qt clips every fill and
# text to a region of many rectangles more slowly than it paints the rest again (about a hundred rectangles: even).
MAX_REGION_RECTS = 64
# The changes a widget works out the region of between two paints (each lays the new state out); one more repaints
# all of it, laid out once at the paint: a control dragged faster than the frames come costs no layout per step.
MAX_CHANGES_PER_PAINT = 3


def _bounding(rects: list[QRect]) -> QRect:
    left, top = min(r.left() for r in rects), min(r.top() for r in rects)
    return QRect(left, top, max(r.right() for r in rects) + 1 - left, max(r.bottom() for r in rects) + 1 - top)


class StateWidget(QWidget):
    """A widget that draws the frozen state it is handed, in the theme it is handed; holds no physics."""

    # ((minimum width, height), (preferred width, height)) in px of a widget that expands to fill the room it is
    # given; None keeps Qt's defaults.
    stage_sizes: ClassVar[tuple[tuple[int, int], tuple[int, int]] | None] = None
    # Layouts kept for the most recent states, by size, state and floor (``layout_now``); 0: only the current one.
    layouts_kept: ClassVar[int] = 0

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self._theme = theme
        self._state = None
        self._drawn: list[DrawnText] = []
        # or, set by a paint, what works out that list when it is first asked for (a paint on every step of a
        # dragged control need not build it): the widget's ``drawn_texts()`` and ``label_rects()`` resolve it
        self._drawn_later: Callable[[], list[DrawnText]] | None = None
        self._layout = None
        self._layout_key: tuple | None = None
        self._kept_layouts: dict[tuple, object] = {}      # layout key -> layout, the most recent last
        self._painted: tuple | None = None         # (layout key, its pieces) of the last paint, for _pieces
        self._hashed: tuple | None = None          # (layout, its pieces)
        self._changes_pending = 0                  # changes since the last paint (MAX_CHANGES_PER_PAINT)
        # Every pixel is painted here: the stage behind need not be repainted first.
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        if self.stage_sizes is not None:
            self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
            self.setMinimumSize(*self.stage_sizes[0])

    def sizeHint(self) -> QSize:
        return QSize(*self.stage_sizes[1]) if self.stage_sizes is not None else super().sizeHint()

    @property
    def theme(self) -> Theme:
        return self._theme

    @property
    def state(self):
        """The state drawn (None before the first ``set_state``)."""
        return self._state

    def set_theme(self, theme: Theme) -> None:
        if theme != self._theme:
            self._theme = theme
            self._painted = None
            self._hashed = None      # pieces may take their margins from the theme (memory bars' pen widths)
            self._kept_layouts.clear()      # and layouts theirs (a gauge's foot below the frame's line)
            self.update()

    def set_state(self, state) -> None:
        if state != self._state:
            self._state = state
            self._update_changed()

    # -- painting only what changed ----------------------------------------------------------
    # A piece's rectangle grows by this much on every side: antialiased edges and glyphs that reach a pixel
    # past the box they were measured in.
    PIECE_MARGIN_PX = 2

    def _pieces(self, layout) -> list[tuple[QRectF, object]] | None:
        """Each piece of ``layout`` drawn: (its rectangle, what is drawn there, hashable); None (the default):
        the widget is repainted whole on every change."""
        return None

    def _update_changed(self) -> None:
        """Ask Qt to repaint where the new state's pieces differ from the last paint's (all of it when the
        widget names no pieces, or when its size, floor or theme changed since)."""
        if self._painted is None or not self.isVisible():   # None for a widget that names no pieces
            self.update()
            return
        if self._changes_pending >= MAX_CHANGES_PER_PAINT:    # all of it is to be painted already
            return
        self._changes_pending += 1
        if self._changes_pending == MAX_CHANGES_PER_PAINT:
            self.update()            # changes faster than frames (a dragged control): one whole repaint, no layouts
            return
        layout = self._drawn_layout()
        pieces = None if layout is None else self._hashed_pieces(layout)
        painted_frame, painted = self._painted
        if pieces is None or painted_frame != self._frame_now():
            self._changes_pending = MAX_CHANGES_PER_PAINT
            self.update()
            return
        m = self.PIECE_MARGIN_PX
        rects = [QRect(math.floor(x) - m, math.floor(y) - m, math.ceil(x + width) - math.floor(x) + 2 * m,
                       math.ceil(y + height) - math.floor(y) + 2 * m)
                 for (x, y, width, height), _ in painted.symmetric_difference(pieces)]
        if not rects:
            return
        region = QRegion()
        for rect in rects:
            region += rect
            if region.rectCount() > MAX_REGION_RECTS:
                # So ragged a region is slower to clip to than its bounding rectangle is to paint again (a row
                # inserted moves every row below it; the large figure beside them stays)
                region = QRegion(_bounding(rects))
                break
        self.update(region)

    def _hashed_pieces(self, layout) -> frozenset | None:
        """The pieces of ``layout`` (the current one), worked out once per layout."""
        if self._hashed is not None and self._hashed[0] is layout:
            return self._hashed[1]
        pieces = self._pieces(layout)
        if pieces is not None:      # the exact rectangle: a text moved by half a pixel is painted again
            pieces = frozenset((rect.getRect(), what) for rect, what in pieces)
        self._hashed = (layout, pieces)
        return pieces

    def _drawn_layout(self):
        """What the next paint draws, for ``_pieces`` (``layout_now()``; a widget that lays out otherwise says)."""
        return self.layout_now()

    def _frame_now(self) -> tuple:
        """What every piece depends on: the size and the text floor (a change repaints all of it)."""
        return self.width(), self.height(), self._theme.text_floor_px

    def painted(self, layout) -> None:
        """A paint of ``layout`` began: what the widget shows from now on (for ``_update_changed``)."""
        pieces = self._hashed_pieces(layout)
        self._painted = None if pieces is None else (self._frame_now(), pieces)
        self._changes_pending = 0

    def exposure(self, region: QRegion) -> Callable[[QRectF], bool]:
        """Whether a piece at a rectangle is to be painted in a paint of ``region`` (the paint event's): in a whole
        repaint every piece; else one that ``region`` meets, first asked of its bounding rectangle in Python (most
        pieces of a partial repaint lie far from it, and asking Qt costs three calls)."""
        if region.rectCount() == 1 and region.boundingRect().contains(self.rect()):
            return lambda rect: True
        m, box = self.PIECE_MARGIN_PX, region.boundingRect()
        left, top, right, bottom = box.left() - m, box.top() - m, box.right() + 1 + m, box.bottom() + 1 + m

        def exposed(rect: QRectF) -> bool:
            x, y, width, height = rect.getRect()
            if x >= right or y >= bottom or x + width <= left or y + height <= top:
                return False
            return region.intersects(rect.toAlignedRect().adjusted(-m, -m, m, m))
        return exposed

    def drawn_texts(self) -> list[DrawnText]:
        """Every text the last paint drew (key, text, px, rect in widget coordinates)."""
        return list(self._texts_drawn())

    def _texts_drawn(self) -> list[DrawnText]:
        if self._drawn_later is not None:
            self._drawn, self._drawn_later = self._drawn_later(), None
        return self._drawn

    def label_rects(self) -> dict[str, QRectF]:
        """Where the last paint drew each text, by its key (the first of a key drawn twice): where a figure is,
        for its formula card (``desktop.kit.figures``)."""
        found: dict[str, QRectF] = {}
        for text in self._texts_drawn():
            found.setdefault(text.key, QRectF(text.rect))
        return found

    def layout_now(self):
        """The layout the next paint uses: ``_lay_out()`` for the current size, state and text floor, computed
        again only when one of them changed; None without a state or with an empty size."""
        if self._state is None or self.width() <= 0 or self.height() <= 0:
            return None
        key = (self.width(), self.height(), self._state, self._theme.text_floor_px)
        if key != self._layout_key:
            self._layout, self._layout_key = self._kept_layout(key), key
        return self._layout

    def _kept_layout(self, key: tuple):
        """The layout for ``key``: one kept (``layouts_kept``) or ``_lay_out()``, then kept as the most recent."""
        kept = self._kept_layouts
        if not self.layouts_kept:
            return self._lay_out()
        layout = kept.pop(key, None)
        if layout is None:
            layout = self._lay_out()
            while len(kept) >= self.layouts_kept:
                del kept[next(iter(kept))]          # the least recently shown
        kept[key] = layout
        return layout

    def _lay_out(self):
        """Where everything goes for the current size and state (for ``layout_now``)."""
        raise NotImplementedError(f"{type(self).__name__} does not lay out through layout_now")
