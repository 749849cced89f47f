"""Reliability of the catalogue: each model's longest context, physical ranges, one source of refusals,
bounded echoes and no import circle (issues 7 and 9)."""
from __future__ import annotations

import ast
import json
import math
import tomllib
from dataclasses import replace
from importlib import resources
from pathlib import Path

import pytest

from engine import InputError, Scenario, compute_report
from engine.catalog import load_catalog
from engine.catalog_types import PHYSICAL_RANGES, Catalog
from engine.errors import display_values, english
from tests.engine import fixtures as fx

ENGINE = Path(__file__).resolve().parents[2] / "engine"

BIG_GPU = """
[gpus.edge]
name = "Edge"
vendor = "Me"
memory_bytes = {memory}
memory_bandwidth_bytes_per_second = {bandwidth}
interconnect = "PCIe"
interconnect_bytes_per_second = 1e10
pcie_bytes_per_second = 1e10
[gpus.edge.flops]
fp16 = {flops}
"""


def refused(**fields) -> InputError:
    with pytest.raises(InputError) as caught:
        compute_report(Scenario(**fields), fx.CATALOG)
    return caught.value


# ----------------------------------------------------------------------------- the longest context

def test_every_built_in_model_carries_its_longest_context_with_its_source():
    for model in fx.CATALOG.models.values():
        assert model.max_context_tokens > 0, model.id
        assert f"max_position_embeddings {model.max_context_tokens}" in model.source, model.id
    assert fx.LLAMA_31_8B.max_context_tokens == fx.LLAMA_31_70B.max_context_tokens == 131_072


def test_a_context_beyond_the_models_maximum_is_refused_naming_the_maximum():
    compute_report(Scenario(model="llama-3.1-8b", prompt_tokens=131_000, output_tokens=72), fx.CATALOG)   # exactly
    error = refused(model="llama-3.1-8b", prompt_tokens=10_000_000 - 1, output_tokens=1)
    assert error.code == "model.context" and "131,072" in str(error) and "Llama 3.1 8B" in str(error)
    assert str(error).count(".") >= 1 and "\n" not in str(error)


# ----------------------------------------------------------------------------- physical ranges

@pytest.mark.parametrize("memory, bandwidth, flops, field, range_text", [
    ("80e9", "1e-300", "1e15", "memory_bandwidth_bytes_per_second", "between 1 GB/s and 1 PB/s"),
    ("80e9", "1.7e308", "1e15", "memory_bandwidth_bytes_per_second", "between 1 GB/s and 1 PB/s"),
    ("80e9", "3e12", "5e-324", "flops.fp16", "between"),
    ("80e9", "3e12", "1.7e308", "flops.fp16", "between"),
    ("1e300", "3e12", "1e15", "memory_bytes", "between 1 GB and 100 TB"),
])
def test_a_user_gpu_outside_its_physical_range_is_skipped_naming_the_range(tmp_path, memory, bandwidth, flops,
                                                                            field, range_text):
    path = tmp_path / "catalog.toml"
    path.write_text(BIG_GPU.format(memory=memory, bandwidth=bandwidth, flops=flops), encoding="utf-8")
    catalog = load_catalog(user_file=path)
    assert "edge" not in catalog.gpus
    [warning] = catalog.warnings
    assert field in warning and range_text in warning and len(warning) < 400


@pytest.mark.parametrize("field, value", [("hidden_size", 10 ** 18), ("published_parameters", "1e308"),
                                          ("layers", 10 ** 6), ("vocab_size", 2 ** 62)])
def test_a_user_model_too_big_to_compute_is_skipped(tmp_path, field, value):
    raw = {"name": "Huge", "layers": 2, "hidden_size": 64, "attention_heads": 4, "kv_heads": 2, "head_dim": 16,
           "intermediate_size": 256, "vocab_size": 1000, "tied_embeddings": "true", "published_parameters": "1e9"}
    raw[field] = value
    body = "\n".join(f"{key} = {text if key != 'name' else json.dumps(text)}" for key, text in raw.items())
    path = tmp_path / "catalog.toml"
    path.write_text(f"[models.huge]\n{body}\n", encoding="utf-8")
    catalog = load_catalog(user_file=path)
    assert "huge" not in catalog.models and field in catalog.warnings[0] and "between" in catalog.warnings[0]


def test_gpus_at_the_edges_of_the_ranges_give_finite_json_reports(tmp_path):
    low, high = PHYSICAL_RANGES["memory_bandwidth_bytes_per_second"][:2]
    for bandwidth, flops in ((low, PHYSICAL_RANGES["flops"][0]), (high, PHYSICAL_RANGES["flops"][1])):
        path = tmp_path / f"{bandwidth}.toml"
        path.write_text(BIG_GPU.format(memory="1e14", bandwidth=bandwidth, flops=flops), encoding="utf-8")
        catalog = load_catalog(user_file=path)
        report = compute_report(Scenario(gpu="edge", model="llama-3.1-8b", prompt_tokens=131_000,
                                         output_tokens=72, batch=4096), catalog)
        json.dumps(report.to_json_dict(), allow_nan=False)
        assert math.isfinite(report.total_seconds)


# ----------------------------------------------------------------------------- one source for refusals

def _refusals() -> list[InputError]:
    errors = [refused(batch=5000), refused(batch=2.5), refused(gpu=" "), refused(usd_per_gpu_hour=-1.0),
              refused(prompt_tokens=10_000_000, output_tokens=1), refused(mode="fast"),
              refused(model="llama-3.1-8b", gpus=3), refused(model="qwen2.5-7b", gpus=14, tp=14),
              refused(model="llama-2-13b", gpus=5), refused(gpu="h900"), refused(gpu=42),
              refused(model="llama-3.1-8b", prompt_tokens=200_000)]
    with pytest.raises(InputError) as caught:
        compute_report("h800")
    return errors + [caught.value]


def test_the_engines_english_sentence_is_the_errors_toml_english_text():
    for error in _refusals():
        assert error.code, str(error)
        assert str(error) == english(f"errors.{error.code}", **display_values(error.code, error.values, english))


def test_every_coded_refusal_of_the_engine_has_both_languages_in_errors_toml():
    document = tomllib.loads(resources.files("resources").joinpath("text", "errors.toml").read_text("utf-8"))
    for error in _refusals():
        section, name = error.code.split(".")
        assert set(document[section][name]) == {"en", "zh"}, error.code


# ----------------------------------------------------------------------------- bounded echoes

def test_a_huge_id_is_echoed_shortened():
    error = refused(gpu="x" * 100_000)
    assert len(str(error)) < 1000 and "…" in str(error)


def test_a_huge_catalogue_is_not_listed_in_full_in_a_refusal():
    gpus = {f"gpu-{i}": replace(fx.H800, id=f"gpu-{i}", name=f"GPU {i}") for i in range(100_000)}
    catalog = Catalog(gpus=gpus, models=fx.CATALOG.models, precisions=fx.CATALOG.precisions)
    with pytest.raises(InputError) as caught:
        catalog.gpu("nothing-like-it")
    assert len(str(caught.value)) < 1000 and "99,980 more" in str(caught.value)


def test_a_number_with_thousands_of_digits_is_shown_in_a_few():
    error = refused(batch=10 ** 4000)
    assert len(str(error)) < 200 and "1e+4000" in str(error)


# ----------------------------------------------------------------------------- no import circle

def _imports(module_file: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(module_file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("engine."):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("engine.")}
    return found


def test_no_engine_module_imports_itself_back_through_another():
    graph = {f"engine.{path.stem}": _imports(path) for path in ENGINE.glob("*.py")}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph.get(start, ()):
            if nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})):
                return True
        return False
    circles = [module for module in graph if reaches(module, module, {module})]
    assert not circles
    assert "engine.catalog" not in graph["engine.catalog_text"]
