"""Share bars: the hero figure and labelled parts, at or above the floor, dropped (never shrunk) when small."""
from __future__ import annotations

import math
from dataclasses import replace

import pytest

from widgets.share_bars import ShareBars
from widgets.share_bars_state import BarPart, BarRow, ShareBarsState, clamp_share, drawn_shares
from widgets.theme import THEMES, for_screen

STATE = ShareBarsState(
    rows=(BarRow("request", "Time of one request", (BarPart("prefill", 0.01, "Prefill 1%", "compute"),
                                                   BarPart("decode", 0.99, "Decode 99%", "memory", "hatched"))),
          BarRow("compute", "GPU compute during decode", (BarPart("busy", 0.002, "busy 0.2%", "good"),
                                                         BarPart("idle", 0.998, "idle 99.8%", "warning", "hatched")))),
    headline="Compute idle during decode: 99.8%")


@pytest.fixture
def bars(qtbot):
    widget = ShareBars(for_screen(THEMES["light"], 1080))
    qtbot.addWidget(widget)
    widget.set_state(STATE)
    return widget


def drawn(widget, w, h):
    widget.resize(w, h)
    widget.grab()
    return widget.drawn_texts()


def test_a_roomy_picture_draws_every_text_inside_above_the_floor_and_apart(bars):
    texts = drawn(bars, 1200, 500)
    assert [t.text for t in texts if not t.key.startswith("part.")] == [STATE.headline, "Time of one request",
                                                         "GPU compute during decode"]
    assert {t.text for t in texts if t.key.startswith("part.")} == {"Prefill 1%", "Decode 99%", "busy 0.2%", "idle 99.8%"}
    floor = bars.theme.text_floor_px
    for n, a in enumerate(texts):
        assert a.px >= floor and bars.rect().toRectF().contains(a.rect)
        for b in texts[n + 1:]:
            assert not a.rect.intersects(b.rect)


def test_a_small_picture_drops_part_labels_then_titles_never_shrinking_below_the_floor(bars):
    texts = drawn(bars, 500, 170)
    assert not any(t.key.startswith("part.") for t in texts) and texts
    assert all(t.px >= bars.theme.text_floor_px for t in texts)
    assert drawn(bars, 300, 40) == [] or all(t.px >= bars.theme.text_floor_px for t in drawn(bars, 300, 40))


def test_a_sliver_label_gives_way_to_the_large_parts_label(bars):
    state = ShareBarsState((BarRow("r", "", (BarPart("a", 0.5, "a label that is rather long"),
                                             BarPart("b", 0.5, "another long label here"))),))
    bars.set_state(state)
    texts = drawn(bars, 260, 200)
    assert len([t for t in texts if t.key.startswith("part.")]) <= 2
    for n, a in enumerate(texts):
        for b in texts[n + 1:]:
            assert not a.rect.intersects(b.rect)


def test_grow_draws_every_part_at_its_share_of_the_way_and_the_total_never_passes_the_bar():
    row = BarRow("r", "", (BarPart("a", 0.7), BarPart("b", 0.7), BarPart("c", math.nan)))
    assert drawn_shares(row, 1.0) == pytest.approx((0.7, 0.3, 0.0))
    assert drawn_shares(row, 0.5) == pytest.approx((0.35, 0.15, 0.0))
    assert clamp_share(float("inf")) == 0.0 and clamp_share(-1) == 0.0


def test_every_theme_paints_its_colours_and_the_reveal_at_its_share(bars):
    """In each theme, a third of the way into the reveal: every text, the background, and each solid part
    filled in its role's colour, the parts together 0.3 of the bar."""
    bars.resize(1200, 500)
    for theme in THEMES.values():
        bars.set_theme(for_screen(theme, 768))
        bars.set_state(replace(STATE, grow=0.3))
        image = bars.grab().toImage()
        assert [t.text for t in bars.drawn_texts() if not t.key.startswith("part.")] == [STATE.headline, "Time of one request",
                                                                         "GPU compute during decode"]
        assert image.pixelColor(1, 1) == bars.theme.color("background")
        laid, _ = bars.layout_now()
        solid = 0
        for (outline, parts), row in zip(laid, STATE.rows):
            assert sum(rect.width() for rect, _, _ in parts) == pytest.approx(0.3 * outline.width(), abs=2 * 3.0)
            for (rect, role, pattern), part in zip(parts, row.parts):
                assert (role, pattern) == (part.role, part.pattern)
                if pattern == "solid":
                    centre = rect.center()
                    assert image.pixelColor(int(centre.x()), int(centre.y())) == bars.theme.color(role), role
                    solid += 1
        assert solid == 2                # prefill and busy: the hatched parts are tints (the test below)


def _common_colour(image, rect):
    from collections import Counter
    centre = rect.center()
    return Counter(image.pixel(int(centre.x()) + dx, int(centre.y()) + dy)
                   for dx in range(-20, 20) for dy in range(-3, 3)).most_common(1)[0][0]


def test_a_kind_of_fill_looks_the_same_in_share_bars_and_ratio_bars(qtbot):
    """The summary shows both side by side: one ``bar_paint`` fills both, so "hatched" is one tint and pattern."""
    from widgets.ratio_bars import RatioBars
    from widgets.ratio_bars_state import Bar, RatioBarsState
    theme = for_screen(THEMES["light"], 768)
    share = ShareBars(theme)
    ratio = RatioBars(theme)
    for widget in (share, ratio):
        qtbot.addWidget(widget)
        widget.resize(600, 300)
    share.set_state(ShareBarsState((BarRow("r", "", (BarPart("p", 1.0, "", "compute", "hatched"),)),)))
    ratio.set_state(RatioBarsState((Bar("", 1.0, "", "hatched", "compute"),)))
    share_rect = share.layout_now()[0][0][1][0][0]
    ratio_rect = ratio.bar_rects()[0]
    assert _common_colour(share.grab().toImage(), share_rect) == _common_colour(ratio.grab().toImage(), ratio_rect)


def test_pens_and_patterns_grow_with_the_screen():
    from widgets.bar_paint import line_scale, pen_px
    small, large = for_screen(THEMES["dark"], 768), for_screen(THEMES["dark"], 2160)
    assert line_scale(small) == 1.0 and pen_px(small, 1.0) == 1.0
    assert line_scale(large) == pytest.approx(large.floor_px / 18) and pen_px(large, 1.0) > 2.5
