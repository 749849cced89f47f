"""A scenario saved to a file and read back (``--scenario FILE``, the File menu): whole, or refused in one sentence."""
from __future__ import annotations

import json
import os

import pytest

from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.i18n import Language
from desktop.scenario_file import ScenarioFileError, read_scenario, scenario_data, write_scenario
from engine import Scenario


def test_a_scenario_comes_back_as_it_was_saved_with_every_field(tmp_path):
    chosen = Scenario(gpu="h20", model="llama-3.1-8b", weights="fp8", kv="fp8", batch=64, prompt_tokens=6000,
                      output_tokens=700, usd_per_gpu_hour=1.25, mode="ideal", cached_prefix_tokens=2000,
                      kv_allocation="reserved", reserve_tokens=8192)
    path = tmp_path / "class.json"
    write_scenario(path, chosen)
    assert set(json.loads(path.read_text())) == set(scenario_data(chosen))      # every field, by its name
    assert read_scenario(path) == chosen


def test_fields_left_out_take_the_apps_default_and_a_whole_price_is_a_price(tmp_path):
    path = tmp_path / "short.json"
    path.write_text('{"model": "llama-3.1-8b", "gpus": 1, "usd_per_gpu_hour": 3}')
    scenario = read_scenario(path)
    assert scenario.model == "llama-3.1-8b" and scenario.gpus == 1 and scenario.usd_per_gpu_hour == 3.0
    assert (scenario.gpu, scenario.batch, scenario.prompt_tokens) == \
        (DEFAULT_SCENARIO.gpu, DEFAULT_SCENARIO.batch, DEFAULT_SCENARIO.prompt_tokens)


@pytest.mark.parametrize("content, named", [
    ('{"bacth": 8}', "bacth"), ('{"batch": 8.5}', "8.5"), ('{"gpus": true}', "True"),
    ('{"model": 70}', "70"), ('{"batch": 99999}', "99,999"), ("", "JSON"), ('"h800"', "table"),
])
@pytest.mark.parametrize("code", ["en", "zh"])
def test_a_file_that_cannot_be_used_is_refused_in_one_sentence_naming_it(tmp_path, content, named, code):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ScenarioFileError) as refused:
        read_scenario(path)
    sentence = refused.value.sentence(Language(code))
    assert str(path) in sentence and "\n" not in sentence and sentence.endswith("." if code == "en" else "。")
    if code == "en":
        assert named in sentence, sentence


def test_saving_over_a_file_is_whole_or_not_at_all(tmp_path, monkeypatch):
    path = tmp_path / "class.json"
    write_scenario(path, Scenario(batch=2))
    before = path.read_bytes()

    def full_disk(_descriptor):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError) as failed:
        write_scenario(path, Scenario(batch=3))
    assert failed.value.filename == str(path)
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["class.json"]
