"""``python -m engine plan``: the DESIGN.md contract, strict JSON, readable text and one-sentence refusals."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from engine.cli import main
from engine.errors import InputError, display_values, english
from engine.plan import FleetPlan, Targets, Traffic, plan_fleet
from engine.plan_curve import latency_curve
from engine.plan_language import language_prices
from engine.scenario import Scenario
from tests.engine.fixtures import CATALOG, report

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ["plan", "--gpu", "H800", "--model", "llama-3.1-70b", "--weights", "fp16", "--kv", "fp16", "--gpus", "2",
            "--prompt", "1000", "--output", "500", "--rate", "10", "--ttft-slo", "1", "--tpot-slo", "0.05"]
HAN = re.compile(r"[\u4e00-\u9fff]")


def _reject_constant(name):
    raise ValueError(f"not strict JSON: {name}")


@pytest.mark.parametrize("extra", [[], ["--disaggregated"], ["--prompt-spread", "1", "--output-spread", "0.5",
                                                             "--seed", "7", "--batch", "20"]])
def test_the_contract_command_prints_exactly_the_plan_keys_as_strict_json(extra):
    done = subprocess.run([sys.executable, "-m", "engine", *CONTRACT, *extra, "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout, parse_constant=_reject_constant)
    assert list(data) == list(FleetPlan.JSON_KEYS)
    assert all(type(data[key]) is int for key in ("gpus", "replicas", "gpus_per_replica", "nodes", "batch"))
    assert all(type(data[key]) is float for key in ("requests_per_second_per_gpu", "ttft_p90_seconds",
                                                    "tpot_p90_seconds", "usd_per_million_input_tokens",
                                                    "usd_per_million_output_tokens"))
    assert data["binding"] in ("memory", "compute", "latency")
    assert data["gpus_per_replica"] == 2 and data["gpus"] == 2 * data["replicas"]
    assert data["ttft_p90_seconds"] <= 1 and data["tpot_p90_seconds"] <= 0.05
    if "--batch" in extra:
        assert data["batch"] <= 20


def test_the_json_is_the_library_plan(capsys):
    assert main([*CONTRACT, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    library = plan_fleet(Scenario(gpus=2), Traffic(10), Targets(1.0, 0.05)).to_json_dict()
    assert printed == library


def test_the_text_names_the_fleet_the_p90s_the_binding_and_the_price(capsys):
    assert main(CONTRACT) == 0
    text = capsys.readouterr().out
    for words in ("Llama 3.1 70B", "H800", "replicas", "GPUs", "node", "P90 reached", "binding", "per million"):
        assert words in text


@pytest.mark.parametrize("arguments, words", [
    (["--ttft-slo", "1", "--tpot-slo", "0.05"], "--rate"),
    (["--rate", "10", "--tpot-slo", "0.05"], "--ttft-slo"),
    (["--rate", "abc", "--ttft-slo", "1", "--tpot-slo", "0.05"], "--rate must be a number above 0"),
    (["--rate", "0", "--ttft-slo", "1", "--tpot-slo", "0.05"], "request rate must be a number above 0"),
    (["--rate", "-5", "--ttft-slo", "1", "--tpot-slo", "0.05"], "got -5"),
    (["--rate", "inf", "--ttft-slo", "1", "--tpot-slo", "0.05"], "--rate must be"),
    (["--rate", "10", "--ttft-slo", "1", "--tpot-slo", "0.001"], "one decode step at batch 1 already takes"),
    (["--rate", "10", "--ttft-slo", "0.01", "--tpot-slo", "0.05"], "the prefill of the prompt alone takes"),
    (["--rate", "100000", "--ttft-slo", "1", "--tpot-slo", "0.05"], "needs more than 1,024 GPUs"),
    (["--rate", "10", "--ttft-slo", "1", "--tpot-slo", "0.05", "--prompt-spread", "5"], "spread of prompt lengths"),
    (["--rate", "10", "--ttft-slo", "1", "--tpot-slo", "0.05", "--seed", "-1"], "The seed must be a whole number"),
    (["--rate", "10", "--ttft-slo", "1", "--tpot-slo", "0.05", "--seed", "1.5"], "--seed must be a whole number"),
    (["--rate", "10", "--ttft-slo", "1", "--tpot-slo", "0.05", "--batch", "0"], "The batch must be a whole number"),
    (["--rate", "10", "--ttft-slo", "1", "--tpot-slo", "0.05", "--gpus", "1"], "weights and runtime need 142 GB on each of 1 ×"),
    (["--rate", "1", "--ttft-slo", "100", "--tpot-slo", "1", "--prompt", "100000", "--output", "30000"],
     "leaves no room for the KV cache of even one request of 130,000 tokens"),
    (["--rate", "10", "--tpot-slo", "0.05", "--ttft-slo"], "--ttft-slo needs a value"),
])
def test_bad_plans_are_refused_in_one_sentence_with_exit_status_2(capsys, arguments, words):
    gpus = [] if "--gpus" in arguments else ["--gpus", "2"]
    assert main(["plan", *gpus, *arguments]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert words in captured.err and captured.err.count("\n") == 1 and "Traceback" not in captured.err


def _plan_refusals() -> list[InputError]:
    def caught(call) -> InputError:
        with pytest.raises(InputError) as raised:
            call()
        return raised.value

    default = Scenario(gpus=2)
    return [
        caught(lambda: plan_fleet(default, Traffic(0), Targets(1, 0.05))),
        caught(lambda: plan_fleet(default, 10, Targets(1, 0.05))),
        caught(lambda: plan_fleet(default, Traffic(1), (1, 0.05))),
        caught(lambda: plan_fleet(default, Traffic(1, prompt_spread=-1), Targets(1, 0.05))),
        caught(lambda: plan_fleet(default, Traffic(1, seed=2**32), Targets(1, 0.05))),
        caught(lambda: plan_fleet(default, Traffic(1), Targets(float("nan"), 0.05))),
        caught(lambda: plan_fleet(default, Traffic(1), Targets(0.01, 0.05))),
        caught(lambda: plan_fleet(default, Traffic(1), Targets(1, 0.001))),
        caught(lambda: plan_fleet(default, Traffic(1e5), Targets(1, 0.05))),
        caught(lambda: plan_fleet(Scenario(gpus=1), Traffic(1), Targets(1, 0.05))),
        caught(lambda: plan_fleet(Scenario(gpus=2, prompt_tokens=100_000, output_tokens=30_000), Traffic(1),
                                  Targets(100, 1))),
        caught(lambda: latency_curve(default, Traffic(1), 0)),
        caught(lambda: language_prices(default, Traffic(1), Targets(1, 0.05), {"zh": 300},
                                       list_usd_per_million_input_tokens=1, list_usd_per_million_output_tokens=1)),
        caught(lambda: language_prices(default, Traffic(1), Targets(1, 0.05), {"en": 250, "zh": -3},
                                       list_usd_per_million_input_tokens=1, list_usd_per_million_output_tokens=1)),
        caught(lambda: language_prices(default, Traffic(1), Targets(1, 0.05), {"en": 250},
                                       list_usd_per_million_input_tokens=1, list_usd_per_million_output_tokens=0)),
    ]


def test_every_plan_refusal_has_a_code_and_both_languages_in_errors_toml():
    document = tomllib.loads(resources.files("resources").joinpath("text", "errors.toml").read_text("utf-8"))
    codes = set()
    for error in _plan_refusals():
        assert error.code, str(error)
        codes.add(error.code)
        section, name = error.code.split(".")
        assert set(document[section][name]) == {"en", "zh"}
        assert str(error) == english(f"errors.{error.code}", **display_values(error.code, error.values, english))
        zh = document[section][name]["zh"].format(**display_values(error.code, error.values, _chinese(document)))
        assert HAN.search(zh) and zh.endswith("。") and ";" not in zh
    assert {"plan.positive", "plan.spread", "plan.ttft_unreachable", "plan.tpot_unreachable", "plan.too_many_gpus",
            "plan.does_not_fit", "plan.weights_do_not_fit", "plan.reference", "plan.traffic_type", "plan.targets_type",
            "scenario.whole_number"} <= codes


def _chinese(document):
    def text(key, **values):
        table = document
        for part in key.split(".")[1:]:
            table = table[part]
        return table["zh"].format(**values) if values else table["zh"]
    return text


def test_the_unreachable_targets_name_the_floor_the_report_gives():
    alone = report(gpus=2, batch=1)
    with pytest.raises(InputError) as tpot:
        plan_fleet(Scenario(gpus=2), Traffic(1), Targets(1, 0.9 * alone.tpot_seconds), catalog=CATALOG)
    assert tpot.value.values["floor_seconds"] == pytest.approx(alone.tpot_seconds, rel=1e-6)
    with pytest.raises(InputError) as ttft:
        plan_fleet(Scenario(gpus=2), Traffic(1), Targets(0.9 * alone.ttft_seconds, 1), catalog=CATALOG)
    assert ttft.value.values["floor_seconds"] == pytest.approx(alone.ttft_seconds, rel=1e-9)
    just_above = plan_fleet(Scenario(gpus=2), Traffic(0.01), Targets(2 * alone.ttft_seconds, 1.05 * alone.tpot_seconds),
                            catalog=CATALOG)
    assert just_above.replicas == 1


def test_a_rate_too_high_says_about_how_much_1024_gpus_serve():
    with pytest.raises(InputError) as caught:
        plan_fleet(Scenario(gpus=2), Traffic(1e4), Targets(1, 0.05), catalog=CATALOG)
    most = caught.value.values["most_requests_per_second"]
    fits = plan_fleet(Scenario(gpus=2), Traffic(0.95 * most), Targets(1, 0.05), catalog=CATALOG)
    assert fits.gpus <= 1024
    with pytest.raises(InputError):
        plan_fleet(Scenario(gpus=2), Traffic(1.1 * most), Targets(1, 0.05), catalog=CATALOG)


def test_the_rate_1024_gpus_serve_is_written_rounded_and_grouped_like_the_rate_asked():
    """Once "about 305402 requests per second" stood beside "400,000": six figures, no separators."""
    fast = Scenario(gpu="h200", model="llama-3.1-8b", weights="fp8", kv="fp8", gpus=1, prompt_tokens=100,
                    output_tokens=100)
    with pytest.raises(InputError) as caught:
        plan_fleet(fast, Traffic(4e5), Targets(10, 1), catalog=CATALOG)
    most = caught.value.values["most_requests_per_second"]
    assert most > 1e5
    sentence = str(caught.value)
    assert "400,000" in sentence
    written = re.search(r"serve about ([\d,]+) requests", sentence).group(1)
    assert re.fullmatch(r"\d{1,3}(,000)+", written) and abs(int(written.replace(",", "")) - most) < 0.005 * most
