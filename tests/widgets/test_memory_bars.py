"""The memory bars: segments to scale, overflow past the line, readable texts that never overlap, exact ends."""
from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from widgets.memory_bars import MemoryBars
from widgets.memory_bars_state import (
    GpuBar, MemoryBarsState, Segment, aligned_start, motion_values, overflows, with_motion_values,
)
from widgets.theme import THEMES, for_screen
from widgets.transition import TRANSITION_SECONDS

GB = 1e9


def bar(name="GPU 1", weights=70 * GB, kv=0.5 * GB, runtime=1.2 * GB, capacity=80 * GB, capacity_label="80 GB"):
    used = weights + kv + runtime
    return GpuBar(name, capacity, (
        Segment("weights", weights, f"Weights {weights / GB:.3g} GB", f"{weights / GB:.3g} GB"),
        Segment("kv", kv, f"KV cache {kv / GB:.3g} GB", f"{kv / GB:.3g} GB"),
        Segment("runtime", runtime, f"Runtime {runtime / GB:.3g} GB", f"{runtime / GB:.3g} GB")),
        free_label=f"Free {(capacity - used) / GB:.3g} GB" if used <= capacity else "",
        over_label=f"{(used - capacity) / GB:.3g} GB over" if used > capacity else "",
        capacity_label=capacity_label)


def state(n=1, scale=150 * GB, **kwargs):
    bars = tuple(bar(name=f"GPU {i + 1}", capacity_label="80 GB" if i == 0 else "", **kwargs) for i in range(n))
    return MemoryBarsState(bars, scale, link_label="NVLink 4 · 400 GB/s" if n > 1 else "",
                           title="Llama 3.1 70B at FP16 on one H800", footer="Does not fit: 62.8 GB over")


def make(qtbot, size=(760, 520), screen_height=768, theme="light"):
    widget = MemoryBars(for_screen(THEMES[theme], screen_height))
    qtbot.addWidget(widget)
    widget.resize(*size)
    return widget


def painted(widget):
    widget.grab()
    return widget.drawn_texts()


def assert_readable(widget, texts):
    floor = widget._theme.text_floor_px
    inside = widget.rect().toRectF().adjusted(-0.5, -0.5, 0.5, 0.5)
    for text in texts:
        assert text.px >= floor, (text.key, text.px, floor)
        assert inside.contains(text.rect), (text.key, text.rect, inside)
    for a, b in itertools.combinations(texts, 2):
        assert not a.rect.intersected(b.rect).isValid() or a.rect.intersected(b.rect).isEmpty(), (a.key, b.key)


def test_segments_are_drawn_to_scale_and_stacked_bottom_up(qtbot):
    widget = make(qtbot)
    widget.set_state(state(weights=40 * GB, kv=10 * GB, runtime=5 * GB))
    placed = widget.placed()
    heights = {key: rect.height() for _, key, rect in placed.segments}
    per_byte = heights["weights"] / (40 * GB)
    assert heights["kv"] == pytest.approx(10 * GB * per_byte)
    assert heights["runtime"] == pytest.approx(5 * GB * per_byte)
    rects = [rect for _, _, rect in placed.segments]
    assert all(upper.bottom() == pytest.approx(lower.top()) for lower, upper in zip(rects, rects[1:]))
    assert placed.capacity_lines[0][0] == pytest.approx(rects[0].bottom() - 80 * GB * per_byte)


# With 0.5 GB of KV and 1.2 GB of runtime on an 80 GB card (whole bytes, so that the sums are exact):
# (weights, what is left above the stack (+) or past the line (-)).
@pytest.mark.parametrize("weights_bytes, left_bytes", [
    (30_000_000_000, 48_300_000_000),      # room to spare
    (78_200_000_000, 100_000_000),          # just fits: 0.1 GB free
    (78_300_000_000, 0),                    # exactly full: fits, nothing free and nothing over
    (78_400_000_000, -100_000_000),         # just over: 0.1 GB past the line
    (141_000_000_000, -62_700_000_000),     # the seed's 70B at FP16 on one card
])
def test_overflow_is_drawn_exactly_when_the_stack_passes_the_capacity(qtbot, weights_bytes, left_bytes):
    widget = make(qtbot)
    shown = state(weights=weights_bytes, kv=500_000_000, runtime=1_200_000_000, capacity=80_000_000_000)
    widget.set_state(shown)
    placed = widget.placed()
    assert overflows(shown.bars[0]) == (left_bytes < 0)
    per_byte = placed.segments[0][2].height() / weights_bytes
    assert placed.free[0].height() == pytest.approx(max(left_bytes, 0) * per_byte, abs=1e-6)
    assert placed.overflow[0].height() == pytest.approx(max(-left_bytes, 0) * per_byte, abs=1e-6)
    assert placed.free[0].isEmpty() == (left_bytes <= 0) and placed.overflow[0].isEmpty() == (left_bytes >= 0)
    keys = {text.key for text in painted(widget)}
    assert ("column.over" in keys) == (left_bytes < 0) and ("column.free" in keys) == (left_bytes > 0)


@pytest.mark.parametrize("n", [1, 2, 4, 8])
@pytest.mark.parametrize("size, screen", [((760, 520), 768), ((1420, 760), 1080), ((330, 520), 768)])
def test_one_to_eight_bars_lay_out_readable_and_apart(qtbot, n, size, screen):
    widget = make(qtbot, size, screen)
    widget.set_state(state(n, weights=141 * GB / n, kv=0.5 * GB / n))
    texts = painted(widget)
    assert_readable(widget, texts)
    keys = {text.key for text in texts}
    assert "column.weights" in keys and "capacity" in keys
    placed = widget.placed()
    bar_rects = [rect for b, key, rect in placed.segments if key == "weights"]
    assert len(bar_rects) == n
    assert all(a.right() <= b.left() for a, b in zip(bar_rects, bar_rects[1:]))
    if n > 1 and size[0] > 400:
        assert "link" in keys


def test_a_transition_eases_and_ends_exactly_at_the_target(qtbot):
    widget = make(qtbot)
    start, target = state(weights=141 * GB), state(weights=70.553706496 * GB, kv=0.49152 * GB)
    widget.show_state(start, 0.0, animate=False)
    widget.show_state(target, 10.0)
    widget.set_seconds(10.0 + TRANSITION_SECONDS / 2)
    middle = widget.shown_state().bars[0].segments[0].bytes
    assert 70.553706496 * GB < middle < 141 * GB and widget.animating()
    widget.set_seconds(10.0 + TRANSITION_SECONDS + 0.01)
    assert widget.shown_state() is target and not widget.animating()
    assert widget.shown_state().bars[0].segments[0].bytes == 70.553706496 * GB


def test_a_retarget_mid_way_starts_from_where_the_bars_are(qtbot):
    widget = make(qtbot)
    widget.show_state(state(weights=100 * GB), 0.0, animate=False)
    widget.show_state(state(weights=20 * GB), 1.0)
    widget.set_seconds(1.0 + TRANSITION_SECONDS / 2)
    here = widget.shown_state().bars[0].segments[0].bytes
    final = state(weights=60 * GB)
    widget.show_state(final, 1.0 + TRANSITION_SECONDS / 2)
    assert widget.shown_state().bars[0].segments[0].bytes == pytest.approx(here)
    widget.set_seconds(5.0)
    assert widget.shown_state() is final


def test_new_bars_grow_in_and_end_exact(qtbot):
    widget = make(qtbot)
    widget.show_state(state(1, weights=141 * GB), 0.0, animate=False)
    two = state(2, weights=70.5 * GB)
    widget.show_state(two, 1.0)
    assert len(widget.shown_state().bars) == 2
    assert widget.shown_state().bars[1].segments[0].bytes == 0.0       # the new bar starts empty
    widget.set_seconds(1.0 + TRANSITION_SECONDS)
    assert widget.shown_state() is two


def test_motion_values_round_trip():
    shown = state(3, weights=12.5 * GB)
    assert with_motion_values(shown, motion_values(shown)) == shown
    assert aligned_start(None, shown) is shown


def test_a_value_changing_every_frame_needs_no_new_layout(qtbot):
    widget = make(qtbot)
    widget.set_state(state(2, kv=1 * GB))
    widget.grab()
    frame = widget._frame
    for step in range(1, 30):
        widget.set_state(state(2, kv=(1 + step * 0.1) * GB))
        assert widget.placed().segments[1][2].height() > 0
    widget.grab()
    assert widget._frame is frame
    assert_readable(widget, widget.drawn_texts())


def test_kv_split_into_sequences_draws_one_band_each(qtbot):
    widget = make(qtbot)
    shown = state(1, weights=20 * GB, kv=40 * GB)
    widget.set_state(MemoryBarsState(shown.bars, shown.scale_bytes, kv_sequences=4,
                                     labels={"sequences": "one band per sequence"}))
    placed = widget.placed()
    assert len(placed.sequence_lines) == 3
    assert "sequences" in {text.key for text in painted(widget)}


def test_no_bars_still_says_why(qtbot):
    widget = make(qtbot)
    widget.set_state(MemoryBarsState((), 100 * GB, footer="Refused: 3 GPUs cannot share 64 heads",
                                     footer_role="warning"))
    texts = painted(widget)
    assert [text.key for text in texts] == ["footer"]


def test_projector_theme_keeps_its_higher_floor(qtbot):
    widget = make(qtbot, (760, 520), 768, "projector")
    widget.set_state(state(4, weights=35 * GB))
    texts = painted(widget)
    assert texts and all(text.px >= widget._theme.text_floor_px > 18 for text in texts)
    assert_readable(widget, texts)


@pytest.mark.parametrize("n", [1, 2, 8])
@pytest.mark.parametrize("weights, kv, capacity", [
    (1e9, 5e15, 80 * GB),            # a KV cache of petabytes: the card is a sliver at the bottom
    (1e3, 0.0, 80 * GB),             # almost nothing on the card
    (80 * GB, 0.0, 80 * GB - 1.2 * GB),   # exactly full
])
def test_extreme_stacks_stay_readable(qtbot, n, weights, kv, capacity):
    widget = make(qtbot)
    shown = state(n, weights=weights, kv=kv, capacity=capacity)
    widget.set_state(shown)
    texts = painted(widget)
    assert_readable(widget, texts)
    assert "capacity" in {text.key for text in texts}


@pytest.mark.parametrize("language_name", ["each of 2 × NVIDIA H800 SXM5", "每张 NVIDIA H800 SXM5（共 2 张）"])
def test_one_bars_name_uses_the_width_to_say_it_is_one_card(qtbot, language_name):
    widget = make(qtbot, size=(480, 820), screen_height=1080)
    one = replace(bar(), name=language_name)
    widget.set_state(MemoryBarsState((one,), 90 * GB))
    texts = painted(widget)
    names = [t for t in texts if t.key == "name.0"]
    assert names and names[0].text.replace("\n", "") == language_name
    assert_readable(widget, texts)


def test_a_narrow_bar_keeps_its_capacity_and_labels(qtbot):
    widget = make(qtbot, size=(207, 560), screen_height=768)
    widget.set_state(MemoryBarsState((bar(),), 90 * GB))
    texts = painted(widget)
    keys = {t.key for t in texts}
    assert {"capacity", "column.weights", "column.free"} <= keys, keys
    assert_readable(widget, texts)
