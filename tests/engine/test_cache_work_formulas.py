"""The formulas behind the work of generating N tokens with and without a KV cache (the summary's second answer)."""
from __future__ import annotations

import tomllib
from importlib import resources

import pytest

from engine import InputError
from engine.cache_work_formulas import KEYS, formula


def test_the_seeds_500_tokens_take_125250_computations_without_a_cache_and_500_with_one():
    without, with_cache = formula("tokens_processed_without_cache", 500), formula("tokens_processed_with_cache", 500)
    assert without.values == "500 × 501 ÷ 2" and without.result == "125,250" == f"{sum(range(1, 501)):,}"
    assert with_cache.result == "500" and with_cache.value == 500
    ratio = formula("work_ratio_without_cache", 500)
    assert ratio.values == "125,250 ÷ 500" and ratio.value == 125_250 / 500 and ratio.result == "250×"


@pytest.mark.parametrize("n", [1, 2, 7, 4096])
def test_the_ratio_is_the_two_totals_divided_and_half_of_n_plus_one(n):
    without, with_cache = formula("tokens_processed_without_cache", n), formula("tokens_processed_with_cache", n)
    assert without.value == sum(range(1, n + 1)) and with_cache.value == n
    assert formula("work_ratio_without_cache", n).value == pytest.approx((n + 1) / 2)


@pytest.mark.parametrize("n", [0, -3, 2.5, float("nan"), True, "500"])
def test_a_count_that_is_no_whole_number_of_tokens_is_refused(n):
    with pytest.raises(InputError) as refused:
        formula("work_ratio_without_cache", n)
    assert refused.value.code == "formula.bad_positive_count"


def test_an_unknown_figure_is_refused_naming_those_with_a_formula():
    with pytest.raises(InputError) as refused:
        formula("kv_bytes", 500)
    assert "work_ratio_without_cache" in str(refused.value)


@pytest.mark.parametrize("key", KEYS)
def test_every_symbol_is_written_in_the_formula_and_named_in_both_languages(key):
    texts = tomllib.loads(resources.files("resources").joinpath("text", "formulas.toml").read_text("utf-8"))
    shown = formula(key, 500)
    assert set(texts["title"][key]) == {"en", "zh"} and shown.source.startswith("engine.kv_cache.")
    for term in shown.terms:
        assert term.symbol in shown.symbols and set(texts["term"][term.name]) == {"en", "zh"}
