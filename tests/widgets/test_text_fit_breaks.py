"""Two-line splits keep a Chinese word, and a number with its unit or measure word, in one piece."""
from __future__ import annotations

import pytest
from PySide6.QtGui import QBrush, QColor
from PySide6.QtCore import Qt

from widgets.text_fit import TextMeasure
from widgets.theme import THEMES, for_screen, pattern_brush


@pytest.mark.parametrize("text, first, second", [
    ("KV：1 段对话，5.37 GB", "KV：1 段对话，", "5.37 GB"),      # not "1 段对 / 话"
    ("GPU 用时：0 s", "GPU 用时：", "0 s"),
    ("屏幕上：0 s", "屏幕上：", "0 s"),                          # not "屏幕 / 上"
    ("KV 合计：0 B", "KV 合计：", "0 B"),
])
def test_a_label_breaks_after_its_punctuation(qapp, text, first, second):
    split = TextMeasure().narrowest_two_lines(text, 18, False)
    assert split is not None and split[0] == (first, second)


def test_a_number_stays_with_its_measure_word_and_unit(qapp):
    for text in ("出来的都是 1 个 token", "每段 32,768 个 token", "权重 70.6 GB"):
        first, second = TextMeasure().narrowest_two_lines(text, 18, False)[0]
        assert not first.rstrip().endswith(("1 个", "768 个", "70.6")), (first, second)


def test_a_run_without_punctuation_or_spaces_still_splits(qapp):
    assert TextMeasure().narrowest_two_lines("运行时与激活", 18, False) is not None


def test_patterns_and_lines_scale_with_the_screen():
    small, large = for_screen(THEMES["dark"], 768), for_screen(THEMES["dark"], 2160)
    assert small.size_scale == 1.0 and small.scaled_line_width == small.line_width
    assert large.size_scale == pytest.approx(large.floor_px / 18)
    assert large.scaled_line_width > 2.5 * large.line_width
    assert pattern_brush(QColor("red"), Qt.BrushStyle.BDiagPattern, small).transform().isIdentity()
    assert pattern_brush(QColor("red"), Qt.BrushStyle.BDiagPattern, large).transform().m11() == \
        pytest.approx(large.size_scale)
    assert isinstance(pattern_brush(QColor("red"), Qt.BrushStyle.BDiagPattern, large), QBrush)


def test_a_name_that_ends_in_a_digit_may_break_after_it_a_number_may_not(qapp):
    """"Qwen3 235B-A22B" had no break at all (a word ending in a digit was taken for a number before its unit)."""
    measure = TextMeasure()
    assert measure.narrowest_two_lines("Qwen3 235B-A22B", 18, True)[0] == ("Qwen3", "235B-A22B")
    for text in ("about 2 MB", "每段 32,768 个 token", "at 1.5 TB/s"):
        split = measure.narrowest_two_lines(text, 18, False)
        assert split is None or not split[0][0].split()[-1][-1].isdigit(), (text, split)


def test_each_line_of_a_text_with_line_breaks_may_wrap_to_two(qapp):
    """Scene 3's model box ("{model}\\none pass") stayed empty when the model's name was wider than the box."""
    measure = TextMeasure()
    name = "Qwen3 235B-A22B"
    room = measure.width(name, 16, True) * 0.8
    found = measure.lines_within(f"{name}\none pass", 16, True, room)
    assert found is not None and found[0] == ("Qwen3", "235B-A22B", "one pass") and found[1] <= room
    assert measure.lines_within(f"{name}\none pass", 16, True, 2 * room)[0] == (name, "one pass")


def test_shaped_lines_are_kept_for_the_lines_drawn_lately_and_never_without_bound(qapp):
    """The shaped-text cache once held 5,000 lines (about 10 MB): ten minutes of autoplay drifted by 20 MB."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage, QPainter
    from widgets import shaped_text, text_fit
    measure = TextMeasure()
    font = measure.font(18, False)
    image = QImage(400, 100, QImage.Format.Format_ARGB32_Premultiplied)
    painter = QPainter(image)
    try:
        def draw(line):
            text_fit.FittedText((line,), 18, False, QRectF(0, 0, 400, 30), Qt.AlignmentFlag.AlignLeft, 24).paint(
                painter, font)
        for n in range(3 * shaped_text.STATIC_TEXTS_KEPT):
            draw("on screen all along")                   # one line every frame draws
            draw(f"{n} tokens/s")                         # and one that changes every frame
    finally:
        painter.end()
    assert len(shaped_text._STATIC_TEXTS) <= shaped_text.STATIC_TEXTS_KEPT + 1
    assert ("on screen all along", 18, False, font.family()) in shaped_text._STATIC_TEXTS


def test_measured_widths_and_splits_are_kept_within_their_bound(qapp):
    """Scene 1's belt measured every new number its clock showed (and every prefix its split tried): at 20,000
    widths a measure it kept grew ~1.4 MB over ten minutes of autoplay, and the splits had no bound at all."""
    from widgets import text_fit
    measure = TextMeasure()
    for n in range(2 * text_fit.MEASURES_KEPT):
        text = f"他只要 {n / 10:.1f} ms 就干完"        # a label whose number changes every frame
        measure.width(text, 20, True)
        measure.narrowest_two_lines(text, 20, True)
        assert len(measure._widths) <= text_fit.MEASURES_KEPT
        assert len(measure._splits) <= text_fit.MEASURES_KEPT
    assert measure.width("一个字", 20, True) == measure.width("一个字", 20, True) > 0



def test_each_font_is_drawn_at_its_own_size_however_many_fonts_come_and_go(qapp):
    """``shaped_text.font_key`` keeps a font's size, weight and family by the font's id, and holds the font, so a
    font made after another was dropped is never taken for it; and it keeps at most ``FONT_KEYS_KEPT``."""
    from PySide6.QtGui import QFont
    from widgets import shaped_text
    for n in range(3 * shaped_text.FONT_KEYS_KEPT):
        font = QFont()
        font.setPixelSize(10 + n % 50)
        font.setBold(n % 2 == 1)
        assert shaped_text.font_key(font)[:2] == (10 + n % 50, n % 2 == 1)
        assert shaped_text.shaped_line("kept", font)[2] > 0
        del font                        # its id is free for the next font, of another size
    assert len(shaped_text._FONT_KEYS) <= shaped_text.FONT_KEYS_KEPT


@pytest.mark.parametrize("align", [Qt.AlignmentFlag.AlignCenter, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                                   Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom])
def test_a_fit_remembered_for_a_box_of_the_same_size_elsewhere_is_the_fit_made_there(qapp, align, monkeypatch):
    """RememberedFits moves a fit found in a box of the same size (a table row pushed down by one inserted above
    it) rather than fitting again: the very rectangle a fresh fit gives, and one fit for the two places."""
    from PySide6.QtCore import QRectF
    from widgets.text_fit import RememberedFits
    remembered, fresh = RememberedFits(), TextMeasure()
    fitted = []
    original = TextMeasure.fit

    def counted(self, text, *args, **kwargs):
        if self is remembered:
            fitted.append(text)
        return original(self, text, *args, **kwargs)
    monkeypatch.setattr(TextMeasure, "fit", counted)       # (a Python class of ours, not Qt's)
    text = "memory-bound: 0.241% of peak compute"
    for x, y in ((10.3, 20.7), (200.125, 5.5), (0.0, 1e3 / 3)):
        box = QRectF(x, y, 170.4, 61.25)
        got = remembered.fit(text, box, 24, False, align)
        want = fresh.fit(text, box, 24, False, align)
        assert (got.lines, got.px, got.rect.getRect()) == (want.lines, want.px, want.rect.getRect())
    assert fitted == [text]                                # fitted once, at (0, 0)
    box = QRectF(3.5, 0, 200, 40)
    centred = remembered.fit("8", box, 24, False, align, centre_x=20.0)
    assert centred.rect.getRect() == fresh.fit("8", box, 24, False, align, centre_x=20.0).rect.getRect()
