"""A person's own catalogue file: added entries, overrides, and problems reported without losing anything."""
from __future__ import annotations

import stat
from pathlib import Path

import pytest

from engine import config_dir as config_dir_module
from engine.catalog import default_catalog, load_catalog, user_catalog_path
from engine.errors import InputError

GOOD_GPU = """
[gpus.mygpu]
name = "My GPU"
vendor = "Me"
memory_bytes = 32e9
memory_bandwidth_bytes_per_second = 1e12
interconnect = "PCIe 5.0 x16"
interconnect_bytes_per_second = 128e9
pcie_bytes_per_second = 128e9
[gpus.mygpu.flops]
fp16 = 200e12
fp8 = 400e12
"""

GOOD_MODEL = """
[models.tiny]
name = "Tiny"
layers = 2
hidden_size = 64
attention_heads = 4
kv_heads = 2
head_dim = 16
intermediate_size = 256
vocab_size = 1000
tied_embeddings = true
published_parameters = 1e5
source = "my notes"
"""


@pytest.fixture(autouse=True)
def home_elsewhere(tmp_path, monkeypatch):
    """Warnings shorten paths under the home folder to ~/; keep the test files outside it."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def write(tmp_path: Path, text: str, name: str = "catalog.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_user_file_adds_a_gpu_and_a_model(tmp_path):
    path = write(tmp_path, GOOD_GPU + GOOD_MODEL)
    catalog = load_catalog(user_file=path)
    assert catalog.warnings == []
    gpu = catalog.gpu("MyGPU")
    assert gpu.memory_bytes == 32e9 and gpu.peak_flops_for("fp8") == 400e12
    assert gpu.origin == str(path)
    assert str(path.name) in gpu.source          # no source given: the file is the source
    assert catalog.model("tiny").tied_embeddings is True
    assert "h800" in catalog.gpus and "llama-3.1-70b" in catalog.models


def test_a_user_entry_with_a_builtin_id_replaces_it_in_place(tmp_path):
    path = write(tmp_path, GOOD_GPU.replace("gpus.mygpu", "gpus.H800").replace('vendor = "Me"', 'source = "measured"\nvendor = "Me"'))
    catalog = load_catalog(user_file=path)
    assert catalog.warnings == []
    assert list(catalog.gpus)[0] == "h800"
    assert catalog.gpu("h800").memory_bytes == 32e9
    assert catalog.gpu("h800").origin == str(path)
    assert load_catalog().gpu("h800").memory_bytes == 80e9


@pytest.mark.parametrize("edit, field, problem", [
    (lambda t: t.replace("memory_bytes = 32e9\n", ""), "memory_bytes", "is missing"),
    (lambda t: t.replace("memory_bytes = 32e9", "memory_bytes = -5"), "memory_bytes",
     "must be a positive number, got -5"),
    (lambda t: t.replace("memory_bytes = 32e9", 'memory_bytes = "32 GB"'), "memory_bytes",
     "must be a positive number, got '32 GB'"),
    (lambda t: t.replace("memory_bytes = 32e9", "memory_bytes = true"), "memory_bytes",
     "must be a positive number, got True"),
    (lambda t: t.replace("memory_bytes = 32e9", "memory_bytes = nan"), "memory_bytes",
     "must be a positive number, got nan"),
    (lambda t: t.replace("memory_bytes", "memroy_bytes"), "memroy_bytes", "is not a catalogue field"),
    (lambda t: t.replace("fp16 = 200e12", "fp9 = 200e12"), "flops.fp9", "is not a precision"),
    (lambda t: t.replace("fp16 = 200e12\n", ""), "flops.fp16", "is missing"),
    (lambda t: t.replace("fp8 = 400e12", "fp8 = 0"), "flops.fp8", "must be a positive number, got 0"),
    (lambda t: t.replace('name = "My GPU"', "name = 3"), "name", "must be non-empty text, got 3"),
])
def test_a_malformed_gpu_is_skipped_with_a_sentence_naming_file_entry_and_field(tmp_path, edit, field, problem):
    path = write(tmp_path, edit(GOOD_GPU) + GOOD_MODEL)
    catalog = load_catalog(user_file=path)
    assert "mygpu" not in catalog.gpus
    assert "tiny" in catalog.models                   # the rest of the file still loads
    assert list(catalog.gpus)[:2] == ["h800", "h100-sxm"]
    [warning] = catalog.warnings
    assert warning.startswith(f"{path}: GPU 'mygpu': field {field}")
    assert problem in warning
    assert warning.endswith("entry skipped.")


@pytest.mark.parametrize("edit, field, problem", [
    (lambda t: t.replace("kv_heads = 2", "kv_heads = 3"), "kv_heads", "must divide attention_heads (4) evenly"),
    (lambda t: t.replace("layers = 2", "layers = 2.5"), "layers", "must be a positive whole number, got 2.5"),
    (lambda t: t.replace("layers = 2", "layers = 0"), "layers", "must be a positive whole number, got 0"),
    (lambda t: t.replace("tied_embeddings = true", 'tied_embeddings = "yes"'), "tied_embeddings",
     "must be true or false"),
    (lambda t: t + "experts_per_token = 2\n", "experts_per_token", "must be 0 when experts is 0"),
    (lambda t: t + "experts = 4\nexperts_per_token = 5\nexpert_intermediate_size = 64\n", "experts_per_token",
     "must be between 1 and experts (4), got 5"),
    (lambda t: t + "experts = 4\nexperts_per_token = 2\n", "expert_intermediate_size", "when experts > 0"),
    (lambda t: t + "experts = 4\nexperts_per_token = 2\nexpert_intermediate_size = 64\ndense_layers = 2\n",
     "dense_layers", "must be fewer than layers (2)"),
    (lambda t: t + "kv_lora_rank = 64\n", "qk_nope_head_dim", "when kv_lora_rank > 0"),
    (lambda t: t + "v_head_dim = 16\n", "v_head_dim", "must be 0 when kv_lora_rank is 0"),
    (lambda t: t + "shared_experts = -1\n", "shared_experts", "must be a whole number, 0 or more, got -1"),
])
def test_a_malformed_model_is_skipped_with_a_sentence_naming_the_field(tmp_path, edit, field, problem):
    path = write(tmp_path, edit(GOOD_MODEL))
    catalog = load_catalog(user_file=path)
    assert "tiny" not in catalog.models
    [warning] = catalog.warnings
    assert warning.startswith(f"{path}: model 'tiny': field {field} ")
    assert problem in warning


def test_the_issue_example_sentence_under_the_home_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    folder = tmp_path / ".config" / "inference-physics"
    folder.mkdir(parents=True)
    path = write(folder, GOOD_GPU.replace("memory_bytes = 32e9", "memory_bytes = -5"))
    [warning] = load_catalog(user_file=path).warnings
    assert warning == ("~/.config/inference-physics/catalog.toml: GPU 'mygpu': "
                       "field memory_bytes must be a positive number, got -5; entry skipped.")


def test_an_unparseable_file_gives_one_warning_and_the_builtins_load(tmp_path):
    path = write(tmp_path, "[gpus.mygpu\nname = ")
    catalog = load_catalog(user_file=path)
    [warning] = catalog.warnings
    assert warning.startswith(f"{path}: this file cannot be used")
    assert "ignored" in warning
    builtin = load_catalog()
    assert (catalog.gpus, catalog.models) == (builtin.gpus, builtin.models)


def test_a_file_that_is_not_utf8_or_not_a_file_gives_one_warning(tmp_path):
    path = tmp_path / "catalog.toml"
    path.write_bytes(b"name = \"\xff\xfe\"\n")
    assert len(load_catalog(user_file=path).warnings) == 1
    assert len(load_catalog(user_file=tmp_path).warnings) == 1        # a folder, not a file


def test_a_missing_user_file_is_not_a_problem(tmp_path):
    assert load_catalog(user_file=tmp_path / "none.toml").warnings == []


def test_unknown_tables_non_table_entries_and_duplicate_ids_are_reported(tmp_path):
    text = ("[gpus]\nodd = 3\n" + GOOD_GPU + GOOD_GPU.replace("gpus.mygpu", "gpus.MYGPU")
            + "[precisions.fp5]\nname = 'FP5'\n")
    path = write(tmp_path, text)
    catalog = load_catalog(user_file=path)
    assert catalog.gpu("mygpu").memory_bytes == 32e9            # the first definition stays
    assert len(catalog.warnings) == 3
    odd, duplicate, table = catalog.warnings
    assert "GPU 'odd': must be a table of fields, got 3" in odd
    assert "GPU 'MYGPU': its id matches 'mygpu' defined above" in duplicate
    assert "'precisions' is not read" in table
    assert "fp5" not in catalog.precisions


def test_the_user_file_is_never_written(tmp_path):
    path = write(tmp_path, GOOD_GPU.replace("memory_bytes = 32e9", "memory_bytes = -5") + GOOD_MODEL)
    before = path.read_bytes()
    modified = path.stat().st_mtime_ns
    path.chmod(stat.S_IRUSR)                   # read-only: opening it for writing would fail
    try:
        catalog = load_catalog(user_file=path)
    finally:
        path.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert "tiny" in catalog.models and len(catalog.warnings) == 1
    assert path.read_bytes() == before
    assert path.stat().st_mtime_ns == modified
    assert sorted(p.name for p in tmp_path.iterdir()) == ["catalog.toml"]     # no backup or lock file


def test_default_catalog_reads_the_file_the_environment_names(tmp_path, monkeypatch):
    path = write(tmp_path, GOOD_GPU)
    monkeypatch.setenv("INFERENCE_PHYSICS_CATALOG", str(path))
    default_catalog.cache_clear()
    try:
        assert default_catalog().gpu("mygpu").name == "My GPU"
    finally:
        default_catalog.cache_clear()


@pytest.mark.parametrize("platform, env, expected", [
    ("linux", {"XDG_CONFIG_HOME": "/xdg"}, "/xdg/inference-physics/catalog.toml"),
    ("linux", {}, "~/.config/inference-physics/catalog.toml"),
    ("darwin", {}, "~/Library/Application Support/inference-physics/catalog.toml"),
    ("win32", {"APPDATA": "/appdata"}, "/appdata/inference-physics/catalog.toml"),
])
def test_the_user_file_lives_in_the_platforms_config_folder(monkeypatch, tmp_path, platform, env, expected):
    monkeypatch.delenv("INFERENCE_PHYSICS_CATALOG", raising=False)
    monkeypatch.delenv("INFERENCE_PHYSICS_CONFIG_DIR", raising=False)   # tests/conftest.py sets it for isolation
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("APPDATA", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(config_dir_module.sys, "platform", platform)
    assert user_catalog_path() == Path(expected.replace("~", str(tmp_path)))


def test_the_app_config_folder_holds_the_user_file_and_can_be_moved(monkeypatch, tmp_path):
    monkeypatch.delenv("INFERENCE_PHYSICS_CATALOG", raising=False)
    monkeypatch.setenv("INFERENCE_PHYSICS_CONFIG_DIR", str(tmp_path / "elsewhere"))
    assert config_dir_module.config_dir() == tmp_path / "elsewhere"
    assert user_catalog_path() == tmp_path / "elsewhere" / "catalog.toml"


def test_the_environment_variable_overrides_the_config_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("INFERENCE_PHYSICS_CATALOG", str(tmp_path / "mine.toml"))
    assert user_catalog_path() == tmp_path / "mine.toml"


def test_user_gpu_topology_is_checked(tmp_path):
    """A mesh needs its link count; a switch must not name one; unknown topologies are refused."""
    from engine.catalog import load_catalog
    base = """name = "X"
vendor = "Y"
memory_bytes = 1e9
memory_bandwidth_bytes_per_second = 1e12
interconnect = "Z"
interconnect_bytes_per_second = 1e11
pcie_bytes_per_second = 1e10
source = "mine"
flops = { fp16 = 1e14 }
"""
    path = tmp_path / "catalog.toml"
    path.write_text(
        "[gpus.good]\n" + base + 'interconnect_topology = "mesh"\ninterconnect_links = 3\n'
        "[gpus.nolinks]\n" + base + 'interconnect_topology = "mesh"\n'
        "[gpus.ring]\n" + base + 'interconnect_topology = "ring"\n'
        "[gpus.extra]\n" + base + 'interconnect_links = 2\n', encoding="utf-8")
    catalog = load_catalog(user_file=path)
    assert catalog.gpu("good").interconnect_links == 3
    text = "\n".join(catalog.warnings)
    assert "'nolinks'" in text and "interconnect_links" in text
    assert "'ring'" in text and "interconnect_topology" in text
    assert "'extra'" in text
    assert "h800" in catalog.gpus


def test_a_malformed_gpu_names_every_missing_or_bad_field_at_once(tmp_path):
    text = (GOOD_GPU.replace("interconnect_bytes_per_second = 128e9\n", "").replace("pcie_bytes_per_second = 128e9\n", "")
            .replace('vendor = "Me"\n', "").replace("fp8 = 400e12", "fp8 = -1")
            .replace("memory_bytes = 32e9", "memroy_bytes = 32e9"))
    path = write(tmp_path, text + GOOD_MODEL)
    catalog = load_catalog(user_file=path)
    [warning] = catalog.warnings
    problems = warning.removeprefix(f"{path}: GPU 'mygpu': ").removesuffix("; entry skipped.").split("; field ")
    named = [problem.removeprefix("field ").split(" ")[0] for problem in problems]
    assert named == ["memroy_bytes", "memory_bytes", "interconnect_bytes_per_second", "pcie_bytes_per_second",
                     "vendor", "flops.fp8"]
    assert "tiny" in catalog.models and "mygpu" not in catalog.gpus
    with pytest.raises(InputError) as caught:          # looking it up says why, as far as a line holds
        catalog.gpu("mygpu")
    assert str(caught.value).startswith(f"GPU 'mygpu' in {path} was skipped: field memroy_bytes is not a "
                                        "catalogue field (did you mean memory_bytes?); field memory_bytes is missing")


def test_a_bad_field_does_not_invent_a_second_problem_between_fields(tmp_path):
    text = GOOD_MODEL.replace("attention_heads = 4", "attention_heads = 0").replace("kv_heads = 2", "kv_heads = 3")
    text = text.replace("layers = 2\n", "") + "experts = 4\nexperts_per_token = 2\nexpert_intermediate_size = 64\n"
    [warning] = load_catalog(user_file=write(tmp_path, text)).warnings
    assert "field layers is missing" in warning and "field attention_heads must be a positive whole number" in warning
    assert "must divide" not in warning and "dense_layers" not in warning      # rules on bad fields are not judged


def test_ids_are_found_whichever_way_an_accent_was_typed(tmp_path):
    composed, decomposed = "mod\u00e8le", "mode\u0300le"          # "modèle": one code point, or e + combining accent
    path = write(tmp_path, GOOD_MODEL.replace("[models.tiny]", f'[models."{decomposed}"]'))
    catalog = load_catalog(user_file=path)
    assert catalog.model(composed) is catalog.model(decomposed) is catalog.model(composed.upper())
    assert list(catalog.models)[-1] == composed                   # stored in the composed (NFC) form
    doubled = write(tmp_path, GOOD_MODEL.replace("[models.tiny]", f'[models."{decomposed}"]')
                    + GOOD_MODEL.replace("[models.tiny]", f'[models."{composed}"]'), name="twice.toml")
    [warning] = load_catalog(user_file=doubled).warnings
    assert "defined above" in warning                              # the two spellings are one id


def test_a_users_gpu_without_node_fields_is_an_8_gpu_node_and_one_with_them_keeps_them(tmp_path):
    from engine.catalog_types import DEFAULT_NETWORK_BYTES_PER_SECOND, DEFAULT_NODE_GPUS
    node = ('\n[gpus.mybox]\nname = "My box"\nvendor = "Me"\nmemory_bytes = 24e9\n'
            'memory_bandwidth_bytes_per_second = 1e12\ninterconnect = "PCIe 4.0 x16"\n'
            'interconnect_bytes_per_second = 64e9\npcie_bytes_per_second = 64e9\nnode_gpus = 2\n'
            'network = "10 Gb/s Ethernet"\nnetwork_bytes_per_second = 2.5e9\n[gpus.mybox.flops]\nfp16 = 100e12\n')
    bad = node.replace("mybox", "badbox").replace("node_gpus = 2", "node_gpus = 0")
    catalog = load_catalog(user_file=write(tmp_path, GOOD_GPU + node + bad))
    plain, box = catalog.gpu("mygpu"), catalog.gpu("mybox")
    assert (plain.node_gpus, plain.network_bytes_per_second) == (DEFAULT_NODE_GPUS, DEFAULT_NETWORK_BYTES_PER_SECOND)
    assert (box.node_gpus, box.network, box.network_bytes_per_second) == (2, "10 Gb/s Ethernet", 2.5e9)
    [warning] = catalog.warnings
    assert "'badbox'" in warning and "node_gpus" in warning
