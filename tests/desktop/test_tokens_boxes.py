"""Scene 6's text boxes stay quick whatever is pasted: no box lays out a line long enough to slow a key (a text
that would is held, shown by its beginning and counted whole), no key reads a box's whole text, and while the
playground counts it says so, never that a full box is empty (issue 25, items 6 and 13)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QMimeData, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest

from desktop.scenes.tokens.controls import MAX_LINE_CHARS
from desktop.scenes.tokens.story import BUILDS
from engine.units import format_bytes
from tests.desktop.test_tokens import PLAYGROUND, make, played


def _longest_line(box) -> int:
    """The longest line (block) the text box lays out."""
    block, longest = box.document().firstBlock(), 0
    while block.isValid():
        longest = max(longest, block.length() - 1)
        block = block.next()
    return longest


def _paste(box, text):
    mime = QMimeData()
    mime.setText(text)
    box.insertFromMimeData(mime)


@pytest.mark.parametrize("where", ["playground", "parallel"])
@pytest.mark.parametrize("characters", [99_998, 5_000_000])
def test_a_long_single_line_is_counted_whole_and_never_laid_out_by_a_text_box(qtbot, where, characters):
    """A key in a box re-lays its whole line: a line of 99,998 characters cost about 1 s a key, a 5 MB one in the
    parallel-text box about 3 s. Such a text is held: the box shows its beginning, the scene counts all of it."""
    scene = make(qtbot)
    scene.go_to_build(PLAYGROUND if where == "playground" else BUILDS.index("chinese"))
    box = scene.editor if where == "playground" else scene.controls().parallel
    line = ("推理加速让大模型更快，inference acceleration " * (characters // 30 + 1))[:characters]
    box.clear_text()
    box.insertPlainText("before ")
    worker = scene.play_worker if where == "playground" else scene._corpus_worker
    with qtbot.waitSignal(worker.finished, timeout=120_000):
        _paste(box, line)
        if where == "parallel":
            scene._parallel_timer.timeout.emit()
    assert _longest_line(box) <= MAX_LINE_CHARS and box.isReadOnly()
    assert box.full_text() == "before " + line
    if where == "playground":
        qtbot.waitUntil(lambda: scene.playground_result() is not None and not scene.play_worker.busy)
        assert scene.playground_result().characters == len("before " + line)
        assert scene.playground_result().held_bytes == len(("before " + line).encode("utf-8"))
    else:
        assert scene.text("control.parallel_held", size=format_bytes(len(("before " + line).encode("utf-8")))) \
            in scene.controls().parallel_status.text()
        assert scene.controls().parallel_clear.isVisibleTo(scene.controls())
    box.clear_text()
    assert not box.isReadOnly() and box.full_text() == "" and box.held is None


@pytest.mark.parametrize("where", ["playground", "parallel"])
def test_typing_past_the_longest_line_holds_the_text_and_no_key_reads_the_whole_text(qtbot, where):
    scene = make(qtbot)
    box = scene.editor if where == "playground" else scene.controls().parallel
    box.set_full_text("推理 " * 500)
    box.moveCursor(QTextCursor.MoveOperation.End)
    read = []
    whole = box.toPlainText
    box.toPlainText = lambda: (read.append(1), whole())[1]
    QTest.keyClicks(box, "abc")
    assert read == [] and box.held is None                    # per key: only the key's own line is measured
    box.toPlainText = whole
    box.set_full_text("a" * MAX_LINE_CHARS)
    box.moveCursor(QTextCursor.MoveOperation.End)
    QTest.keyClick(box, Qt.Key.Key_B)
    assert box.held == "a" * MAX_LINE_CHARS + "b" and _longest_line(box) <= MAX_LINE_CHARS and box.isReadOnly()


def test_while_the_playground_counts_it_says_counting_never_that_the_full_box_is_empty(qtbot):
    scene = make(qtbot)
    scene.go_to_build(PLAYGROUND)
    played(qtbot, scene, "")
    assert scene.play_view.state.footer == scene.text("label.empty")
    scene.editor.insertPlainText("now there is text")
    assert scene.play_view.state.footer == scene.text("label.counting")
    with qtbot.waitSignal(scene.play_worker.finished, timeout=60_000):
        pass
    assert scene.play_view.state.rows and scene.play_view.state.footer != scene.text("label.empty")
