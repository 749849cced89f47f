"""InputError carries a code and the raw values, so a caller can write the sentence in another language."""
from __future__ import annotations

import pytest

from engine import InputError, Scenario, compute_report
from engine.catalog import default_catalog
from engine.scenario import MAX_CONTEXT_TOKENS, MAX_USD_PER_GPU_HOUR, validate_scenario


def refusal(**fields) -> InputError:
    with pytest.raises(InputError) as caught:
        compute_report(Scenario(**fields))
    return caught.value


@pytest.mark.parametrize("field, value, low, high", [
    ("gpus", 1025, 1, 1024), ("batch", 0, 1, 4096), ("prompt_tokens", 0, 1, MAX_CONTEXT_TOKENS),
    ("output_tokens", 2.5, 1, MAX_CONTEXT_TOKENS),
])
def test_a_whole_number_out_of_range_names_field_range_and_value(field, value, low, high):
    error = refusal(**{field: value})
    assert error.code == "scenario.whole_number"
    assert error.values == {"field": field, "low": low, "high": high, "got": value}
    assert str(error).endswith(".") and "must be a whole number" in str(error)   # the CLI's sentence stays


def test_the_other_scenario_refusals_have_codes():
    assert refusal(gpu=" ").code == "scenario.identifier"
    assert refusal(gpu=" ").values["field"] == "gpu"
    context = refusal(prompt_tokens=MAX_CONTEXT_TOKENS, output_tokens=1)
    assert (context.code, context.values["got"]) == ("scenario.context", MAX_CONTEXT_TOKENS + 1)
    price = refusal(usd_per_gpu_hour=-1.0)
    assert (price.code, price.values["high"], price.values["got"]) == ("scenario.price", MAX_USD_PER_GPU_HOUR, -1.0)
    assert refusal(mode="fast").values == {"allowed": ("ideal", "realistic"), "got": "fast"}
    with pytest.raises(InputError) as caught:
        validate_scenario("h800")
    assert caught.value.code == "scenario.type"


@pytest.mark.parametrize("model, gpus, code, size, counts", [
    ("llama-3.1-8b", 3, "parallel.uneven_heads", 32, (1, 2, 4, 8, 16, 32)),
    ("llama-3.1-8b", 64, "parallel.uneven_heads", 32, (1, 2, 4, 8, 16, 32)),
    ("qwen2.5-7b", 14, "parallel.uneven_kv_heads", 4, (1, 2, 4)),
    ("llama-2-13b", 5, "parallel.uneven_mlp", 13824, (1, 2, 4, 8)),
])
def test_a_gpu_count_that_cannot_share_the_model_has_a_code_and_the_allowed_counts(model, gpus, code, size, counts):
    error = refusal(model=model, gpus=gpus, tp=gpus)        # a tensor group of that many GPUs
    assert error.code == code
    assert error.values == {"model": default_catalog().model(model).name, "size": size, "got": gpus,
                            "counts": counts}


@pytest.mark.parametrize("lookup, kind", [("gpu", "GPU"), ("model", "model"), ("precision", "precision")])
def test_catalogue_lookups_name_kind_value_and_close_matches(lookup, kind):
    catalog = default_catalog()
    with pytest.raises(InputError) as caught:
        getattr(catalog, lookup)("h900" if lookup == "gpu" else "zzz-unknown")
    error = caught.value
    assert error.code == "catalog.unknown"
    assert error.values["kind"] == kind
    assert error.values["known"] == list(getattr(catalog, f"{lookup}s"))
    if lookup == "gpu":
        assert error.values["got"] == "h900" and "h800" in error.values["close"]
    with pytest.raises(InputError) as caught:
        getattr(catalog, lookup)(42)
    assert (caught.value.code, caught.value.values["got"]) == ("catalog.not_text", 42)


def test_an_error_without_a_code_is_still_an_input_error_with_its_sentence():
    error = InputError("The thing must be blue; got red.")
    assert (error.code, error.values, str(error)) == (None, {}, "The thing must be blue; got red.")
