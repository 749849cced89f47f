"""Parameter counts computed from each config match the published counts."""
import math

import pytest

from engine.catalog import default_catalog
from engine.parameters import parameter_counts
from tests.engine import fixtures as fx


def _half_unit_of_last_digit(published: float) -> float:
    """A card's "7B" means 6.5B..7.5B: half a unit of its last significant digit."""
    digits = f"{published:.15g}".replace(".", "").rstrip("0").lstrip("0") or "0"
    exponent = math.floor(math.log10(published))
    return 0.5 * 10 ** (exponent - len(digits) + 1)


@pytest.mark.parametrize("model", list(default_catalog().models.values()) + list(fx.MODELS.values()),
                         ids=lambda m: f"{m.origin if hasattr(m, 'origin') else ''}-{m.id}")
def test_computed_count_matches_published(model):
    total = parameter_counts(model).total
    tolerance = max(0.03 * model.published_parameters, _half_unit_of_last_digit(model.published_parameters))
    assert abs(total - model.published_parameters) <= tolerance, (total, model.published_parameters)


def test_half_unit_reads_the_published_precision():
    assert _half_unit_of_last_digit(7e9) == pytest.approx(0.5e9)
    assert _half_unit_of_last_digit(70.6e9) == pytest.approx(0.05e9)
    assert _half_unit_of_last_digit(671e9) == pytest.approx(0.5e9)


def test_exact_counts_of_known_checkpoints():
    # The Hugging Face safetensors totals of these checkpoints.
    assert parameter_counts(fx.LLAMA_2_7B).total == 6_738_415_616
    assert parameter_counts(fx.LLAMA_31_8B).total == 8_030_261_248
    assert parameter_counts(fx.LLAMA_31_70B).total == 70_553_706_496
    assert parameter_counts(fx.MIXTRAL_8X7B).total == 46_702_792_704


def test_moe_active_parameters_are_top_k_plus_shared():
    assert parameter_counts(fx.MIXTRAL_8X7B).active == pytest.approx(12.9e9, rel=0.01)
    assert parameter_counts(fx.DEEPSEEK_V3).active == pytest.approx(37e9, rel=0.03)
    dense = parameter_counts(fx.LLAMA_31_70B)
    assert dense.active == dense.total


def test_deepseek_excludes_the_mtp_module():
    # 671B published without the 14B multi-token-prediction module (685B with it).
    assert parameter_counts(fx.DEEPSEEK_V3).total == pytest.approx(671e9, rel=0.005)


def test_tied_embeddings_are_counted_once_and_still_streamed_as_lm_head():
    counts = parameter_counts(fx.TINY_TIED)
    assert counts.lm_head == 0
    assert counts.total == fx.TINY_TIED.published_parameters
    assert counts.streamed_without_experts == counts.total      # the table is read as the LM head
    untied = parameter_counts(fx.LLAMA_31_8B)
    assert untied.streamed_without_experts == untied.total - untied.embedding


def test_matmul_parameters_leave_out_lookup_and_norms():
    counts = parameter_counts(fx.LLAMA_31_8B)
    assert counts.matmul_per_token == counts.total - counts.embedding - counts.norms


def test_experts_touched_grow_from_k_to_all():
    counts = parameter_counts(fx.MIXTRAL_8X7B)
    assert counts.experts_touched_per_layer(1) == pytest.approx(2)
    assert counts.experts_touched_per_layer(4) == pytest.approx(8 * (1 - 0.75 ** 4))
    assert counts.experts_touched_per_layer(10_000) == pytest.approx(8)
    assert parameter_counts(fx.LLAMA_31_8B).experts_touched_per_layer(5) == 0
