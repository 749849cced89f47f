"""The formulas behind scene 6's figures: worked out from counts already counted, by engine.token_counts."""
from __future__ import annotations

import tomllib
from importlib import resources

import pytest

from engine import InputError
from engine.token_formulas import KEYS, formula

EXAMPLE = {"characters_per_token": (84, 24), "chinese_to_english_tokens": (1_990, 1_380),
           "usd_per_million_sentences": (1_990, 105, 32.4)}


def test_characters_per_token_is_the_characters_over_the_tokens():
    shown = formula("characters_per_token", 84, 24)
    assert shown.values == "84 ÷ 24" and shown.value == 3.5 and shown.result == "3.5"


def test_the_chinese_to_english_ratio_divides_the_two_sums_of_the_corpus():
    shown = formula("chinese_to_english_tokens", 1_990, 1_380)
    assert shown.values == "1,990 ÷ 1,380" and shown.value == 1_990 / 1_380 and shown.result == "1.44×"


def test_a_million_sentences_cost_their_mean_tokens_in_millions_at_the_output_price():
    shown = formula("usd_per_million_sentences", 1_990, 105, 32.4)
    # 1,990 tokens over 105 sentences: 18.95 tokens a sentence, so a million sentences are 18.95 M tokens
    assert shown.value == pytest.approx(1_990 / 105 * 32.4) and shown.values == "1,990 ÷ 105 × $32.4"


@pytest.mark.parametrize("key, values, code", [
    ("characters_per_token", (84, 0), "formula.bad_positive_count"),        # no tokens: nothing to divide by
    ("characters_per_token", (-1, 3), "formula.bad_count"),
    ("chinese_to_english_tokens", (2.5, 3), "formula.bad_count"),
    ("chinese_to_english_tokens", (True, 3), "formula.bad_count"),
    ("usd_per_million_sentences", (10, 0, 1.0), "formula.bad_positive_count"),
    ("usd_per_million_sentences", (10, 2, float("inf")), "formula.bad_at"),
    ("usd_per_million_sentences", (10, 2, -1.0), "formula.bad_at"),
])
def test_a_count_or_price_that_is_not_one_is_refused_in_one_sentence(key, values, code):
    with pytest.raises(InputError) as refused:
        formula(key, *values)
    assert refused.value.code == code


def test_an_unknown_figure_is_refused_naming_those_with_a_formula():
    with pytest.raises(InputError) as refused:
        formula("vibes", 1, 1)
    assert "characters_per_token" in str(refused.value)


@pytest.mark.parametrize("key", KEYS)
def test_every_symbol_is_written_in_the_formula_and_named_in_both_languages(key):
    texts = tomllib.loads(resources.files("resources").joinpath("text", "formulas.toml").read_text("utf-8"))
    shown = formula(key, *EXAMPLE[key])
    assert set(texts["title"][key]) == {"en", "zh"} and shown.source.startswith("engine.token_counts.")
    for term in shown.terms:
        assert term.symbol in shown.symbols and set(texts["term"][term.name]) == {"en", "zh"}
