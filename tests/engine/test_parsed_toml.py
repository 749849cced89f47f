"""The app's own TOML files parsed once per version (engine.parsed_toml): the cache saves time, never changes a value."""
from __future__ import annotations

import tomllib
from importlib import resources

import pytest

from engine import parsed_toml as module
from engine.config_dir import cache_dir
from engine.parsed_toml import parsed_toml

TEXT = 'title = { en = "Decode", zh = "解码" }\n[numbers]\nbandwidth = 3.35e12\nlayers = 80\nratio = 0.1\n'


def _refuse_to_parse(monkeypatch):
    def refused(text, **_):
        raise AssertionError("parsed although the cache holds this very text")
    monkeypatch.setattr(tomllib, "loads", refused)


def test_a_second_read_of_the_same_text_comes_from_the_cache_with_the_same_values(monkeypatch):
    first = parsed_toml(TEXT, "text.sample")
    assert first == tomllib.loads(TEXT)
    assert (cache_dir() / "parsed" / "text.sample.json").is_file()
    _refuse_to_parse(monkeypatch)
    again = parsed_toml(TEXT, "text.sample")
    assert again == first and type(again["numbers"]["layers"]) is int and again["numbers"]["ratio"] == 0.1


def test_a_changed_text_is_parsed_again_and_its_cache_replaced(monkeypatch):
    parsed_toml(TEXT, "text.sample")
    changed = TEXT.replace("layers = 80", "layers = 126")
    assert parsed_toml(changed, "text.sample")["numbers"]["layers"] == 126
    _refuse_to_parse(monkeypatch)
    assert parsed_toml(changed, "text.sample")["numbers"]["layers"] == 126


@pytest.mark.parametrize("damage", [b"", b"\x00\xff not json", b'{"source": 3}', b"[1, 2]", b'{"source": "x", "table": 1}'])
def test_a_damaged_cache_is_passed_over_and_written_anew(damage, monkeypatch):
    path = cache_dir() / "parsed" / "text.sample.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(damage)
    expected = tomllib.loads(TEXT)
    assert parsed_toml(TEXT, "text.sample") == expected
    _refuse_to_parse(monkeypatch)
    assert parsed_toml(TEXT, "text.sample") == expected          # the rewritten cache serves the next read


def test_a_cache_folder_that_cannot_be_written_only_costs_the_parse(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would go")
    monkeypatch.setattr(module, "cache_dir", lambda: blocker)
    assert parsed_toml(TEXT, "text.sample") == tomllib.loads(TEXT)
    assert parsed_toml(TEXT, "text.sample") == tomllib.loads(TEXT)
    assert blocker.read_text() == "a file where the cache folder would go"


def test_a_table_json_cannot_hold_is_returned_and_not_cached():
    dated = "released = 2024-07-23\n"
    assert parsed_toml(dated, "text.dated") == tomllib.loads(dated)
    assert not (cache_dir() / "parsed" / "text.dated.json").exists()


def test_a_text_that_is_not_toml_raises_as_the_parser_does_and_caches_nothing():
    with pytest.raises(tomllib.TOMLDecodeError):
        parsed_toml("title = ", "text.broken")
    assert not (cache_dir() / "parsed" / "text.broken.json").exists()


def test_every_file_the_app_ships_reads_back_from_its_cache_exactly_as_parsed(monkeypatch):
    files = [*resources.files("resources").joinpath("text").iterdir(),
             *resources.files("resources").joinpath("catalog").iterdir()]
    texts = {f"{entry.name}": entry.read_text(encoding="utf-8") for entry in files if entry.name.endswith(".toml")}
    assert len(texts) > 15
    expected = {name: tomllib.loads(text) for name, text in texts.items()}
    for name, text in texts.items():
        parsed_toml(text, name)
    _refuse_to_parse(monkeypatch)
    for name, text in texts.items():
        assert parsed_toml(text, name) == expected[name], name


def test_the_cache_folder_follows_the_config_override_else_the_platforms_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("INFERENCE_PHYSICS_CONFIG_DIR", str(tmp_path / "config"))
    assert cache_dir() == tmp_path / "config" / "cache"
    monkeypatch.delenv("INFERENCE_PHYSICS_CONFIG_DIR")
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "inference-physics"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")       # the XDG rule: a relative path is ignored
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "inference-physics"


def test_without_a_home_folder_to_keep_a_cache_in_the_text_is_parsed(monkeypatch):
    def no_home():
        raise RuntimeError("Could not determine home directory.")
    monkeypatch.setattr(module, "cache_dir", no_home)
    assert parsed_toml(TEXT, "text.sample") == tomllib.loads(TEXT)


def test_a_cache_of_another_format_is_parsed_again_even_for_the_same_text():
    import json
    path = cache_dir() / "parsed" / "text.sample.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"format": 0, "source": TEXT, "table": {"numbers": {"layers": -1}}}))
    assert parsed_toml(TEXT, "text.sample")["numbers"]["layers"] == 80
