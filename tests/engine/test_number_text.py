"""engine.units is the one place that turns numbers into display text; the listings and messages use it."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from engine import units
from engine.catalog import catalog_as_text, load_catalog
from tests.engine import fixtures as fx
from tests.engine.test_catalog_user_file import GOOD_MODEL

ENGINE = Path(__file__).resolve().parents[2] / "engine"
# "{name:spec}" in a plain string that str.format fills in (a padding spec such as "<27" is not a number's).
_FORMAT_FIELD = re.compile(r"\{[A-Za-z_][\w.\[\]]*(?:![rsa])?:(?![<>^])[^{}]*\}")


def _number_formatting(path: Path) -> list[str]:
    """Every format spec applied to a value in ``path`` (f-strings, str.format templates, format())."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            spec = ast.unparse(node.format_spec)[2:-1]            # f'...' -> ...
            if not spec.startswith(("<", ">", "^")):                # padding text to a column is not number text
                found.append(f"{path.name}:{node.lineno}: f-string spec {spec!r}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _FORMAT_FIELD.search(node.value):
            found.append(f"{path.name}:{node.lineno}: template field {_FORMAT_FIELD.search(node.value).group()}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "format":
            found.append(f"{path.name}:{node.lineno}: format()")
    return found


def test_no_engine_module_but_units_formats_numbers_itself():
    found = [line for path in sorted(ENGINE.glob("*.py")) if path.name != "units.py"
             for line in _number_formatting(path)]
    assert found == []


_UNIT = re.compile(r"(?<![\w-])(?:[kKMGTP]i?B|[TGPM]FLOPS?|T?OPS|[mµ]s|tokens/s)(?![\w-])")


def _unit_symbols(path: Path) -> list[str]:
    """Unit symbols ("TOPS", "GB", "ms") in the strings of ``path``, docstrings aside."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [f"{path.name}:{node.lineno}: {_UNIT.search(node.value).group()!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            and _UNIT.search(node.value)]


def test_no_engine_module_but_units_writes_a_unit_symbol():
    """A unit written elsewhere (``text.replace("TFLOPS", "TOPS")``) is number text made outside units."""
    found = [line for path in sorted(ENGINE.glob("*.py")) if path.name != "units.py" for line in _unit_symbols(path)]
    assert found == []


def test_the_scanners_see_what_they_forbid(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('a = f"{n:,}"\nb = f"{x / 1e9:g}B"\nc = "{size:,} heads".format(size=3)\n'
                      'd = format(7, ",")\ne = f"{label:<{WIDTH}}{text}"\n', encoding="utf-8")
    assert len(_number_formatting(sample)) == 4                       # all but the padding of a label
    replaced = tmp_path / "replaced.py"
    replaced.write_text('"""Peaks in TFLOPS."""\ndef peak(text):\n    return text.replace("TFLOPS", "TOPS")\n',
                        encoding="utf-8")
    assert len(_unit_symbols(replaced)) == 2                          # the docstring may name units


@pytest.mark.parametrize("function, value, text", [
    (units.format_ops, 1978.9e12, "1979 TOPS"),
    (units.format_ops, 660.6e12, "661 TOPS"),
    (units.format_value_size, 0.5, "4 bits"), (units.format_value_size, 0.5625, "4.5 bits"),
    (units.format_value_size, 1, "1 byte"),
    (units.format_value_size, 2.0, "2 bytes"),
    (units.format_tokens_per_second, 18.97, "19 tokens/s"),
    (units.format_tokens_per_second, 1234.6, "1235 tokens/s"),
    (units.format_hex_byte, 0xE9, "0xe9"),
    (units.format_parameters, 1e5, "100K"),
    (units.format_parameters, 671e9, "671B"),
    (units.format_count, 99999999999999999999999, "99,999,999,999,999,999,999,999"),
    (units.format_seconds, 0, "0 s"),                 # no time yet: not "0 µs"
    (units.format_seconds, 0.0, "0 s"),
    (units.format_seconds, 3.2e-5, "32 µs"),
    (units.format_seconds, 0.0421, "42.1 ms"),
])
def test_units_text(function, value, text):
    assert function(value) == text


def test_the_catalogue_listing_writes_integer_peaks_in_tops_and_counts_with_units():
    text = catalog_as_text(fx.CATALOG)
    h800 = text[text.index("  h800: "):text.index("source:", text.index("  h800: "))]
    assert "INT8 1979 TOPS" in h800 and "FP8 1979 TFLOPS" in h800 and "TFLOPS" not in h800.split("INT8")[1]
    assert "published parameters 671B, 37B per token" in text          # DeepSeek-V3
    assert "int4: INT4, 4.5 bits per value" in text and "fp8: FP8, 1 byte per value" in text


def test_a_small_user_model_is_listed_in_thousands_not_as_a_tiny_fraction_of_a_billion(tmp_path):
    path = tmp_path / "catalog.toml"
    path.write_text(GOOD_MODEL, encoding="utf-8")      # a 100,000-parameter model
    text = catalog_as_text(load_catalog(user_file=path))
    assert "published parameters 100K" in text and "0.0001B" not in text
