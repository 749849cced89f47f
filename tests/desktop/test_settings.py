"""The settings file: remembered values come back; nonsense becomes defaults with a note, never a crash."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from desktop import settings as store
from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.i18n import Language
from desktop.settings import Settings
from engine import Scenario


@pytest.fixture
def path(tmp_path):
    return tmp_path / "settings.json"


def test_no_file_gives_defaults_without_a_note(path):
    loaded = store.load(path)
    assert loaded.settings == Settings() and loaded.clean


def test_tests_never_touch_the_real_settings_folder(tmp_path_factory):
    assert str(store.settings_path()).startswith(str(tmp_path_factory.getbasetemp()))


def test_saved_settings_come_back(path):
    chosen = Settings(language="zh", theme="projector", last_scene="summary", stage_clock_visible=True, speaker_notes_pt=24, speaker_next_shown=False, geometry="AAAA",
                      scene_list_visible=False, side_panel_visible=False,
                      scenario=replace(Scenario(), gpu="h100-sxm", batch=8, usd_per_gpu_hour=3.5))
    assert store.save(chosen, path) is None
    loaded = store.load(path)
    assert loaded.clean and loaded.settings == chosen


@pytest.mark.parametrize("content", ["{not json", "[1, 2, 3]", "", "\udcff".encode("utf-8", "surrogatepass")])
def test_an_unreadable_file_gives_defaults_and_says_so(path, content):
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    loaded = store.load(path)
    assert loaded.unreadable and loaded.settings == Settings()


def test_a_folder_where_the_file_should_be_is_unreadable_not_a_crash(path):
    path.mkdir()
    assert store.load(path).unreadable


@pytest.mark.parametrize("field, value", [
    ("language", "fr"), ("language", 3), ("theme", "neon"), ("theme", None), ("last_scene", 0),
    ("last_scene", 99), ("last_scene", "3"), ("last_scene", True), ("last_scene", "a b"), ("stage_clock_visible", "yes"), ("speaker_notes_pt", 7),
    ("speaker_next_shown", "no"),
    ("geometry", "not base64!"), ("geometry", 12), ("scene_list_visible", 0), ("side_panel_visible", "no"),
])
def test_a_nonsense_value_is_reset_to_its_default_and_named(path, field, value):
    good = {"theme": "dark", "last_scene": "summary"}
    path.write_text(json.dumps({**good, field: value}), encoding="utf-8")
    loaded = store.load(path)
    assert loaded.reset_fields == [field]
    assert getattr(loaded.settings, field) == getattr(Settings(), field)
    for name, kept in good.items():
        if name != field:
            assert getattr(loaded.settings, name) == kept


@pytest.mark.parametrize("saved, key", [(5, "kv_cache"), (7, "summary"), (1, "gpu_waits"),
                                        ("a_scene_of_a_later_version", "a_scene_of_a_later_version")])
def test_the_last_scene_is_kept_by_key_and_a_number_saved_by_the_first_version_is_read_as_its_key(path, saved, key):
    """The first version saved a number; scenes are now known by key, so a scene added before the summary does
    not turn the saved summary into another scene. A key this version lacks is kept for the one that has it."""
    path.write_text(json.dumps({"last_scene": saved}), encoding="utf-8")
    loaded = store.load(path)
    assert loaded.clean and loaded.settings.last_scene == key
    assert store.save(loaded.settings, path) is None
    assert json.loads(path.read_text(encoding="utf-8"))["last_scene"] == key


@pytest.mark.parametrize("scenario, field", [
    ({"gpu": "no-such-gpu"}, "gpu"), ({"gpu": 7}, "gpu"), ({"batch": "eight"}, "batch"), ({"batch": 0}, "batch"),
    ({"prompt_tokens": -5}, "prompt_tokens"), ({"usd_per_gpu_hour": "cheap"}, "usd_per_gpu_hour"),
    ({"gpus": 2.5}, "gpus"),
])
def test_a_scenario_field_the_engine_refuses_is_replaced_by_its_default_alone(path, scenario, field):
    path.write_text(json.dumps({"scenario": {**scenario, "output_tokens": 700}}), encoding="utf-8")
    loaded = store.load(path)
    assert loaded.reset_fields == [f"scenario.{field}"]
    assert getattr(loaded.settings.scenario, field) == getattr(DEFAULT_SCENARIO, field)
    assert loaded.settings.scenario.output_tokens == 700          # the rest is kept


@pytest.mark.parametrize("scenario", ["h800", [1, 2]])
def test_a_scenario_that_is_no_table_is_replaced_by_the_default(path, scenario):
    path.write_text(json.dumps({"scenario": scenario}), encoding="utf-8")
    loaded = store.load(path)
    assert loaded.reset_fields == ["scenario"] and loaded.settings.scenario == DEFAULT_SCENARIO


def test_an_integer_price_is_accepted_as_a_price(path):
    path.write_text(json.dumps({"scenario": {"usd_per_gpu_hour": 3}}), encoding="utf-8")
    loaded = store.load(path)
    assert loaded.clean and loaded.settings.scenario.usd_per_gpu_hour == 3.0


def test_saving_where_it_cannot_write_returns_the_reason(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    problem = store.save(Settings(), blocker / "settings.json")
    assert problem and "file" in problem.sentence(Language("en"))


# Within a node the count must split the model's heads (3 GPUs for Llama 3.1 8B's 32); past it, a tensor group
# must leave no more pipeline stages than the model has layers (33 GPUs: 33 stages of 32 layers; 29 for Qwen2.5 7B,
# whose 4 KV heads allow tensor groups of 1, 2 or 4 only, against 28 layers)
@pytest.mark.parametrize("model, gpus, code", [("llama-3.1-8b", 3, "parallel.uneven_heads"),
                                               ("llama-3.1-8b", 33, "layout.stages"),
                                               ("qwen2.5-7b", 29, "layout.stages")])
def test_a_saved_gpu_count_the_model_cannot_be_split_over_is_replaced_by_the_default(path, model, gpus, code):
    path.write_text(json.dumps({"scenario": {"model": model, "gpus": gpus}, "theme": "dark"}), encoding="utf-8")
    loaded = store.load(path)
    assert loaded.reset_fields == ["scenario.gpus"] and loaded.reasons["scenario.gpus"].code == code
    assert loaded.settings.scenario == replace(DEFAULT_SCENARIO, model=model, gpus=DEFAULT_SCENARIO.gpus)
    assert loaded.settings.theme == "dark"


def test_the_reset_scenario_is_named_in_one_start_up_line(path, qapp):
    from desktop.app import _startup_notes
    from desktop.i18n import Language
    path.write_text(json.dumps({"scenario": {"model": "llama-3.1-8b", "gpus": 3}}), encoding="utf-8")
    notes = _startup_notes(qapp, Language("en"), store.load(path))
    reset = [note for note in notes if "reset to their defaults" in note]
    assert len(reset) == 1 and "scenario" in reset[0] and "\n" not in reset[0]
