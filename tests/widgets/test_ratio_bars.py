"""The ratio bars: lengths to one scale, a reference line, the price pair the summary reuses, readable labels."""
from __future__ import annotations

import itertools

import pytest

from widgets.ratio_bars import RatioBars
from widgets.ratio_bars_state import Bar, RatioBarsState, bar_share, price_bars_state
from widgets.theme import THEMES, for_screen


def make(qtbot, size=(800, 420), screen_height=768, theme="light"):
    widget = RatioBars(for_screen(THEMES[theme], screen_height))
    qtbot.addWidget(widget)
    widget.resize(*size)
    return widget


def ratios():
    values = {"Qwen2.5": 0.787, "Llama 3": 1.05, "DeepSeek-V3": 0.734, "GPT-4o": 0.993, "GPT-4": 1.44, "GPT-2": 2.47}
    return RatioBarsState(tuple(Bar(k, v, f"{v}×", "hatched" if v > 1 else "solid") for k, v in values.items()),
                          title="Chinese tokens per English token", reference=1.0,
                          reference_label="as many as English", footer="105 pairs",
                          legend=(("solid", "fewer", "good"), ("hatched", "more", "warning")))


def check_readable(widget):
    widget.grab()
    floor = widget._theme.text_floor_px
    inside = widget.rect().toRectF().adjusted(-0.5, -0.5, 0.5, 0.5)
    drawn = widget.drawn_texts()
    for text in drawn:
        assert text.px >= floor and inside.contains(text.rect), (text.key, text.text)
    for a, b in itertools.combinations(drawn, 2):
        overlap = a.rect.intersected(b.rect)
        assert overlap.width() <= 1 or overlap.height() <= 1, (a.key, a.text, b.key, b.text)
    return drawn


@pytest.mark.parametrize("screen", [768, 1080])
@pytest.mark.parametrize("theme", ["light", "projector"])
def test_bars_are_to_scale_and_every_label_is_readable(qtbot, screen, theme):
    widget = make(qtbot, (int(screen * 1.0), int(screen * 0.6)), screen, theme)
    state = ratios()
    widget.set_state(state)
    drawn = check_readable(widget)
    rects = widget.bar_rects()
    longest = max(r.width() for r in rects)
    for rect, bar in zip(rects, state.bars, strict=True):
        assert rect.width() == pytest.approx(longest * bar_share(state, bar) / bar_share(state, state.bars[-1]),
                                             abs=0.5)
    keys = {d.key.split(".")[0] for d in drawn}
    assert keys >= {"title", "label", "value", "reference", "footer", "legend"}
    values = [d for d in drawn if d.key.startswith("value.")]
    assert [d.text for d in values] == [bar.value_label for bar in state.bars]
    # each bar's labels by its place: a formula card finds the value it explains (widget.label_rects())
    assert [d.key for d in values] == [f"value.{n}" for n in range(len(state.bars))]


def test_the_price_pair_shows_input_and_output_with_their_ratio(qtbot):
    state = price_bars_state("Input (prefill)", "Output (decode)", 0.162, 33.1, "$0.162 / M", "$33.1 / M",
                             title="Price of a million tokens", footer="Output costs 205× input.")
    assert [b.value for b in state.bars] == [0.162, 33.1] and {b.kind for b in state.bars} == {"solid", "hatched"}
    widget = make(qtbot, (420, 420))
    widget.set_state(state)
    drawn = check_readable(widget)
    assert {"$0.162 / M", "$33.1 / M"} <= {d.text for d in drawn}
    rects = widget.bar_rects()
    # On scale, except that a tiny value still shows as a sliver (MIN_BAR_PX, scaled with the screen).
    assert rects[1].width() / rects[0].width() == pytest.approx(33.1 / 0.162, rel=0.1) or rects[0].width() <= 4 * 3


def test_no_bars_and_zero_values_draw_without_error(qtbot):
    widget = make(qtbot, (200, 130))
    widget.set_state(RatioBarsState((), title="Loading…"))
    check_readable(widget)
    widget.set_state(RatioBarsState((Bar("a", 0.0, "$0"), Bar("b", 0.0, "$0"))))
    check_readable(widget)
