"""The fleet planner against published serving measurements: capacity, latency under Poisson load, disaggregation.

Each case names its source and conditions. The planner simulates what the
engine's realistic mode predicts (``engine.efficiency``: calibrated on
TensorRT-LLM and vLLM measurements of 2024-25) for a scheduler that prefills
whole prompts first and reserves each request's KV cache whole; the stacks
measured below chunk their prefills and allocate KV pages as they go.
Tolerances are per block, with the reason.
"""
from __future__ import annotations

import pytest

from engine.plan import Targets, Traffic, plan_fleet, zero_load_floors
from engine.plan_search import ReplicaSearch, sustained_rate, workload_for
from engine.plan_costs import replica_costs
from engine.plan_simulation import simulate_replica
from engine.scenario import Scenario
from tests.engine.fixtures import CATALOG

# ----------------------------------------------------------------------------- capacity

# TensorRT-LLM v1.0 "Performance Overview" (github.com/NVIDIA/TensorRT-LLM, docs/source/performance/perf-overview.md,
# commit 00f37686): trtllm-bench throughput, PyTorch backend, requests queued at an infinite rate, uniform lengths
# (ISL/OSL, stdev 0), ModelOpt FP8 checkpoints (nvidia/Llama-3.3-70B-Instruct-FP8, nvidia/Llama-3.1-8B-Instruct-FP8,
# nvidia/Llama-3.1-405B-Instruct-FP8; FP8 KV cache assumed, as those checkpoints quantise it), DGX H100 / DGX H200,
# "Total Output Throughput (tokens/sec)" per system. Llama 3.3 70B has Llama 3.1 70B's shapes.
# Tolerance 27%: the planner comes out 2-26% below every row, for two reasons it keeps on purpose. It reserves each
# request's whole KV cache (TensorRT-LLM's GUARANTEED_NO_EVICT scheduler, which trtllm-bench uses, does too; a paged
# allocator that preempts thrashes on these uniform floods), and the catalogue keeps the datasheets' capacities
# (141 GB for an H200) where the driver reports 143,771 MiB (150.8e9 bytes): about 6% less room for the batch's KV.
# With the driver's figure every row is within 22%; the worst row now (500 in, 2,000 out) is 25.3% low.
TENSORRT_LLM_V1_MAX_THROUGHPUT = [
    # model, GPU, GPUs, input tokens, output tokens, output tokens per second
    ("llama-3.1-70b", "h200", 1, 128, 128, 3803),
    ("llama-3.1-70b", "h200", 1, 500, 2000, 3666),
    ("llama-3.1-70b", "h200", 1, 1000, 1000, 2909),
    ("llama-3.1-70b", "h200", 1, 2048, 128, 442),
    ("llama-3.1-70b", "h200", 1, 2048, 2048, 2003),
    ("llama-3.1-70b", "h200", 1, 5000, 500, 566),
    ("llama-3.1-70b", "h200", 1, 20000, 2000, 283),
    ("llama-3.1-70b", "h100-sxm", 2, 128, 128, 6378),
    ("llama-3.1-70b", "h100-sxm", 2, 1000, 1000, 4205),
    ("llama-3.1-70b", "h100-sxm", 2, 5000, 500, 898),
    ("llama-3.1-8b", "h100-sxm", 1, 128, 2048, 22714),
    ("llama-3.1-8b", "h100-sxm", 1, 1000, 1000, 15220),
    ("llama-3.1-8b", "h100-sxm", 1, 5000, 500, 3459),
    ("llama-3.1-8b", "h200", 1, 2048, 2048, 12194),
    ("llama-3.1-405b", "h200", 8, 1000, 1000, 3330),
    ("llama-3.1-405b", "h200", 8, 5000, 500, 650),
]


@pytest.mark.parametrize("model, gpu, gpus, prompt, output, published", TENSORRT_LLM_V1_MAX_THROUGHPUT)
def test_a_replica_sustains_the_published_maximum_throughput(model, gpu, gpus, prompt, output, published):
    costs = replica_costs(Scenario(gpu=gpu, model=model, weights="fp8", kv="fp8", gpus=gpus, prompt_tokens=prompt,
                                   output_tokens=output), CATALOG)
    sustained = sustained_rate(costs, workload_for(costs, Traffic(1)))
    assert sustained * output == pytest.approx(published, rel=0.27)


# NVIDIA NIM for LLMs, "Performance" (docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance): Llama-3.3-70B-Instruct,
# NIM 1.8.0, 2 x H100-80GB, FP8, TP2, 5,000 input and 500 output tokens, closed loop (AIPerf): concurrency 1 ->
# TTFT 406.8 ms, inter-token latency 18.6 ms; concurrency 250 -> 920.1 output tokens/s (saturated). KV precision
# not stated: FP8 assumed (100 requests of 5,500 tokens in FP16 KV would not fit beside 70 GB of weights).
# Tolerance 15% alone (one request, no queue), 25% saturated (as above).
NIM_70B_2XH100 = Scenario(gpu="h100-sxm", weights="fp8", kv="fp8", gpus=2, prompt_tokens=5000, output_tokens=500)


def test_alone_a_request_takes_the_published_first_token_and_token_times():
    costs = replica_costs(NIM_70B_2XH100, CATALOG)
    ttft, tpot = zero_load_floors(costs, workload_for(costs, Traffic(1)))
    assert ttft == pytest.approx(0.4068, rel=0.15)
    assert tpot == pytest.approx(0.0186, rel=0.15)


def test_saturated_the_replica_serves_the_published_output_rate():
    costs = replica_costs(NIM_70B_2XH100, CATALOG)
    assert sustained_rate(costs, workload_for(costs, Traffic(1))) * 500 == pytest.approx(920.1, rel=0.25)


# ----------------------------------------------------------------------------- latency under Poisson load

# "Phase 0 Baseline Benchmark Report - ShareGPT" (a public GitHub benchmark report found by the search index; its
# repository is not named there): vLLM 0.14.1 (V1 engine), 1 x H200 141GB, Llama 3.1 70B Instruct FP8 (ModelOpt),
# FP8 KV cache, TP1, chunked prefill (8,192 tokens), prefix caching on, `vllm bench serve`, ShareGPT (207 input and
# ~198 output tokens on average), Poisson arrivals, 300 prompts per rate. Milliseconds:
VLLM_H200_SHAREGPT = {   # rate: (TTFT p50, p95, p99), (TPOT p50, p95, p99)
    1.0: ((56.5, 68.8, 72.9), (20.4, 20.6, 20.8)),
    2.0: ((60.2, 72.8, 75.0), (20.8, 21.4, 22.0)),
    3.0: ((64.2, 79.4, 85.9), (21.5, 27.6, 27.7)),
}
H200_70B_FP8 = Scenario(gpu="h200", weights="fp8", kv="fp8", gpus=1, prompt_tokens=207, output_tokens=198)


@pytest.mark.parametrize("rate", sorted(VLLM_H200_SHAREGPT))
def test_percentiles_under_poisson_load_are_the_published_ones(rate):
    # Simulated at the mean lengths (the dataset's spread is not published). Tolerance 25% on the median and the
    # 95th percentile; the 99th of 300 requests rests on three of them, so it is only bounded (within 50%).
    costs = replica_costs(H200_70B_FP8, CATALOG)
    run = simulate_replica(costs, workload_for(costs, Traffic(rate, seed=1)), rate)
    (ttft50, ttft95, ttft99), (tpot50, tpot95, tpot99) = VLLM_H200_SHAREGPT[rate]
    for percent, published in ((50, ttft50), (95, ttft95)):
        assert run.ttft_percentile(percent) * 1e3 == pytest.approx(published, rel=0.25)
    for percent, published in ((50, tpot50), (95, tpot95)):
        assert run.tpot_percentile(percent) * 1e3 == pytest.approx(published, rel=0.25)
    assert run.ttft_percentile(99) * 1e3 == pytest.approx(ttft99, rel=0.5)
    assert run.tpot_percentile(99) * 1e3 == pytest.approx(tpot99, rel=0.5)


def test_the_published_rates_fit_on_the_one_gpu_that_served_them():
    # The report's targets (TTFT p99 < 350 ms, TPOT p99 < 60 ms) were met at every rate up to 3 requests/s.
    p = plan_fleet(H200_70B_FP8, Traffic(3.0), Targets(0.35, 0.06), catalog=CATALOG)
    assert p.gpus == 1


# ----------------------------------------------------------------------------- disaggregation

# DistServe (Zhong et al., OSDI 2024, arXiv:2401.09670), Figure 1 and section 2: a 13B model (OPT-13B; Llama 2 13B
# has its shapes: 40 layers, hidden 5,120, 40 heads, full multi-head KV), 1 x A100-80GB, FP16, synthetic input 512
# and output 64 tokens, Poisson arrivals, goodput = the most requests/s with 90% of requests within P90 targets of
# 0.4 s first token and 0.04 s per token (read from the figure: approximate). Colocated (vLLM) 1.6 requests/s;
# prefill only 5.6; decode only 10; two prefill GPUs and one decode GPU serve 10, 3.3 per GPU (2.1x colocated).
# The engine's realistic mode, set by 2024-25 stacks, serves each of these 2 to 2.7 times faster than the 2023
# systems did (4.4, 11 and 22 requests/s), so the check is the ratios between them, which the figure is about:
# within 25%, except colocated over decode-only, which comes out 20-30% above the published 0.16 (0.20: the
# colocated replica here suffers its prefill pauses less than vLLM did in 2023), so within 35%.
DISTSERVE_13B = Scenario(gpu="a100-80gb", model="llama-2-13b", prompt_tokens=512, output_tokens=64)
DISTSERVE_TARGETS = Targets(0.4, 0.04)


def _goodput(kind: str) -> float:
    costs = replica_costs(DISTSERVE_13B, CATALOG)
    search = ReplicaSearch(costs, workload_for(costs, Traffic(1)), DISTSERVE_TARGETS, kind)
    return search.largest_ok_rate(search.sustained * 1e-3, search.sustained)


def test_prefill_and_decode_alone_serve_in_the_published_proportion():
    colocated, prefill, decode = (_goodput(kind) for kind in ("colocated", "prefill", "decode"))
    assert prefill / decode == pytest.approx(5.6 / 10, rel=0.25)
    assert colocated / decode == pytest.approx(1.6 / 10, rel=0.35)
    per_gpu_split = 1 / (1 / prefill + 1 / decode)          # prefill and decode GPUs in the best proportion
    assert per_gpu_split / colocated == pytest.approx(3.3 / 1.6, rel=0.25)


def test_a_split_fleet_for_the_published_case_needs_fewer_gpus():
    colocated, split = (plan_fleet(DISTSERVE_13B, Traffic(40), DISTSERVE_TARGETS, disaggregated=d, catalog=CATALOG)
                        for d in (False, True))
    assert split.gpus < colocated.gpus
    assert split.prefill_replicas > split.decode_replicas       # 512 prompt tokens for 64 answers: mostly prefill
