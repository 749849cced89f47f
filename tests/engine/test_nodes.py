"""Deployments past one node: the default layout, each level of communication, and the refusals."""
import json

import pytest

from engine.cli import main
from engine.efficiency import REALISTIC
from engine.errors import InputError
from engine.layout import default_layout_gpu_counts, plan_layout
from tests.engine import fixtures as fx
from tests.engine.fixtures import report

DEEPSEEK_16 = dict(gpu="h800", model="deepseek-v3", weights="fp8", gpus=16)


def _levels(r):
    return {level: (link, seconds) for level, link, seconds in r.decode.communication_levels}


def test_deepseek_on_16_h800s_fills_two_nodes_with_tp_inside_and_a_pipeline_across(capsys):
    assert main(["report", "--gpu", "h800", "--model", "deepseek-v3", "--weights", "fp8", "--gpus", "16",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["nodes"] == 2
    assert data["parallel"] == {"tensor": 8, "pipeline": 2, "expert": 8}
    assert data["decode"]["communication_seconds"] > 0 and data["prefill"]["communication_seconds"] > 0
    levels = _levels(report(**DEEPSEEK_16))
    assert levels["tensor"][0] == "link" and levels["pipeline"][0] == "network"


def test_a_tensor_group_across_two_nodes_pays_the_network():
    default = report(**DEEPSEEK_16)
    across = report(**DEEPSEEK_16, tp=16)
    assert (across.layout.tensor, across.layout.pipeline) == (16, 1) and across.nodes == 2
    link, seconds = _levels(across)["tensor"]
    assert link == "network"
    # 2 all-reduces in each of 61 layers, each at least the cross-node latency
    assert seconds >= 2 * 61 * REALISTIC.network_allreduce_latency_seconds
    assert across.tpot_seconds > 2 * default.tpot_seconds          # SGLang measures ~23 ms a token this way
    ideal_link, ideal_seconds = _levels(report(**DEEPSEEK_16, tp=16, mode="ideal"))["tensor"]
    assert ideal_link == "network"          # even at full speed the network is slower than NVLink
    assert ideal_seconds > _levels(report(**DEEPSEEK_16, mode="ideal"))["tensor"][1]


def test_two_rtx_4090s_pay_pcie_all_reduces():
    r = report(gpu="rtx-4090", model="llama-3.1-8b", weights="fp16", gpus=2, prompt_tokens=100, output_tokens=10)
    link, seconds = _levels(r)["tensor"]
    assert link == "pcie" and r.nodes == 1
    assert seconds >= 2 * 32 * REALISTIC.pcie_latency_seconds
    nvlink = report(gpu="a100-80gb", model="llama-3.1-8b", weights="fp16", gpus=2, prompt_tokens=100, output_tokens=10)
    assert _levels(nvlink)["tensor"][0] == "link" and seconds > 2 * _levels(nvlink)["tensor"][1]


def test_at_batch_1_a_pipeline_is_no_faster_but_holds_twice_the_model():
    one_node = report(gpu="h800", model="llama-3.1-70b", weights="fp16", gpus=8)
    two_nodes = report(gpu="h800", model="llama-3.1-70b", weights="fp16", gpus=16)
    assert two_nodes.weights_bytes_per_gpu == pytest.approx(one_node.weights_bytes_per_gpu / 2)
    assert two_nodes.tpot_seconds > one_node.tpot_seconds       # the token crosses both stages, then the network


def test_at_large_batch_a_pipeline_keeps_both_stages_busy():
    fields = dict(gpu="h800", model="llama-3.1-70b", weights="fp16", batch=256, prompt_tokens=1000, output_tokens=500)
    one_node = report(gpus=8, **fields)
    two_nodes = report(gpus=16, **fields)
    per_gpu = lambda r, g: fields["batch"] / r.tpot_seconds / g
    assert per_gpu(two_nodes, 16) > 0.6 * per_gpu(one_node, 8)   # two micro-batches in flight, not one stage idle


def test_wide_expert_parallelism_replicates_attention_and_exchanges_tokens_all_to_all():
    r = report(**DEEPSEEK_16, tp=4, ep=16, batch=64)
    assert (r.layout.tensor, r.layout.pipeline, r.layout.expert, r.layout.data) == (4, 1, 16, 4)
    assert _levels(r)["expert"][0] == "network"
    assert r.max_sequences % 4 == 0                                # each of 4 replicas holds its own sequences


@pytest.mark.parametrize("fields, code", [
    (dict(model="llama-3.1-70b", gpus=16, tp=8, pp=3), "layout.product"),
    (dict(model="llama-3.1-70b", gpus=16, tp=4, pp=2), "layout.dense_replicas"),
    (dict(model="llama-3.1-8b", gpus=64, tp=1, pp=64), "layout.stages"),
    (dict(model="llama-3.1-70b", gpus=8, ep=4), "layout.no_experts"),
    (dict(model="mixtral-8x7b", gpus=4, ep=3), "layout.experts"),
    (dict(model="llama-3.1-8b", gpus=16, tp=3), "layout.product"),
    (dict(model="llama-3.1-8b", gpus=6, tp=6, pp=1), "parallel.uneven_heads"),
])
def test_a_layout_that_cannot_share_the_model_is_refused_in_one_sentence(fields, code):
    with pytest.raises(InputError) as caught:
        report(**fields)
    assert caught.value.code == code
    sentence = str(caught.value)
    assert sentence.count(". ") == 0 and sentence.endswith(".")


def test_a_mac_cluster_grows_its_tensor_group_past_one_node_rather_than_cut_more_stages_than_layers():
    layout = plan_layout(fx.DEEPSEEK_V3, fx.CATALOG.gpu("m4-max"), 64)
    assert layout.pipeline <= 61 and layout.tensor * layout.pipeline == 64 and layout.tensor_crosses_nodes


def test_the_longest_context_stops_at_the_models_maximum_and_says_so():
    r = report(**DEEPSEEK_16)
    assert r.longest_context_tokens == 163_840 == r.max_context_tokens and r.longest_context_capped
    assert r.memory_context_tokens > 163_840
    tight = report(gpu="h800", model="llama-3.1-70b", weights="fp8", prompt_tokens=1000, output_tokens=500)
    assert not tight.longest_context_capped and tight.longest_context_tokens == tight.memory_context_tokens < 131_072
    data = tight.to_json_dict()
    assert data["longest_context_tokens"] == tight.longest_context_tokens and data["longest_context_capped"] is False


@pytest.mark.parametrize("model, gpu", [("llama-3.1-8b", "h800"), ("qwen2.5-7b", "h800"), ("deepseek-v3", "h800"),
                                        ("llama-3.1-70b", "m3-max"), ("mixtral-8x7b", "gb200"), ("gpt-oss-20b", "l40s")])
def test_the_default_layout_counts_are_exactly_those_the_default_layout_accepts(model, gpu):
    m, g = fx.CATALOG.model(model), fx.CATALOG.gpu(gpu)
    accepted = []
    for gpus in range(1, 1025):
        try:
            plan_layout(m, g, gpus)
        except InputError:
            continue
        accepted.append(gpus)
    assert default_layout_gpu_counts(m, g) == tuple(accepted)
