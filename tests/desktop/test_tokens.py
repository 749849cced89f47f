"""Scene 6's view: the playground counts what the engine counts, off the UI thread (a heartbeat keeps
ticking through a 10 MB paste), stale work is dropped, bad text is cleaned with a note, what was typed
survives a language switch, the charts are the corpus's and the report's, every build is readable, no text box
ever lays out a line long enough to slow a key, and no vocabulary is loaded in the app's own process."""
from __future__ import annotations

import itertools
import json
import subprocess
import sys

import pytest
from PySide6.QtCore import QMimeData, Qt, QTimer
from PySide6.QtWidgets import QApplication

from desktop.i18n import Language
from desktop.kit.scene import SceneKit, create_scene
from desktop.scenario_store import ScenarioStore
from desktop.scenes.tokens import prepared
from desktop.scenes.tokens.controls import LARGE_PASTE_CHARS
from desktop.scenes.tokens.corpus import app_corpus, counted_tokenizers
from desktop.scenes.tokens.cuts import DEFAULT_TOKENIZERS, clean_text, tokenizer_ids
from desktop.scenes.tokens.story import BUILDS
from desktop.scenes.tokens.view import TokensScene
from engine.tokenizer_vocab import is_loaded
from engine.tokens import count_tokens, forget_loaded, list_tokenizers
from widgets.theme import THEMES, for_screen

PLAYGROUND = BUILDS.index("playground")
MIXED = ["Hello, world! 推理加速让大模型更快。", "unbelievable 你好 12345 !!", "👨‍👩‍👧 emoji, مرحبا RTL, NUL\x00.",
         "江南忆，最忆是杭州。\nRemembering the south, Hangzhou most.", "   spaces\t\ttabs\r\n"]


def make(qtbot, code="en", screen=(1024, 768), store=None, loaded=True):
    store = store or ScenarioStore()
    scene = create_scene(TokensScene, SceneKit(Language(code), store, for_screen(THEMES["light"], screen[1])))
    qtbot.addWidget(scene)
    store.changed.connect(scene.on_report)
    scene.resize(int(screen[0] * 0.97), int(screen[1] * 0.72))
    scene.show()
    qtbot.waitExposed(scene)
    if loaded:
        qtbot.waitUntil(lambda: not scene.story().missing_profiles(), timeout=60_000)
    return scene


def played(qtbot, scene, text):
    """Put ``text`` in the playground and wait for its result."""
    with qtbot.waitSignal(scene.play_worker.finished, timeout=60_000):
        scene.set_playground_text(text)
    qtbot.waitUntil(lambda: not scene.play_worker.busy)
    return scene.playground_result()


def choose(scene, group):
    boxes = scene.controls().boxes
    for tokenizer in group:
        boxes[tokenizer].setChecked(True)
    for tokenizer, box in boxes.items():
        if tokenizer not in group:
            box.setChecked(False)
    assert scene.controls().chosen() == tuple(group)


def choose_all_but_one(scene):
    choose(scene, tokenizer_ids()[:5])


def test_counts_in_the_scene_equal_the_engines_for_every_tokenizer(qtbot):
    scene = make(qtbot)
    scene.go_to_build(PLAYGROUND)
    for group in (tokenizer_ids()[:5], tokenizer_ids()[-2:]):
        choose(scene, group)
        for sample in MIXED:
            result = played(qtbot, scene, sample)
            assert tuple(lane.tokenizer for lane in result.lanes) == group
            typed = scene.playground_text()          # the box keeps a line break as "\n"
            assert typed == sample or "\r" in sample
            for lane in result.lanes:
                assert lane.count == count_tokens(lane.tokenizer, typed), (lane.tokenizer, sample)
            summaries = [d.text for d in _drawn(scene.play_view) if d.key.startswith("summary.")]
            assert len(summaries) == len(result.lanes)


def test_counts_equal_the_command_line_tool(qtbot):
    scene = make(qtbot)
    choose_all_but_one(scene)
    sample = MIXED[0] + MIXED[2]
    result = played(qtbot, scene, sample)
    for lane in result.lanes:
        done = subprocess.run([sys.executable, "-m", "engine", "tokens", "--tokenizer", lane.tokenizer, "--json",
                               "--file", "-"], input=sample.encode("utf-8"), capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["count"] == lane.count


def test_a_10_mb_paste_is_counted_off_the_ui_thread_while_the_window_keeps_ticking(qtbot):
    scene = make(qtbot)
    scene.go_to_build(PLAYGROUND)
    line = "推理加速让大模型更快。Inference acceleration makes models faster. 12345\n"
    big = line * (10_000_000 // len(line.encode("utf-8")) + 1000)          # just over 10 MB
    ticks = []
    busy_seen = []
    heartbeat = QTimer(scene)
    heartbeat.setInterval(10)
    heartbeat.timeout.connect(lambda: (ticks.append(1), busy_seen.append(scene.busy.isVisible())))
    heartbeat.start()
    with qtbot.waitSignal(scene.play_worker.finished, timeout=120_000):
        scene.set_playground_text(big)
    heartbeat.stop()
    assert len(ticks) >= 5 and any(busy_seen)                 # the event loop ran while it counted
    result = scene.playground_result()
    assert result.cut_bytes > 0 and result.characters < len(big)
    assert result.cut_bytes == len(big.encode("utf-8")) - len(clean_text(big).text.encode("utf-8"))
    assert scene.editor.isReadOnly() and len(scene.editor.toPlainText()) < LARGE_PASTE_CHARS
    footer = scene.play_view.state.footer
    assert "10 MB" in footer and "left out" in footer
    scene.clear_playground()
    assert not scene.editor.isReadOnly() and scene.playground_text() == ""


def test_a_large_paste_into_the_box_is_held_not_laid_out(qtbot):
    scene = make(qtbot)
    scene.go_to_build(PLAYGROUND)
    scene.editor.setPlainText("start ")
    mime = QMimeData()
    mime.setText("x" * (LARGE_PASTE_CHARS + 10))                # one very long line
    with qtbot.waitSignal(scene.play_worker.finished, timeout=60_000):
        scene.editor.insertFromMimeData(mime)
    assert scene.playground_text().startswith("x") and len(scene.playground_text()) > LARGE_PASTE_CHARS
    assert scene.editor.isReadOnly() and len(scene.editor.toPlainText()) < 1000


def test_a_stale_result_never_overwrites_a_newer_one(qtbot):
    scene = make(qtbot)
    scene.go_to_build(PLAYGROUND)
    scene.set_playground_text("first text " * 20000)
    scene._count_playground()
    first = scene.play_worker._future
    result = played(qtbot, scene, "second")
    assert result.characters == len("second")
    qtbot.waitUntil(first.done)                   # the first job ended (or never started) ...
    QApplication.processEvents()                  # ... and whatever it sent has been delivered
    assert scene.playground_result().characters == len("second")


@pytest.mark.parametrize("bad", ["", "\x00" * 50, "\ud800 lone \udc00", "\u202eRTL override\u202c",
                                 "🏳️‍🌈" * 300, "\ufffd\x01\x02\x7f\x80 junk" * 100])
def test_bad_text_never_crashes_and_is_said_so(qtbot, bad):
    scene = make(qtbot)
    scene.go_to_build(PLAYGROUND)
    result = played(qtbot, scene, bad)
    cleaned = clean_text(scene.playground_text()).text
    assert [lane.count for lane in result.lanes] == [count_tokens(lane.tokenizer, cleaned) for lane in result.lanes]
    footer = scene.play_view.state.footer
    if not bad:
        assert "empty" in footer
    if "\ud800" in scene.playground_text():          # Qt's text box replaces them itself; a held paste keeps them
        assert "surrogate" in footer
    if "\ud800" in bad:
        held = played(qtbot, scene, bad * (LARGE_PASTE_CHARS // len(bad) + 1))
        assert held.surrogates > 0 and "surrogate" in scene.play_view.state.footer
    if "\x00" in bad or "\u202e" in bad:
        assert "control" in footer
    assert not scene.grab().isNull()


def test_what_was_typed_survives_a_language_switch_and_leaving_the_scene(qtbot):
    scene = make(qtbot)
    scene.go_to_build(PLAYGROUND)
    played(qtbot, scene, "我的文字 my words")
    scene.controls().parallel.setPlainText("你好\tHello\n")
    scene.kit.language.set_code("zh")
    scene.retranslate()
    scene.hide()                                    # the deck hides a scene it leaves and keeps it
    scene.reset()
    scene.show()
    assert scene.editor.toPlainText() == "我的文字 my words"
    assert scene.controls().parallel.toPlainText() == "你好\tHello\n"
    scene.go_to_build(PLAYGROUND)
    assert "个 token" in scene.play_view.state.rows[0].cells[0].summary


def test_the_chart_is_the_corpus_and_pasted_parallel_text_replaces_it(qtbot):
    scene = make(qtbot)
    choose_all_but_one(scene)
    qtbot.waitUntil(lambda: not scene.story().missing_profiles(), timeout=60_000)
    scene.go_to_build(BUILDS.index("chinese"))
    bars = scene.ratio_bars.state.bars
    pairs = app_corpus().pairs
    for bar, tokenizer in zip(bars, tokenizer_ids()[:5], strict=True):
        zh = sum(count_tokens(tokenizer, p.zh) for p in pairs)
        en = sum(count_tokens(tokenizer, p.en) for p in pairs)
        assert bar.value == pytest.approx(zh / en)
    with qtbot.waitSignal(scene._corpus_worker.finished, timeout=60_000):
        scene.controls().parallel.setPlainText("你好\tHello\n推理加速\tfaster inference\nno tab\n")
    assert scene.story().own_parallel and "2" in scene.controls().parallel_status.text()
    gpt4 = scene.ratio_bars.state.bars[tokenizer_ids().index("cl100k_base")]      # still the first five
    zh = count_tokens("cl100k_base", "你好") + count_tokens("cl100k_base", "推理加速")
    en = count_tokens("cl100k_base", "Hello") + count_tokens("cl100k_base", "faster inference")
    assert gpt4.value == pytest.approx(zh / en)


def test_prices_are_the_reports_and_follow_the_scenario(qtbot):
    store = ScenarioStore()
    scene = make(qtbot, store=store)
    scene.go_to_build(BUILDS.index("cost"))
    report = store.report
    assert [b.value for b in scene.price_bars.state.bars] == [report.usd_per_million_input_tokens,
                                                             report.usd_per_million_output_tokens]
    assert store.update(batch=16)
    changed = store.report
    assert changed.usd_per_million_output_tokens < report.usd_per_million_output_tokens
    assert scene.price_bars.state.bars[1].value == changed.usd_per_million_output_tokens
    assert scene.story().caption_values()["price_ratio"] in scene.caption()


def _drawn(widget):
    widget.grab()
    return widget.drawn_texts()


@pytest.mark.parametrize("code", ("en", "zh"))
@pytest.mark.parametrize("screen", [(1024, 768), (1920, 1080)])
def test_every_build_is_readable_with_real_counts(qtbot, code, screen):
    scene = make(qtbot, code, screen)
    choose_all_but_one(scene)
    played(qtbot, scene, MIXED[0] * 40 + MIXED[2])
    floor = scene.kit.theme.text_floor_px
    for index in range(len(BUILDS)):
        scene.go_to_build(index, animate=False)
        QApplication.processEvents()
        widgets = [w for w in (scene.seed_view, scene.ratio_bars, scene.price_bars, scene.cost_bars,
                               scene.play_view) if w.isVisible()]
        assert widgets, BUILDS[index]
        for widget in widgets:
            drawn = _drawn(widget)
            assert drawn, (BUILDS[index], type(widget).__name__)
            inside = widget.rect().toRectF().adjusted(-0.5, -0.5, 0.5, 0.5)
            for text in drawn:
                assert text.px >= floor and inside.contains(text.rect), (BUILDS[index], text.key, text.text)
            for a, b in itertools.combinations(drawn, 2):
                overlap = a.rect.intersected(b.rect)
                assert overlap.width() <= 1 or overlap.height() <= 1, (BUILDS[index], a.text, b.text)
        assert scene.caption() and scene.notes() and "…" not in scene.caption()


def test_a_paste_being_read_survives_a_tokenizer_ticked_meanwhile(qtbot):
    scene = make(qtbot)
    scene.controls().parallel.setPlainText("你好\tHello\n推理加速\tfaster inference\n")
    scene._parallel_timer.timeout.emit()                 # the paste is being read in the tokenizer process...
    assert scene._results.reading_paste
    choose_all_but_one(scene)                            # ...when a tokenizer is ticked
    qtbot.waitUntil(lambda: not scene._results.reading_paste and not scene.story().paste_to_count_again(),
                    timeout=60_000)
    story = scene.story()
    assert story.own_parallel and len(story.parallel.pairs) == 2
    assert {c.tokenizer for c in story.counts} >= set(tokenizer_ids()[:5])


def test_refusals_and_failures_are_said_in_the_scenes_language(qtbot, monkeypatch):
    from engine import InputError
    scene = make(qtbot, code="zh")
    said = []
    monkeypatch.setattr(scene, "show_note", said.append)
    try:
        count_tokens("no-such-tokenizer", "x")
    except InputError as error:
        refusal = error
    scene._on_played(refusal)
    scene._on_pasted(refusal)
    scene._on_failed("UnicodeEncodeError: surrogates not allowed")
    # Through the kit's refusal text (errors.toml's translation of the refusal's code where it has one).
    assert said[:2] == [scene.kit.refusal_text(refusal)] * 2, said
    assert said[2] == scene.text("label.failed")


@pytest.mark.parametrize("code", ["zh", "en"])
def test_the_seed_cells_are_whole_in_a_1024x768_windows_stage(qtbot, code):
    """The window's stage at 1024x768 (side panel and menus beside it): the row titles, which repeat the first
    cell, give way before a cell is cut."""
    scene = make(qtbot, code=code, loaded=False)
    scene.resize(735, 560)
    scene.prepare_for_export()
    scene.go_to_build(0, animate=False)
    _drawn(scene.seed_view)
    assert not [chip for _rect, chip in scene.seed_view.drawn_chips() if chip.kind == "mark"]


def test_a_report_or_language_change_leaves_saying_so_to_the_deck(qtbot):
    store = ScenarioStore()
    scene = make(qtbot, store=store)
    said = []
    scene.texts_changed.connect(lambda: said.append(1))
    assert store.update(batch=16)                  # the deck says the texts changed after a report ...
    scene.kit.language.set_code("zh")
    scene.retranslate()                            # ... and after a language change
    assert said == []


def test_the_scene_loads_no_vocabulary_in_the_apps_own_process(qtbot):
    forget_loaded()
    scene = make(qtbot)
    choose_all_but_one(scene)
    played(qtbot, scene, MIXED[0])
    qtbot.waitUntil(lambda: not scene.story().missing_profiles(), timeout=60_000)
    scene.prepare_for_export()
    assert [info.id for info in list_tokenizers() if is_loaded(info)] == []


def test_once_prepared_a_first_visit_shows_the_real_cuts_and_ratios_at_once(qtbot):
    store = ScenarioStore()
    prepared.prepare(store.scenario.model)
    counted = counted_tokenizers(DEFAULT_TOKENIZERS, store.scenario.model)
    qtbot.waitUntil(lambda: len(prepared.known(counted)) == len(counted), timeout=60_000)
    scene = create_scene(TokensScene, SceneKit(Language("en"), store, THEMES["light"]))
    qtbot.addWidget(scene)
    loading = scene.text("label.loading")
    assert scene.seed_view.state.footer != loading                   # before it is even shown
    scene.go_to_build(BUILDS.index("chinese"))
    assert scene.ratio_bars.state.footer != loading and scene.ratio_bars.state.bars


def test_a_tokenizer_ticked_whose_cuts_are_known_shows_them_at_once_and_the_caption_follows(qtbot):
    scene = make(qtbot)
    prepared.profiles(("gpt2", "o200k_base"))               # worked out before (another visit, idle time)
    scene.go_to_build(BUILDS.index("chinese"))
    captions = []
    scene.texts_changed.connect(lambda: captions.append(scene.caption()))
    choose(scene, ("o200k_base", "gpt2"))                  # in the registry's order
    assert not scene.story().missing_profiles() and len(scene.ratio_bars.state.bars) == 2
    assert captions and captions[-1] == scene.caption() and "…" not in scene.caption()


def test_a_click_on_a_lanes_summary_shows_its_characters_over_its_tokens_in_chinese(qtbot):
    scene = make(qtbot, "zh")
    scene.go_to_build(PLAYGROUND)
    result = played(qtbot, scene, MIXED[0])
    scene.grab()
    rects = scene.formula_cards.rects()
    assert set(rects) == {f"characters_per_token.{r}" for r in range(len(result.lanes))}
    qtbot.mouseClick(scene, Qt.MouseButton.LeftButton, pos=rects["characters_per_token.1"].center())
    texts = [t.replace("\u00a0", " ") for t in scene.formula_cards.card.texts()]
    lane = result.lanes[1]
    assert "每个 token 的字符数" in texts and f"= {result.characters} ÷ {lane.count}" in texts
    assert not scene.formula_cards.card.geometry().intersects(rects["characters_per_token.1"])
