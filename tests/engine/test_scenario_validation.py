"""Bad input: one InputError whose sentence names the value and what is allowed."""
import math

import numpy as np
import pytest

from engine import InputError, Scenario, compute_report
from engine.scenario import validate_scenario
from tests.engine.fixtures import CATALOG


@pytest.mark.parametrize("fields, named, allowed", [
    (dict(gpus=0), "0", "1 to 1,024"),
    (dict(gpus=-2), "-2", "1 to 1,024"),
    (dict(gpus=1025), "1,025", "1 to 1,024"),
    (dict(tp=-1), "-1", "0 to 1,024 (0: the default layout)"),
    (dict(gpus=2.5), "2.5", "whole number"),
    (dict(gpus=True), "True", "whole number"),
    (dict(gpus="2"), "'2'", "whole number"),
    (dict(batch=0), "0", "1 to 4,096"),
    (dict(batch=10_000), "10,000", "1 to 4,096"),
    (dict(prompt_tokens=0), "0", "1 to 10,000,000"),
    (dict(prompt_tokens=10 ** 12), "1,000,000,000,000", "1 to 10,000,000"),
    (dict(output_tokens=-1), "-1", "1 to 10,000,000"),
    (dict(output_tokens=float("nan")), "nan", "whole number"),
    (dict(prompt_tokens=6_000_000, output_tokens=6_000_000), "12,000,000", "at most 10,000,000"),
    (dict(usd_per_gpu_hour=-1.0), "-1.0", "0 to 10,000"),
    (dict(usd_per_gpu_hour=math.inf), "inf", "0 to 10,000"),
    (dict(usd_per_gpu_hour="cheap"), "'cheap'", "0 to 10,000"),
    (dict(mode="fast"), "'fast'", "'ideal' or 'realistic'"),
    (dict(mode=None), "None", "'ideal' or 'realistic'"),
    (dict(gpu=""), "''", "catalogue id"),
    (dict(model=7), "7", "catalogue id"),
])
def test_out_of_range_fields_raise_one_sentence(fields, named, allowed):
    with pytest.raises(InputError) as caught:
        compute_report(Scenario(**fields), CATALOG)
    message = str(caught.value)
    assert named in message and allowed in message
    assert message.endswith(".") and "\n" not in message


@pytest.mark.parametrize("fields, close", [
    (dict(gpu="h80"), "h800"), (dict(model="llama-3.1-7b"), "llama-3.1-70b"), (dict(weights="fp9"), "fp8"),
    (dict(kv="bf61"), "bf16"),
])
def test_unknown_ids_name_close_matches(fields, close):
    with pytest.raises(InputError, match=close):
        compute_report(Scenario(**fields), CATALOG)


def test_unknown_ids_in_the_real_catalogue_name_close_matches():
    with pytest.raises(InputError, match="h800"):
        compute_report(Scenario(gpu="h8000"))


def test_valid_scenario_is_returned_unchanged_and_numbers_normalised():
    plain = Scenario()
    assert validate_scenario(plain) is plain
    loose = validate_scenario(Scenario(gpus=np.int64(2), batch=4.0, usd_per_gpu_hour=3))
    assert type(loose.gpus) is int and loose.gpus == 2
    assert type(loose.batch) is int and loose.batch == 4
    assert type(loose.usd_per_gpu_hour) is float


def test_not_a_scenario():
    with pytest.raises(InputError, match="Scenario"):
        compute_report({"gpu": "h800"}, CATALOG)


def test_mode_is_read_in_any_case_and_stored_in_lower_case():
    assert validate_scenario(Scenario(mode=" Ideal ")).mode == "ideal"
    assert compute_report(Scenario(mode="REALISTIC"), CATALOG) == compute_report(Scenario(mode="realistic"), CATALOG)
