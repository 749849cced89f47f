"""Scene 6's story without Qt: which page each build shows, what it is made from (the profiles, the person's
parallel text, the playground's count), what is still to be asked, and the texts it gives the frame."""
from __future__ import annotations

import dataclasses
from functools import lru_cache

import pytest

from desktop.kit.answers import Answers
from desktop.kit.story import Inputs
from desktop.scenes.tokens import pictures
from desktop.scenes.tokens.corpus import MAX_PAIRS, app_corpus, pasted_corpus_job
from desktop.scenes.tokens.cuts import DEFAULT_TOKENIZERS, playground_job
from desktop.scenes.tokens.prepared import profile_job
from desktop.scenes.tokens.story import BUILDS, Choices, Results, TokensInputs, TokensStory
from engine import Scenario, compute_report
from engine.catalog import default_catalog
from engine.tokens import count_tokens, tokenizer_for_model

CATALOG = default_catalog()
SCENARIO = Scenario(model="deepseek-v3", gpus=8)          # a model whose tokenizer is not among the defaults
REPORT = compute_report(SCENARIO, CATALOG)
MODEL_TOKENIZER = tokenizer_for_model(SCENARIO.model).id


def text(key, count=None, **values):
    """A stand-in for the language: the key and its values, so states can be checked without Qt."""
    return key + "|" + "|".join(f"{k}={v}" for k, v in sorted(values.items()))


@lru_cache(maxsize=None)
def profile(tokenizer):
    return profile_job(tokenizer)


def story(build="what", choices=Choices(), scenario=SCENARIO, **results) -> TokensStory:
    report = REPORT if scenario == SCENARIO else compute_report(scenario, CATALOG)
    inputs = Inputs(scenario, report, BUILDS.index(build), Answers(CATALOG).ask, text,
                    controls=TokensInputs(choices, Results(**results)))
    return TokensStory(inputs)


def all_profiles(tokenizers=DEFAULT_TOKENIZERS + (MODEL_TOKENIZER,)):
    return tuple(profile(t) for t in tokenizers)


def test_each_build_shows_its_own_page_and_only_its_states_are_made():
    pages = {build: story(build).page for build in BUILDS}
    assert pages == {"what": "seed", "chinese": "ratio", "cost": "cost", "playground": "playground"}
    assert set(story("cost", profiles=all_profiles()).states()) == {"price", "cost"}
    assert set(story("what").states()) == {"seed"}


def test_the_corpus_is_counted_with_the_chosen_tokenizers_and_the_models_and_missing_ones_are_asked_for():
    first = story()
    assert first.counted == DEFAULT_TOKENIZERS + (MODEL_TOKENIZER,)
    assert first.missing_profiles() == first.counted
    some = story(profiles=all_profiles(DEFAULT_TOKENIZERS[:2]))
    assert some.missing_profiles() == (DEFAULT_TOKENIZERS[2], MODEL_TOKENIZER)
    assert story(profiles=all_profiles()).missing_profiles() == ()
    llama = dataclasses.replace(SCENARIO, model="llama-3.1-70b")
    assert story(scenario=llama).counted == DEFAULT_TOKENIZERS            # its tokenizer is already chosen


def test_without_profiles_the_seed_table_says_it_is_loading_and_with_them_shows_the_real_cuts():
    assert story().states()["seed"].footer == "label.loading|"
    assert pictures.PENDING in story().caption_values().values()
    ready = story(profiles=all_profiles())
    assert ready.states()["seed"].footer.startswith("label.seed_footer")
    cells = ready.states()["seed"].rows[3].cells[1:]                       # 你好, under each chosen tokenizer
    assert [cell.summary_short.split("label")[0] for cell in cells] == [
        str(count_tokens(t, "你好")) for t in DEFAULT_TOKENIZERS]
    assert pictures.PENDING not in ready.caption_values().values()
    only_model = story(profiles=all_profiles((MODEL_TOKENIZER,)))         # not a chosen one: still loading
    assert only_model.states()["seed"].footer == "label.loading|" and not only_model.cuts


def test_the_ratios_are_of_the_app_corpus_until_the_persons_text_has_pairs():
    ready = story("chinese", profiles=all_profiles())
    assert not ready.own_parallel and ready.parallel == app_corpus()
    bars = ready.states()["ratio"].bars
    assert [bar.value for bar in bars] == [profile(t).corpus.ratio for t in DEFAULT_TOKENIZERS]
    assert story("chinese", profiles=all_profiles(), reading_paste=True).counts is None      # a new text is read
    counted = DEFAULT_TOKENIZERS + (MODEL_TOKENIZER,)
    mine = pasted_corpus_job("你好\tHello\n推理加速\tfaster inference\nno tab\n", counted)
    own = story("chinese", profiles=all_profiles(), pasted=mine)
    assert own.own_parallel and len(own.parallel.pairs) == 2 and own.counts == mine.counts
    assert "pairs=2" in own.parallel_status() and "skipped=1" in own.parallel_status()
    none = pasted_corpus_job("no pairs here", counted)
    assert not story("chinese", profiles=all_profiles(), pasted=none).own_parallel
    assert story(pasted=none).parallel_status() == "control.parallel_none|"


def test_a_pasted_text_is_counted_again_when_a_tokenizer_is_added_and_keeps_its_counts_meanwhile():
    counted = DEFAULT_TOKENIZERS + (MODEL_TOKENIZER,)
    mine = pasted_corpus_job("你好\tHello\n", counted)
    assert not story(pasted=mine).paste_to_count_again()
    more = Choices(DEFAULT_TOKENIZERS + ("gpt2",))
    again = story("chinese", choices=more, pasted=mine)
    assert again.paste_to_count_again() and again.counts == mine.counts
    assert not story(choices=more, pasted=pasted_corpus_job("no pairs", counted)).paste_to_count_again()


def test_the_parallel_status_says_what_was_cut_and_what_was_held():
    many = pasted_corpus_job("一\tone\n" * (MAX_PAIRS + 2), ("gpt2",), held=True)
    status = story(pasted=many).parallel_status()
    assert "control.parallel_cut" in status and "cut=2" in status
    assert "control.parallel_held" in status


def test_the_playground_says_counting_while_the_box_holds_text_whose_count_has_not_come():
    empty = playground_job("", DEFAULT_TOKENIZERS)
    footer = lambda **results: story("playground", **results).states()["playground"].footer
    assert footer() == "label.counting|"                                              # nothing counted yet
    assert footer(played=empty) == "label.empty|"                                     # the box is empty
    assert footer(played=empty, counting=True, box_empty=False) == "label.counting|"  # typed into it: counting
    assert footer(played=empty, counting=True, box_empty=True) == "label.empty|"      # cleared again
    assert story("playground").playground_due() and story(played=empty, counting=True).playground_due()
    assert not story(played=empty).playground_due()
    words = playground_job("some words", DEFAULT_TOKENIZERS)
    typing = story("playground", played=words, counting=True).states()["playground"]
    assert len(typing.rows) == len(DEFAULT_TOKENIZERS)          # the last counts stay while typing goes on


@pytest.mark.parametrize("show_spaces", [True, False])
def test_the_playground_follows_the_toggles(show_spaces):
    played = playground_job("a b", DEFAULT_TOKENIZERS)
    state = story("playground", choices=Choices(show_spaces=show_spaces, show_ids=True), played=played)
    lanes = state.states()["playground"]
    assert lanes.show_ids and lanes.rows[0].cells[0].chips == played.lanes[0].chips[show_spaces]


def test_prices_and_their_inputs_are_the_reports():
    cost = story("cost", profiles=all_profiles())
    values = cost.caption_values()
    assert values["price_ratio"] == pictures.format_ratio(REPORT.output_to_input_price_ratio)
    assert values["model_tokenizer"] and values["ratio_model"] != pictures.PENDING     # DeepSeek's own tokenizer
    assert [bar.value for bar in cost.states()["price"].bars] == [REPORT.usd_per_million_input_tokens,
                                                                  REPORT.usd_per_million_output_tokens]


def test_results_take_in_profiles_without_losing_the_others():
    results = Results(profiles=all_profiles(DEFAULT_TOKENIZERS[:1]), counting=True)
    more = results.with_profiles({t: profile(t) for t in DEFAULT_TOKENIZERS[1:]})
    assert [p.tokenizer for p in more.profiles] == list(DEFAULT_TOKENIZERS) and more.counting
    assert results.with_profiles(all_profiles(DEFAULT_TOKENIZERS[:1])) == results


# -- the formula behind a figure ----------------------------------------------------------------------------------
def test_each_build_offers_the_cards_of_the_figures_it_draws_and_the_seed_table_none():
    assert story("what", profiles=all_profiles()).formulas() == {}
    assert story("chinese").formulas() == {} and story("playground").formulas() == {}     # nothing counted yet
    ratio = story("chinese", profiles=all_profiles()).formulas()
    assert set(ratio) == {f"chinese_to_english_tokens.{n}" for n in range(len(DEFAULT_TOKENIZERS))}
    cost = story("cost", profiles=all_profiles()).formulas()
    assert set(cost) == {"usd_per_million_input_tokens", "usd_per_million_output_tokens", "output_to_input_price_ratio",
                         *(f"usd_per_million_sentences.{n}" for n in range(2 * len(DEFAULT_TOKENIZERS)))}
    assert set(story("cost").formulas()) == {"usd_per_million_input_tokens", "usd_per_million_output_tokens",
                                             "output_to_input_price_ratio"}          # the prices need no counts


def test_each_ratio_and_cost_card_is_the_bar_it_sits_on_from_the_counts_the_story_has():
    ratio = story("chinese", profiles=all_profiles())
    bars, cards = ratio.states()["ratio"].bars, ratio.formulas()
    for n, (bar, tokenizer) in enumerate(zip(bars, DEFAULT_TOKENIZERS, strict=True)):
        counts = profile(tokenizer).corpus
        card = cards[f"chinese_to_english_tokens.{n}"]
        assert card.value == bar.value == sum(counts.zh_tokens) / sum(counts.en_tokens)
        assert card.values == f"{sum(counts.zh_tokens):,} ÷ {sum(counts.en_tokens):,}"
        assert ratio.figure_labels()[f"chinese_to_english_tokens.{n}"][:2] == ("ratio", f"value.{n}")
    cost = story("cost", profiles=all_profiles())
    bars, cards = cost.states()["cost"].bars, cost.formulas()
    for n, bar in enumerate(bars):
        assert cards[f"usd_per_million_sentences.{n}"].value == pytest.approx(bar.value)
        assert cards[f"usd_per_million_sentences.{n}"].result == bar.value_label
    prices = cost.states()["price"].bars
    assert cards["usd_per_million_output_tokens"].value == prices[1].value == REPORT.usd_per_million_output_tokens


def test_each_playground_lane_card_divides_the_characters_by_that_lanes_count_without_counting_again(monkeypatch):
    played = playground_job("推理加速让大模型回答得更快。Inference acceleration.", DEFAULT_TOKENIZERS)
    import engine.tokens              # every cut and count goes through its vocabulary: none may be read now
    monkeypatch.setattr(engine.tokens, "vocabulary", lambda *a: pytest.fail("the card tokenized again"))
    shown = story("playground", played=played)
    cards = shown.formulas()
    for r, lane in enumerate(played.lanes):
        card = cards[f"characters_per_token.{r}"]
        assert card.value == played.characters / lane.count and card.values.endswith(f" ÷ {lane.count}")
        assert f"per={card.result}" in shown.states()["playground"].rows[r].cells[0].summary    # the lane's own words
    counting = story("playground", played=dataclasses.replace(played, characters=0), counting=True)
    assert counting.formulas() == {}                                      # "Counting…": no lanes, no cards
