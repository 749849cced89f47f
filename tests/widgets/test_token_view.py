"""The token view: one outlined chip per token, flowed and cut with "…", byte chips named, ids on demand,
every text at or above the floor, inside the widget, never overlapping."""
from __future__ import annotations

import itertools

import pytest

from widgets.theme import THEMES, for_screen
from widgets.token_view import ELLIPSIS, TokenView
from widgets.token_view_state import Chip, TokenCell, TokenRow, TokenViewState, chips_in


def make(qtbot, size=(900, 420), screen_height=768, theme="light"):
    view = TokenView(for_screen(THEMES[theme], screen_height))
    qtbot.addWidget(view)
    view.resize(*size)
    return view


def cell(words, summary="", cut=False):
    return TokenCell(tuple(Chip(w, "bytes" if w[:2] == "E6" else "text", str(100 + n), n % 2,
                                part_of="⊂推" if w[:2] == "E6" else "") for n, w in enumerate(words)), summary, cut=cut)


def grid(show_ids=False, cut=False):
    rows = (TokenRow("Hello, world!", (cell(["Hello", ",", " world", "!"], "4 tokens"),
                                       cell(["Hello", ",", " world", "!"], "4 tokens"))),
            TokenRow("推理加速", (cell(["推", "理", "加", "速"], "4 tokens"), cell(["E6 8E", "A8", "理"], "9 tokens",
                                                                              cut=cut))))
    return TokenViewState(rows, ("Text", "Seed", "GPT-2"), title="Tokens", footer="Dashed: bytes of one character",
                          show_ids=show_ids)


def check_readable(view):
    view.grab()
    floor = view._theme.text_floor_px
    inside = view.rect().toRectF().adjusted(-0.5, -0.5, 0.5, 0.5)
    drawn = view.drawn_texts()
    for text in drawn:
        assert text.px >= floor, (text.key, text.text)
        assert inside.contains(text.rect), (text.key, text.text, text.rect)
    for a, b in itertools.combinations(drawn, 2):
        overlap = a.rect.intersected(b.rect)
        assert overlap.width() <= 1 or overlap.height() <= 1, (a.key, a.text, b.key, b.text)
    return drawn


@pytest.mark.parametrize("screen", [768, 1080])
@pytest.mark.parametrize("theme", ["light", "projector"])
def test_every_chip_is_drawn_readable_when_it_fits(qtbot, screen, theme):
    view = make(qtbot, (int(screen * 1.3), int(screen * 0.7)), screen, theme)
    view.set_state(grid())
    drawn = check_readable(view)
    assert [d.text for d in drawn if d.key == "chip"] == ["Hello", ",", " world", "!"] * 2 + [
        "推", "理", "加", "速", "E6 8E", "A8", "理"]
    assert {d.key for d in drawn} >= {"title", "header", "row", "footer", "part_of"}
    # each cell's summary keyed by its row and cell: a formula card finds the one it explains (label_rects())
    assert {d.key for d in drawn if d.key.startswith("summary")} == {f"summary.{r}.{c}" for r in (0, 1) for c in (0, 1)}
    rects = [rect for rect, _chip in view.drawn_chips()]
    for a, b in itertools.combinations(rects, 2):
        assert a.intersected(b).isEmpty()


def test_ids_are_drawn_on_demand(qtbot):
    view = make(qtbot)
    view.set_state(grid(show_ids=True))
    ids = [d.text for d in check_readable(view) if d.key == "id"]
    assert ids[:4] == ["100", "101", "102", "103"]
    view.set_state(grid(show_ids=False))
    assert not [d for d in check_readable(view) if d.key == "id"]


def test_too_many_chips_end_with_an_ellipsis_and_stay_in_their_cell(qtbot):
    view = make(qtbot, (700, 300))
    words = [f"w{n}" for n in range(2000)]
    state = TokenViewState((TokenRow("GPT-4", (cell(words, "2,000 tokens"),)),), footer="counts cover all")
    view.set_state(state)
    drawn = check_readable(view)
    chips = [d.text for d in drawn if d.key == "chip"]
    assert chips[-1] == ELLIPSIS and 10 < len(chips) < chips_in(state)
    assert "2,000 tokens" in [d.text for d in drawn if d.key.startswith("summary.")]


def test_a_cut_text_ends_with_an_ellipsis_and_a_huge_token_is_cut_to_the_cell(qtbot):
    view = make(qtbot, (600, 300))
    view.set_state(TokenViewState((TokenRow("gpt2", (cell(["x" * 500, "y"], "2 tokens", cut=True),)),)))
    chips = [d for d in check_readable(view) if d.key == "chip"]
    assert chips[0].text.endswith(ELLIPSIS) and chips[-1].text == ELLIPSIS


def test_an_empty_state_and_a_tiny_widget_draw_nothing_wrong(qtbot):
    view = make(qtbot, (170, 125))
    view.set_state(TokenViewState(()))
    check_readable(view)
    view.set_state(grid())
    check_readable(view)
