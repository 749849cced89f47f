"""Parameter counts computed from each config match the published counts."""
import pytest

from engine.parameters import parameter_counts
from tests.engine import fixtures as fx


def _last_stated_digit(published: float) -> float:
    """The unit of the last digit a card states, counting in billions: 6.74e9 -> 0.01e9, 70e9 -> 1e9."""
    count, unit = int(published), 1
    while unit < 10 ** 9 and count % (unit * 10) == 0:
        unit *= 10
    return float(unit)


def _within_stated_precision(computed: float, published: float) -> bool:
    """Cards round or truncate to their last digit, so the count may differ by up to one unit of it."""
    return abs(computed - published) <= _last_stated_digit(published)


@pytest.mark.parametrize("model", list(fx.CATALOG.models.values()) + [fx.TINY_TIED], ids=lambda m: m.id)
def test_computed_count_matches_published(model):
    counts = parameter_counts(model)
    assert _within_stated_precision(counts.total, model.published_parameters), (
        counts.total, model.published_parameters)
    if model.published_active_parameters:
        assert _within_stated_precision(counts.active, model.published_active_parameters), (
            counts.active, model.published_active_parameters)


def test_last_stated_digit_reads_the_published_precision():
    assert _last_stated_digit(6.74e9) == 0.01e9
    assert _last_stated_digit(70.6e9) == 0.1e9
    assert _last_stated_digit(671e9) == _last_stated_digit(70e9) == 1e9
    assert _last_stated_digit(138_048) == 1
    # A precise card is held to its precision: Llama 2 7B's 6.74B allows 6.73B..6.75B.
    assert fx.LLAMA_2_7B.published_parameters == 6.74e9
    assert not _within_stated_precision(6.72e9, 6.74e9)


def test_exact_counts_of_known_checkpoints():
    # The Hugging Face safetensors totals of these checkpoints.
    exact = {"llama-2-7b": 6_738_415_616, "llama-2-13b": 13_015_864_320, "llama-2-70b": 68_976_648_192,
             "llama-3.1-8b": 8_030_261_248, "llama-3.1-70b": 70_553_706_496,
             "llama-3.1-405b": 405_853_388_800, "mixtral-8x7b": 46_702_792_704}
    for model_id, total in exact.items():
        assert parameter_counts(fx.CATALOG.model(model_id)).total == total, model_id


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
