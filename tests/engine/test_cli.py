"""`python -m engine`: the DESIGN.md contract, readable text, and one-sentence errors with exit 2."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main
from engine.report import Report

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ["report", "--gpu", "H800", "--model", "llama-3.1-70b", "--weights", "fp16", "--kv", "fp16",
            "--gpus", "1", "--batch", "1", "--prompt", "1000", "--output", "500"]


def _run(*args):
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)


def test_contract_command_prints_exactly_the_json_keys():
    done = _run(*CONTRACT, "--mode", "ideal", "--usd-per-gpu-hour", "2.0", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert list(data) == list(Report.JSON_KEYS)
    assert list(data["prefill"]) == ["flops", "bytes", "seconds", "bound", "communication_seconds"]
    assert list(data["decode"]) == ["flops_per_token", "bytes_per_token", "seconds_per_token", "bound",
                                    "communication_seconds"]
    assert data["nodes"] == 1 and data["parallel"] == {"tensor": 1, "pipeline": 1, "expert": 1}
    assert data["kv_bytes_per_token"] == 327680
    assert data["fits"] is False
    assert data["decode"]["bound"] == "memory" and data["prefill"]["bound"] == "compute"


@pytest.mark.parametrize("extra", [[], ["--model", "deepseek-v3", "--weights", "fp8", "--gpus", "8", "--batch", "3", "--prompt", "7"],
                                   ["--model", "mixtral-8x7b", "--weights", "int4", "--batch", "7"]])
def test_json_byte_counts_are_whole_numbers_and_times_stay_floats(extra):
    done = _run("report", "--json", *extra)
    assert done.returncode == 0, done.stderr
    assert ".0," not in done.stdout.split('"fits"')[0]          # no 141107412992.0 among the byte counts
    data = json.loads(done.stdout)
    byte_counts = [data["weights_bytes"], data["weights_bytes_per_gpu"], data["kv_bytes_per_token"],
                   data["kv_bytes"], data["hbm_bytes_per_gpu"], data["free_bytes_per_gpu"],
                   data["prefill"]["bytes"], data["decode"]["bytes_per_token"]]
    assert all(type(value) is int for value in byte_counts)
    times_and_work = [data["ttft_seconds"], data["tpot_seconds"], data["total_seconds"], data["prefill"]["seconds"],
                      data["decode"]["seconds_per_token"], data["prefill"]["flops"], data["decode"]["flops_per_token"],
                      data["ridge_flops_per_byte"], data["decode_share"], data["usd_per_million_input_tokens"]]
    assert all(type(value) is float for value in times_and_work)


def test_json_rounds_each_byte_count_to_the_nearest_byte():
    from tests.engine.fixtures import report
    r = report(model="deepseek-v3", weights="fp8", gpus=8, batch=3, prompt_tokens=7)
    assert r.prefill.bytes != int(r.prefill.bytes)                # the MoE average is fractional inside the engine
    data = r.to_json_dict()
    assert data["prefill"]["bytes"] == round(r.prefill.bytes)
    assert data["free_bytes_per_gpu"] == round(r.free_bytes_per_gpu)
    assert data["prefill"]["seconds"] == r.prefill.seconds


def test_readable_report_has_units(capsys):
    assert main(CONTRACT) == 0
    text = capsys.readouterr().out
    for unit in (" GB", " ms", "TFLOPS", "KiB", "FLOP/byte", "$"):
        assert unit in text
    assert "does not fit               the weights alone need 141 GB of 80 GB per GPU" in text


def test_defaults_are_the_contract_values(capsys):
    assert main(["report", "--json"]) == 0
    defaults = json.loads(capsys.readouterr().out)
    assert main(CONTRACT + ["--json"]) == 0
    assert json.loads(capsys.readouterr().out) == defaults


def test_ids_and_mode_are_read_in_any_case(capsys):
    assert main(["report", "--gpu", "h800", "--mode", "ideal", "--json"]) == 0
    lower = json.loads(capsys.readouterr().out)
    assert main(["report", "--gpu", "H800", "--model", "LLAMA-3.1-70B", "--weights", "FP16",
                 "--kv", "Fp16", "--mode", "IDEAL", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == lower


def test_weight_only_note_in_text(capsys):
    assert main(["report", "--gpu", "a100-80gb", "--weights", "fp8"]) == 0
    assert "weight-only" in capsys.readouterr().out


@pytest.mark.parametrize("args, words", [
    (["report", "--gpus", "0"], ["0", "1 to 1,024"]),
    (["report", "--gpus", "two"], ["--gpus", "'two'", "1 to 1,024"]),
    (["report", "--gpus", "1e400"], ["--gpus", "'1e400'", "1 to 1,024"]),
    (["report", "--gpus", "nan"], ["--gpus", "'nan'", "1 to 1,024"]),
    (["report", "--batch", "1.5"], ["--batch", "'1.5'", "1 to 4,096"]),
    (["report", "--batch", "99999999999999999999999"], ["99,999,999,999,999,999,999,999", "1 to 4,096"]),
    (["report", "--output", "0"], ["0", "1 to 10,000,000"]),
    (["report", "--prompt", "-1e5"], ["-100,000", "1 to 10,000,000"]),
    (["report", "--usd-per-gpu-hour", "-inf"], ["--usd-per-gpu-hour", "'-inf'", "0 to 10,000"]),
    (["report", "--usd-per-gpu-hour", "abc"], ["'abc'", "0 to 10,000"]),
    (["report", "--model", "LLAMA-9"], ["LLAMA-9", "llama"]),
    (["report", "--kv", "FP7"], ["FP7", "fp8"]),
    (["report", "--gpu", "--json"], ["--gpu"]),
    (["report", "--prompt", "1e12"], ["1,000,000,000,000", "10,000,000"]),
    (["report", "--gpu", "h8000"], ["h8000", "h800"]),
    (["report", "--weights", "fp7"], ["fp7", "fp8"]),
    (["report", "--mode", "fast"], ["'fast'", "ideal"]),
    (["report", "--usd-per-gpu-hour", "inf"], ["--usd-per-gpu-hour", "'inf'"]),
    (["report", "--usd-per-gpu-hour", "-3"], ["-3", "0 to 10,000"]),
    (["report", "--frobnicate"], ["--frobnicate"]),
    (["report", "--gpus"], ["--gpus"]),
    (["bogus"], ["bogus", "report", "catalog"]),
    ([], ["report", "catalog"]),
])
def test_bad_input_exits_2_with_one_sentence(args, words, capsys):
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    for word in words:
        assert word in lines[0]


def test_a_gpu_count_that_does_not_divide_the_heads_prints_the_sentence_and_exits_2():
    done = _run("report", "--model", "llama-3.1-8b", "--gpus", "3")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == ("Llama 3.1 8B's 32 attention heads cannot be split evenly over 3 GPUs; "
                                   "tensor parallelism allows 1, 2, 4, 8, 16 or 32 GPUs.")


def test_bad_input_in_a_real_process_has_no_traceback():
    done = _run("report", "--prompt", "1000000000000")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_the_catalogue_command_lists_with_sources():
    done = _run("catalog")
    assert done.returncode == 0, done.stderr
    assert "h800" in done.stdout and "llama-3.1-70b" in done.stdout and "source" in done.stdout
    done = _run("catalog", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert "h800" in json.dumps(data)


def test_a_reader_that_goes_away_gets_no_traceback(tmp_path):
    """``python -m engine tokens ... | head -1``: the pipe closes early; no traceback, exit 0.

    The output (several MB) is far larger than a pipe's buffer, so the writer is still writing
    when the reader leaves."""
    import subprocess
    import sys
    text = tmp_path / "long.txt"
    text.write_text("The belt brings the boxes. 传送带把箱子送来。\n" * 5000, encoding="utf-8")
    process = subprocess.Popen([sys.executable, "-m", "engine", "tokens", "--tokenizer", "gpt2", "--json",
                                "--file", str(text)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.read(1)
    process.stdout.close()          # the reader goes away after one byte
    error = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=60) == 0
    assert "Traceback" not in error and "BrokenPipe" not in error
