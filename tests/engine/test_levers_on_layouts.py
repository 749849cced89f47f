"""The levers and the sliding windows on multi-node layouts: each keeps its meaning when the GPUs span nodes.

A draft model runs on its target's layout; a verify pass keeps each sequence's tokens together
whatever the pipeline's micro-batches; a cached prefix and a window still save what they save on one
node; ``max_batch`` counts every attention replica.
"""
from __future__ import annotations

import pytest

from engine import InputError, Scenario, compute_report
from engine.compute import decode_step_of, setup_of
from engine.levers.speculative import verify_work
from engine.passes import decode_step_work
from tests.engine import fixtures as fx

TARGET_405B = dict(model="llama-3.1-405b", gpus=16)          # two 8-GPU H800 nodes: tensor 8, pipeline 2


def test_a_draft_model_runs_on_its_targets_tensor_groups_and_stages():
    s = setup_of(Scenario(**TARGET_405B, draft_model="llama-3.2-1b"), fx.CATALOG)
    assert (s.layout.tensor, s.layout.pipeline) == (8, 2)
    assert (s.draft.layout.tensor, s.draft.layout.pipeline, s.draft.layout.gpus) == (8, 2, 16)
    # each GPU holds its stage's share of its tensor slice of the draft, as of the target
    assert s.draft.weights_bytes_per_gpu == pytest.approx(s.draft.weights_bytes / 16)


@pytest.mark.parametrize("fields, code", [
    # Qwen3 0.6B's 16 heads cannot be cut over the 32 GPUs its target's 64 heads allow
    (dict(model="qwen3-32b", gpus=32, tp=32, draft_model="qwen3-0.6b"), "parallel.uneven_heads"),
    # Llama 3.2 1B's 16 layers cannot fill the 32 stages its target's 126 layers allow
    (dict(model="llama-3.1-405b", gpus=32, tp=1, pp=32, draft_model="llama-3.2-1b"), "layout.stages"),
])
def test_a_draft_that_cannot_share_its_targets_layout_is_refused_naming_the_draft(fields, code):
    compute_report(Scenario(**{k: v for k, v in fields.items() if k != "draft_model"}), fx.CATALOG)   # the target can
    with pytest.raises(InputError) as caught:
        compute_report(Scenario(**fields), fx.CATALOG)
    assert caught.value.values["field"] == "draft_model"
    assert caught.value.code == code
    assert fx.CATALOG.model(fields["draft_model"]).name in str(caught.value)


def test_a_verify_pass_keeps_each_sequences_guesses_in_one_micro_batch():
    d = setup_of(Scenario(**TARGET_405B), fx.CATALOG).deployment
    plain, verify = decode_step_work(d, batch=1), verify_work(d, batch=1, draft_tokens=4)
    # one sequence, five new tokens: five times the arithmetic, its cached KV read once
    assert verify.at(2000).flops == pytest.approx(5 * plain.at(2000).flops)
    assert verify.kv_bytes_per_gpu_per_context_token == plain.kv_bytes_per_gpu_per_context_token
    assert verify.sequences == plain.sequences == 1


def test_a_cached_prefix_shortens_the_first_token_across_pipeline_stages():
    full = compute_report(Scenario(**TARGET_405B, batch=4, prompt_tokens=8000), fx.CATALOG)
    cached = compute_report(Scenario(**TARGET_405B, batch=4, prompt_tokens=8000, cached_prefix_tokens=7000),
                            fx.CATALOG)
    alone = compute_report(Scenario(**TARGET_405B, batch=4, prompt_tokens=1000), fx.CATALOG)
    assert full.layout.pipeline == 2 and cached.ttft_seconds < full.ttft_seconds / 4
    assert alone.ttft_seconds <= cached.ttft_seconds


def test_past_its_window_a_step_on_two_nodes_reads_only_the_full_layers():
    s = setup_of(Scenario(model="gpt-oss-120b", weights="fp8", gpus=16, tp=8, pp=2, batch=4), fx.CATALOG)
    step = decode_step_of(s)
    inside = step.at(51).kv_bytes_per_gpu - step.at(50).kv_bytes_per_gpu
    past = step.at(5001).kv_bytes_per_gpu - step.at(5000).kv_bytes_per_gpu
    model = fx.CATALOG.model("gpt-oss-120b")
    assert past / inside == pytest.approx(1 - model.sliding_window_layers / model.layers)


def test_max_batch_counts_the_sequences_of_every_attention_replica():
    r = compute_report(Scenario(model="deepseek-v3", weights="fp8", gpus=32, tp=4, pp=1, ep=32), fx.CATALOG)
    replicas = r.layout.data
    assert replicas == 8 and r.max_batch % replicas == 0
    # the same sequences as memory's own count, but for the page at each sequence's end
    assert r.max_sequences * 1500 / 1504 - replicas <= r.max_batch <= r.max_sequences
