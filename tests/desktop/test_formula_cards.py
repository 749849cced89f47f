"""The formula behind a figure: the stories say which figures have one (the stage's own number), a click or the I
key shows its card, and the roofline and KV growth plots zoom and pan in the window only."""
from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.scenes.gpu_waits.story import FIRST_DECODE_BUILD, FIRST_GAUGE_BUILD, ROOFLINE_BUILD, GpuWaitsStory
from desktop.scenes.kv_cache.pictures import FACTOR_BUILDS, GROWTH_BUILD
from desktop.scenes.kv_cache.story import KvCacheStory, KvControls
from engine import Scenario
from engine.units import format_percent, format_seconds
from tests.desktop.stories import story

DEFAULT = Scenario(gpus=2)


# -- the stories (Qt-free) ------------------------------------------------------------------------------
def test_scene_1s_idle_share_card_gives_the_belts_own_number_at_each_build():
    for build in range(len(GpuWaitsStory.builds)):
        told = story(GpuWaitsStory, DEFAULT, build, key="gpu_waits")
        formulas = told.formulas()
        if build < FIRST_GAUGE_BUILD:
            assert formulas == {}                                     # no idle share on the stage yet
            continue
        intensity = told.target_intensity()
        assert formulas["idle_share"].result == format_percent(1 - told.figures.busy(intensity)[0])
        assert formulas["ridge_point"].value == pytest.approx(told.figures.ridge)


def test_at_decode_in_realistic_mode_the_card_is_the_engines_utilisation_elsewhere_the_roofline():
    told = story(GpuWaitsStory, DEFAULT, FIRST_DECODE_BUILD, key="gpu_waits")
    assert "t × g × P" in told.formulas()["idle_share"].symbols
    moved = told.formulas(intensity=30.0)                             # the control moved off the preset
    assert moved["idle_share"].symbols == "idle = 1 − min(I, ridge) ÷ ridge"
    assert moved["idle_share"].result == format_percent(1 - told.figures.busy(30.0)[0])


def test_the_fp8_builds_cards_are_those_of_the_fp8_picture_it_shows():
    told = story(GpuWaitsStory, DEFAULT, GpuWaitsStory.builds.index("fp8"), key="gpu_waits")
    assert told.formulas()["ridge_point"].result == "591 FLOP/byte"  # FP8's peak, twice FP16's


def test_scene_5s_cards_are_the_bytes_per_token_and_the_batchs_kv_at_the_plots_context():
    bytes_build = story(KvCacheStory, DEFAULT, FACTOR_BUILDS[0], key="kv_cache")
    assert bytes_build.formulas()["kv_bytes_per_token"].value == bytes_build.report.kv_bytes_per_token
    growth = story(KvCacheStory, Scenario(gpus=2, batch=3), GROWTH_BUILD, KvControls(32_768), key="kv_cache")
    state = growth.states(None, 0.0)["growth"]
    assert growth.formulas()["kv_bytes"].value == pytest.approx(state.context_bytes)
    assert story(KvCacheStory, DEFAULT, 0, key="kv_cache").formulas() == {}


# -- in the window ------------------------------------------------------------------------------------
@pytest.fixture
def laptop(make_window, qtbot):
    window = make_window("en")
    window.resize(1366, 768)
    qtbot.waitUntil(lambda: window.width() == 1366)
    window.deck.show(0)
    return window


def _texts(scene) -> list[str]:
    """The card's texts with plain spaces (numbers are glued to their units by no-break spaces)."""
    return [text.replace("\u00a0", " ") for text in scene.formula_cards.card.texts()]


def _at(scene, key: str) -> QPoint:
    return scene.formula_cards.rects()[key].center()


def test_a_click_on_the_idle_share_shows_its_formula_with_this_scenarios_values(laptop, qtbot):
    scene = laptop.deck.current
    scene.go_to_build(FIRST_DECODE_BUILD, animate=False)
    qtbot.mouseClick(scene, Qt.MouseButton.LeftButton, pos=_at(scene, "idle_share"))
    card = scene.formula_cards.card
    assert card.isVisible() and scene.formula_cards.shown_key == "idle_share"
    texts = _texts(scene)
    step = format_seconds(scene.kit.store.report.decode.seconds_per_token)     # this scenario's own step time
    assert "How long the worker waits" in texts and f"= 1 − (142 GFLOP × 1) ÷ ({step} × 2 × 989 TFLOPS)" in texts
    assert scene.rect().contains(card.geometry())                      # inside the stage
    qtbot.mouseClick(scene, Qt.MouseButton.LeftButton, pos=QPoint(2, scene.height() - 2))
    assert not card.isVisible()                                        # a click on no figure closes it


def test_the_i_key_steps_through_the_builds_figures_and_esc_closes_the_card_first(laptop):
    scene = laptop.deck.current
    scene.go_to_build(FIRST_GAUGE_BUILD, animate=False)
    QtBot.keyClick(laptop.slide, Qt.Key.Key_I)
    first = scene.formula_cards.shown_key
    QtBot.keyClick(laptop.slide, Qt.Key.Key_I)
    assert {first, scene.formula_cards.shown_key} == {"idle_share", "ridge_point"}
    assert "press I again" in scene.formula_cards.card.texts()[-1]
    laptop.presentation.start(from_start=False)
    QtBot.keyClick(QApplication.focusWidget() or laptop.slide, Qt.Key.Key_Escape)
    assert not scene.formula_cards.card.isVisible() and laptop.presentation.active   # the card went, the talk stays
    laptop.presentation.stop()


def test_the_card_follows_the_scenario_and_goes_with_the_build(laptop):
    scene = laptop.deck.current
    scene.go_to_build(FIRST_DECODE_BUILD, animate=False)
    scene.formula_cards.show("idle_share")
    laptop.store.update(gpus=4)
    assert any("× 4 ×" in text for text in _texts(scene))
    laptop.deck.next()
    assert not scene.formula_cards.card.isVisible()


def test_a_build_without_a_formula_says_so_in_a_note(laptop):
    QtBot.keyClick(laptop.slide, Qt.Key.Key_I)              # scene 1's first build: the belt, no numbers yet
    scene = laptop.deck.current
    assert scene.formula_cards.card is None or not scene.formula_cards.card.isVisible()
    assert scene._note is not None and "No figure of this build" in scene._note.text()


def test_scene_5s_factor_tiles_show_the_kv_formula_on_a_click_in_chinese(laptop, qtbot):
    laptop.language.set_code("zh")
    laptop.deck.show(laptop.deck.position_of("kv_cache"))
    scene = laptop.deck.current
    scene.go_to_build(FACTOR_BUILDS[0], animate=False)
    qtbot.mouseClick(scene, Qt.MouseButton.LeftButton, pos=_at(scene, "kv_bytes_per_token"))
    texts = _texts(scene)
    assert "每个 token 的 KV Cache" in texts and "= 2 × 80 × 8 × 128 × 2 bytes" in texts and "层数" in texts


# -- plots that zoom and pan ----------------------------------------------------------------------------------
def _wheel(widget, at: QPoint, notches: int) -> None:
    event = QWheelEvent(QPointF(at), QPointF(widget.mapToGlobal(at)), QPoint(0, 0), QPoint(0, 120 * notches),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def test_the_kv_growth_plot_zooms_pans_and_resets_in_the_window_and_is_fixed_while_presenting(laptop, qtbot):
    laptop.deck.show(laptop.deck.position_of("kv_cache"))
    scene = laptop.deck.current
    scene.go_to_build(GROWTH_BUILD, animate=False)
    plot = scene.growth
    qtbot.waitUntil(lambda: not plot.plot_rect.isEmpty())
    before = plot.view_range()
    _wheel(plot, plot.plot_rect.center().toPoint(), +2)
    (x0, x1), _ = plot.view_range()
    assert plot.zoomed() and x1 - x0 < before[0][1] - before[0][0]          # zoomed in
    assert plot.reset_button.isVisible() and plot.reset_button.text().endswith("Reset view")
    centre = plot.plot_rect.center().toPoint()
    qtbot.mousePress(plot, Qt.MouseButton.LeftButton, pos=centre)
    qtbot.mouseMove(plot, centre + QPoint(60, 0))
    qtbot.mouseRelease(plot, Qt.MouseButton.LeftButton, pos=centre + QPoint(60, 0))
    assert plot.view_range()[0][0] < x0                                      # dragged right: earlier contexts
    qtbot.mouseClick(plot.reset_button, Qt.MouseButton.LeftButton)
    assert not plot.zoomed() and plot.view_range() == before
    laptop.presentation.start(from_start=False)
    _wheel(plot, plot.plot_rect.center().toPoint(), +2)
    assert not plot.zoomed()
    laptop.presentation.stop()


def test_the_roofline_zooms_by_hand_and_its_reset_puts_back_the_scenes_view(laptop, qtbot):
    scene = laptop.deck.current
    scene.go_to_build(ROOFLINE_BUILD, animate=False)
    plot = scene.plot
    qtbot.waitUntil(lambda: plot.isVisible() and plot.interactive())
    viewport = plot.plot_widget.viewport()
    _wheel(viewport, viewport.rect().center(), +2)
    assert plot.zoomed() and plot.reset_button.isVisible()
    zoomed = plot.view_range()
    laptop.store.update(gpu="h100-sxm")                  # a new roof keeps the view the person chose
    assert plot.zoomed() and plot.view_range() == zoomed
    qtbot.mouseClick(plot.reset_button, Qt.MouseButton.LeftButton)
    assert not plot.zoomed()
    (x0, x1), (y0, y1) = plot.view_range()
    assert [x0, x1, y0, y1] == pytest.approx([*plot._layout.x_range, *plot._layout.y_range])   # the scene's view
    laptop.presentation.start(from_start=False)
    assert not plot.interactive()
    _wheel(viewport, viewport.rect().center(), +2)
    assert not plot.zoomed()
    laptop.presentation.stop()
    assert plot.interactive()


def test_a_scene_made_outside_the_window_keeps_its_plots_fixed(qtbot):
    # as the export and the speaker view's previews make it: no one turns the plots interactive
    from desktop.i18n import Language
    from desktop.kit.scene import SceneKit, create_scene
    from desktop.scenario_store import ScenarioStore
    from desktop.scenes.kv_cache.view import KvCacheScene
    from widgets.theme import THEMES
    scene = create_scene(KvCacheScene, SceneKit(Language("en"), ScenarioStore(DEFAULT), THEMES["light"]))
    qtbot.addWidget(scene)
    scene.go_to_build(GROWTH_BUILD, animate=False)
    scene.resize(1000, 600)
    scene.show()
    qtbot.waitUntil(lambda: not scene.growth.plot_rect.isEmpty())
    _wheel(scene.growth, scene.growth.plot_rect.center().toPoint(), +2)
    assert not scene.growth.zoomed()


def _plain(text: str) -> str:
    return " ".join(text.replace("\u00a0", " ").split())


@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_card_a_build_offers_ends_in_the_number_its_label_shows(make_window, language):
    """Scenes 2, 3 and 4 had no card at all; a card beside a label must reach that label's own number (scene 2's
    bars show what each GPU keeps: 70.6 GB of the 141 GB, so its card divides by the GPUs)."""
    window = make_window(language)
    window.resize(1366, 768)
    offered = {}
    for position, entry in enumerate(window.deck.entries):
        window.deck.show(position)
        scene = window.deck.current
        scene.ensure_ready()
        for build in range(scene.build_count):
            scene.go_to_build(build, animate=False)
            scene.clock.set_seconds(scene.clock.seconds() + 10)       # past every build's motion
            scene.grab()                                             # painted: the labels are where they are drawn
            formulas, places = scene.formulas(), scene.figure_places()
            for key in scene.formula_cards.rects():
                widget, names = places[key]
                offered.setdefault(entry.key, set()).add(formulas[key].key)
                if not names:
                    continue                                         # the whole widget shows it (scene 5)
                shown = " ".join(_plain(t.text) for t in widget.drawn_texts() if t.key in names)
                number = re.search(r"\d[\d,.]*", formulas[key].result).group(0)      # the unit is worded per language
                assert re.search(rf"(?<![\d.,]){re.escape(number)}(?![\d,]|\.\d)", shown), (entry.key, build, key, shown)
    assert {"weights_bytes_per_gpu", "kv_bytes_per_gpu"} <= offered["model_memory"]
    assert {"weights_bytes", "weights_bytes_per_gpu"} <= offered["one_token"]
    assert offered["prefill_decode"] == {"tpot_seconds"}
    summary = {"step_idle_share", "work_ratio_without_cache", "tokens_processed_without_cache",
               "tokens_processed_with_cache", "weights_bytes_per_gpu", "kv_bytes_per_gpu", "usd_per_million_input_tokens",
               "usd_per_million_output_tokens", "output_to_input_price_ratio"}
    # the runtime's label gives way to the others on a small stage (zh): its card goes with it
    assert summary <= offered["summary"] <= summary | {"overhead_bytes_per_gpu"}
    prices = {"usd_per_million_input_tokens", "usd_per_million_output_tokens", "output_to_input_price_ratio"}
    # the counted figures come as the tokenizer process answers (test_tokens_story.py): here, if they have come
    assert prices <= offered["tokens"] <= prices | {"chinese_to_english_tokens", "usd_per_million_sentences",
                                                    "characters_per_token"}
    assert offered["levers"] == {"step_idle_share", "tpot_seconds", "ttft_seconds", "tokens_per_second_per_gpu",
                                 "usd_per_million_output_tokens", "max_batch"}
    assert offered["serving"] == {"fleet_gpus", "fleet_nodes", "fleet_usd_per_million_input_tokens",
                                  "fleet_usd_per_million_output_tokens", "knee_requests_per_second"}
    assert offered["your_machine"] == {"ridge_point", "step_idle_share", "decode_step_seconds"}   # nothing measured
