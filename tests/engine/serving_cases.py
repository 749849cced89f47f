"""Published measurements of widely used serving stacks, for ``test_serving_calibration.py``.

Each case names its stack, its source and its conditions as published, and one measured figure:

- ``tpot``: seconds per output token of one sequence (ITL or TPOT at concurrency 1, or 1 / tokens/s);
- ``ttft``: seconds to the first token (llama.cpp's ``pp512``: 512 / prompt tokens per second);
- ``batch``: seconds for a static batch from its prompts to its last tokens (vLLM ``benchmark_latency``);
- ``throughput``: output tokens per second per GPU of a static batch (TensorRT-LLM's gptSessionBenchmark).

Models are the catalogue's: "Llama-3-8B" and "Llama-3.3-70B" have Llama 3.1's shapes, "LLaMA 7B/70B"
Llama 2's, DeepSeek-R1 DeepSeek-V3's. llama.cpp's Q4_0 is the catalogue's INT4 (32 weights in 18 bytes)
and its Q8_0 the INT8 (34 bytes per 32, 6% more than counted); MLC's q4f16_1 is INT4 too.
Where a source gives no output length, the one assumed is said; it changes a TPOT by a few percent.
"""
from __future__ import annotations

from typing import NamedTuple

VLLM, SGLANG, TRT, LLAMA_CPP, LMDEPLOY, MLC = "vLLM", "SGLang", "TensorRT-LLM", "llama.cpp", "LMDeploy", "MLC LLM"


class Measured(NamedTuple):
    stack: str
    source: str
    metric: str             # "tpot", "ttft", "batch" or "throughput" (module docstring)
    value: float            # seconds, or output tokens/s per GPU for "throughput"
    gpu: str
    model: str
    weights: str
    kv: str
    gpus: int
    batch: int
    prompt: int
    output: int
    max_context: int = 0    # the model's maximum raised to this (a rope-extended checkpoint of the same shapes)
    tp: int = 0             # the tensor-parallel degree, where the source's layout is not the engine's default
    left_out: str = ""      # why the case calibrates nothing (it still bounds the ideal mode)

    @property
    def name(self) -> str:
        return (f"{self.stack}-{self.gpu}x{self.gpus}-{self.model}-{self.weights}-b{self.batch}"
                f"-{self.prompt}in-{self.output}out-{self.metric}")


LMDEPLOY_1608 = ("InternLM/lmdeploy issue #1608 'Long context: Decoding performance degradation' (May 2024): "
                 "offline pipeline, batch 1, Llama-3-8B-Instruct BF16 with its rope extended, on one H800")
VLLM_20759 = ("vllm-project/vllm PR #20759 '[PERF] PyTorch Symmetric Memory All-Reduce' (Jul 2025), baseline: "
              "vllm bench serve, sonnet dataset (550 in, 150 out), 1 request/s")
VLLM_NIGHTLY = ("vLLM nightly performance benchmark, latency tests (buildkite.com/vllm/performance-benchmark, "
                "build 9515, late 2024): benchmark_latency, batch 8, 32 in, 128 out, mean end-to-end latency")
MUSGRAVE = ("johnmusgrave.com, 'vLLM throughput-latency sweep on NVIDIA A100' (2025): 1,024 in, 128 out, "
            "concurrency 1, about 75 tokens/s")
VLLM_2192 = ("vllm-project/vllm PR #2192 'Custom all reduce kernels' (Dec 2023): benchmark_latency, batch 64, "
             "256 in, 256 out, with the custom all-reduce")
NIM = ("NVIDIA NIM for LLMs 1.8.0 benchmarking page (docs.nvidia.com/nim/benchmarking/llm): TensorRT-LLM backend, "
       "AIPerf, concurrency 1")
TRT_05 = "TensorRT-LLM docs/source/performance.md, data from v0.5 (github.com/NVIDIA/TensorRT-LLM)"
TRT_061 = "TensorRT-LLM docs/source/performance.md as updated for v0.6.1, 'Peak Throughput' (gptSessionBenchmark)"
TT_356 = ("tenstorrent/tt-inference-server issue #356 'DeepSeek-R1-0528: GPU Benchmarks' (Jul 2025): SGLang, "
          "TP16 over two 8-GPU H100 nodes joined by InfiniBand, FP8, concurrency 1, 128 out")
LLAMA_CPP_CUDA = ("llama.cpp discussion #15013 'Performance of llama.cpp with CUDA' (Aug 2025): llama-bench, "
                  "LLaMA 2 7B Q4_0, all layers on the GPU, tg128 and pp512")
LLAMA_CPP_METAL = ("llama.cpp discussion #4167 'Performance of llama.cpp on Apple Silicon M-series': llama-bench, "
                   "LLaMA 2 7B F16 / Q8_0 / Q4_0, Metal, tg128 and pp512")
MLC_BLOG = ("MLC LLM blog 'Scalable Language Model Inference on Multiple NVIDIA and AMD GPUs' (19 Oct 2023): "
            "Llama2-70B 4-bit (q4f16_1) at 34.5 tok/s on two RTX 4090, tensor parallel over PCIe; short prompt")


def _case(stack, source, metric, value, gpu, model, weights, gpus, batch, prompt, output, kv=None, max_context=0,
          tp=0, left_out=""):
    return Measured(stack, source, metric, value, gpu, model, weights, kv or weights, gpus, batch, prompt, output,
                    max_context, tp, left_out)


# Why four measurements calibrate nothing (engine.efficiency repeats it):
OLD_PAGED_ATTENTION = ("vLLM 0.4's paged-attention kernel ran one thread block per query head, so at Llama 3's four "
                       "query heads per KV head it read each KV head four times; today's kernels read it once")
BLACKWELL_PREFILL = ("a first token through vLLM's server on Blackwell in mid-2025, 1.8 times what the same prompt's "
                     "FLOPs take at the share every Hopper and Ampere prefill here reaches; one point is too few "
                     "to give Blackwell a factor of its own")
SMALL_FP8_PREFILL = ("TensorRT-LLM v0.5's first FP8 kernels on 128 tokens split four ways; its FP16 rows on the A100 "
                     "and its FP8 rows at 2,048 tokens fit")
INT8_MMQ = ("llama.cpp multiplies Q4_0 weights by activations quantised to INT8 on the INT8 tensor cores (its MMQ "
            "kernels); the catalogue's INT4 widens the weights to FP16, a path the prompt does not take here")


def _tg128(source, gpu, weights, tokens_per_second):
    """llama-bench tg128: 128 tokens generated from an empty context (the engine: one prompt token, 129 out)."""
    return _case(LLAMA_CPP, source, "tpot", 1 / tokens_per_second, gpu, "llama-2-7b", weights, 1, 1, 1, 129,
                 kv="fp16")


def _pp512(source, gpu, tokens_per_second, left_out=""):
    """llama-bench pp512: a 512-token prompt processed at once (Q4_0 weights, F16 KV cache)."""
    return _case(LLAMA_CPP, source, "ttft", 512 / tokens_per_second, gpu, "llama-2-7b", "int4", 1, 1, 512, 1,
                 kv="fp16", left_out=left_out)


SERVING_CASES = [
    # vLLM and LMDeploy, one H800, Llama-3-8B BF16, batch 1 (output length not given: 256 assumed).
    _case(VLLM, f"vLLM 0.4.2; {LMDEPLOY_1608}", "tpot", 8.66e-3, "h800", "llama-3.1-8b", "bf16", 1, 1, 1_000, 256),
    _case(VLLM, f"vLLM 0.4.2; {LMDEPLOY_1608}", "tpot", 30e-3, "h800", "llama-3.1-8b", "bf16", 1, 1, 200_000, 256,
          max_context=262_144, left_out=OLD_PAGED_ATTENTION),
    _case(LMDEPLOY, f"LMDeploy 0.4.1 TurboMind; {LMDEPLOY_1608}", "tpot", 7.3e-3, "h800", "llama-3.1-8b", "bf16",
          1, 1, 1_000, 256),
    # vLLM V1 on 4 B200, Llama-3.1-70B BF16, TP4, about one request at a time.
    _case(VLLM, VLLM_20759, "tpot", 12.88e-3, "b200", "llama-3.1-70b", "bf16", 4, 1, 550, 150),
    _case(VLLM, VLLM_20759, "ttft", 45e-3, "b200", "llama-3.1-70b", "bf16", 4, 1, 550, 150, left_out=BLACKWELL_PREFILL),
    # vLLM nightly latency tests on H200: static batches of 8.
    _case(VLLM, VLLM_NIGHTLY, "batch", 0.8334, "h200", "llama-3.1-8b", "bf16", 1, 8, 32, 128),
    _case(VLLM, VLLM_NIGHTLY, "batch", 2.0775, "h200", "llama-3.1-70b", "bf16", 4, 8, 32, 128),
    _case(VLLM, VLLM_NIGHTLY, "batch", 1.9174, "h200", "mixtral-8x7b", "bf16", 2, 8, 32, 128),
    _case(VLLM, MUSGRAVE, "tpot", 1 / 75, "a100-40gb", "llama-3.1-8b", "bf16", 1, 1, 1_024, 128),
    _case(VLLM, VLLM_2192, "batch", 14.57, "a100-80gb", "llama-2-70b", "fp16", 4, 64, 256, 256),
    # NVIDIA NIM (TensorRT-LLM) on 2 H100, Llama-3.3-70B FP8, TP2.
    _case(TRT, f"{NIM}, 5,000 in, 500 out: ITL", "tpot", 18.58e-3, "h100-sxm", "llama-3.1-70b", "fp8", 2, 1, 5_000, 500),
    _case(TRT, f"{NIM}, 5,000 in, 500 out: TTFT", "ttft", 406.8e-3, "h100-sxm", "llama-3.1-70b", "fp8", 2, 1, 5_000, 500),
    _case(TRT, f"{NIM}, 500 in, 2,000 out: ITL", "tpot", 18.91e-3, "h100-sxm", "llama-3.1-70b", "fp8", 2, 1, 500, 2_000),
    _case(TRT, f"{NIM}, 500 in, 2,000 out: TTFT", "ttft", 47.8e-3, "h100-sxm", "llama-3.1-70b", "fp8", 2, 1, 500, 2_000),
    # TensorRT-LLM v0.5 'Low Latency': first-token latency at batch 1, FP8 on H100 and L40S.
    _case(TRT, f"{TRT_05}, Low Latency", "ttft", 7e-3, "h100-sxm", "llama-2-7b", "fp8", 1, 1, 128, 1),
    _case(TRT, f"{TRT_05}, Low Latency", "ttft", 36e-3, "h100-sxm", "llama-2-7b", "fp8", 1, 1, 2_048, 1),
    _case(TRT, f"{TRT_05}, Low Latency", "ttft", 26e-3, "h100-sxm", "llama-2-70b", "fp8", 4, 1, 128, 1,
          left_out=SMALL_FP8_PREFILL),
    _case(TRT, f"{TRT_05}, Low Latency", "ttft", 109e-3, "h100-sxm", "llama-2-70b", "fp8", 4, 1, 2_048, 1),
    _case(TRT, f"{TRT_05}, Low Latency", "ttft", 14e-3, "l40s", "llama-2-7b", "fp8", 1, 1, 128, 1),
    _case(TRT, f"{TRT_05}, Low Latency", "ttft", 73e-3, "l40s", "llama-2-7b", "fp8", 1, 1, 2_048, 1),
    # TensorRT-LLM static batches: v0.6.1 A100 FP16, v0.5 L40S FP8 (output tokens/s per GPU).
    _case(TRT, TRT_061, "throughput", 5_586, "a100-80gb", "llama-2-7b", "fp16", 1, 384, 128, 128),
    _case(TRT, TRT_061, "throughput", 1_928, "a100-80gb", "llama-2-7b", "fp16", 1, 60, 128, 2_048),
    _case(TRT, f"{TRT_061} (L40S rows from v0.5)", "throughput", 3_240, "l40s", "llama-2-7b", "fp8", 1, 64, 128, 128),
    _case(TRT, f"{TRT_061} (L40S rows from v0.5)", "throughput", 1_622, "l40s", "llama-2-7b", "fp8", 1, 64, 128, 2_048),
    _case(TRT, f"{TRT_061} (L40S rows from v0.5)", "throughput", 531, "l40s", "llama-2-7b", "fp8", 1, 16, 2_048, 2_048),
    # SGLang, DeepSeek-R1 FP8 on two H100 nodes, TP16 across InfiniBand, one request at a time.
    _case(SGLANG, f"{TT_356}, 128 in", "tpot", 23.1e-3, "h100-sxm", "deepseek-v3", "fp8", 16, 1, 128, 128, kv="bf16",
          tp=16),
    _case(SGLANG, f"{TT_356}, 8,192 in", "tpot", 24.0e-3, "h100-sxm", "deepseek-v3", "fp8", 16, 1, 8_192, 128,
          kv="bf16", tp=16),
    # llama.cpp, one GPU, batch 1.
    _tg128(LLAMA_CPP_CUDA, "rtx-5090", "int4", 290.02), _pp512(LLAMA_CPP_CUDA, "rtx-5090", 14_073, INT8_MMQ),
    _tg128(LLAMA_CPP_CUDA, "rtx-4090", "int4", 186.21), _pp512(LLAMA_CPP_CUDA, "rtx-4090", 11_993, INT8_MMQ),
    _tg128(LLAMA_CPP_METAL, "m3-max", "fp16", 25.09), _tg128(LLAMA_CPP_METAL, "m3-max", "int8", 42.75),
    _tg128(LLAMA_CPP_METAL, "m3-max", "int4", 66.31), _pp512(LLAMA_CPP_METAL, "m3-max", 759.70),
    _tg128(LLAMA_CPP_METAL, "m4-max", "fp16", 31.64), _tg128(LLAMA_CPP_METAL, "m4-max", "int8", 54.05),
    _tg128(LLAMA_CPP_METAL, "m4-max", "int4", 83.06), _pp512(LLAMA_CPP_METAL, "m4-max", 885.68),
    # MLC LLM: tensor parallel over PCIe on two RTX 4090 (prompt and output not given: 64 and 256 assumed).
    _case(MLC, MLC_BLOG, "tpot", 1 / 34.5, "rtx-4090", "llama-2-70b", "int4", 2, 1, 64, 256, kv="fp16"),
]

CALIBRATING = [case for case in SERVING_CASES if not case.left_out]
