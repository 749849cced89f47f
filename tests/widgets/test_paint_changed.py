"""Painting only what changed: a widget that names its pieces (the request table) repaints where they differ,
and the screen then shows what a whole repaint would; a patterned fill laid from its still band gives the pixels
of its colour and pattern, a dashed outline laid from its picture those of its stroke; a question card's reveal
repaints what moves or fades."""
from __future__ import annotations


import pytest
from PySide6.QtCore import QEvent, QObject, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QRegion
from PySide6.QtWidgets import QApplication, QWidget

import widgets.text_fit as text_fit
from widgets.dashed_outline import DashedOutline
from widgets.pattern_fill import PatternFill
from widgets.question_card import QuestionCard
from widgets.question_card_state import QuestionCardState
from widgets.request_timeline_state import Cell, TableState
from widgets.request_timeline_table import RequestTable
from widgets.theme import THEMES, for_screen, pattern_brush
from widgets.utilisation_strip import dimmed

THEME = for_screen(THEMES["light"], 1080)


def table(batch_row_time: str = "31.2 ms", **extra) -> TableState:
    rows = tuple((Cell(f"{b}", key=f"{b}.batch"), Cell("1.84%", bar=0.0184, key=f"{b}.busy"),
                  Cell(batch_row_time if b == 8 else "29.9 ms", key=f"{b}.tpot"), Cell("memory-bound"))
                 for b in (1, 8, 64, 256))
    values = {"highlight_row": 1, "figure_label": "decode turns compute-bound at batch", "figure_value": "881",
              "figure_note": "33 sequences fit in memory", **extra}
    return TableState(("batch", "compute in use", "time per token", "bound"), rows, **values)


@pytest.fixture
def painted_lines(monkeypatch) -> list[str]:
    """Every line of text painted from now on (a spy on the one way texts are painted)."""
    lines: list[str] = []
    paint = text_fit.FittedText.paint

    def counted(self, painter, font):
        lines.extend(self.lines)
        paint(self, painter, font)
    monkeypatch.setattr(text_fit.FittedText, "paint", counted)
    return lines


def shown(qtbot, widget: QWidget, size: tuple[int, int]) -> QWidget:
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.show()
    qtbot.waitExposed(widget)
    QApplication.processEvents()
    return widget


def on_screen(widget: QWidget) -> QImage:
    """What the window shows now: its backing store, with every partial repaint in it."""
    return widget.screen().grabWindow(widget.winId()).toImage().convertToFormat(QImage.Format.Format_RGB32)


def repainted_whole(widget: QWidget) -> QImage:
    return widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)


def test_a_table_paints_again_only_the_cell_that_changed(qtbot, painted_lines):
    widget = shown(qtbot, RequestTable(THEME), (1800, 400))
    widget.set_state(table())
    QApplication.processEvents()
    painted_lines.clear()
    widget.set_state(table("30.5 ms"))
    QApplication.processEvents()
    assert "30.5 ms" in painted_lines
    assert not {"batch", "time per token", "881", "33 sequences fit in memory", "64", "256"} & set(painted_lines)
    assert len(painted_lines) <= 4                       # the cell, and at most the row's neighbours it touches
    assert {t.text for t in widget.drawn_texts()} >= {"batch", "881", "30.5 ms"}     # all of it is still shown


def test_a_state_that_draws_the_same_paints_no_text(qtbot, painted_lines):
    widget = shown(qtbot, RequestTable(THEME), (1800, 400))
    widget.set_state(table())
    QApplication.processEvents()
    painted_lines.clear()
    widget.set_state(table(essential_rows=frozenset({1})))      # a new state, drawn the same: all rows fit
    QApplication.processEvents()
    assert painted_lines == []


def test_after_partial_repaints_the_table_shows_what_a_whole_repaint_does(qtbot):
    # (the large figure too: above Qt's glyph cache's size, drawn from glyph images, widgets.large_text)
    widget = shown(qtbot, RequestTable(THEME), (1800, 400))
    for table_state in (table(figure_value=""), table("30.5 ms", figure_value="97.6%"),
                        table("1.2 s", figure_value="98.1%", highlight_row=2),
                        table(figure_value="", footnote="* does not fit in memory")):
        widget.set_state(table_state)
        QApplication.processEvents()
        assert on_screen(widget) == repainted_whole(widget)
    widget.set_theme(for_screen(THEMES["dark"], 1080))          # a new theme: all of it again
    QApplication.processEvents()
    assert on_screen(widget) == repainted_whole(widget)


@pytest.mark.parametrize("dim", [False, True])
@pytest.mark.parametrize("rect", [QRectF(20.37, 10.6, 1000.45, 55.3), QRectF(0, 31.5, 1800, 40), QRectF(7.9, 0, 3.2, 9)])
def test_a_patterned_fill_gives_the_pixels_of_its_colour_and_pattern(qtbot, rect, dim):
    widget = QWidget()
    qtbot.addWidget(widget)
    widget.resize(1800, 120)
    background, colour = THEME.color("background"), dimmed(THEME.color("memory"), dim)
    hatch = THEME.color("surface")
    hatch.setAlphaF(0.6)
    pattern = pattern_brush(hatch, Qt.BrushStyle.FDiagPattern, THEME)
    fill = PatternFill()
    images = []
    for laid in (False, True):
        image = QImage(1800, 120, QImage.Format.Format_RGB32)
        image.fill(background)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.NonCosmeticBrushPatterns, True)
        painter.setPen(Qt.PenStyle.NoPen)
        for brush in ([fill.brush(widget, rect, background, colour, pattern)] if laid else [colour, pattern]):
            painter.setBrush(brush)
            painter.drawRect(rect)
        painter.end()
        images.append(image)
    assert images[0] == images[1]


def test_memory_bars_in_a_transition_paint_again_the_bars_not_the_title_and_legend(qtbot, painted_lines):
    from tests.widgets.test_memory_bars import GB, state as bars_state
    from widgets.memory_bars import MemoryBars
    from widgets.transition import TRANSITION_SECONDS

    widget = shown(qtbot, MemoryBars(THEME), (1800, 760))
    widget.show_state(bars_state(n=2, weights=141 * GB), 0.0, animate=False)
    QApplication.processEvents()
    widget.show_state(bars_state(n=2, weights=70 * GB), 1.0)
    in_frames = []
    for step in range(1, 6):                 # the segments ease down, their value labels with them
        painted_lines.clear()
        widget.set_seconds(1.0 + step * TRANSITION_SECONDS / 5)
        QApplication.processEvents()
        in_frames += painted_lines
        assert on_screen(widget) == repainted_whole(widget)
    assert in_frames                                          # the moving labels
    assert "Llama 3.1 70B at FP16 on one H800" not in in_frames
    assert {t.text for t in widget.drawn_texts()} >= {"Llama 3.1 70B at FP16 on one H800"}


def test_memory_bars_after_a_new_theme_and_a_new_size_show_what_a_whole_repaint_does(qtbot):
    from tests.widgets.test_memory_bars import GB, state as bars_state
    from widgets.memory_bars import MemoryBars

    widget = shown(qtbot, MemoryBars(THEME), (1800, 760))
    widget.set_state(bars_state(n=3, weights=100 * GB))
    QApplication.processEvents()
    for change in (lambda: widget.set_theme(for_screen(THEMES["dark"], 1080)), lambda: widget.resize(1500, 700),
                   lambda: widget.set_state(bars_state(n=2, weights=30 * GB, kv=20 * GB))):
        change()
        QApplication.processEvents()
        assert on_screen(widget) == repainted_whole(widget)


def test_changes_faster_than_paints_are_laid_out_at_most_three_times(qtbot, monkeypatch):
    """A control dragged faster than frames come: the first changes each work out their region, then the widget
    is repainted whole, laid out once at the paint, however many more changes come before it."""
    widget = shown(qtbot, RequestTable(THEME), (1800, 400))
    widget.set_state(table(figure_value=""))
    QApplication.processEvents()
    layouts = []
    lay_out = RequestTable._lay_out
    monkeypatch.setattr(RequestTable, "_lay_out", lambda self: (layouts.append(1), lay_out(self))[1])
    for n in range(8):
        widget.set_state(table(f"{30 + n}.5 ms", figure_value=""))
    QApplication.processEvents()
    assert len(layouts) <= 3
    assert on_screen(widget) == repainted_whole(widget)



QUESTION = QuestionCardState("1 · Why is an LLM slow?", "Decode is 99% of the request.",
                             "→ Scene 1: Why the GPU waits", "gpu_waits")


def question_card(qtbot) -> QuestionCard:
    card = QuestionCard(THEME)
    card.set_picture(QWidget())
    card.set_state(QUESTION)
    card.set_reveal(0.0)
    return shown(qtbot, card, (1600, 900))


def test_a_step_of_the_question_moving_up_paints_its_path_not_the_whole_card(qtbot):
    card = question_card(qtbot)
    regions = PaintRegions(card)
    card.set_reveal(0.1)                 # the question on its way up: the words are not shown yet
    qtbot.waitUntil(lambda: bool(regions.painted))
    painted = regions.painted[-1].boundingRect()
    assert painted.height() < card.height() / 2
    question = next(t.rect for t in card.drawn_texts() if t.key == "question")
    assert painted.contains(question.toAlignedRect())          # where it is now (and where it was)


def test_a_step_of_the_words_fading_in_paints_the_words_and_the_link_only(qtbot, painted_lines):
    card = question_card(qtbot)
    card.set_reveal(0.8)
    QApplication.processEvents()
    painted_lines.clear()
    card.set_reveal(0.9)
    QApplication.processEvents()
    assert QUESTION.answer in painted_lines and QUESTION.link in painted_lines
    # the question is painted at most where the words' boxes reach it (clipped away), never the whole card again
    regions = PaintRegions(card)
    card.set_reveal(0.95)
    qtbot.waitUntil(lambda: bool(regions.painted))
    assert regions.painted[-1].boundingRect().height() < card.height() / 2


def test_after_a_reveal_in_steps_the_card_shows_what_a_whole_repaint_does(qtbot):
    card = question_card(qtbot)
    for step in range(1, 21):
        card.set_reveal(step / 20)
        QApplication.processEvents()
        if step in (3, 6, 15, 18, 20):   # moving, the picture growing, the words fading, all shown
            assert on_screen(card) == repainted_whole(card)


def test_half_faded_words_are_half_way_between_the_ground_and_their_colour(qtbot):
    card = question_card(qtbot)
    answer_rect = lambda: next(t.rect for t in card.drawn_texts() if t.key == "answer").toAlignedRect()  # noqa: E731

    def darkest(image: QImage, rect) -> int:
        return min(QColor(image.pixel(x, y)).value() for x in range(rect.left(), rect.right())
                   for y in range(rect.top(), rect.bottom()))
    card.set_reveal(1.0)
    full = darkest(repainted_whole(card), answer_rect())
    card.set_reveal(0.85)                # half of the words' fade
    half = darkest(repainted_whole(card), answer_rect())
    ground = QColor(THEME.color("background")).value()
    assert full < half < ground
    assert abs(half - (full + ground) / 2) < 0.15 * (ground - full)


@pytest.mark.parametrize("width, style", [(1.3888, Qt.PenStyle.DotLine), (2.0, Qt.PenStyle.DashLine),
                                          (1.0, Qt.PenStyle.DashLine)])
@pytest.mark.parametrize("rect", [QRectF(20.37, 10.6, 1000.45, 55.3), QRectF(5, 5, 6, 4)])
def test_a_dashed_outline_laid_from_its_picture_gives_the_pixels_drawrect_strokes(qtbot, rect, width, style):
    widget = shown(qtbot, QWidget(), (1100, 90))
    pen = QPen(THEME.color("muted"), width, style)
    expected, laid = (QImage(1100, 90, QImage.Format.Format_RGB32) for _ in range(2))
    outline = DashedOutline()
    for image, times in ((expected, 0), (laid, 2)):
        image.fill(Qt.GlobalColor.white)
        painter = QPainter(image)
        if times == 0:
            painter.setPen(pen)
            painter.drawRect(rect)
        for _ in range(times):           # the second time from the kept picture
            outline.paint(painter, widget, rect, pen)
        painter.end()
    assert laid == expected


class PaintRegions:
    """The region of each paint event of ``widget`` from now on (an event filter: the widget's own code runs)."""

    def __init__(self, widget: QWidget):
        self.painted = []
        self._filter = _PaintFilter(self.painted)
        widget.installEventFilter(self._filter)


class _PaintFilter(QObject):
    def __init__(self, painted: list):
        super().__init__()
        self._painted = painted

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Paint:
            self._painted.append(QRegion(event.region()))
        return False
