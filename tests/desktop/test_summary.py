"""Scene 7: four questions, answers revealed by build or by click, links back to the scenes that exist."""
from __future__ import annotations

import pytest

from desktop.scene import SceneContext
from desktop.scenario_store import ScenarioStore
from desktop.scenes.registry import scene_class
from desktop.scenes.summary import QUESTIONS, SummaryScene
from engine.units import format_percent, format_ratio
from widgets.theme import THEMES


@pytest.fixture
def summary(qtbot, language):
    store = ScenarioStore()
    scene = SummaryScene(SceneContext(language, store, THEMES["light"]))
    store.changed.connect(scene.on_report)
    scene.on_report(store.scenario, store.report)
    qtbot.addWidget(scene)
    scene.resize(1280, 720)
    scene.show()
    qtbot.waitExposed(scene)
    return scene


def test_the_first_build_shows_four_questions_and_no_answer(summary):
    assert [card.state.question for card in summary.cards] == [
        summary.context.language.text(f"summary.question.{name}") for name in QUESTIONS]
    assert summary.revealed_answers() == []
    assert not any(card.answer_visible() for card in summary.cards)


def test_each_build_reveals_the_next_answer_and_stepping_back_hides_it(summary):
    for build in range(1, summary.build_count):
        assert summary.next_build()
        assert summary.revealed_answers() == list(range(build))
    assert not summary.next_build()
    assert summary.previous_build()
    assert summary.revealed_answers() == [0, 1, 2]
    assert not summary.cards[3].answer_visible()


def test_a_click_reveals_one_answer_without_changing_the_build(summary):
    summary.cards[2].activate_link("reveal")
    assert summary.revealed_answers() == [2] and summary.build_index == 0
    summary.reset()
    assert summary.revealed_answers() == []


def test_the_answers_quote_the_current_scenario(summary):
    report = summary.context.store.report
    summary.prepare_for_export()
    slow, price = summary.cards[0].state.answer, summary.cards[3].state.answer
    assert format_percent(report.decode_share) in slow
    assert format_ratio(report.output_to_input_price_ratio) in price
    summary.context.store.update(usd_per_gpu_hour=7.0)
    assert "$7" in summary.cards[3].state.answer


def test_links_go_only_to_scenes_that_exist(summary, qtbot):
    summary.prepare_for_export()
    for card, numbers in zip(summary.cards, QUESTIONS.values()):
        linked = [number for number, _text in card.state.links]
        assert linked == [n for n in numbers if scene_class(n) is not None]
        for number, _text in card.state.links:
            with qtbot.waitSignal(summary.jump_requested) as signal:
                card.activate_link(f"scene:{number}")
            assert signal.args == [number]


def test_a_link_in_the_window_jumps_to_its_scene(window):
    summary_position = window.deck.position_of(7)
    window.deck.show(summary_position, "last")
    card = next((card for card in window.deck.current.cards if card.state.links), None)
    if card is None:
        pytest.skip("no scene that an answer links to is registered yet")
    number = card.state.links[0][0]
    card.activate_link(f"scene:{number}")
    assert window.deck.classes[window.deck.position].number == number


def test_every_card_fits_at_1024x768(summary):
    summary.resize(980, 560)           # the stage of a 1024x768 slide
    summary.prepare_for_export()
    summary.layout().activate()
    assert all(card.width() < 500 for card in summary.cards)
    for card in summary.cards:
        assert card.height_for_width(card.width()) <= card.height() + 1


@pytest.mark.parametrize("code", ["en", "zh"])
def test_answers_with_timing_or_prices_say_which_mode_they_come_from(qtbot, code):
    from desktop.i18n import Language
    language = Language(code)
    store = ScenarioStore()
    scene = SummaryScene(SceneContext(language, store, THEMES["light"]))
    qtbot.addWidget(scene)
    store.changed.connect(scene.on_report)
    scene.on_report(store.scenario, store.report)
    quoting = [0, 3]                      # "slow" (decode share, utilisation) and "output_price" (prices)
    realistic = language.text("summary.mode.realistic")
    assert realistic in ("(realistic mode)", "（接近实测模式）")
    assert all(realistic in scene.cards[i].state.answer for i in quoting)
    store.update(mode="ideal")
    ideal = language.text("summary.mode.ideal")
    assert all(ideal in scene.cards[i].state.answer and realistic not in scene.cards[i].state.answer
               for i in quoting)
    language.set_code("en" if code == "zh" else "zh")
    scene.retranslate()                   # as the deck does on a language switch
    assert language.text("summary.mode.ideal") in scene.cards[0].state.answer


def test_the_price_answer_shows_how_a_busy_server_brings_the_ratio_down(summary):
    """At batch 1 output costs hundreds of times input; decoding 128 requests at once brings the
    engine's ratio into the 2-4x range providers charge, and the answer quotes that figure."""
    from dataclasses import replace

    from engine import compute_report
    from desktop.scenes.summary import BUSY_SERVER_BATCH
    summary.prepare_for_export()
    scenario = summary.context.store.scenario
    busy = compute_report(replace(scenario, batch=BUSY_SERVER_BATCH))
    assert 2 <= busy.output_to_input_price_ratio <= 4
    assert format_ratio(busy.output_to_input_price_ratio) in summary.cards[3].state.answer
    summary.context.store.update(batch=8)
    busy_at_8 = compute_report(replace(summary.context.store.scenario, batch=BUSY_SERVER_BATCH))
    assert format_ratio(busy_at_8.output_to_input_price_ratio) in summary.cards[3].state.answer
