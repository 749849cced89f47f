"""The KV-cache widgets draw the states they are handed: readable, never overlapping, dropping texts in order."""
from __future__ import annotations

import dataclasses
import itertools

import pytest

from widgets.kv_factors import KvFactors
from widgets.kv_factors_state import Comparison, Factor, KvFactorsState, bar_share
from widgets.kv_growth_plot import KvGrowthPlot
from widgets.kv_growth_plot_state import GrowthMark, KvGrowthState, overflows, static_part
from widgets.text_fit import MAX_TEXT_PX
from widgets.kv_sharing import KvSharing
from widgets.kv_sharing_state import KvSharingState, SharingRow, drawn_blocks
from widgets.theme import THEMES, for_screen
from widgets.work_counter import WorkCounter
from widgets.work_counter_state import WorkCounterState

THEME = for_screen(THEMES["light"], 768)
N = 500
NAIVE = tuple(n * (n + 1) / 2 for n in range(N + 1))
CACHED = tuple(float(n) for n in range(N + 1))
WORK_LABELS = {"naive_title": "Without a cache", "naive_count": "125,250 token computations",
               "naive_step": "this step: all 500 tokens computed again", "recomputed": "recomputed",
               "x_axis": "tokens generated", "x_end": "500", "y_axis": "token computations so far",
               "naive_line": "without a cache", "cached_title": "With a KV cache",
               "cached_count": "500 token computations", "cached_step": "this step: 499 read, 1 computed",
               "read": "read from the cache", "cached_line": "with a cache: N", "ratio": "no cache: 250× the work"}
GROWTH = KvGrowthState(
    curve=tuple((float(t), 327680.0 * t) for t in (1, 10, 100, 1000, 2048, 10000, 32768, 100000, 131072)),
    context_tokens=2048.0, context_bytes=327680.0 * 2048,
    marks=(GrowthMark("2k", 2048, 327680.0 * 2048, "2K: 640 MiB"), GrowthMark("32k", 32768, 327680.0 * 32768,
                                                                            "32K: 10 GiB")),
    limit_tokens=50486.0, room_bytes=327680.0 * 50486,
    x_ticks=((1.0, "1"), (1000.0, "1,000"), (100000.0, "100,000")), y_ticks=((2.0 ** 20, "1 MiB"), (2.0 ** 30, "1 GiB")),
    labels={"current": "2,048 tokens: 640 MiB", "limit": "memory runs out at 50,486 tokens", "overflow": "does not fit",
            "room": "KV cache that fits: 15.4 GiB", "x_axis": "context", "y_axis": "KV cache"})


def _shown(qtbot, widget, size):
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.grab()
    return widget.drawn_texts()


def _readable_and_apart(texts, widget):
    for text in texts:
        assert THEME.text_floor_px <= text.px <= MAX_TEXT_PX, text
        assert widget.rect().toRectF().adjusted(-0.5, -0.5, 0.5, 0.5).contains(text.rect), text
    for a, b in itertools.combinations(texts, 2):
        assert a.rect.intersected(b.rect).isEmpty(), (a, b)


@pytest.mark.parametrize("size", [(1024, 560), (1800, 800), (420, 260), (60, 40)])
@pytest.mark.parametrize("cached", [False, True])
def test_work_counter_shows_both_counts_when_there_is_room(qtbot, size, cached):
    widget = WorkCounter(THEME)
    widget.set_state(WorkCounterState(NAIVE, CACHED, N, cached, WORK_LABELS))
    texts = _shown(qtbot, widget, size)
    _readable_and_apart(texts, widget)
    keys = {t.key for t in texts}
    if size[0] >= 1000:
        assert "naive_count" in keys and ("cached_count" in keys) == cached and ("ratio" in keys) == cached
    assert "cached_title" not in keys or cached


def test_work_counter_at_token_zero_and_without_state_paints(qtbot):
    widget = WorkCounter(THEME)
    assert _shown(qtbot, widget, (600, 400)) == []
    widget.set_state(WorkCounterState(NAIVE, CACHED, 0, True, WORK_LABELS))
    widget.grab()


def _factors_state(revealed: float, compare: float = 0.0) -> KvFactorsState:
    factors = (Factor("kv", 2, "2", "K and V", ""), Factor("layers", 80, "80", "layers"),
               Factor("kv_heads", 8, "8", "KV heads"), Factor("head_dim", 128, "128", "values per head"),
               Factor("bytes", 2, "2", "bytes per value"))
    rows = (Comparison("mha", "full multi-head", 2621440, "2.5 MiB"), Comparison("this", "this", 327680, "320 KiB", True),
            Comparison("mla", "latent", 70272, "68.6 KiB"))
    return KvFactorsState(factors, "= 320 KiB per token", revealed, rows if compare else (), compare,
                          {"title": "One token", "compare_title": "By design", "current_mark": "◀ this scenario"})


@pytest.mark.parametrize("revealed", [0, 1, 3, 6])
def test_factor_tiles_show_only_what_is_revealed(qtbot, revealed):
    widget = KvFactors(THEME)
    widget.set_state(_factors_state(revealed))
    texts = _shown(qtbot, widget, (1024, 560))
    _readable_and_apart(texts, widget)
    values = [t.text for t in texts if t.key == "factor_value"]
    assert values == ["2", "80", "8", "128", "2"][:min(revealed, 5)]
    assert any(t.key == "result" for t in texts) == (revealed > 5)


@pytest.mark.parametrize("size", [(880, 560), (1024, 560), (1800, 800)])
def test_every_factor_keeps_the_name_that_says_what_it_counts(qtbot, size):
    """In the window, English dropped "values per head" and "bytes per value" under "128" and "2"."""
    widget = KvFactors(THEME)
    widget.set_state(_factors_state(6))
    texts = _shown(qtbot, widget, size)
    _readable_and_apart(texts, widget)
    assert [t.text for t in texts if t.key == "factor_name"] == ["K and V", "layers", "KV heads", "values per head",
                                                                 "bytes per value"]
    assert any(t.key == "result" for t in texts)


@pytest.mark.parametrize("size", [(1024, 560), (1800, 800), (500, 300)])
def test_comparison_bars_share_one_scale(qtbot, size):
    state = _factors_state(6, 1.0)
    assert bar_share(state, state.comparisons[0]) == 1.0
    assert bar_share(state, state.comparisons[1]) == pytest.approx(0.125)
    widget = KvFactors(THEME)
    widget.set_state(state)
    texts = _shown(qtbot, widget, size)
    _readable_and_apart(texts, widget)
    if size[0] >= 1000:
        assert {"2.5 MiB", "68.6 KiB"} <= {t.text for t in texts}


@pytest.mark.parametrize("size", [(640, 560), (1200, 800), (300, 200)])
def test_growth_plot_keeps_the_moving_point_and_the_limit_readable(qtbot, size):
    widget = KvGrowthPlot(THEME)
    widget.set_state(GROWTH)
    texts = _shown(qtbot, widget, size)
    _readable_and_apart(texts, widget)
    if size[0] >= 600:
        assert {"current", "limit", "mark"} <= {t.key for t in texts}
        # the points sit on the line the curve draws: a mark's pixel is the curve's at its context
        mark = widget.to_pixels(2048, 327680.0 * 2048)
        first, last = widget.to_pixels(*GROWTH.curve[0]), widget.to_pixels(*GROWTH.curve[-1])
        t = (mark.x() - first.x()) / (last.x() - first.x())
        assert mark.y() == pytest.approx(first.y() + t * (last.y() - first.y()), abs=0.5)


def test_moving_the_point_keeps_the_rest_of_the_plot(qtbot):
    moved = dataclasses.replace(GROWTH, context_tokens=100000.0, context_bytes=327680.0 * 100000,
                                labels={**GROWTH.labels, "current": "100,000 tokens: 30.5 GiB"})
    assert static_part(moved) == static_part(GROWTH)
    assert overflows(moved) and not overflows(GROWTH)
    widget = KvGrowthPlot(THEME)
    widget.set_state(moved)
    texts = _shown(qtbot, widget, (900, 600))
    assert "100,000 tokens: 30.5 GiB" in {t.text for t in texts}


def test_sharing_rows_draw_their_conversations(qtbot):
    rows = (SharingRow(1, "1 GPU", 0, "weights alone do not fit", fits=False),
            SharingRow(2, "2 GPUs", 1, "1 conversation", current=True),
            SharingRow(4, "4 GPUs", 16, "16 conversations"), SharingRow(8, "8 GPUs", 45, "45 conversations"))
    state = KvSharingState(rows, 0.5, {"title": "Conversations of 32,768 tokens", "current_mark": "◀ this scenario"})
    assert drawn_blocks(state, rows[3]) == 22.5
    widget = KvSharing(THEME)
    widget.set_state(dataclasses.replace(state, reveal=1.0))
    texts = _shown(qtbot, widget, (900, 560))
    _readable_and_apart(texts, widget)
    shown = {t.text for t in texts}
    assert "weights alone do not fit" in shown and "45 conversations" in shown
