"""The formula behind a figure: its result is the report's own number, its values line is this scenario's."""
from __future__ import annotations

import math
import re
import tomllib
from importlib import resources

import pytest

from engine import InputError, Scenario, compute_report, roofline
from engine.formulas import KEYS, formula
from engine.units import format_bytes, format_parameters, format_percent, format_seconds, format_usd

DEFAULT = Scenario(gpus=2)                                   # Llama 3.1 70B, FP16, two H800s
SCENARIOS = [
    DEFAULT,
    Scenario(gpus=2, mode="ideal"),
    Scenario(model="deepseek-v3", weights="fp8", gpus=16),          # multi-head latent attention
    Scenario(model="gpt-oss-120b", gpu="h200", gpus=2, prompt_tokens=4000),   # sliding-window layers past the window
    Scenario(gpu="rtx-4090", model="llama-3.1-8b", batch=8, output_tokens=1),  # one output token: no decode step
]


def _numbers(text: str) -> list[float]:
    return [float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: f"{s.model}-{s.gpus}-{s.mode}")
def test_every_formula_gives_the_reports_own_number(scenario):
    r = compute_report(scenario)
    expected = {
        "ridge_point": r.ridge_flops_per_byte,
        "decode_intensity": r.decode.flops_per_token / r.decode.bytes_per_token,
        "weights_bytes": r.weights_bytes,
        "kv_bytes_per_token": r.kv_bytes_per_token,
        "kv_bytes": r.kv_bytes,
        "weights_bytes_per_gpu": r.weights_bytes_per_gpu,
        "kv_bytes_per_gpu": r.kv_bytes_per_gpu,
        "tpot_seconds": r.tpot_seconds,
        "tokens_per_second": scenario.batch / r.tpot_seconds,
        "usd_per_million_input_tokens": r.usd_per_million_input_tokens,
        "usd_per_million_output_tokens": r.usd_per_million_output_tokens,
        "output_to_input_price_ratio": r.usd_per_million_output_tokens / r.usd_per_million_input_tokens,
        "overhead_bytes_per_gpu": r.overhead_bytes_per_gpu,
        "ttft_seconds": r.ttft_seconds,
        "tokens_per_second_per_gpu": scenario.batch / (r.tpot_seconds * scenario.gpus),
        "max_batch": r.max_batch,
        "step_idle_share": 1 - r.decode.utilisation,         # scene 7's belt and the summary's, in either mode
        "decode_step_seconds": r.decode.seconds_per_token,
        # scene 1 shows the roofline's busy share in ideal mode and the engine's utilisation in realistic mode
        "idle_share": (1 - roofline.utilisation(r.gpu, r.weights_precision, r.decode.flops_per_byte))
        if scenario.mode == "ideal" else 1 - r.decode.utilisation,
    }
    assert set(expected) == set(KEYS)
    for key, value in expected.items():
        assert formula(r, key).value == pytest.approx(value, rel=1e-12), key


def test_the_seeds_kv_cache_per_token_shows_each_factor_of_the_70b_model():
    shown = formula(compute_report(DEFAULT), "kv_bytes_per_token")
    assert "2 × 80 × 8 × 128 × 2 bytes" in shown.values
    assert math.prod(_numbers(shown.values)) == 327_680 == shown.value
    assert shown.result.startswith("327,680 B")


def test_multi_head_latent_attention_has_its_own_formula():
    shown = formula(compute_report(SCENARIOS[2]), "kv_bytes_per_token")
    assert shown.symbols == "KV = L × (r + r_rope) × b"
    assert "61 × (512 + 64) × 2 bytes" in shown.values and shown.value == 61 * 576 * 2


def test_sliding_window_layers_are_in_the_batchs_kv_formula_past_the_window():
    shown = formula(compute_report(SCENARIOS[3]), "kv_bytes")
    assert "k_w" in shown.symbols and {t.symbol for t in shown.terms} >= {"k_w", "w"}
    assert "4,500" in shown.values                    # prompt 4,000 + output 500 tokens


def test_the_h800_ridge_is_peak_over_bandwidth_in_the_datasheets_units():
    shown = formula(compute_report(DEFAULT), "ridge_point")
    assert shown.values == "989 TFLOPS ÷ 3.35 TB/s" and shown.result == "295 FLOP/byte"


def test_realistic_idle_share_names_this_scenarios_gpus_and_batch():
    scenario = Scenario(gpus=4, batch=8)
    shown = formula(compute_report(scenario), "idle_share")
    assert "× 8)" in shown.values and "× 4 ×" in shown.values
    assert {t.symbol: t.value for t in shown.terms}["g"] == "4"


@pytest.mark.parametrize("key", KEYS)
def test_every_symbol_is_written_in_the_formula_and_named_in_both_languages(key):
    texts = tomllib.loads(resources.files("resources").joinpath("text", "formulas.toml").read_text("utf-8"))
    assert set(texts["title"][key]) == {"en", "zh"}
    for scenario in SCENARIOS:
        shown = formula(compute_report(scenario), key)
        assert shown.key == key and shown.source.startswith("engine.")
        for term in shown.terms:
            assert term.symbol in shown.symbols, (key, term.symbol)
            assert set(texts["term"][term.name]) == {"en", "zh"}, term.name
            assert term.value


def test_a_figure_without_a_formula_is_refused_naming_those_with_one():
    with pytest.raises(InputError) as refused:
        formula(compute_report(DEFAULT), "vibes")
    assert "'vibes'" in str(refused.value) and "kv_bytes_per_token" in str(refused.value)
    assert refused.value.code == "formula.unknown"


def test_at_an_intensity_of_the_stages_own_the_idle_share_is_the_rooflines_in_either_mode():
    r = compute_report(DEFAULT)                                  # realistic mode
    shown = formula(r, "idle_share", at=59.0)
    assert shown.symbols == "idle = 1 − min(I, ridge) ÷ ridge"
    assert shown.value == pytest.approx(1 - 59.0 / r.ridge_flops_per_byte)
    assert formula(r, "idle_share", at=1000.0).value == 0.0      # past the ridge the worker never waits


def test_at_a_context_of_the_stages_own_the_batchs_kv_is_that_context():
    r = compute_report(Scenario(gpus=2, batch=4))
    shown = formula(r, "kv_bytes", at=32_768)
    assert shown.value == 4 * 32_768 * 327_680 and "4 × 32,768 ×" in shown.values


@pytest.mark.parametrize("at", [-1.0, float("nan"), True, "5"])
def test_a_stage_value_that_is_no_number_is_refused(at):
    with pytest.raises(InputError) as refused:
        formula(compute_report(DEFAULT), "idle_share", at=at)
    assert refused.value.code == "formula.bad_at"


@pytest.mark.parametrize("weights", ["fp8", "int4"])
def test_narrow_weights_add_the_16_bit_parts_as_the_engine_does(weights):
    """FP8 and INT4 keep the embedding, LM head and norms in 16 bits: "W = N × b" would not add up on screen."""
    from engine.parameters import parameter_counts
    r = compute_report(Scenario(weights=weights))
    f = formula(r, "weights_bytes")
    counts = parameter_counts(r.model)
    wide = counts.embedding + counts.lm_head + counts.norms
    assert f.symbols == "W = N_layers × b + N_16 × 2"
    assert (r.parameters - wide) * r.weights_precision.bytes_per_value + wide * 2 == pytest.approx(r.weights_bytes)
    assert f.values.endswith(f"{format_parameters(wide)} × 2 bytes")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: f"{s.model}-{s.gpus}-{s.mode}")
def test_what_each_gpu_keeps_is_the_whole_over_the_gpus_written_in_its_values_line(scenario):
    """Scene 2's bars show each GPU's weights and KV cache; their cards must multiply out to the bar's number."""
    r = compute_report(scenario)
    for key, whole in (("weights_bytes_per_gpu", r.weights_bytes), ("kv_bytes_per_gpu", r.kv_bytes)):
        shown = formula(r, key)
        if " ÷ " in shown.values:
            over = int(shown.values.rsplit(" ÷ ", 1)[1].replace(",", ""))
            assert shown.value == pytest.approx(whole / over, rel=1e-9), key
        assert shown.result == shown.lines()[2].removeprefix("= ")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: f"{s.model}-{s.gpus}-{s.mode}")
def test_the_runtime_allowance_adds_up_from_its_values_line(scenario):
    """The memory bars' runtime part: 1 GiB + tokens of the biggest pass × activations a token + the logits."""
    r = compute_report(scenario)
    shown = formula(r, "overhead_bytes_per_gpu")
    terms = {t.symbol: t.value for t in shown.terms}
    assert terms["T"] == f"{min(scenario.batch * scenario.prompt_tokens, 8192):,}"      # a prefill chunk at most
    assert terms["n"] == f"{scenario.batch:,}" and terms["V"] == f"{r.model.vocab_size:,}"
    logits = scenario.batch * r.model.vocab_size * 4
    runtime, per_token = 2**30, (r.overhead_bytes_per_gpu - 2**30 - logits) / int(terms["T"].replace(",", ""))
    assert terms["a"] == format_bytes(per_token) and terms["R"] == format_bytes(runtime)


def test_in_ideal_mode_the_summarys_idle_share_is_the_engines_utilisation_not_the_rooflines():
    r = compute_report(Scenario(gpus=4, batch=64, mode="ideal"))
    assert formula(r, "step_idle_share").result == format_percent(1 - r.decode.utilisation)     # 81.3%
    assert formula(r, "idle_share").result != formula(r, "step_idle_share").result          # scene 1's: 83.1%


def test_the_price_ratio_divides_the_two_prices_it_shows():
    shown = formula(compute_report(DEFAULT), "output_to_input_price_ratio")
    assert shown.values == f"{format_usd(compute_report(DEFAULT).usd_per_million_output_tokens)} ÷ " \
                           f"{format_usd(compute_report(DEFAULT).usd_per_million_input_tokens)}"
    assert shown.result == "211×"            # $32.4 ÷ $0.154 on two H800s at $2 an hour, batch 1
@pytest.mark.parametrize("scenario", [DEFAULT, Scenario(gpus=2, kv_allocation="reserved"),
                                      Scenario(gpus=2, cached_prefix_tokens=600, draft_model="llama-3.2-1b"),
                                      Scenario(gpus=2, weights="fp8", prompt_tokens=60_000)],
                         ids=["paged", "reserved", "prefix-and-draft", "long"])
def test_the_sequences_that_fit_are_the_room_over_one_sequence_rounded_down(scenario):
    """Scene 7's "sequences that fit": the room for KV over what one sequence holds, both read from the report,
    rounded down, is the report's own count (a reservation holds the model's maximum: far fewer fit)."""
    r = compute_report(scenario)
    fit = r.sequence_fit
    shown = formula(r, "max_batch")
    assert shown.value == r.max_batch == max(0, math.floor(fit.room_bytes_per_gpu / fit.sequence_bytes_per_gpu))
    assert shown.result == f"{r.max_batch:,}" and shown.values.startswith("⌊")
    if scenario.kv_allocation == "reserved":
        assert r.max_batch < compute_report(DEFAULT).max_batch


def test_the_first_token_with_a_draft_adds_the_drafts_own_prefill():
    r = compute_report(Scenario(gpus=2, draft_model="llama-3.2-1b"))
    shown = formula(r, "ttft_seconds")
    assert shown.symbols == "t_first = T_prefill + T_draft"
    assert r.prefill.seconds + r.speculative.draft_prefill_seconds == pytest.approx(shown.value)
    plain_report = compute_report(DEFAULT)
    plain = formula(plain_report, "ttft_seconds")          # the roofline's larger term and the rest, as the engine
    assert plain.symbols == "t_first = max(t_F, t_M) + t_rest"
    assert plain.values.startswith(f"max({format_seconds(plain_report.prefill.compute_seconds)}, ")
    rest = plain_report.ttft_seconds - max(plain_report.prefill.compute_seconds, plain_report.prefill.memory_seconds)
    assert plain.values.endswith(f"+ {format_seconds(rest)}") and rest >= 0


def test_with_pipeline_stages_the_idle_cards_arithmetic_is_one_micro_batchs_and_gives_its_result():
    """Over 16 H800s (two nodes: pipeline stages) a decode step carries one micro-batch, not the whole batch; the
    card's own numbers must give the share it shows (they gave 91.0% beside 95.5% while n was the batch)."""
    r = compute_report(Scenario(gpus=16, batch=32))
    shown = formula(r, "step_idle_share")
    n = r.decode.sequences_per_step
    assert n < 32 and {t.symbol: t.value for t in shown.terms}["n"] == f"{n:,}"
    busy = r.decode.flops_per_token * n / (r.decode.seconds_per_token * 16 * r.peak_flops_per_gpu)
    assert format_percent(1 - busy) == shown.result


def test_when_the_weights_leave_no_room_the_sequences_card_says_none_fit_with_a_true_minus():
    shown = formula(compute_report(Scenario(gpus=1)), "max_batch")          # 70B at FP16 on one 80 GB card
    assert shown.symbols == "n = max(0, ⌊R ÷ S⌋)" and shown.result == "0"
    assert "−" in shown.values and "-" not in shown.values
