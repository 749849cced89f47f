"""The levers against their formulas: speculative decoding, prefix caching, KV allocation (engine.levers)."""
from __future__ import annotations

import math
import tomllib
from importlib import resources

import pytest

from engine import InputError, Scenario
from engine.errors import display_values, english
from engine.levers.fields import PAGE_TOKENS
from engine.levers.speculative import tokens_per_pass
from engine.kv_cache import attention_flops_per_position
from engine.passes import prefill_work
from engine.compute import setup_of
from tests.engine.lever_fixtures import LEVER_CATALOG, LLAMA_32_1B, lever_report

TARGET = dict(model="llama-3.1-70b", gpus=2)                       # the default scenario, on the two H800s it fits
DRAFT = dict(TARGET, draft_model=LLAMA_32_1B.id, draft_tokens=4, acceptance=0.8)


def refused(**fields) -> InputError:
    with pytest.raises(InputError) as caught:
        lever_report(**fields)
    return caught.value


# ----------------------------------------------------------------------------- speculative decoding

@pytest.mark.parametrize("acceptance, draft_tokens", [(0.0, 4), (0.5, 1), (0.7, 4), (0.8, 7), (0.95, 16)])
def test_tokens_per_pass_is_the_expected_run_of_accepted_guesses_plus_one(acceptance, draft_tokens):
    # the target keeps guess i only if guesses 1..i were all accepted (chance a^i), plus one token of its own
    expected = sum(acceptance ** i for i in range(draft_tokens + 1))
    assert tokens_per_pass(acceptance, draft_tokens) == pytest.approx(expected)
    assert tokens_per_pass(acceptance, draft_tokens) == pytest.approx(
        (1 - acceptance ** (draft_tokens + 1)) / (1 - acceptance))


def test_a_small_draft_gains_at_batch_1_and_the_verify_pass_costs_about_one_step():
    plain, spec = lever_report(**TARGET), lever_report(**DRAFT)
    s = spec.speculative
    assert s.tokens_per_pass == pytest.approx(1 + 0.8 + 0.8 ** 2 + 0.8 ** 3 + 0.8 ** 4)
    assert s.verify_bound == "memory" and s.verify_seconds_per_pass < 1.1 * s.plain_step_seconds
    assert s.speedup == pytest.approx(s.tokens_per_pass * s.plain_step_seconds
                                      / (s.draft_seconds_per_pass + s.verify_seconds_per_pass))
    assert s.speedup > 2
    assert spec.tpot_seconds == pytest.approx(plain.tpot_seconds / s.speedup)
    assert spec.ttft_seconds > plain.ttft_seconds                 # the draft reads the prompt too
    assert spec.usd_per_million_output_tokens < plain.usd_per_million_output_tokens / 2


def test_the_same_draft_is_a_loss_at_a_large_batch_where_verifying_guesses_costs_compute():
    loss = lever_report(**DRAFT).speculative.loss_batch
    assert loss is not None and 1 < loss <= 4096
    at_loss, before = lever_report(**DRAFT, batch=loss), lever_report(**DRAFT, batch=loss - 1)
    assert at_loss.speculative.speedup < 1 <= before.speculative.speedup
    assert at_loss.tpot_seconds > lever_report(**TARGET, batch=loss).tpot_seconds
    big = lever_report(**DRAFT, batch=max(loss, 512)).speculative
    assert big.verify_bound == "compute" and big.verify_seconds_per_pass > 2 * big.plain_step_seconds


def test_the_draft_model_takes_its_weights_and_kv_from_the_same_memory():
    plain, spec = lever_report(**TARGET), lever_report(**DRAFT)
    draft = setup_of(Scenario(**DRAFT), LEVER_CATALOG).draft
    weights_per_gpu = draft.weights_bytes / 2
    kv_per_gpu = draft.kv_bytes_per_token * draft.kv_share_per_gpu * 1500
    assert plain.free_bytes_per_gpu - spec.free_bytes_per_gpu == pytest.approx(weights_per_gpu + kv_per_gpu)
    assert spec.max_batch < plain.max_batch


def test_self_drafting_heads_cost_the_stated_share_of_a_step_per_guess():
    s = lever_report(**TARGET, draft_head_cost=0.05, draft_tokens=4, acceptance=0.8).speculative
    assert s.draft_seconds_per_pass == pytest.approx(4 * 0.05 * s.plain_step_seconds)
    assert s.draft_prefill_seconds == 0


def test_a_draft_with_another_tokenizer_is_refused_naming_both():
    error = refused(**TARGET, draft_model="qwen2.5-7b")
    assert error.code == "levers.tokenizer" and error.values["field"] == "draft_model"
    assert "Qwen2.5 7B" in str(error) and "Llama 3.1 70B" in str(error)
    # Llama 2's tokenizer is not among the shipped ones: its vocabulary of 32,000 tells it apart
    assert refused(**TARGET, draft_model="llama-2-7b").code == "levers.vocabulary"


@pytest.mark.parametrize("fields, code", [
    (dict(acceptance=1.0), "levers.acceptance"), (dict(acceptance=-0.1), "levers.acceptance"),
    (dict(acceptance=float("nan")), "levers.acceptance"), (dict(acceptance="0.7"), "levers.acceptance"),
    (dict(draft_tokens=0), "scenario.whole_number"), (dict(draft_tokens=17), "scenario.whole_number"),
    (dict(draft_head_cost=1.5), "levers.head_cost"), (dict(draft_model="llama-3.2-1b", draft_head_cost=0.1),
                                                      "levers.two_drafts"),
    (dict(draft_model="no-such-model"), "catalog.unknown"),
    (dict(cached_prefix_tokens=1001), "levers.prefix"), (dict(cached_prefix_tokens=-1), "scenario.whole_number"),
    (dict(kv_allocation="pooled"), "levers.allocation"), (dict(kv_allocation="reserved", reserve_tokens=1499),
                                                          "levers.reserve_short"),
    (dict(kv_allocation="reserved", reserve_tokens=200_000), "levers.reserve_long"),
])
def test_lever_fields_outside_their_range_are_refused_in_one_sentence(fields, code):
    error = refused(**{**TARGET, **fields})
    assert error.code == code and str(error).endswith(".") and "\n" not in str(error)


# ----------------------------------------------------------------------------- prefix caching

def test_a_cached_prefix_leaves_the_prefill_the_work_of_the_uncached_part():
    d = setup_of(Scenario(**TARGET), LEVER_CATALOG).deployment
    lm_head = 2.0 * d.counts.lm_head_matmul * 3                    # both prompts end in one position's logits
    full, prefix = (prefill_work(d, batch=3, prompt_tokens=n) for n in (1000, 600))
    cached = prefill_work(d, batch=3, prompt_tokens=1000, cached_tokens=600)
    assert cached.flops == pytest.approx(full.flops - prefix.flops + lm_head)


def test_prefix_caching_brings_the_first_token_close_to_the_uncached_part_alone():
    full = lever_report(**TARGET, prompt_tokens=8000)
    cached = lever_report(**TARGET, prompt_tokens=8000, cached_prefix_tokens=7000)
    alone = lever_report(**TARGET, prompt_tokens=1000)
    assert cached.ttft_seconds < full.ttft_seconds / 4
    assert alone.ttft_seconds <= cached.ttft_seconds <= 1.25 * alone.ttft_seconds   # + attention to the prefix
    assert cached.usd_per_million_input_tokens < full.usd_per_million_input_tokens / 4


def test_a_whole_cached_prompt_still_computes_its_last_token():
    whole = lever_report(**TARGET, cached_prefix_tokens=1000)
    one_token = lever_report(**TARGET, prompt_tokens=1)
    model = LEVER_CATALOG.model("llama-3.1-70b")
    # that token's logits give the first output token; it attends to the 999 cached positions as well as itself
    assert whole.prefill.flops == pytest.approx(one_token.prefill.flops + 999 * attention_flops_per_position(model))


def test_sequences_that_share_a_prefix_hold_its_pages_once():
    shared = 512                                                   # whole pages
    plain = lever_report(**TARGET, batch=8)
    cached = lever_report(**TARGET, batch=8, cached_prefix_tokens=shared)
    assert plain.kv_bytes - cached.kv_bytes == pytest.approx(7 * shared * plain.kv_bytes_per_token)
    assert cached.max_batch > plain.max_batch


# ----------------------------------------------------------------------------- KV allocation

def _room_per_gpu(report) -> float:
    return report.hbm_bytes_per_gpu - report.weights_bytes_per_gpu - report.overhead_bytes_per_gpu


@pytest.mark.parametrize("allocation, held", [("paged", math.ceil(1500 / PAGE_TOKENS) * PAGE_TOKENS),
                                              ("reserved", 4096)])
def test_max_batch_is_the_room_over_what_each_sequence_holds(allocation, held):
    r = lever_report(**TARGET, kv_allocation=allocation, reserve_tokens=4096)
    per_sequence = held * r.kv_bytes_per_token / 2                 # 8 KV heads split over 2 GPUs
    assert r.max_batch * per_sequence <= _room_per_gpu(r) < (r.max_batch + 1) * per_sequence


def test_paged_allocation_fits_several_times_more_short_conversations_than_reserving_the_maximum():
    short = dict(model="llama-3.1-8b", gpu="h100-sxm", prompt_tokens=200, output_tokens=300)
    paged = lever_report(**short).max_batch
    assert paged >= 3 * lever_report(**short, kv_allocation="reserved").max_batch      # the model's 131,072
    assert paged >= 3 * lever_report(**short, kv_allocation="reserved", reserve_tokens=2048).max_batch


def test_a_reserved_allocation_holds_its_reservation_in_memory():
    r = lever_report(**TARGET, batch=2, kv_allocation="reserved", reserve_tokens=8192)
    assert r.kv_bytes == pytest.approx(2 * 8192 * r.kv_bytes_per_token)
    assert not lever_report(**TARGET, kv_allocation="reserved").fits        # 131,072 tokens of 320 KiB: 43 GB


def test_levers_left_off_keep_the_kv_cache_token_by_token():
    r = lever_report(**TARGET, batch=3)
    assert r.kv_bytes == 3 * 1500 * r.kv_bytes_per_token and r.speculative is None


# ----------------------------------------------------------------------------- the refusals' sentences

def _lever_refusals() -> list[InputError]:
    return [refused(**TARGET, **fields) for fields in (
        dict(acceptance=1.0), dict(draft_head_cost=2.0), dict(draft_model="llama-3.2-1b", draft_head_cost=0.1),
        dict(kv_allocation="pooled"), dict(cached_prefix_tokens=1001), dict(kv_allocation="reserved", reserve_tokens=9),
        dict(kv_allocation="reserved", reserve_tokens=200_000), dict(draft_model="qwen2.5-7b"),
        dict(draft_model="llama-2-7b"), dict(draft_tokens=0), dict(reserve_tokens=-1))]


def test_every_lever_refusal_is_written_from_errors_toml_in_both_languages():
    document = tomllib.loads(resources.files("resources").joinpath("text", "errors.toml").read_text("utf-8"))

    def chinese(key: str, **values) -> str:
        table = document
        for part in key.split(".")[1:]:
            table = table[part]
        return table["zh"].format(**values) if values else table["zh"]

    for error in _lever_refusals():
        assert str(error) == english(f"errors.{error.code}", **display_values(error.code, error.values, english))
        section, name = error.code.split(".")
        sentence = chinese(f"errors.{error.code}", **display_values(error.code, error.values, chinese))
        assert any("\u4e00" <= c <= "\u9fff" for c in sentence) and sentence.endswith("。"), sentence
