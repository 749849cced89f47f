"""`python -m engine probe`: the DESIGN.md contract as strict JSON, text with units, one sentence and exit 2."""
from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main
from tests.engine.probe_fixtures import PROBE_CATALOG, QWEN3_SHAPES

ROOT = Path(__file__).resolve().parents[2]
QUICK = ["probe", "--model", QWEN3_SHAPES.id, "--memory-mb", "32", "--cpu-only"]
CONTRACT_KEYS = ["memory_bandwidth_bytes_per_second", "flops_per_second", "ridge_flops_per_byte", "decode", "prefill"]


def _refuse_constant(name):
    raise ValueError(f"not strict JSON: {name}")


@pytest.fixture(scope="module")
def printed():
    """The exit status and the JSON the command prints (module scope: one probe for the tests that read it)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([*QUICK, "--json"], PROBE_CATALOG)
    return code, out.getvalue()


def test_json_is_strict_and_starts_with_the_contract_keys(printed):
    code, text = printed
    assert code == 0
    data = json.loads(text, parse_constant=_refuse_constant)
    assert list(data)[:5] == CONTRACT_KEYS
    for phase in ("decode", "prefill"):
        assert list(data[phase])[:2] == ["predicted_seconds", "measured_seconds"]
        assert all(isinstance(data[phase][key], float) and data[phase][key] > 0
                   for key in ("predicted_seconds", "measured_seconds"))
    assert data["ridge_flops_per_byte"] == pytest.approx(data["flops_per_second"]
                                                         / data["memory_bandwidth_bytes_per_second"])


def test_json_says_what_was_measured_where_and_with_what(printed):
    data = json.loads(printed[1])
    assert data["device"] == {"kind": "cpu", "name": data["machine"]["cpu"], "library": "numpy",
                              "precision": "float32"}
    assert data["model"] == {"id": QWEN3_SHAPES.id, "name": QWEN3_SHAPES.name, "layers": 28}
    assert data["sizes"]["working_set_bytes"] == 32_000_000 and data["sizes"]["prefill_tokens"] >= 64
    assert data["sizes"]["matrices"][0] == {"role": "q", "rows": 2048, "columns": 1024, "count": 1}
    assert data["machine"]["blas"]["threads"] >= 1 and data["machine"]["logical_cores"] >= 1
    assert data["accelerator"] is None and data["accelerator_problem"] is None
    assert data["measured_at"][:2] == "20"


def test_text_names_the_machine_and_shows_units(capsys):
    assert main(QUICK, PROBE_CATALOG) == 0
    text = capsys.readouterr().out
    assert text.startswith("Measured here on ")
    for words in ("GB/s streaming read", "FLOP/s", "FLOP/byte", "decode step, 1 token: predicted",
                  "× the prediction", "Qwen3-0.6B shapes, random weights: q, k, v, o of one layer of 28"):
        assert words in text, words


@pytest.mark.parametrize("memory, words", [
    ("1", "The probe's memory must be from 8 to 64,000 MB; got 1."),
    ("lots", "The probe's memory must be from 8 to 64,000 MB; got 'lots'."),
    ("nan", "The probe's memory must be from 8 to 64,000 MB; got 'nan'."),
])
def test_a_bad_memory_budget_exits_2_with_one_sentence_and_prints_no_figure(memory, words, capsys):
    assert main(["probe", "--memory-mb", memory, "--json"], PROBE_CATALOG) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == words


def test_a_model_that_does_not_fit_exits_2_before_measuring(capsys):
    assert main(["probe", "--model", "llama-2-7b", "--memory-mb", "16"], PROBE_CATALOG) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("Llama 2 7B's q matrix needs") and err.count("\n") == 1


def test_a_probe_that_cannot_run_has_no_traceback_in_a_real_process():
    done = subprocess.run([sys.executable, "-m", "engine", "probe", "--model", "mixtral-8x7b", "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert "Traceback" not in done.stderr and done.stderr.startswith("Mixtral 8x7B is a mixture of experts")
