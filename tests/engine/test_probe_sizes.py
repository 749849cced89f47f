"""The probe's sizes follow the memory budget, the free memory and the cache; what cannot run says why."""
from __future__ import annotations

import pytest

from engine.errors import InputError, display_values, english
from engine.probe_sizes import (
    DEFAULT_WORKING_SET_BYTES, LARGEST_DEFAULT_WORKING_SET_BYTES, MOST_PREFILL_TOKENS, ProbeError, activation_bytes,
    layer_matrices, probe_model, probe_sizes, working_set_bytes,
)
from tests.engine.fixtures import CATALOG, LLAMA_2_7B, MIXTRAL_8X7B
from tests.engine.probe_fixtures import QWEN3_SHAPES

MiB = 1024 * 1024
QWEN3_LAYER_BYTES = 4 * (1024 * 2048 * 2 + 1024 * 1024 * 2 + 3 * 1024 * 3072)     # q, o; k, v; gate, up, down


def test_a_layer_has_the_models_seven_matrices_in_the_order_a_token_meets_them():
    layer = layer_matrices(QWEN3_SHAPES)
    assert [(m.role, m.rows, m.columns) for m in layer] == [
        ("q", 2048, 1024), ("k", 1024, 1024), ("v", 1024, 1024), ("o", 1024, 2048),
        ("gate", 3072, 1024), ("up", 3072, 1024), ("down", 1024, 3072)]
    assert sum(m.bytes for m in layer) == QWEN3_LAYER_BYTES


@pytest.mark.parametrize("budget", [16_000_000, 64_000_000, 256_000_000, 1_000_000_000])
def test_every_stage_fits_the_working_set(budget):
    sizes = probe_sizes(QWEN3_SHAPES, budget)
    assert sizes.weights_bytes + activation_bytes(sizes.matrices, sizes.prefill_tokens) <= budget
    assert 3 * sizes.largest_matmul_size ** 2 * 4 <= budget
    assert sizes.read_values * 8 <= budget and 2 * sizes.copy_values * 8 <= budget


def test_a_larger_budget_runs_more_whole_layers_and_a_small_one_part_of_a_layer():
    small, medium, large = (probe_sizes(QWEN3_SHAPES, budget) for budget in (16_000_000, 256_000_000, 1_000_000_000))
    assert small.layers_measured == 0 and [m.role for m in small.matrices] == ["q", "k"]
    assert 0 < medium.layers_measured < large.layers_measured
    assert medium.weights_bytes == medium.layers_measured * QWEN3_LAYER_BYTES
    assert small.weights_bytes < medium.weights_bytes < large.weights_bytes
    assert small.largest_matmul_size < medium.largest_matmul_size <= large.largest_matmul_size
    assert small.prefill_tokens < medium.prefill_tokens == MOST_PREFILL_TOKENS


def test_never_more_layers_than_the_model_has():
    assert probe_sizes(QWEN3_SHAPES, 40_000_000_000).layers_measured == QWEN3_SHAPES.layers


def test_the_default_working_set_is_four_caches_within_its_bounds_and_a_quarter_of_free_memory_at_most():
    assert working_set_bytes(None, None, None) == DEFAULT_WORKING_SET_BYTES
    assert working_set_bytes(None, None, 8 * MiB) == DEFAULT_WORKING_SET_BYTES
    assert working_set_bytes(None, None, 80_000_000) == 320_000_000
    assert working_set_bytes(None, None, 480 * MiB) == LARGEST_DEFAULT_WORKING_SET_BYTES   # a VM sees its host's
    assert working_set_bytes(None, 400_000_000, None) == 100_000_000                       # a small machine
    assert working_set_bytes(50_000_000, 16_000_000_000, None) == 50_000_000               # as asked


def _sentence_matches_errors_toml(error: InputError) -> None:
    assert isinstance(error, ProbeError)         # an InputError: the CLI prints it and exits 2
    assert str(error) == english(f"errors.{error.code}", **display_values(error.code, error.values, english))


def test_too_little_free_memory_is_one_sentence_with_both_figures():
    with pytest.raises(InputError) as caught:
        working_set_bytes(None, 20_000_000, None)
    assert caught.value.code == "probe.memory"
    assert str(caught.value) == ("The probe needs 32 MB of free memory and this machine has 20 MB free; "
                                 "close some programs and measure again.")
    _sentence_matches_errors_toml(caught.value)


def test_a_model_whose_first_matrix_does_not_fit_is_refused():
    with pytest.raises(InputError) as caught:
        probe_sizes(LLAMA_2_7B, 32_000_000)          # its q matrix alone is 4096 x 4096 x 4 bytes = 67 MB
    assert caught.value.code == "probe.model_too_big" and "Llama 2 7B's q matrix" in str(caught.value)
    _sentence_matches_errors_toml(caught.value)


def test_a_mixture_of_experts_is_refused_and_a_dense_model_suggested():
    with pytest.raises(InputError) as caught:
        probe_model(CATALOG, MIXTRAL_8X7B.id)
    assert caught.value.code == "probe.model_kind"
    suggested = caught.value.values["example"]
    assert not CATALOG.model(suggested).is_moe
    _sentence_matches_errors_toml(caught.value)


def test_an_unknown_model_is_the_catalogues_own_refusal():
    with pytest.raises(InputError) as caught:
        probe_model(CATALOG, "no-such-model")
    assert caught.value.code == "catalog.unknown"


def test_every_probe_sentence_has_both_languages_with_the_same_values_and_full_width_chinese_punctuation():
    import re
    import string
    import tomllib
    from importlib import resources
    table = tomllib.loads(resources.files("resources").joinpath("text", "errors.toml").read_text("utf-8"))["probe"]
    fields = string.Formatter()
    for code, texts in table.items():
        assert set(texts) == {"en", "zh"}, code
        en, zh = ({name for _, name, _, _ in fields.parse(texts[lang]) if name} for lang in ("en", "zh"))
        assert en == zh, code
        assert re.search(r"[\u4e00-\u9fff]", texts["zh"]) and not re.search(r"[\u4e00-\u9fff][,;:?()]", texts["zh"])
        assert texts["zh"].endswith("。") and texts["en"].endswith("."), code
