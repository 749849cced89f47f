"""The request timeline draws one request to scale, groups what it cannot draw, and keeps its text readable."""
from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import QRectF

from widgets.request_timeline import MIN_BLOCK_PX, RequestTimeline
from widgets.request_timeline_state import (
    ZOOM_STEPS_MAX, ZOOM_STEPS_MIN, Cell, TableState, TimelineState, blocks_for_width, group_blocks, rows_kept,
    ZOOM_PREFILL_SHARE_MAX, tokens_per_group, zoom_steps, zoom_window,
)
from widgets.request_timeline_table import RequestTable
from widgets.theme import THEMES, for_screen

LABELS = {
    "scale": "one request, to scale", "start": "0", "end": "15 s", "zoom": "enlarged: the first 325 ms",
    "prefill_block": "prefill: 1,000 tokens in one pass, 146 ms",
    "decode_block": "decode: 499 passes, one token each, 14.9 s",
    "decode_step": "decode: one token per pass, 29.8 ms each",
    "prefill_bound": "compute-bound: 47.9% of peak compute", "decode_bound": "memory-bound: 0.241% of peak compute",
    "strip": "compute in use (full = peak)",
}


def state(prefill=0.146, step=0.0298, steps=499, **extra) -> TimelineState:
    return TimelineState(prefill, step, steps, 0.479, 0.00241, labels=dict(LABELS),
                         group_text=lambda n: f"1 block = {n} tokens", **extra)


@pytest.mark.parametrize("steps", [0, 1, 7, 499, 100_000, 9_999_998])
@pytest.mark.parametrize("width", [300.0, 1000.0, 1900.0])
def test_blocks_add_up_to_the_request_and_none_is_too_narrow(steps, width):
    s = state(steps=steps)
    blocks = blocks_for_width(s, width, MIN_BLOCK_PX)
    assert blocks[0].phase == "prefill" and blocks[0].seconds == s.prefill_seconds
    decode = blocks[1:]
    assert sum(b.tokens for b in decode) == steps
    assert sum(b.seconds for b in blocks) == pytest.approx(s.total_seconds, rel=1e-9)
    for block in decode:
        assert block.seconds == pytest.approx(block.tokens * s.decode_step_seconds)
    if len(decode) > 1:
        assert decode[0].seconds / s.total_seconds * width >= MIN_BLOCK_PX
    assert len(decode) <= width / MIN_BLOCK_PX + 1
    for a, b in itertools.pairwise(blocks):
        assert b.start_seconds == pytest.approx(a.end_seconds)


def test_wide_enough_steps_are_drawn_one_by_one():
    assert tokens_per_group(step_px=20.0, min_block_px=6.0, steps=50) == 1
    assert tokens_per_group(step_px=2.8, min_block_px=6.0, steps=499) == 5
    assert [b.tokens for b in group_blocks(state(steps=12), 12, 5)[1:]] == [5, 5, 2]


@pytest.mark.parametrize("prefill, step", [(0.146, 0.0298), (0.0001, 0.03), (30.0, 0.08), (0.5, 0.5)])
def test_the_zoom_shows_the_end_of_prefill_and_a_few_steps_wide_enough_to_see(prefill, step):
    s = state(prefill=prefill, step=step)
    n = zoom_steps(s)
    assert ZOOM_STEPS_MIN <= n <= ZOOM_STEPS_MAX
    start, end = zoom_window(s)
    assert end == pytest.approx(prefill + n * step)
    assert 0 <= start < prefill
    assert (prefill - start) / (end - start) <= ZOOM_PREFILL_SHARE_MAX + 1e-9     # prefill never crowds the steps out
    assert start == 0 or (prefill - start) / (end - start) == pytest.approx(ZOOM_PREFILL_SHARE_MAX)
    blocks = blocks_for_width(s, 1000.0, MIN_BLOCK_PX, zoom=True)
    assert [b.tokens for b in blocks[1:]] == [1] * n          # every zoomed step its own block


def test_a_request_without_decode_steps_has_no_zoomed_steps():
    assert zoom_steps(state(steps=0)) == 0


def _check_texts(widget, floor: float) -> list:
    drawn = widget.drawn_texts()
    bounds = QRectF(widget.rect()).adjusted(-0.5, -0.5, 0.5, 0.5)
    for text in drawn:
        assert text.px >= floor, text
        assert bounds.contains(text.rect), text
    for a, b in itertools.combinations(drawn, 2):
        assert not a.rect.intersected(b.rect).adjusted(0.5, 0.5, -0.5, -0.5).isValid(), (a, b)
    return drawn


@pytest.mark.parametrize("size, screen", [((1000, 300), 768), ((1880, 520), 1080), ((600, 260), 768)])
def test_timeline_text_is_above_the_floor_inside_and_never_overlaps(qtbot, size, screen):
    theme = for_screen(THEMES["light"], screen)
    widget = RequestTimeline(theme)
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.set_state(state())
    widget.grab()
    drawn = _check_texts(widget, theme.text_floor_px)
    keys = {t.key for t in drawn}
    if size[0] >= 1000:
        assert {"decode_block", "prefill_block", "end", "groups"} <= keys
        group = widget.layout_now().main_blocks[1].tokens
        assert group > 1 and any(t.key == "groups" and t.text == f"1 block = {group} tokens" for t in drawn)


def test_the_utilisation_strip_appears_only_for_the_phases_named(qtbot):
    theme = for_screen(THEMES["light"], 768)
    widget = RequestTimeline(theme)
    qtbot.addWidget(widget)
    widget.resize(1000, 300)
    widget.set_state(state(strip_phases=frozenset({"prefill"})))
    image = widget.grab().toImage()
    layout = widget.layout_now()
    strip = layout.zoom_strip
    prefill_x = strip.left() + 5
    y = round(strip.bottom() - 5)
    assert image.pixelColor(round(prefill_x), y) == theme.color("compute")      # prefill ~48% full: filled here
    decode_x = round(strip.right() - 20)
    assert image.pixelColor(decode_x, y) == theme.color("background")         # decode not drawn yet


def test_printed_in_grey_prefill_and_decode_still_differ_by_texture(qtbot):
    """In a black-and-white handout the two colours turn into much the same grey: decode's blocks are hatched,
    prefill's solid, so a reader tells them apart without reading the labels."""
    from widgets.request_timeline_state import x_of
    theme = for_screen(THEMES["light"], 1080)
    widget = RequestTimeline(theme)
    qtbot.addWidget(widget)
    widget.resize(1880, 520)
    widget.set_state(state())
    image = widget.grab().toImage()
    layout = widget.layout_now()
    shown = state()
    bar, window = layout.zoom_bar, zoom_window(shown)

    def greys(x0: float, x1: float) -> set[int]:
        """The grey levels in a band of the zoom bar clear of its labels (between the words and the edge)."""
        y0, y1 = round(bar.top() + 2), round(bar.top() + bar.height() * 0.2)
        return {image.pixelColor(x, y).lightness() for x in range(round(x0), round(x1)) for y in range(y0, y1)}
    split = x_of(shown.prefill_seconds, window, bar.left(), bar.width())
    prefill, decode = greys(bar.left() + 4, split - 4), greys(split + 8, split + 60)
    assert len(prefill) == 1                       # one flat grey
    assert max(decode) - min(decode) > 40          # a pattern: light lines across the dark


def table(**extra) -> TableState:
    rows = tuple((Cell(f"{b}", key=f"{b}.batch"), Cell("1.84%", bar=0.0184), Cell("31.2 ms"), Cell("memory-bound"),
                  Cell("32.5×", key=f"{b}.price")) for b in (1, 8, 64, 256, 987))
    return TableState(("batch", "compute in use", "time per token", "bound", "output ÷ input price"), rows,
                      figure_label="decode turns compute-bound at batch", figure_value="987",
                      figure_note="33 sequences fit in memory", **extra)


def test_rows_left_out_are_never_the_essential_ones():
    t = table(essential_rows=frozenset({0, 4}))
    assert rows_kept(t, 5) == (0, 1, 2, 3, 4)
    assert rows_kept(t, 3) == (0, 1, 4)
    assert rows_kept(t, 2) == (0, 4)


@pytest.mark.parametrize("size, screen", [((1000, 260), 768), ((1880, 420), 1080), ((700, 200), 768)])
def test_table_keeps_its_text_readable_and_draws_no_hidden_column(qtbot, size, screen):
    theme = for_screen(THEMES["light"], screen)
    widget = RequestTable(theme)
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.set_state(table(hidden_columns=frozenset({4}), essential_rows=frozenset({4})))
    widget.grab()
    drawn = _check_texts(widget, theme.text_floor_px)
    texts = [t.text for t in drawn]
    assert "32.5×" not in texts and "output ÷ input price" not in texts
    assert "987" in texts                                  # the essential row, and the figure


def test_columns_sized_for_their_widest_texts_keep_their_place_when_a_cell_widens(qtbot):
    """A cell that grows within its column's ``widest`` texts (a batch of 4,096 after one of 7) moves no column:
    the header is drawn where it was."""
    widget = RequestTable(for_screen(THEMES["light"], 1080))
    qtbot.addWidget(widget)
    widget.resize(1880, 420)
    widest = (("4,096*",), ("0.888%",), ("88.8 ms",), ("memory-bound", "compute-bound"), ("88.8×",))
    headers = []
    for batch, bound in (("7", "memory-bound"), ("4,096*", "compute-bound")):
        state = table(widest=widest)
        state = TableState(state.header, ((Cell(batch), Cell("1.84%"), Cell("31.2 ms"), Cell(bound), Cell("3×")),)
                           + state.rows[1:], widest=widest)
        widget.set_state(state)
        widget.grab()
        headers.append([t for t in widget.drawn_texts() if t.key.startswith("header.")])
    assert headers[0] and headers[0] == headers[1]


def test_a_column_named_first_in_drop_order_goes_first(qtbot):
    theme = for_screen(THEMES["light"], 768)
    widget = RequestTable(theme)
    qtbot.addWidget(widget)
    widget.resize(760, 260)
    widget.set_state(table(drop_order=(3, 2)))
    widget.grab()
    keys = {t.key for t in widget.drawn_texts()}
    texts = {t.text for t in widget.drawn_texts()}
    assert "1.price" in keys and "memory-bound" not in texts


def test_a_gauge_takes_the_colour_of_its_bound_and_stays_inside_its_row(qtbot):
    theme = for_screen(THEMES["projector"], 1080)
    widget = RequestTable(theme)
    qtbot.addWidget(widget)
    widget.resize(1400, 420)
    rows = (
        (Cell("1"), Cell("0.241%", bar=0.5, key="1.busy", bar_role="memory")),
        (Cell("987"), Cell("31.9%", bar=0.5, key="987.busy", bar_role="compute")),
    )
    widget.set_state(TableState(("batch", "compute in use"), rows, highlight_row=0))
    image = widget.grab().toImage()
    layout = widget._lay_out()
    (memory_track, _, memory_role), (compute_track, _, compute_role) = layout.bars
    assert (memory_role, compute_role) == ("memory", "compute")
    for track, role in ((memory_track, "memory"), (compute_track, "compute")):
        x, y = round(track.left() + 3), round(track.center().y())
        assert image.pixelColor(x, y) == theme.color(role)
    frame = layout.highlight
    assert memory_track.bottom() < frame.bottom() - theme.scaled_line_width     # clear of the frame's line


@pytest.mark.parametrize("gap", [1.0, 2.0, 3.0])
@pytest.mark.parametrize("bar", [QRectF(9.0, 44.0, 1830.0, 55.3), QRectF(12.5, 241.37, 1000.45, 61.0)])
def test_the_gaps_in_whole_pixels_cover_what_their_fractional_rectangles_do(qapp, gap, bar):
    """Gaps are handed to Qt in whole pixels (cheaper to fill): the pixels its aliased fill of the exact
    rectangles gives, at every place a block can end."""
    from PySide6.QtGui import QColor, QImage, QPainter
    from PySide6.QtCore import Qt
    from widgets.request_timeline import gap_rects
    from widgets.request_timeline_state import x_of

    s = state(prefill=0.1733, step=0.02917, steps=37)
    blocks, window = blocks_for_width(s, bar.width(), 1.0), (0.0, s.total_seconds)
    exact = [QRectF(x - gap / 2, bar.top() - gap / 2, gap, bar.height() + gap)
             for x in (x_of(b.end_seconds, window, bar.left(), bar.width()) - gap / 2 for b in blocks)
             if x > bar.left()]
    images = []
    for rects in (exact, gap_rects(blocks, window, bar, gap)):
        image = QImage(1900, 320, QImage.Format.Format_RGB32)
        image.fill(QColor("white"))
        painter = QPainter(image)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor("black"))
        painter.drawRects(rects)
        painter.end()
        images.append(image)
    assert len(exact) == len(blocks) and images[0] == images[1]
    assert gap_rects(blocks, window, bar, gap) is gap_rects(blocks, window, bar, gap)      # kept for the blocks


@pytest.mark.parametrize("s", [state(), state(steps=0), state(prefill=9.0, step=0.031), state(prefill=0.0),
                               state(highlight="decode"), state(prefill=0.146, step=1e-6, steps=3)])
@pytest.mark.parametrize("size", [(1848, 428), (1003, 301), (621, 190)])
def test_the_timeline_paints_every_pixel_itself(qtbot, s, size):
    """It paints opaque (the stage is not painted under it) and leaves its background out where the bars cover
    every pixel: no pixel of what was there before survives a paint."""
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QColor, QImage, QPainter, QRegion
    from PySide6.QtWidgets import QWidget
    widget = RequestTimeline(for_screen(THEMES["light"], 1080))
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.set_state(s)
    image = QImage(*size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(255, 0, 255))
    painter = QPainter(image)
    widget.render(painter, QPoint(0, 0), QRegion(), QWidget.RenderFlag.DrawChildren)    # no background of Qt's
    painter.end()
    magenta = QColor(255, 0, 255).rgba()
    assert not any(image.pixel(x, y) == magenta for y in range(size[1]) for x in range(size[0]))
