"""The built-in catalogue: every id the issue names, the seed's H800 figures, sources, lookups."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.catalog import Catalog, catalog_as_json, catalog_as_text, default_catalog, load_catalog
from engine.catalog_types import COMPUTE_PRECISIONS
from engine.errors import InputError

ROOT = Path(__file__).resolve().parents[2]

GPU_IDS = ["h800", "h100-sxm", "h100-pcie", "h200", "h20", "a100-40gb", "a100-80gb", "a800", "b200",
           "l40s", "rtx-4090", "mi300x", "ascend-910b", "gb200", "h100-nvl", "a100-pcie", "l4", "l20",
           "rtx-5090", "m3-max", "m4-max", "ascend-910c"]
MODEL_IDS = ["llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b",
             "qwen2.5-7b", "qwen2.5-72b", "qwen3-32b", "mixtral-8x7b", "deepseek-v3",
             "qwen3-0.6b", "qwen3-1.7b", "qwen3-4b", "qwen3-8b", "qwen3-14b", "qwen3-30b-a3b", "qwen3-235b-a22b",
             "llama-3.2-1b", "llama-3.2-3b", "llama-3.3-70b", "deepseek-r1", "kimi-k2", "glm-4.5", "glm-4.5-air",
             "gpt-oss-120b", "gpt-oss-20b", "mistral-7b", "mistral-7b-v0.3", "mixtral-8x22b"]
MOE_IDS = {"mixtral-8x7b", "mixtral-8x22b", "deepseek-v3", "deepseek-r1", "kimi-k2", "qwen3-30b-a3b",
           "qwen3-235b-a22b", "glm-4.5", "glm-4.5-air", "gpt-oss-120b", "gpt-oss-20b"}
MLA_IDS = {"deepseek-v3", "deepseek-r1", "kimi-k2"}
PRECISION_BYTES = {"fp32": 4.0, "fp16": 2.0, "bf16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5625, "fp4": 0.5625}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def test_every_required_id_is_present(catalog):
    assert list(catalog.gpus) == GPU_IDS
    assert list(catalog.models) == MODEL_IDS
    assert set(catalog.precisions) == set(PRECISION_BYTES)
    assert catalog.warnings == []


def test_h800_matches_the_seed_and_its_datasheet(catalog):
    h800 = catalog.gpu("h800")
    assert h800.memory_bytes == 80e9
    assert h800.memory_bandwidth_bytes_per_second == 3.35e12
    assert h800.flops_per_second["fp16"] == pytest.approx(989e12, rel=1e-3)
    assert h800.flops_per_second["bf16"] == pytest.approx(989e12, rel=1e-3)
    assert h800.flops_per_second["fp8"] == pytest.approx(1979e12, rel=1e-3)
    assert h800.interconnect_bytes_per_second == 400e9
    # The datasheet's PCIe Gen5 128 GB/s counts both directions; the seed's 64 GB/s is one of them.
    assert h800.pcie_bytes_per_second / 2 == 64e9
    # The seed: compute / bandwidth is about 300 FLOP per byte.
    assert 280 < h800.flops_per_second["fp16"] / h800.memory_bandwidth_bytes_per_second < 310


@pytest.mark.parametrize("gpu_id, fp16_tflops, memory_gb, bandwidth_gb_per_s", [
    ("h100-sxm", 989.4, 80, 3350), ("h100-pcie", 756, 80, 2000), ("h200", 989.4, 141, 4800),
    ("h20", 148, 96, 4000), ("a100-40gb", 312, 40, 1555), ("a100-80gb", 312, 80, 2039), ("a800", 312, 80, 2039),
    ("l40s", 362.05, 48, 864), ("rtx-4090", 165.2, 24, 1008), ("mi300x", 1307.4, 192, 5300),
])
def test_published_dense_figures(catalog, gpu_id, fp16_tflops, memory_gb, bandwidth_gb_per_s):
    gpu = catalog.gpu(gpu_id)
    assert gpu.flops_per_second["fp16"] == pytest.approx(fp16_tflops * 1e12)
    assert gpu.memory_bytes == pytest.approx(memory_gb * 1e9)
    assert gpu.memory_bandwidth_bytes_per_second == pytest.approx(bandwidth_gb_per_s * 1e9)


def test_peaks_are_dense_not_sparse(catalog):
    # The sparse H100 figure (1979 BF16) is twice the dense one; no Hopper entry may carry it.
    for gpu_id in ("h800", "h100-sxm", "h200"):
        assert catalog.gpu(gpu_id).flops_per_second["bf16"] < 1000e12
    for gpu in catalog.gpus.values():
        peaks = gpu.flops_per_second
        assert set(peaks) <= set(COMPUTE_PRECISIONS)
        if "fp8" in peaks:        # one FP8 step is twice an FP16 step on every tensor core listed
            assert peaks["fp8"] / peaks["fp16"] == pytest.approx(2, rel=0.05), gpu.id
        if "fp32" in peaks and gpu.vendor != "Apple":    # Apple's GPUs have no faster 16-bit matrix units
            assert peaks["fp32"] < peaks["fp16"], gpu.id


def test_cards_without_fp8_units_have_no_fp8_figure_and_fall_back_to_fp16(catalog):
    for gpu_id in ("a100-40gb", "a100-80gb", "a800", "ascend-910b"):
        gpu = catalog.gpu(gpu_id)
        assert "fp8" not in gpu.flops_per_second
        assert gpu.flops_precision_for("fp8") == "fp16"
        assert gpu.peak_flops_for("fp8") == gpu.flops_per_second["fp16"]
    h800 = catalog.gpu("h800")
    assert h800.peak_flops_for("fp8") == h800.flops_per_second["fp8"]
    assert h800.flops_precision_for("int4") == "int8"          # no INT4 tensor cores on Hopper
    assert catalog.gpu("rtx-4090").flops_precision_for("int4") == "int4"


def test_a_missing_fp32_figure_is_an_input_error_naming_the_gpu(catalog):
    with pytest.raises(InputError, match="ascend-910b.*FP32"):
        catalog.gpu("ascend-910b").peak_flops_for("fp32")
    with pytest.raises(InputError, match="fp12"):
        catalog.gpu("h800").peak_flops_for("fp12")


def test_links_are_stated_both_ways_and_cards_without_nvlink_say_so(catalog):
    assert catalog.gpu("h100-sxm").interconnect_bytes_per_second == 900e9
    assert catalog.gpu("h100-pcie").interconnect_bytes_per_second == 600e9
    for gpu_id in ("l40s", "rtx-4090"):
        gpu = catalog.gpu(gpu_id)
        assert "No NVLink" in gpu.interconnect
        assert gpu.interconnect_bytes_per_second == gpu.pcie_bytes_per_second == 64e9
    assert catalog.gpu("ascend-910b").estimated       # no vendor datasheet: marked as estimates


def test_every_entry_names_its_source(catalog):
    entries = [*catalog.gpus.values(), *catalog.models.values(), *catalog.precisions.values()]
    for entry in entries:
        assert entry.source.strip(), entry.id
        for name, text in getattr(entry, "sources", {}).items():
            assert text.strip(), (entry.id, name)
    for entry in [*catalog.gpus.values(), *catalog.models.values()]:
        assert "http" in entry.source, entry.id      # a document a reader can open


def test_precisions(catalog):
    for precision_id, size in PRECISION_BYTES.items():
        precision = catalog.precision(precision_id)
        assert precision.bytes_per_value == size
        assert precision.compute_precision in COMPUTE_PRECISIONS
    assert catalog.precision("int4").compute_precision == "fp16"     # weight-only: FP16 matmuls
    assert catalog.precision("int8").compute_precision == "int8"
    assert catalog.precision("fp8").compute_precision == "fp8"
    assert catalog.precision("fp4").compute_precision == "fp4"       # Blackwell's FP4 tensor cores


def test_every_gpu_states_its_node_and_network_with_a_source(catalog):
    import tomllib
    raw = tomllib.loads((ROOT / "resources" / "catalog" / "gpus.toml").read_text(encoding="utf-8"))["gpus"]
    for gpu in catalog.gpus.values():
        assert {"node_gpus", "network", "network_bytes_per_second"} <= set(raw[gpu.id]), gpu.id
        assert "network_bytes_per_second" in gpu.sources or "Gb/s" in gpu.source, gpu.id
        assert 1 <= gpu.node_gpus <= 384 and 1e8 <= gpu.network_bytes_per_second <= 1e12, gpu.id
    assert catalog.gpu("h800").network_bytes_per_second / 2 == 50e9        # DeepSeek-V3's "IB (50 GB/s)"
    assert catalog.gpu("gb200").node_gpus == 72 and catalog.gpu("m4-max").node_gpus == 1
    assert catalog.gpu("gb200").flops_per_second["fp4"] == 2 * catalog.gpu("gb200").flops_per_second["fp8"]


def test_qwen3_head_dim_comes_from_its_config_not_from_hidden_over_heads(catalog):
    qwen3 = catalog.model("qwen3-32b")
    assert qwen3.hidden_size // qwen3.attention_heads == 80
    assert qwen3.head_dim == 128


def test_the_seeds_70b_model_has_320_kib_of_kv_per_token_at_fp16(catalog):
    model = catalog.model("llama-3.1-70b")
    assert (model.layers, model.hidden_size, model.attention_heads, model.kv_heads) == (80, 8192, 64, 8)
    assert (model.intermediate_size, model.vocab_size) == (28672, 128256)
    assert 2 * model.layers * model.kv_heads * model.head_dim * 2 == 320 * 1024


def test_model_shapes_are_consistent(catalog):
    for model in catalog.models.values():
        assert model.attention_heads % model.kv_heads == 0, model.id
        assert model.published_parameters > 0, model.id
    mixtral, deepseek = catalog.model("mixtral-8x7b"), catalog.model("deepseek-v3")
    assert mixtral.is_moe and not mixtral.uses_mla
    assert (mixtral.experts, mixtral.experts_per_token) == (8, 2)
    assert deepseek.is_moe and deepseek.uses_mla
    assert (deepseek.experts, deepseek.experts_per_token, deepseek.shared_experts, deepseek.dense_layers) == (256, 8, 1, 3)
    assert (deepseek.q_lora_rank, deepseek.kv_lora_rank) == (1536, 512)
    assert (deepseek.qk_nope_head_dim, deepseek.qk_rope_head_dim, deepseek.v_head_dim) == (128, 64, 128)
    assert deepseek.published_active_parameters == 37e9
    for model in catalog.models.values():
        assert model.is_moe == (model.id in MOE_IDS), model.id
        assert model.uses_mla == (model.id in MLA_IDS), model.id


def test_lookups_ignore_case_and_spelling_of_separators(catalog):
    assert catalog.gpu("H800") is catalog.gpu("h800")
    assert catalog.gpu("RTX_4090") is catalog.gpu("rtx-4090")
    assert catalog.gpu("NVIDIA H800 SXM5") is catalog.gpu("h800")
    assert catalog.model("Llama-3.1-70B") is catalog.model("llama-3.1-70b")
    assert catalog.precision("FP8") is catalog.precision("fp8")


def test_an_unknown_id_names_the_close_matches(catalog):
    with pytest.raises(InputError) as raised:
        catalog.gpu("h8000")
    message = str(raised.value)
    assert message.startswith("Unknown GPU 'h8000'; close matches: h800, h200")
    assert "Known GPUs: h800, h100-sxm" in message
    with pytest.raises(InputError, match="close matches: h100-sxm, h100-pcie"):
        catalog.gpu("h100")
    with pytest.raises(InputError, match="Unknown model 'llama-3.1-7b'; close matches: .*llama-3.1-8b"):
        catalog.model("llama-3.1-7b")
    with pytest.raises(InputError, match="Unknown precision 'fp9'; close matches: fp8"):
        catalog.precision("fp9")
    with pytest.raises(InputError, match="must be text, got 7"):
        catalog.gpu(7)


def test_json_and_text_listings_carry_every_entry_and_its_source(catalog):
    data = json.loads(json.dumps(catalog_as_json(catalog)))
    assert [gpu["id"] for gpu in data["gpus"]] == GPU_IDS
    assert [model["id"] for model in data["models"]] == MODEL_IDS
    h800 = data["gpus"][0]
    assert h800["flops_per_second"]["fp8"] == pytest.approx(1978.9e12)
    assert h800["source"] and data["warnings"] == []
    text = catalog_as_text(catalog)
    for entry_id in [*GPU_IDS, *MODEL_IDS, *PRECISION_BYTES]:
        assert f"  {entry_id}: " in text
    assert "989 TFLOPS" in text and "3.35 TB/s" in text and "400 GB/s" in text
    assert text.count("source: ") == len(GPU_IDS) + len(MODEL_IDS) + len(PRECISION_BYTES)
    assert "node of 8 GPUs; network 100 GB/s per GPU: InfiniBand NDR" in text


def test_default_catalog_is_read_once(monkeypatch, tmp_path):
    monkeypatch.setenv("INFERENCE_PHYSICS_CATALOG", str(tmp_path / "absent.toml"))
    default_catalog.cache_clear()
    try:
        assert default_catalog() is default_catalog()
        assert "h800" in default_catalog().gpus and default_catalog().warnings == []
    finally:
        default_catalog.cache_clear()


def test_a_broken_builtin_file_is_an_input_error(tmp_path):
    for name in ("gpus.toml", "models.toml", "precisions.toml"):
        (tmp_path / name).write_bytes((ROOT / "resources" / "catalog" / name).read_bytes())
    assert list(load_catalog(builtin_dir=tmp_path).gpus) == GPU_IDS
    gpus = (tmp_path / "gpus.toml").read_text(encoding="utf-8")
    (tmp_path / "gpus.toml").write_text(gpus.replace("memory_bytes = 80e9", "memory_bytes = -80e9", 1),
                                        encoding="utf-8")
    with pytest.raises(InputError, match="GPU 'h800': field memory_bytes must be a positive number, got -8"):
        load_catalog(builtin_dir=tmp_path)


def test_the_engine_catalogue_imports_no_qt():
    script = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph', 'PyQt5', 'PyQt6'):\n"
        "            raise ImportError('Qt is not allowed in engine/: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import engine.catalog, engine.catalog_types\n"
        "engine.catalog.load_catalog()\n"
        "assert not any(m.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph') for m in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
