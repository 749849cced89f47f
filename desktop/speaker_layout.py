"""Where the speaker view and the audience's stage go, and how the speaker view divides its own area.

Plain geometry over ``QRect`` (no widget is touched here), so every case is
tested without opening a window:

- **Two screens or more** (a laptop and a projector), as PowerPoint's presenter
  view does it: while presenting, the audience's stage is fullscreen on a
  screen that is not the primary one (the projector; or the screen the window
  is already on, if that is not the primary), and the speaker view fullscreen
  on the primary screen (the laptop). Not presenting, the window stays where
  it is and the speaker view takes another screen.
- **One screen**: the speaker view takes a column at the right
  (``ONE_SCREEN_SPEAKER_SHARE`` of the width, at least ``MIN_SPEAKER_WIDTH_PX``)
  and the audience's window, presenting or not, moves into the rest: the
  speaker view never covers the stage. Presenting, the stage keeps the screen's
  shape there (a smaller copy of the slide, laid out as the slide is, rather
  than a tall narrow one whose tables lose their columns); a window keeps the
  column's whole height for its menus and panels.

Inside the speaker view (``panels``): a top row with the talk clock; in a wide
view the current build large on the left and the next build, then the notes,
on the right (PowerPoint's presenter view); in a narrow one (the column beside
the stage on one screen, where the stage itself is the current build) a row
saying where the talk is, the next build, then the notes. The next build's picture may be folded away
(``next_shown`` False: its heading stays, with the button that brings it back), and the notes then take its
room: on one 1024x768 screen that is more than twice the lines.
"""
from __future__ import annotations


from PySide6.QtCore import QRect, QSize

from engine.frozen import frozen

ONE_SCREEN_SPEAKER_SHARE = 0.38    # on one screen: the speaker's column; the stage keeps the larger part
MIN_SPEAKER_WIDTH_PX = 360         # narrower, the notes' lines would be a few words long
SMALLEST_SPEAKER_WIDTH_PX = 240    # ... but beside a window that cannot be narrower, it makes do with this
WIDE_FROM_ASPECT = 1.2             # a speaker view this much wider than high shows the current build too
CURRENT_SHARE = 0.56               # wide: the current build's share of the width (the rest: next build, notes)
TOP_ROW_SHARE = 0.09               # the clock's row, of the height
NEXT_MAX_HEIGHT_SHARE = 0.45       # the next build at most this share of the height: the notes keep the rest
GAP_PX = 12


@frozen
class Arrangement:
    """Where each window goes. ``audience_rect`` None: the audience window keeps its place (not presenting)
    or is fullscreen on ``audience_screen`` (presenting); a rectangle: it is a normal window there."""
    audience_screen: int
    audience_rect: QRect | None
    speaker_screen: int
    speaker_rect: QRect
    speaker_fullscreen: bool


def arrange(screens: list[QRect], primary: int, window_screen: int, presenting: bool,
            audience_min_width: int = 0) -> Arrangement:
    """The places for ``screens`` (each screen's available area; ``primary`` and ``window_screen`` index it).
    ``audience_min_width``: the narrowest the audience's window can be (a window with its menus and panels);
    on one screen the speaker view then takes less, down to ``SMALLEST_SPEAKER_WIDTH_PX``, never covering it."""
    if len(screens) >= 2:
        audience = window_screen
        if presenting and audience == primary:
            audience = next(n for n in range(len(screens)) if n != primary)
        speaker = primary if primary != audience else next(n for n in range(len(screens)) if n != audience)
        return Arrangement(audience, None, speaker, QRect(screens[speaker]), True)
    area = screens[0]
    speaker_width = min(area.width() // 2, max(MIN_SPEAKER_WIDTH_PX, round(area.width() * ONE_SCREEN_SPEAKER_SHARE)))
    audience_width = max(area.width() - speaker_width,
                         min(audience_min_width, area.width() - SMALLEST_SPEAKER_WIDTH_PX))
    speaker_width = area.width() - audience_width
    audience_height = min(area.height(), round(audience_width * area.height() / area.width())) if presenting \
        else area.height()
    audience_rect = QRect(area.x(), area.y(), audience_width, audience_height)
    speaker_rect = QRect(audience_rect.right() + 1, area.y(), speaker_width, area.height())
    return Arrangement(0, audience_rect, 0, speaker_rect, False)


@frozen
class Panels:
    """The speaker view's parts (its own coordinates); ``current`` None in a narrow view, ``status_row`` None
    in a wide one (where the top row has room for it)."""
    top_row: QRect
    status_row: QRect | None
    current_label: QRect | None
    current: QRect | None
    next_label: QRect
    next: QRect
    notes_bar: QRect
    notes: QRect


def fitted(box: QRect, aspect: float) -> QRect:
    """The largest rectangle of ``aspect`` (width / height) in ``box``, at its top left."""
    width = min(box.width(), round(box.height() * aspect))
    return QRect(box.x(), box.y(), width, round(width / aspect))


def panels(size: QSize, stage_aspect: float, label_height: int, next_shown: bool = True) -> Panels:
    """The parts of a speaker view of ``size``; previews keep the audience stage's ``stage_aspect``; the next
    build's picture folded away (empty) unless ``next_shown``."""
    width, height, gap = size.width(), size.height(), GAP_PX
    top = QRect(gap, gap // 2, width - 2 * gap, max(label_height * 2, round(height * TOP_ROW_SHARE)))
    y = top.bottom() + 1 + gap
    wide = width >= height * WIDE_FROM_ASPECT
    current_label = current = status_row = None
    if not wide:
        status_row = QRect(gap, y, width - 2 * gap, label_height)
        y = status_row.bottom() + 1 + gap
    if wide:
        left_width = round((width - 3 * gap) * CURRENT_SHARE)
        current_label = QRect(gap, y, left_width, label_height)
        current = fitted(QRect(gap, y + label_height, left_width, height - y - label_height - gap), stage_aspect)
        column = QRect(2 * gap + left_width, y, width - 3 * gap - left_width, height - y - gap)
    else:
        column = QRect(gap, y, width - 2 * gap, height - y - gap)
    next_label = QRect(column.x(), column.y(), column.width(), label_height)
    next_box = QRect(column.x(), next_label.bottom() + 1, column.width(),
                     round(height * NEXT_MAX_HEIGHT_SHARE))
    next_preview = fitted(next_box, stage_aspect) if next_shown else QRect(next_box.x(), next_box.y(), 0, 0)
    below_next = next_preview.bottom() + 1 if next_shown else next_label.bottom() + 1
    notes_bar = QRect(column.x(), below_next + gap, column.width(), label_height)
    notes = QRect(column.x(), notes_bar.bottom() + 1, column.width(), max(0, column.bottom() - notes_bar.bottom()))
    return Panels(top, status_row, current_label, current, next_label, next_preview, notes_bar, notes)
