"""``python -m engine`` never shows a traceback: closed or full streams, extreme values, hostile text."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from engine.catalog import load_catalog
from engine.catalog_types import Catalog
from engine.cli import main
from tests.engine import fixtures as fx

ROOT = Path(__file__).resolve().parents[2]
posix_only = pytest.mark.skipif(os.name == "nt", reason="POSIX streams")


def _run(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT, capture_output=kwargs.pop("capture", True),
                          text=True, timeout=120, **kwargs)


def one_line(captured) -> str:
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    return lines[0]


@posix_only
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_standard_output_on_a_full_disk_is_one_sentence_and_exit_1():
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "engine", "report", "--json"], cwd=ROOT, stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == ["The output cannot be written: No space left on device."]


@posix_only
def test_reading_standard_input_when_it_is_closed_is_one_sentence():
    done = subprocess.run([sys.executable, "-m", "engine", "tokens", "--tokenizer", "gpt2", "--file", "-"], cwd=ROOT,
                          capture_output=False, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=120, preexec_fn=lambda: os.close(0))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "standard input is closed" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_report_json_with_a_gpu_beyond_physics_is_refused_not_a_json_error(tmp_path, capsys):
    path = tmp_path / "catalog.toml"
    path.write_text('[gpus.edge]\nname = "Edge"\nvendor = "Me"\nmemory_bytes = 80e9\n'
                    'memory_bandwidth_bytes_per_second = 1e-300\ninterconnect = "PCIe"\n'
                    'interconnect_bytes_per_second = 1e10\npcie_bytes_per_second = 1e10\n'
                    '[gpus.edge.flops]\nfp16 = 1.7e308\n', encoding="utf-8")
    assert main(["report", "--gpu", "edge", "--json"], load_catalog(user_file=path)) == 2
    captured = capsys.readouterr()
    assert "JSON" not in captured.err and "1 GB/s and 1 PB/s" in captured.err and "Traceback" not in captured.err


def test_report_json_at_the_edges_of_the_ranges_is_strict_json(tmp_path, capsys):
    path = tmp_path / "catalog.toml"
    path.write_text('[gpus.edge]\nname = "Edge"\nvendor = "Me"\nmemory_bytes = 1e9\n'
                    'memory_bandwidth_bytes_per_second = 1e9\ninterconnect = "PCIe"\n'
                    'interconnect_bytes_per_second = 1e8\npcie_bytes_per_second = 1e8\n'
                    '[gpus.edge.flops]\nfp16 = 1e11\n', encoding="utf-8")
    assert main(["report", "--gpu", "edge", "--model", "deepseek-v3", "--gpus", "64", "--batch", "4096",
                 "--json"], load_catalog(user_file=path)) == 0
    json.loads(capsys.readouterr().out, parse_constant=lambda name: pytest.fail(f"{name} in JSON"))


@pytest.mark.parametrize("control", ["\x1b[31m", "\x07", "\x00", "\u202e", "\u2066", "\x7f", "\x9b"])
def test_tokens_text_output_shows_control_characters_escaped(control, capsys):
    assert main(["tokens", "--tokenizer", "o200k_base", f"red{control}text"]) == 0
    out = capsys.readouterr().out
    raw = control[0]
    assert raw not in out and "\\" in out          # shown as \x1b, \u202e, or its bytes \xe2\x80...


def test_text_that_is_not_utf8_names_the_byte_not_a_surrogate(capsys):
    assert main(["tokens", "--tokenizer", "gpt2", "ab\udcffc"]) == 2     # how Python keeps the byte 0xff
    line = one_line(capsys.readouterr())
    assert "0xff" in line and "surrogate" not in line


def test_a_huge_id_is_echoed_shortened(capsys):
    assert main(["report", "--gpu", "x" * 100_000]) == 2
    assert len(one_line(capsys.readouterr())) < 1000


def test_a_huge_catalogue_is_not_echoed_in_full(capsys):
    gpus = {f"gpu-{i}": replace(fx.H800, id=f"gpu-{i}") for i in range(100_000)}
    catalog = Catalog(gpus=gpus, models=fx.CATALOG.models, precisions=fx.CATALOG.precisions)
    assert main(["report", "--gpu", "nothing-like-it"], catalog) == 2
    line = one_line(capsys.readouterr())
    assert len(line) < 1000 and "more" in line


@pytest.mark.parametrize("option", ["--batch", "--prompt", "--usd-per-gpu-hour", "--tokenizer"])
def test_a_value_of_thousands_of_digits_is_echoed_in_a_few(option, capsys):
    command = "tokens" if option == "--tokenizer" else "report"
    assert main([command, option, "9" * 5000, *(["hi"] if command == "tokens" else [])]) == 2
    assert len(one_line(capsys.readouterr())) < 400


@pytest.mark.parametrize("source", ["engine/cli.py", "desktop/__main__.py"])
def test_the_parsers_read_no_argparse_english_and_use_no_private_api(source):
    text = (ROOT / source).read_text(encoding="utf-8")
    assert "import re\n" not in text and "re.match" not in text
    for private in ("._actions", "_SubParsersAction", "._option_string_actions", "._negative_number_matcher"):
        assert private not in text, private


def test_a_user_catalogue_name_cannot_carry_escape_sequences_to_the_terminal(tmp_path, capsys):
    path = tmp_path / "catalog.toml"
    path.write_text('[gpus.edge]\nname = "Edge\\u001b[2J\\u202e"\nvendor = "Me"\nmemory_bytes = 80e9\n'
                    'memory_bandwidth_bytes_per_second = 3e12\ninterconnect = "PCIe"\n'
                    'interconnect_bytes_per_second = 1e10\npcie_bytes_per_second = 1e10\n'
                    '[gpus.edge.flops]\nfp16 = 1e15\n', encoding="utf-8")
    catalog = load_catalog(user_file=path)
    for argv in (["catalog"], ["report", "--gpu", "edge", "--model", "llama-3.1-8b"]):
        assert main(argv, catalog) == 0
        out = capsys.readouterr().out
        assert "\x1b" not in out and "\u202e" not in out and "Edge\\x1b[2J\\u202e" in out


def test_a_terminal_that_is_not_utf8_gets_escapes_not_a_traceback():
    """Any redirect or pipe on Chinese Windows: Python writes in the terminal's code page (GBK here)."""
    done = subprocess.run([sys.executable, "-m", "engine", "tokens", "--tokenizer", "qwen2.5", "推理😀"], cwd=ROOT,
                          capture_output=True, timeout=120, env={**os.environ, "PYTHONIOENCODING": "cp936"})
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr
    out = done.stdout.decode("cp936")
    assert "推理" in out or "tokens" in out and "\\U0001f600" in out


@pytest.mark.skipif(os.name == "nt", reason="closing a descriptor from the shell is POSIX")
def test_standard_output_closed_is_one_sentence_and_a_failure():
    done = subprocess.run(f"{sys.executable} -m engine report >&-", shell=True, cwd=ROOT, capture_output=False,
                          stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "output" in done.stderr.lower()


@pytest.mark.parametrize("extra", [["--tokenizer", "gpt2"], ["--file", "-"], ["some text"]])
def test_tokens_list_refuses_what_it_would_ignore(extra):
    done = _run("tokens", "--list", *extra)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
