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


# Published totals that are not the count of the released config's layers (the catalogue's notes say
# more); these are held to 2% (below) rather than to their last stated digit.
TOTAL_NOT_THE_CHECKPOINT = {
    "kimi-k2": "the report's 1.04T is 17B above the 1,026B that the config's 61 layers hold",
    "glm-4.5": "the card's 355B against the 352.8B of the config's 92 layers (its MTP layer left out)",
}
# Cards that count the parameters used per token without the embedding table (a lookup, not a matmul).
ACTIVE_WITHOUT_EMBEDDING = {
    "gpt-oss-120b": "model card, arXiv:2508.10925: the unembedding counts as active, the embedding does not",
    "gpt-oss-20b": "model card, arXiv:2508.10925: the unembedding counts as active, the embedding does not",
    "glm-4.5": "the card's 32B is the count without the embedding table (32.9B; 33.6B with it)",
    "glm-4.5-air": "the card's 12B is the count without the embedding table (12.8B; 13.4B with it)",
}
MODELS = list(fx.CATALOG.models.values())


def _gpt_oss_biases(model) -> int:
    """What gpt-oss holds beyond the engine's count (which leaves biases out): a bias on every expert's
    gate, up and down projections, on q, k, v and o, on the router, and one attention sink per head."""
    layers, experts, width, hidden = model.layers, model.experts, model.expert_intermediate_size, model.hidden_size
    attention = model.attention_heads * model.head_dim + 2 * model.kv_heads * model.head_dim + hidden
    return layers * (experts * (2 * width + hidden) + attention + experts + model.attention_heads)


# The published count includes parts the engine leaves out (a few ten-thousandths of the model).
LEFT_OUT = {"gpt-oss-120b": _gpt_oss_biases, "gpt-oss-20b": _gpt_oss_biases}


def _active_as_the_card_counts(model, counts) -> int:
    return counts.active - (counts.embedding if model.id in ACTIVE_WITHOUT_EMBEDDING else 0)


@pytest.mark.parametrize("model", MODELS + [fx.TINY_TIED], ids=lambda m: m.id)
def test_computed_count_matches_published(model):
    counts = parameter_counts(model)
    if model.id not in TOTAL_NOT_THE_CHECKPOINT:
        total = counts.total + (LEFT_OUT[model.id](model) if model.id in LEFT_OUT else 0)
        assert _within_stated_precision(total, model.published_parameters), (total, model.published_parameters)
    if model.published_active_parameters:
        active = _active_as_the_card_counts(model, counts)
        assert _within_stated_precision(active, model.published_active_parameters), (
            active, model.published_active_parameters)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.id)
def test_every_model_is_within_two_percent_of_its_published_count(model):
    assert parameter_counts(model).total == pytest.approx(model.published_parameters, rel=0.02)


def test_the_exceptions_above_name_catalogue_models_whose_cards_need_them():
    for model_id in {**TOTAL_NOT_THE_CHECKPOINT, **ACTIVE_WITHOUT_EMBEDDING}:
        model = fx.CATALOG.model(model_id)
        counts = parameter_counts(model)
        if model_id in TOTAL_NOT_THE_CHECKPOINT:       # the strict check would fail: the exception is needed
            assert not _within_stated_precision(counts.total, model.published_parameters), model_id
        if model_id in ACTIVE_WITHOUT_EMBEDDING:
            assert not _within_stated_precision(counts.active, model.published_active_parameters), model_id


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
