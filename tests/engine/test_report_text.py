"""The readable report says plainly when a scenario does not fit, and marks its timings as hypothetical."""
from __future__ import annotations

import json
import math
import re

import pytest

from engine.cli import main
from engine.compute import report_for, resolve
from engine.report_text import report_as_text
from engine.scenario import Scenario
from engine.units import format_bytes, format_count
from tests.engine import fixtures as fx
from tests.engine import memory_definition as md
from tests.engine.fixtures import report

NOTE = "The timings below are hypothetical: they assume the model and its KV cache would fit."


def text_of(**fields) -> str:
    scenario, gpu, model, weights, kv = resolve(Scenario(**fields), fx.CATALOG)
    return report_as_text(scenario, report_for(scenario, gpu, model, weights, kv), gpu, model, weights, kv)


def lines_of(text: str) -> list[str]:
    return text.splitlines()


def test_weights_too_big_for_one_gpu_say_so_without_zero_token_lines():
    text = text_of(gpu="h800", model="llama-3.1-70b", weights="fp16", prompt_tokens=1000, output_tokens=500)
    assert "  does not fit               the weights alone need 141 GB of 80 GB per GPU" in lines_of(text)
    assert " 0 tokens" not in text and "most sequences" not in text and "longest context" not in text
    assert "free " not in text


def test_the_hypothetical_note_comes_right_before_the_timings():
    lines = lines_of(text_of(gpu="h800", model="llama-3.1-70b", weights="fp16"))
    assert lines.count(NOTE) == 1
    assert lines[lines.index(NOTE) + 1].startswith("Roofline")
    assert lines.index(NOTE) < lines.index("Request")


def test_kv_too_big_names_the_total_and_the_shortfall_and_keeps_the_useful_limits():
    # 16 GB of weights fit an 80 GB A100; 4 x 125,125 tokens of KV (66 GB) do not fit beside them. The KV and
    # the allowance are written out from their definitions (tests/engine/memory_definition.py).
    text = text_of(gpu="a100-80gb", model="llama-3.1-8b", batch=4, prompt_tokens=125_000, output_tokens=125)
    weights = report(gpu="a100-80gb", model="llama-3.1-8b").weights_bytes_per_gpu     # counted in test_parameters
    per_token = md.LLAMA_31_8B.kv_bytes_per_token_fp16
    allowance = md.allowance_bytes_per_gpu(md.LLAMA_31_8B, 1, 4, 125_000)
    need = weights + 4 * 125_125 * per_token + allowance
    room = 80e9 - weights - allowance
    assert need > 80e9 and 0 < math.floor(room / (125_125 * per_token)) < 4
    [line] = [line for line in lines_of(text) if "does not fit" in line]
    assert f"everything together needs {format_bytes(need)} of 80 GB per GPU (short by {format_bytes(need - 80e9)})" \
        in line
    longest = math.floor(room / (4 * per_token))                                      # still useful: > 0
    assert f"longest context that fits  {format_count(longest)} tokens per sequence at batch 4" in text
    most = math.floor(room / (125_125 * per_token))                                   # fewer than asked
    assert f"most sequences             {most} of 125,125 tokens" in text
    assert NOTE in text


def test_a_scenario_that_fits_has_no_note_and_shows_its_room():
    text = text_of(gpu="h800", model="llama-3.1-70b", weights="fp8", prompt_tokens=1000, output_tokens=500)
    weights = report(gpu="h800", model="llama-3.1-70b", weights="fp8").weights_bytes_per_gpu
    per_token = md.LLAMA_31_70B.kv_bytes_per_token_fp16                               # 320 KiB
    allowance = md.allowance_bytes_per_gpu(md.LLAMA_31_70B, 1, 1, 1000)
    free = 80e9 - weights - 1500 * per_token - allowance
    assert 0 < free < 10e9
    assert NOTE not in text and "does not fit" not in text
    assert f"  free                       {format_bytes(free)}   fits" in lines_of(text)
    most = math.floor((80e9 - weights - allowance) / (1500 * per_token))
    assert f"most sequences             {most} of 1,500 tokens" in text and most > 1
    assert "(70.6B parameters × 1 byte, embeddings and LM head 16-bit)" in text and "tokens/s per sequence" in text


def test_the_json_of_a_scenario_that_does_not_fit_keeps_every_key(capsys):
    assert main(["report", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["fits"] is False and data["ttft_seconds"] > 0 and data["free_bytes_per_gpu"] < 0


@pytest.mark.parametrize("gpus", [2, 4])
def test_gpu_counts_in_the_text_go_through_units(gpus):
    text = text_of(gpu="h800", model="llama-3.1-70b", weights="fp16", gpus=gpus)
    assert f"on {gpus} × NVIDIA H800" in text and f"shared out over {gpus} GPUs" in text


@pytest.mark.parametrize("levers, held_tokens", [
    # each sequence reserves the model's longest context (131,072 tokens for Llama 3.1)
    (dict(kv_allocation="reserved", batch=8, prompt_tokens=500, output_tokens=300), 8 * 131_072),
    # 900 cached tokens: 896 in whole shared pages, then each sequence's own 604
    (dict(cached_prefix_tokens=900, batch=16), 896 + 16 * 604),
    (dict(batch=4), 4 * 1_500),
])
def test_the_kv_line_multiplies_out_to_its_bytes_and_most_sequences_is_the_jsons(capsys, levers, held_tokens):
    """Once the KV line said "320 KiB per token × 800 tokens × 8 sequences" beside 172 GB (each sequence reserved
    131,072 tokens), and "most sequences 60" stood above the levers' "0 sequences fit"."""
    fields = {**dict(gpu="h800", model="llama-3.1-70b", gpus=2, prompt_tokens=1000, output_tokens=500), **levers}
    text = text_of(**fields)
    r = report(**fields)
    per_gpu = md.LLAMA_31_70B.kv_bytes_per_token_fp16 * held_tokens / 2               # heads split over 2 GPUs
    [line] = [line for line in lines_of(text) if line.startswith("  KV cache ")]
    assert line.split()[2:4] == format_bytes(per_gpu).split() and "split over 2 GPUs" in line
    shown = [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*(?= tokens| shared| sequences)", line)]
    if "shared" in line:
        assert shown[0] + shown[1] * shown[2] == held_tokens
    else:
        assert shown[0] * shown[1] == held_tokens
    most = [line for line in lines_of(text) if "most sequences" in line]
    assert (most == [] if r.max_batch == 0 else most[0].split()[2] == format_count(r.max_batch))
    assert f"{format_count(r.max_batch)} sequences fit" in text
