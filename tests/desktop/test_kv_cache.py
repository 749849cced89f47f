"""Scene 5, the KV cache: playback, the engine's numbers on the stage, the presenter standard."""
from __future__ import annotations

import dataclasses
import itertools

import pytest

from desktop.i18n import Language
from desktop.scenario_store import DEFAULT_SCENARIO, ScenarioStore
from desktop.kit.scene import SceneKit, create_scene
from desktop.scenes.kv_cache.view import KvCacheScene
from desktop.scenes.kv_cache.memory import sharing_changes
from desktop.scenes.kv_cache.pictures import BUILDS, CONTEXT_PLAY_SECONDS, PLAYBACK_TOKENS
from desktop.slide import SlideFrame
from engine import InputError, Scenario, compute_report
from engine.catalog import default_catalog
from engine.units import format_count
from widgets.memory_bars_state import overflows as bar_overflows
from widgets.theme import THEMES, for_screen
from widgets.work_counter_state import cached_computations, naive_computations

CATALOG = default_catalog()


@pytest.fixture
def make_scene(qtbot):
    def make(language: str = "en", scenario: Scenario | None = None, size=(1280, 640), theme=None):
        store = ScenarioStore(scenario or DEFAULT_SCENARIO)
        scene = create_scene(KvCacheScene, SceneKit(Language(language), store, theme or THEMES["light"]))
        store.changed.connect(scene.on_report)           # what the deck does for the shown scene
        qtbot.addWidget(scene)
        scene.resize(*size)
        scene.clock.stop()
        return scene
    return make


def advance(scene, seconds: float) -> None:
    scene.clock.set_seconds(scene.clock.seconds() + seconds)


def test_playing_the_work_counts_the_closed_forms_token_by_token(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("cache"), animate=True)
    assert scene.generated_tokens == 1
    for _ in range(7):
        advance(scene, 0.37)
        n = scene.generated_tokens
        state = scene.work.state
        assert 1 < n <= PLAYBACK_TOKENS and state.generated_tokens == n
        assert naive_computations(state) == n * (n + 1) / 2 and cached_computations(state) == n
    advance(scene, 10)
    assert scene.generated_tokens == PLAYBACK_TOKENS and scene.work.state.labels["naive_count"].startswith("125,250")


def test_step_adds_one_token_and_play_starts_again(make_scene):
    scene = make_scene()
    scene.go_to_build(0, animate=False)
    assert scene.generated_tokens == PLAYBACK_TOKENS
    scene.step()
    assert scene.generated_tokens == 1
    scene.step()
    assert scene.work.state.generated_tokens == 2
    scene.play()
    advance(scene, 1.0)
    assert 2 < scene.generated_tokens < PLAYBACK_TOKENS


def test_the_factor_tiles_appear_in_turn(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("bytes"), animate=True)
    shown = []
    for _ in range(12):
        shown.append(scene.factors.state.revealed)
        advance(scene, 0.25)
    assert shown[0] == 1 and shown[-1] == 6 and shown == sorted(shown)
    assert scene.factors.state.result_text == "= 320 KiB per token"


def test_the_comparison_bars_grow_and_end_exactly_at_the_engines_numbers(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("bytes"), animate=False)
    scene.go_to_build(BUILDS.index("architectures"), animate=True)
    shares = []
    for _ in range(30):
        advance(scene, 1 / 60)
        shares.append(scene.factors.state.compare_reveal)
    assert 0 < shares[0] < 1 and shares[-1] == 1.0 and shares == sorted(shares)


def test_the_growth_playback_fills_the_bar_until_the_engine_says_it_overflows(make_scene):
    scene = make_scene()
    report = scene.kit.store.report
    scene.go_to_build(BUILDS.index("growth"), animate=True)
    seen_fit = seen_over = False
    for _ in range(40):
        advance(scene, CONTEXT_PLAY_SECONDS / 36)
        tokens = scene.context_tokens
        over = bar_overflows(scene.bars.state.bars[0])
        assert over == (tokens > report.max_context_tokens), tokens
        assert scene.growth.state.context_tokens == tokens
        seen_fit |= not over
        seen_over |= over
    assert seen_fit and seen_over and scene.context_tokens == 131072


@pytest.mark.parametrize("changes", [{}, {"batch": 2}, {"kv": "fp8"}])
def test_the_context_control_at_the_limit_fits_and_one_more_token_overflows(make_scene, changes):
    scene = make_scene(scenario=dataclasses.replace(DEFAULT_SCENARIO, **changes))
    scene.go_to_build(BUILDS.index("growth"), animate=False)
    limit = scene.kit.store.report.max_context_tokens
    if limit >= 131072:
        pytest.skip("the whole axis fits")
    scene.set_context(limit)
    assert not bar_overflows(scene.bars.state.bars[0])
    scene.set_context(limit + 1)
    assert bar_overflows(scene.bars.state.bars[0])


def test_sharing_shows_the_engines_conversations_on_one_to_eight_gpus(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("sharing"), animate=False)
    for context in (2048, 32768):
        scene.set_context(context)
        advance(scene, 1.0)
        rows = {row.gpus: row for row in scene.sharing.state.rows}
        assert set(rows) == {1, 2, 4, 8}
        for gpus, row in rows.items():
            engine = compute_report(dataclasses.replace(DEFAULT_SCENARIO, gpus=gpus,
                                                        **sharing_changes(DEFAULT_SCENARIO, context)), CATALOG)
            assert row.sequences == engine.max_sequences
        assert scene.bars.state.kv_sequences == rows[2].sequences
        assert format_count(context) in scene.caption()


def test_a_new_scenario_reaches_every_widget(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("architectures"), animate=False)
    scene.kit.store.update(model="deepseek-v3", gpus=8, weights="fp8")
    assert [tile.key for tile in scene.factors.state.factors] == ["layers", "latent", "bytes"]
    assert scene.factors.state.result_text.endswith(" per token")
    scene.go_to_build(BUILDS.index("growth"), animate=False)
    assert scene.growth.state.curve[-1][0] == CATALOG.model("deepseek-v3").max_context_tokens
    scene.kit.store.update(model="mixtral-8x7b", gpus=2, weights="fp16")
    assert scene.growth.state.curve[-1][0] == 32768 and scene.context_tokens <= 32768
    assert [mark.key for mark in scene.growth.state.marks] == ["2k", "32k"]


def test_the_scene_never_changes_the_shared_scenario(make_scene):
    scene = make_scene()
    before = scene.kit.store.scenario
    for index in range(scene.build_count):
        scene.go_to_build(index, animate=True)
        scene.play()
        scene.step()
        advance(scene, 0.5)
    scene.set_context(2048)
    assert scene.kit.store.scenario == before


def _texts(scene):
    widgets = (scene.work, scene.factors, scene.growth, scene.sharing, scene.bars)
    return [(type(w).__name__, text) for w in widgets if w.isVisible() for text in w.drawn_texts()]


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("size", [(1024, 768), (1920, 1080)])
@pytest.mark.parametrize("scenario", [DEFAULT_SCENARIO, Scenario(gpus=1), Scenario(gpus=8),
                                      Scenario(model="deepseek-v3", gpus=8, weights="fp8", gpu="h200")])
def test_stage_text_stays_above_the_floor_never_overlaps_and_captions_keep_to_two_lines(
        qtbot, language, size, scenario):
    width, height = size
    theme = for_screen(THEMES["light"], height)
    store = ScenarioStore(scenario)
    frame = SlideFrame(theme)
    qtbot.addWidget(frame)
    scene = create_scene(KvCacheScene, SceneKit(Language(language), store, theme))
    frame.stage.addWidget(scene)
    frame.resize(width, height)
    frame.set_presenting_height(height)
    frame.show()
    qtbot.waitExposed(frame)
    # The caption is fitted to its label's width: wait until the frame has laid the label out at full width.
    qtbot.waitUntil(lambda: frame.caption_label.width() > 0.8 * width)
    for index in range(scene.build_count):
        scene.go_to_build(index, animate=False)
        frame.set_texts(scene.title(), scene.caption())
        qtbot.waitUntil(lambda: 0 < scene.height() and scene.height() + frame.caption_label.height() < height)
        advance(scene, 1.0)
        for widget in (scene.work, scene.factors, scene.growth, scene.sharing, scene.bars):
            if widget.isVisible():
                widget.grab()                                       # paints it now, as the screen would
        texts = _texts(scene)
        assert texts, index
        for owner, text in texts:
            assert text.px >= theme.text_floor_px, (index, owner, text)
        by_owner = itertools.groupby(sorted(texts, key=lambda t: t[0]), key=lambda t: t[0])
        for owner, group in by_owner:
            drawn = [t for _, t in group]
            for a, b in itertools.combinations(drawn, 2):
                assert not a.rect.intersected(b.rect).isValid() or a.rect.intersected(b.rect).isEmpty(), \
                    (index, owner, a, b)
        label = frame.caption_label
        lines = label.heightForWidth(label.width()) / label.fontMetrics().lineSpacing()
        assert lines < 2.5, (index, scene.phase(), scene.caption())
        assert scene.notes()


def test_language_switch_rewrites_the_stage(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("sharing"), animate=False)
    scene.kit.language.set_code("zh")
    scene.retranslate()
    assert "对话" in scene.sharing.state.labels["title"]
    assert "张 GPU" in scene.sharing.state.rows[0].name


def test_export_shows_the_last_build_settled(make_scene):
    scene = make_scene()
    scene.prepare_for_export()
    assert scene.build_index == BUILDS.index("sharing")
    assert scene.sharing.state.reveal == 1.0
    assert scene.bars.state.kv_sequences == scene.sharing.state.rows[1].sequences


def test_a_refused_what_if_leaves_the_row_out_without_breaking(make_scene):
    scene = make_scene(scenario=Scenario(model="qwen2.5-7b", gpus=1))
    scene.go_to_build(BUILDS.index("sharing"), animate=False)
    assert [row.gpus for row in scene.sharing.state.rows] == [1, 2, 4]
    assert isinstance(scene.story().what_if(gpus=8), InputError)


def test_a_model_longer_than_the_engine_sweeps_shows_a_note_not_a_crash(qtbot):
    """A user model may declare a longest context of 1e9 tokens: the sweep is refused, the scene says so inline."""
    long_70b = dataclasses.replace(CATALOG.model("llama-3.1-70b"), max_context_tokens=10 ** 9)
    catalog = dataclasses.replace(CATALOG, models={**CATALOG.models, "llama-3.1-70b": long_70b})
    store = ScenarioStore(DEFAULT_SCENARIO, catalog=catalog)
    scene = create_scene(KvCacheScene, SceneKit(Language("en"), store, THEMES["light"]))
    qtbot.addWidget(scene)
    scene.resize(1280, 640)
    scene.show()
    for build in range(len(BUILDS)):
        scene.go_to_build(build, animate=True)
        advance(scene, 0.5)
        assert scene.caption() and scene.notes()
    scene.go_to_build(BUILDS.index("growth"), animate=False)
    assert scene._note is not None and scene._note.isVisible()
    assert "1,000,000,000" in scene._note.text() and "10,000,000" in scene._note.text()
    assert "(2K: 640 MiB, 32K: 10 GiB, 128K: 40 GiB)" in scene.caption()     # the marks are still named


def test_the_growth_playback_asks_the_engine_only_for_what_is_drawn(make_scene):
    scene = make_scene()
    scene.go_to_build(BUILDS.index("growth"), animate=True)
    story = scene.story()
    swept = story.sweep
    assert len(swept.contexts) < 100 and swept.contexts[-1] == story.longest
    base = story._growth_base
    for _ in range(5):
        advance(scene, CONTEXT_PLAY_SECONDS / 7)
        state = scene.growth.state
        # the curve, marks and ticks are the ones worked out once; the point moves
        assert state.curve is base.curve and state.y_ticks is base.y_ticks and state.marks is base.marks
        assert state.context_tokens == scene.context_tokens
    assert "(2K: 640 MiB, 32K: 10 GiB, 128K: 40 GiB)" in scene.caption()


@pytest.mark.parametrize("code", ["en", "zh"])
@pytest.mark.parametrize("size", [(1024, 768), (1920, 1080)])
def test_the_sharing_bar_always_names_its_kv_cache(presenting, code, size):
    """In the scene about the KV cache, its last build's memory bar once had every entry but the KV cache's."""
    from PySide6.QtCore import QSize
    frame, scene, _ = presenting(KvCacheScene, code, QSize(*size))
    scene.go_to_build(BUILDS.index("sharing"), animate=False)
    scene.clock.set_seconds(scene.clock.seconds() + 1.0)
    frame.grab()
    keys = {text.key for text in scene.bars.drawn_texts()}
    assert "column.kv" in keys, sorted(keys)


def test_after_the_idle_jobs_the_growth_build_paints_no_still_layer_again(make_scene, qtbot, monkeypatch):
    """The growth plot's still layer (its axes, marks and texts) is the costliest paint of the scene: the idle
    jobs paint it while the plot is hidden, so the first frame of that build only lays it down."""
    from PySide6.QtWidgets import QApplication
    from widgets.kv_growth_plot import KvGrowthPlot

    scene = make_scene()
    scene.show()
    qtbot.waitExposed(scene)
    for job in scene.idle_jobs():
        job()
    painted = []
    paint_static = KvGrowthPlot._paint_static
    monkeypatch.setattr(KvGrowthPlot, "_paint_static", lambda self, *a: (painted.append(1), paint_static(self, *a)))
    scene.go_to_build(BUILDS.index("growth"), animate=True)
    QApplication.processEvents()
    assert scene.growth.drawn_texts() and painted == []
