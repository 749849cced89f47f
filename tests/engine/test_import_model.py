"""python -m engine import-model: real config.json files in, a checked entry appended to the user's catalogue.

The configs are the published files of one model per family (``tests/engine/fixtures/SOURCES.md``
says where each comes from); the parameter counts are the model cards'.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from engine import InputError
from engine import import_model as import_module
from engine.catalog import load_catalog
from engine.cli import main
from engine.hf_config import SUPPORTED
from engine.import_model import import_model
from engine.parameters import parameter_counts
from tests.engine import fixtures as fx
from tests.engine.test_parameters import _within_stated_precision

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = Path(__file__).resolve().parent / "fixtures"

# fixture -> (model card's total, the card's count per token or 0 for dense, the built-in entry with these shapes)
PUBLISHED = {
    "llama-3.2-1b": (1.23e9, 0, "llama-3.2-1b"),
    "mistral-7b-v0.1": (7.24e9, 0, "mistral-7b"),
    "mixtral-8x7b-v0.1": (46.7e9, 12.9e9, "mixtral-8x7b"),
    "qwen2.5-7b": (7.61e9, 0, "qwen2.5-7b"),
    "qwen1.5-moe-a2.7b": (14.3e9, 2.7e9, None),
    "qwen3-8b": (8.2e9, 0, "qwen3-8b"),
    "qwen3-30b-a3b": (30.5e9, 3.3e9, "qwen3-30b-a3b"),
    "deepseek-v2-lite": (15.7e9, 2.4e9, None),
    "deepseek-v3": (671e9, 37e9, "deepseek-v3"),
    "kimi-k2-instruct": (1.04e12, 32e9, "kimi-k2"),
    "gpt-oss-20b": (20.91e9, 3.61e9, "gpt-oss-20b"),
    "glm-4-9b-0414": (9.4e9, 0, None),
    "glm-4.5-air": (106e9, 12e9, "glm-4.5-air"),
}
# The cards that count the parameters per token without the embedding table (a lookup): gpt-oss says
# so; DeepSeek-V2-Lite's 2.4B and GLM-4.5-Air's 12B are the count without it (2.45B, 12.8B).
ACTIVE_WITHOUT_EMBEDDING = {"gpt-oss-20b", "deepseek-v2-lite", "glm-4.5-air"}
SHAPES = ("layers", "hidden_size", "attention_heads", "kv_heads", "head_dim", "vocab_size", "tied_embeddings",
          "max_context_tokens", "experts", "experts_per_token", "expert_intermediate_size", "shared_experts",
          "dense_layers", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
          "sliding_window_tokens", "sliding_window_layers")


def config(name: str) -> Path:
    return CONFIGS / f"{name}.json"


def imported(tmp_path: Path, name: str, **kwargs):
    return import_model(config(name), tmp_path / "catalog.toml", model_id=kwargs.pop("model_id", f"my-{name}"))


def refused(call) -> InputError:
    with pytest.raises(InputError) as caught:
        call()
    return caught.value


def test_every_family_has_a_fixture_and_every_fixture_is_listed_with_its_source():
    families = {json.loads(path.read_text())["model_type"] for path in CONFIGS.glob("*.json")}
    assert families == {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "deepseek_v2",
                        "deepseek_v3", "kimi_k2", "gpt_oss", "glm4", "glm4_moe"}
    assert {path.stem for path in CONFIGS.glob("*.json")} == set(PUBLISHED)
    listed = (CONFIGS / "SOURCES.md").read_text(encoding="utf-8")
    for name in PUBLISHED:
        assert f"`{name}.json`" in listed and "huggingface.co" in listed


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_each_family_imports_offline_within_two_percent_of_the_published_count(tmp_path, name):
    total, active, _ = PUBLISHED[name]
    result = imported(tmp_path, name)
    counts = parameter_counts(result.model)
    assert counts.total == pytest.approx(total, rel=0.02)
    assert result.model.published_parameters == counts.total       # the entry carries the count, said so
    assert "no model card" in result.model.sources["published_parameters"]
    if active:
        per_token = counts.active - (counts.embedding if name in ACTIVE_WITHOUT_EMBEDDING else 0)
        assert _within_stated_precision(per_token, active), per_token       # "12B": within one unit of its last digit
    else:
        assert not result.model.is_moe
    assert load_catalog(user_file=tmp_path / "catalog.toml").model(f"my-{name}") == result.model


@pytest.mark.parametrize("name", sorted(n for n, (_, _, builtin) in PUBLISHED.items() if builtin))
def test_an_imported_config_has_the_shapes_of_the_built_in_entry_for_that_model(tmp_path, name):
    model, builtin = imported(tmp_path, name).model, fx.CATALOG.model(PUBLISHED[name][2])
    assert {f: getattr(model, f) for f in SHAPES} == {f: getattr(builtin, f) for f in SHAPES}
    if builtin.experts == 0 or builtin.dense_layers:             # the dense width matters only where it is used
        assert model.intermediate_size == builtin.intermediate_size


def test_sliding_windows_latent_attention_and_shared_experts_are_read_from_the_config(tmp_path):
    oss = imported(tmp_path, "gpt-oss-20b").model
    assert (oss.sliding_window_tokens, oss.sliding_window_layers) == (128, 12)        # layer_types
    mistral = imported(tmp_path, "mistral-7b-v0.1").model
    assert (mistral.sliding_window_tokens, mistral.sliding_window_layers) == (4096, 32)
    assert not imported(tmp_path, "qwen2.5-7b").model.has_sliding_window             # use_sliding_window false
    lite = imported(tmp_path, "deepseek-v2-lite").model
    assert (lite.q_lora_rank, lite.kv_lora_rank, lite.dense_layers, lite.shared_experts) == (0, 512, 1, 2)
    qwen_moe = imported(tmp_path, "qwen1.5-moe-a2.7b")
    assert qwen_moe.model.shared_experts == 4                                       # 5632 = 4 x 1408
    assert any("5632" in note for note in qwen_moe.notes)
    kimi = imported(tmp_path, "kimi-k2-instruct").model
    assert (kimi.experts, kimi.attention_heads, kimi.dense_layers) == (384, 64, 1)


def test_the_name_comes_from_the_config_file_or_folder(tmp_path):
    folder = tmp_path / "Qwen3-8B-finetune"
    folder.mkdir()
    (folder / "config.json").write_bytes(config("qwen3-8b").read_bytes())
    result = import_model(folder / "config.json", tmp_path / "catalog.toml")
    assert (result.model.id, result.model.name) == ("qwen3-8b-finetune", "Qwen3-8B-finetune")
    named = json.loads(config("qwen3-8b").read_text())
    named["_name_or_path"] = "someone/Qwen3-8B-Chinese-Chat"
    (tmp_path / "named.json").write_text(json.dumps(named))
    assert import_model(tmp_path / "named.json", tmp_path / "catalog.toml").model.id == "qwen3-8b-chinese-chat"


def test_an_unknown_architecture_is_refused_in_one_sentence_naming_the_supported_ones(tmp_path):
    (tmp_path / "bert.json").write_text('{"model_type": "bert", "architectures": ["BertForMaskedLM"]}')
    error = refused(lambda: import_model(tmp_path / "bert.json", tmp_path / "catalog.toml"))
    assert error.code == "import.unknown_architecture"
    sentence = str(error)
    assert sentence.count(". ") == 0 and sentence.endswith(".") and "'bert'" in sentence
    assert all(family in sentence for family in SUPPORTED)
    assert not (tmp_path / "catalog.toml").exists()


def test_a_config_missing_its_shapes_names_every_missing_key_at_once(tmp_path):
    broken = json.loads(config("llama-3.2-1b").read_text())
    del broken["num_hidden_layers"], broken["vocab_size"]
    broken["hidden_size"] = "2048"
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    error = refused(lambda: import_model(tmp_path / "broken.json", tmp_path / "catalog.toml"))
    assert error.code == "import.fields"
    assert error.values["keys"] == ["num_hidden_layers", "hidden_size", "vocab_size"]
    assert "Llama config" in str(error)


@pytest.mark.parametrize("text, code", [("{not json", "import.not_json"), ("[1, 2]", "import.not_object"),
                                        (b"\xff\xfe{}", "import.unreadable")])
def test_a_file_that_is_no_config_is_refused(tmp_path, text, code):
    path = tmp_path / "config.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    assert refused(lambda: import_model(path, tmp_path / "catalog.toml")).code == code
    assert refused(lambda: import_model(tmp_path / "missing.json", tmp_path / "c.toml")).code == "import.unreadable"


def test_the_users_file_keeps_every_byte_and_gains_one_entry(tmp_path):
    path = tmp_path / "catalog.toml"
    mine = ('# my cards, measured by hand\r\n[models.tiny]\r\nname = "Tiny"  # keep this comment\r\nlayers = 2\r\n'
            'hidden_size = 64\r\nattention_heads = 4\r\nkv_heads = 2\r\nhead_dim = 16\r\nintermediate_size = 256\r\n'
            'vocab_size = 1000\r\ntied_embeddings = true\r\npublished_parameters = 1e5\r\nsource = "my notes"')
    path.write_bytes(mine.encode("utf-8"))                                 # CRLF, no newline at the end
    result = import_model(config("gpt-oss-20b"), path, model_id="oss")
    after = path.read_bytes()
    assert after.startswith(mine.encode("utf-8"))
    assert after[len(mine):] == ("\r\n\r\n" + result.entry_text).encode("utf-8")
    assert "\n" not in result.entry_text.replace("\r\n", "")                # the file's own line endings
    catalog = load_catalog(user_file=path)
    assert catalog.warnings == [] and {"tiny", "oss"} <= set(catalog.models)


def test_an_id_the_user_wrote_is_never_rewritten_and_another_id_can_be_chosen(tmp_path):
    path = tmp_path / "catalog.toml"
    path.write_text('[models."Qwen3-8B-mine"]\nname = "mine"\n', encoding="utf-8")     # broken, but theirs
    before = path.read_bytes()
    error = refused(lambda: import_model(config("qwen3-8b"), path, model_id="qwen3 8b MINE"))
    assert error.code == "import.id_taken" and error.values["got"] == "qwen3-8b-mine"
    assert str(error).count(";") == 1 and "--id" in str(error)
    assert path.read_bytes() == before
    import_model(config("qwen3-8b"), path, model_id="qwen3-8b-mine-2")
    assert path.read_bytes().startswith(before)


def test_a_built_in_id_is_refused_because_the_entry_would_replace_it(tmp_path):
    error = refused(lambda: import_model(config("qwen3-8b"), tmp_path / "catalog.toml"))
    assert (error.code, error.values["got"]) == ("import.id_builtin", "qwen3-8b")
    assert not (tmp_path / "catalog.toml").exists()
    assert refused(lambda: import_model(config("qwen3-8b"), tmp_path / "c.toml", model_id=" _ ")).code == "import.bad_id"


def test_a_user_file_that_is_not_toml_is_left_alone(tmp_path):
    path = tmp_path / "catalog.toml"
    path.write_bytes(b"[models.tiny\nname = ")
    error = refused(lambda: import_model(config("qwen3-8b"), path, model_id="x"))
    assert error.code == "import.catalog_unusable" and "fix it first" in str(error)
    assert path.read_bytes() == b"[models.tiny\nname = "


def test_a_new_file_is_made_in_the_config_folder_with_a_header(tmp_path):
    path = tmp_path / "new" / "folder" / "catalog.toml"
    import_model(config("qwen3-8b"), path, model_id="q")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# Your own GPUs and models") and load_catalog(user_file=path).model("q")


def test_the_file_is_replaced_by_a_rename_and_a_failed_write_leaves_it_whole(tmp_path, monkeypatch):
    path = tmp_path / "catalog.toml"
    path.write_text("# mine\n", encoding="utf-8")
    (tmp_path / ".catalog.toml.other-writer.tmp").write_text("another writer's temporary file")
    renames = []
    real_replace = os.replace

    def failing_replace(source, target):
        if Path(target).parent == tmp_path:          # not the app's cache of its own files (engine.parsed_toml)
            renames.append((Path(source).parent, Path(target)))
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(import_module.os, "replace", failing_replace)
    error = refused(lambda: import_model(config("qwen3-8b"), path, model_id="q"))
    assert error.code == "import.catalog_unusable" and "No space left" in str(error)
    assert renames == [(tmp_path, path)]                                    # the temporary file lay beside it
    assert path.read_text(encoding="utf-8") == "# mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".catalog.toml.other-writer.tmp", "catalog.toml"]
    monkeypatch.setattr(import_module.os, "replace", real_replace)
    import_model(config("qwen3-8b"), path, model_id="q")
    assert (tmp_path / ".catalog.toml.other-writer.tmp").read_text() == "another writer's temporary file"


def test_a_change_made_meanwhile_by_another_program_is_kept(tmp_path, monkeypatch):
    path = tmp_path / "catalog.toml"
    path.write_text("# mine\n", encoding="utf-8")
    real_read = import_module._read_catalog
    calls = []

    def read_then_someone_writes(target):
        data = real_read(target)
        calls.append(data)
        if len(calls) == 1:                     # after the first read, another program appends a line
            path.write_text("# mine\n# theirs\n", encoding="utf-8")
        return data
    monkeypatch.setattr(import_module, "_read_catalog", read_then_someone_writes)
    import_model(config("qwen3-8b"), path, model_id="q")
    assert path.read_text(encoding="utf-8").startswith("# mine\n# theirs\n")
    assert load_catalog(user_file=path).model("q")


def test_a_symbolic_link_to_the_users_file_stays_a_link(tmp_path):
    real = tmp_path / "dotfiles" / "catalog.toml"
    real.parent.mkdir()
    real.write_text("# mine\n", encoding="utf-8")
    link = tmp_path / "catalog.toml"
    link.symlink_to(real)
    import_model(config("qwen3-8b"), link, model_id="q")
    assert link.is_symlink() and load_catalog(user_file=real).model("q")


def test_the_command_line_adds_to_the_file_the_environment_names(tmp_path, monkeypatch, capsys):
    path = tmp_path / "catalog.toml"
    monkeypatch.setenv("INFERENCE_PHYSICS_CATALOG", str(path))
    assert main(["import-model", str(config("gpt-oss-20b")), "--id", "oss"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Added model 'oss' (gpt-oss-20b, 20.9B parameters") and str(path) in out
    assert load_catalog(user_file=path).model("oss").sliding_window_layers == 12
    assert main(["import-model", str(config("gpt-oss-20b")), "--id", "oss"]) == 2
    assert "already has a model 'oss'" in capsys.readouterr().err
    assert main(["import-model"]) == 2
    assert "Name the config.json" in capsys.readouterr().err


def test_the_command_line_refuses_without_a_traceback(tmp_path):
    (tmp_path / "bert.json").write_text('{"model_type": "bert"}')
    env = {**os.environ, "PYTHONPATH": str(ROOT), "INFERENCE_PHYSICS_CATALOG": str(tmp_path / "catalog.toml")}
    done = subprocess.run([sys.executable, "-m", "engine", "import-model", str(tmp_path / "bert.json")],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "import-model reads the configs of" in done.stderr


def test_every_import_refusal_has_both_languages():
    from importlib import resources
    document = tomllib.loads(resources.files("resources").joinpath("text", "errors.toml").read_text("utf-8"))
    source = "".join((ROOT / "engine" / name).read_text(encoding="utf-8") for name in ("import_model.py", "hf_config.py"))
    codes = {name for name in document["import"]}
    for code in codes:
        assert set(document["import"][code]) == {"en", "zh"}, code
        assert f'"import.{code}"' in source, code                 # no sentence without a refusal that uses it
