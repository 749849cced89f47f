"""The levers' parts of the conveyor belt: smaller boxes, the tray of tokens and guesses, the KV shelf.

The state's arithmetic is checked without Qt; the widget is checked to draw the parts where the layout
keeps them (no label moves, none is added), and scene 1's picture is unchanged with every part off.
"""
from dataclasses import replace

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage

from engine.levers.speculative import tokens_per_pass
from widgets.conveyor_belt import ConveyorBelt
from widgets.conveyor_layout import BENCH_HEIGHT, BENCH_WIDTH
from widgets.conveyor_levers import crate_rects, smaller, tray_rects
from widgets.conveyor_state import (
    TRAY_CAP_TOKENS, ConveyorState, KvShelf, cycle_screen_seconds, guesses_kept, shelf_slots, tray_at, tray_capacity,
    work_screen_seconds,
)
from widgets.theme import THEMES

LABELS = {"warehouse": "Warehouse = HBM", "belt": "Belt = HBM bandwidth", "worker": "Worker = compute",
          "idle": "idle 98.8%", "busy": "busy 1.17%", "step": "4 guesses a box, 3.36 tokens kept"}


def state(**parts) -> ConveyorState:
    """An H800 at FP16 decoding at batch 1 (the engine's intensity and utilisation, rounded), with ``parts``."""
    return ConveyorState(3.35e12, 989e12, 1.02, 0.0024, labels=dict(LABELS), compact=True, **parts)


def test_scene_1s_state_draws_no_part_of_any_lever():
    plain = state()
    assert plain.box_size_share == 1.0 and plain.shelf is None and tray_at(plain, 3.0) is None
    assert tray_capacity(plain) == 0


@pytest.mark.parametrize("k, a", [(4, 0.8), (2, 0.5), (7, 0.75), (16, 0.9), (1, 0.0)])
def test_kept_guesses_average_the_expected_tokens_per_pass(k, a):
    s = state(guesses_per_box=k, acceptance=a)
    kept = [guesses_kept(s, box) + 1 for box in range(4000)]     # plus the target's own token
    assert all(1 <= n <= k + 1 for n in kept)
    assert sum(kept) / len(kept) == pytest.approx(tokens_per_pass(a, k), rel=0.04)


def test_the_verdict_is_the_same_on_every_frame_of_a_box():
    s = state(guesses_per_box=4, acceptance=0.7)
    cycle, work = cycle_screen_seconds(s), work_screen_seconds(s)
    for box in range(20):
        early, late = (tray_at(s, box * cycle + work + f * (cycle - work)) for f in (0.05, 0.45))
        assert early == late and early.kept + early.thrown == 5 and early.drafted == 0
        assert early.kept == guesses_kept(s, box) + 1


def test_while_he_waits_the_worker_drafts_the_next_guesses_one_by_one():
    s = state(guesses_per_box=4, acceptance=0.7)
    cycle, work = cycle_screen_seconds(s), work_screen_seconds(s)
    drafted = [tray_at(s, 3 * cycle + work + f * (cycle - work)).drafted for f in (0.55, 0.7, 0.85, 0.99)]
    assert drafted == sorted(drafted) and drafted[0] >= 1 and drafted[-1] == 4
    checking = tray_at(s, 4 * cycle + work / 2)
    assert checking.drafted == 4 and checking.kept == checking.thrown == 0


def test_one_box_yields_a_token_for_every_sequence_of_the_batch():
    s = state(sequences_per_box=12)
    cycle, work = cycle_screen_seconds(s), work_screen_seconds(s)
    assert tray_at(s, 2 * cycle + work + 0.01).kept == 12
    assert 1 <= tray_at(s, 2 * cycle + work / 3).kept < 12             # they land as he works the box
    assert tray_at(state(sequences_per_box=500), 1.0).kept == TRAY_CAP_TOKENS == tray_capacity(state(sequences_per_box=500))


def test_the_tray_fits_between_the_bench_legs_and_its_tokens_keep_one_size():
    class Layout:                                       # where the bench stands is all the tray needs
        bench = QRectF(1000, 500, BENCH_WIDTH, BENCH_HEIGHT)
    for count in (1, 5, 17, TRAY_CAP_TOKENS):
        rects = tray_rects(Layout, count)
        assert len(rects) == count and len({(r.width(), r.height()) for r in rects}) == 1
        inner = Layout.bench.adjusted(14, 16, -14, 0)
        assert all(inner.contains(r) for r in rects)
        assert not any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1:])
    assert tray_rects(Layout, 5)[0].width() > 2 * tray_rects(Layout, 30)[0].width()


def test_the_shelf_holds_as_many_crates_as_its_room_and_a_reservation_too_large_runs_off_it():
    assert shelf_slots(KvShelf(held_share=1 / 30, used_share=0.99, paged=True)) == 30
    assert shelf_slots(KvShelf(held_share=0.2, used_share=0.01)) == 5
    assert shelf_slots(KvShelf(held_share=2.9, used_share=0.01)) == 1
    pages = crate_rects(0, 300, 0, 40, KvShelf(1 / 30, 0.99, True))
    assert len(pages) == 30 and pages[-1][0].right() <= 300 + 1e-6 and not any(open_end for *_, open_end in pages)
    assert all(used.width() >= 0.95 * crate.width() for crate, used, _ in pages)
    (crate, used, runs_off), = crate_rects(0, 300, 0, 40, KvShelf(2.9, 0.0114))
    assert runs_off and crate.width() == 300 and used.width() == pytest.approx(300 * 0.0114 * 2.9)


def test_a_smaller_box_stands_where_the_full_one_stood():
    box = QRectF(10, 20, 40, 40)
    assert smaller(box, 1.0) is box
    half = smaller(box, 0.5)
    assert half.bottom() == box.bottom() and half.center().x() == box.center().x() and half.width() == 20


def _image(belt: ConveyorBelt) -> QImage:
    return belt.grab().toImage()


@pytest.mark.parametrize("size", [(300, 200), (960, 540), (1920, 1080)])
def test_the_levers_parts_change_pixels_but_no_label(qtbot, size):
    belt = ConveyorBelt(THEMES["light"])
    qtbot.addWidget(belt)
    belt.resize(*size)
    belt.set_seconds(2.2)
    belt.set_state(state())
    plain_labels, plain = belt.label_rects(), _image(belt)
    for parts in ({"box_size_share": 0.5}, {"sequences_per_box": 30}, {"guesses_per_box": 4, "acceptance": 0.8},
                  {"shelf": KvShelf(2.9, 0.0114)}, {"shelf": KvShelf(1 / 30, 0.99, True)}):
        belt.set_state(replace(state(), **parts))
        assert belt.label_rects() == plain_labels, parts
        assert _image(belt) != plain, parts
