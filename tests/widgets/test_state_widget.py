"""The shared pieces of the widgets: the state widget base, the theme's whole-pixel floor, the label placer, the fit cache."""
from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import QRectF

from widgets.decode_stepper import DecodeStepper
from widgets.state_widget import StateWidget
from widgets.text_fit import MAX_TEXT_PX, LabelPlacer, RememberedFits, TextMeasure
from widgets.theme import THEMES, for_screen

THEME = for_screen(THEMES["light"], 768)


class Counting(StateWidget):
    def __init__(self, theme):
        super().__init__(theme)
        self.updates = 0

    def update(self):
        self.updates += 1
        super().update()


def test_state_and_theme_repaint_only_when_they_change(qtbot):
    widget = Counting(THEME)
    qtbot.addWidget(widget)
    assert widget.state is None and widget.theme is THEME and widget.drawn_texts() == []
    widget.set_state(("a", 1))
    widget.set_state(("a", 1))
    widget.set_theme(replace(THEME))
    assert widget.updates == 1 and widget.state == ("a", 1)
    widget.set_theme(THEMES["dark"])
    assert widget.updates == 2 and widget.theme is THEMES["dark"]


def test_a_widget_without_its_own_layout_says_so(qtbot):
    widget = StateWidget(THEME)
    qtbot.addWidget(widget)
    widget.resize(100, 100)
    assert widget.layout_now() is None              # no state yet
    widget.set_state("x")
    with pytest.raises(NotImplementedError):
        widget.layout_now()


@pytest.mark.parametrize(("floor", "whole"), [(17.66, 18), (18.0, 18), (24.4, 24), (0.2, 1)])
def test_the_floor_in_whole_pixels(floor, whole):
    assert replace(THEME, text_floor_px=floor).floor_px == whole


def test_the_placer_keeps_texts_apart_in_priority_order_and_inside(qtbot):
    placer = LabelPlacer(TextMeasure(), 18, QRectF(0, 0, 400, 100))
    first = placer.place("first", "Prefill", QRectF(0, 0, 400, 40), 30)
    assert first is not None and first.px >= 18
    assert placer.place("second", "Decode", QRectF(0, 0, 400, 40), 30) is None       # would cover the first
    assert placer.place("below", "Decode", QRectF(0, 60, 400, 80), 30) is None        # would leave the widget
    placer.block(QRectF(0, 45, 400, 10))
    assert placer.place("blocked", "Decode", QRectF(0, 45, 400, 10), 18) is None
    assert [text.key for text in placer.drawn_texts()] == ["first"]
    assert placer.fit("Decode", QRectF(0, 0, 4000, 400), 300).px == MAX_TEXT_PX
    unbounded = LabelPlacer(TextMeasure(), 18, QRectF(0, 0, 4000, 400), max_px=None)
    assert unbounded.fit("Decode", QRectF(0, 0, 4000, 400), 100).px == 100


def test_without_a_gap_texts_may_touch_but_never_overlap(qtbot):
    measure = TextMeasure()
    line = measure.line_height(18, False)
    touching = LabelPlacer(measure, 18, QRectF(0, 0, 400, 2 * line), gap_px=0.0)
    assert touching.place("a", "Prefill", QRectF(0, 0, 400, line), 18)
    assert touching.place("b", "Decode", QRectF(0, line, 400, line), 18)
    apart = LabelPlacer(measure, 18, QRectF(0, 0, 400, 2 * line))
    assert apart.place("a", "Prefill", QRectF(0, 0, 400, line), 18)
    assert apart.place("b", "Decode", QRectF(0, line, 400, line), 18) is None
    assert not touching.clear(QRectF(195, 0.5 * line, 10, line))      # over both centred texts


def test_remembered_fits_are_the_fits_of_a_measure(qtbot):
    remembered, plain = RememberedFits(), TextMeasure()
    box = QRectF(0, 0, 120, 60)
    once = remembered.fit("memory-bound decode", box, 30, False, floor_px=12)
    assert remembered.fit("memory-bound decode", box, 30, False, floor_px=12) is once
    fresh = plain.fit("memory-bound decode", box, 30, False, floor_px=12)
    assert (once.lines, once.px, once.rect) == (fresh.lines, fresh.px, fresh.rect)


def test_the_decode_stepper_repaints_its_still_picture_in_a_new_theme(qtbot):
    from tests.widgets.test_decode_stepper import state

    light, dark = THEME, for_screen(THEMES["dark"], 768)
    switched, fresh = DecodeStepper(light), DecodeStepper(dark)
    for widget in (switched, fresh):
        qtbot.addWidget(widget)
        widget.resize(900, 600)
        widget.set_state(state())
    switched.grab()
    switched.set_theme(dark)
    assert switched.grab().toImage() == fresh.grab().toImage()


class Kept(StateWidget):
    """Lays each state out as a fresh object, and counts the layouts."""
    layouts_kept = 2

    def __init__(self, theme):
        super().__init__(theme)
        self.laid_out = 0

    def _lay_out(self):
        self.laid_out += 1
        return [self._state, self.width()]


def test_a_widget_keeps_the_layouts_of_its_recent_states_and_no_more(qtbot):
    widget = Kept(THEME)
    qtbot.addWidget(widget)
    widget.resize(100, 50)
    layouts = {}
    for state in ("a", "b", "a", "b"):
        widget.set_state(state)
        layouts.setdefault(state, widget.layout_now())
        assert widget.layout_now() is layouts[state] and widget.layout_now() == [state, 100]
    assert widget.laid_out == 2                         # back at a state: its layout, kept
    widget.set_state("c")                               # a third: the least recently shown ("a") goes
    widget.layout_now()
    widget.set_state("a")
    assert widget.layout_now() == ["a", 100] and widget.layout_now() is not layouts["a"]
    widget.set_state("c")
    widget.layout_now()
    assert widget.laid_out == 4
    widget.resize(120, 50)                              # another size: laid out again
    assert widget.layout_now() == ["c", 120] and widget.laid_out == 5
    widget.set_theme(THEMES["dark"])                    # another theme: nothing kept
    widget.resize(100, 50)
    assert widget.layout_now() == ["c", 100] and widget.laid_out == 6
