"""`python -m engine tokens`: the DESIGN.md contract, readable text, the listing, one-sentence errors with exit 2."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main
from engine.tokens import TOKENIZERS

ROOT = Path(__file__).resolve().parents[2]


def _run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT, capture_output=True,
                          input=stdin, timeout=60)


def _one_sentence(stderr: str) -> None:
    assert "Traceback" not in stderr
    assert stderr.count("\n") == 1 and stderr.rstrip().endswith((".", ")")), stderr


def test_contract_json_has_exactly_the_four_keys():
    done = _run("tokens", "--tokenizer", "qwen2.5", "--json", "推理加速")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout.decode("utf-8"))
    assert list(data) == ["tokenizer", "count", "ids", "pieces"]
    assert data == {"tokenizer": "qwen2.5", "count": 2, "ids": [113272, 104293], "pieces": ["推理", "加速"]}


def test_readable_form_shows_the_count_then_each_piece(capsys):
    assert main(["tokens", "--tokenizer", "cl100k_base", "Hello, world!\n"]) == 0
    out = capsys.readouterr().out
    assert out == "4 tokens (cl100k_base)\n[Hello] [,] [ world] [!\\n]\n"     # "!\n" is one token
    assert main(["tokens", "--tokenizer", "gpt2", "Hello"]) == 0
    assert capsys.readouterr().out == "1 token (gpt2)\n[Hello]\n"


def test_empty_text_is_zero_tokens(capsys):
    assert main(["tokens", "--tokenizer", "llama-3", "--json", ""]) == 0
    assert json.loads(capsys.readouterr().out) == {"tokenizer": "llama-3", "count": 0, "ids": [], "pieces": []}


def test_file_and_standard_input(tmp_path, capsys):
    path = tmp_path / "prompt.txt"
    path.write_bytes("\ufeff请帮我写一首关于杭州的诗".encode("utf-8"))       # a BOM is not part of the text
    assert main(["tokens", "--tokenizer", "deepseek-v3", "--json", "--file", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["pieces"] == ["请", "帮我", "写", "一首", "关于", "杭州", "的诗"]
    done = _run("tokens", "--tokenizer", "o200k_base", "--json", "--file", "-", stdin="你好".encode("utf-8"))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["pieces"] == ["你好"]


def test_list_names_every_tokenizer_with_its_source(capsys):
    assert main(["tokens", "--list"]) == 0
    text = capsys.readouterr().out
    for info in TOKENIZERS:
        assert f"  {info.id}: " in text and info.source in text
    assert main(["tokens", "--list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [entry["id"] for entry in data] == [info.id for info in TOKENIZERS]
    assert all(entry["source"] and entry["licence"] and entry["vocabulary_size"] > 0 for entry in data)


def test_catalog_lists_the_tokenizers(capsys):
    assert main(["catalog", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [entry["id"] for entry in data["tokenizers"]] == [info.id for info in TOKENIZERS]
    assert main(["catalog"]) == 0
    text = capsys.readouterr().out
    assert "\nTokenizers " in text and "llama-3: Llama 3" in text and "LICENSE-llama-3.txt" in text


@pytest.mark.parametrize("args, sentence", [
    (["--tokenizer", "qwen", "--file", "/no/such/file.txt"], "--file '/no/such/file.txt': no such file."),
    (["--tokenizer", "qwen2.5", "--file", "{tmp}"], "is a folder; give a text file."),
    (["--tokenizer", "qwen2.5", "--file", "{latin1}"], "is not UTF-8 text (byte 0xe9 at offset 4); save it as UTF-8."),
    (["--tokenizer", "gpt-5", "hi"], "Unknown tokenizer 'gpt-5'"),
    (["--tokenizer", "gpt2", "--file", "{latin1}", "hi"], "Give the text either as TEXT or with --file, not both."),
    (["--tokenizer", "gpt2"], "Give the text to cut as TEXT, or with --file PATH"),
    (["hello"], "Name a tokenizer with --tokenizer ID, or list them with --list."),
])
def test_bad_input_is_one_sentence_and_exit_2(tmp_path, args, sentence):
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("caf\u00e9 au lait".encode("latin-1").replace(b"caf", b"cafe"))
    args = [arg.format(tmp=tmp_path, latin1=latin1) for arg in args]
    done = _run("tokens", *args)
    stderr = done.stderr.decode("utf-8")
    assert done.returncode == 2 and done.stdout == b""
    assert sentence in stderr
    _one_sentence(stderr)


def test_an_unknown_tokenizer_names_close_matches(capsys):
    assert main(["tokens", "--tokenizer", "lama-3", "hi"]) == 2
    err = capsys.readouterr().err
    assert "Unknown tokenizer 'lama-3'; close matches: llama-3" in err
