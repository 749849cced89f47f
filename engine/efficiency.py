"""The two modes: the pure roofline, and what real inference engines measurably reach.

Time of one forward pass (a prefill pass or one decode step) from its compute
time ``C = FLOPs / (g * peak)``, memory time ``M = bytes_per_gpu / bandwidth``
and all-reduce time ``A`` (``engine.parallel``)::

    C' = C / compute_share          M' = M / bandwidth_share
    t  = max(C', M') + (1 - overlap) * min(C', M')
         + A / link_share + calls * allreduce_latency + pass_overhead

``ideal``: every share 1, overlap 1, no latency, no overhead, so
``t = max(C, M) + A``; on one GPU exactly the roofline ``max(C, M)``. No real
system beats it (communication is on the critical path of tensor parallelism:
each layer waits for the previous all-reduce).

``realistic``: the factors below, chosen from published measurements and
checked in ``tests/engine/test_calibration.py`` (each within 25%; ideal must
beat every one):

    measurement (batch 1)                      measured     realistic    ideal
    Llama-2-7B BF16, A100-80GB (gpt-fast)      104.9 tok/s  115 tok/s    154 tok/s
    Llama-3.1-8B BF16, A100-80GB (gpt-fast)    93.9 tok/s   102 tok/s    136 tok/s
    Llama-3-8B FP16, RTX 4090 (calm)           61 tok/s     52 tok/s     67 tok/s
    Llama-2-7B BF16, 2 A100s (gpt-fast)        169 tok/s    170 tok/s    307 tok/s
    Llama-2-7B BF16, 4 A100s (gpt-fast)        254 tok/s    261 tok/s    614 tok/s
    Llama-2-7B BF16, 8 A100s (gpt-fast)        328 tok/s    356 tok/s    1225 tok/s
    LLaMA-7B FP16, A100, TTFT 128 tokens       16 ms        16.3 ms      6.5 ms
    LLaMA-7B FP16, A100, TTFT 2048 tokens      133 ms       136 ms       89 ms
    LLaMA-70B FP16, 4 A100s, TTFT 128 tokens   47 ms        47 ms        19 ms
    LLaMA-70B FP16, 4 A100s, TTFT 2048 tokens  377 ms       386 ms       256 ms
    (TTFT figures: TensorRT-LLM v0.5)

- ``bandwidth_share`` 0.80: memory-bound decoding reaches 70-92% of datasheet
  HBM bandwidth: gpt-fast reports 1397 GB/s for Llama-2-7B on an A100-80GB
  (68% of 2039 GB/s; power-limited to 330 W, where the authors saw ~1700 GB/s
  as the practical peak), calm reports 923 GB/s for Llama-3-8B FP16 on an RTX
  4090 (92% of 1008 GB/s; ~955 GB/s is the most any kernel, cuBLAS included,
  reached on that card). Sources: github.com/pytorch-labs/gpt-fast README,
  github.com/zeux/calm README.
- ``compute_share`` 0.70: large FP16 GEMMs reach 70-80% of dense tensor peak;
  TensorRT-LLM's first-token latency of LLaMA-7B on an A100 for 2048 input
  tokens (133 ms, about 27.6 TFLOP) implies ~66% of the 312 TFLOPS peak once the
  weights' read time is accounted for. Source: TensorRT-LLM
  docs/source/performance.md (v0.5 low-latency tables).
- ``overlap`` 0.0: compute and memory traffic are taken to *not* overlap
  (their times add). The same table gives 16 ms for 128 input tokens, where
  the pure roofline (max of 5.3 ms compute and 6.5 ms weight reading) says
  6.5 ms: near the ridge point a real pass is a chain of kernels (GEMMs,
  norms, attention, activations), each mostly waiting on one resource at a
  time, so the times add rather than hide behind each other. Far from the
  ridge (long prefill, small-batch decode) one term dominates and the sum
  differs from the max by only a few percent.
- ``pass_overhead_seconds`` 0.5 ms: a fixed cost per forward pass (kernel
  launches, sampling, scheduling); with CUDA graphs, as in gpt-fast and
  TensorRT-LLM, it is a few hundred microseconds.
- ``link_share`` 0.80 and ``allreduce_latency_seconds`` 20 µs: NCCL's all-reduce
  bus bandwidth reaches about 80% of NVLink's rate, and a small all-reduce
  costs some 10-30 µs on an NVLink node (NVIDIA nccl-tests all_reduce_perf).
  With 20 µs, gpt-fast's tensor-parallel Llama-2-7B decoding on 2, 4 and 8
  A100s (168.8, 254.0, 328.4 tok/s) and TensorRT-LLM's LLaMA-70B first-token
  latency on 4 A100s (47 ms at 128 tokens, 377 ms at 2048) come out within
  10% (also checked in the calibration test).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Efficiency:
    """How much of each peak a mode assumes is reached, and what each pass costs on top."""
    mode: str
    compute_share: float              # share of peak FLOPS reached by the matmuls
    bandwidth_share: float            # share of datasheet HBM bandwidth reached
    link_share: float                 # share of the GPU-to-GPU link's bandwidth reached
    overlap: float                    # 1: compute and memory time overlap fully (max); 0: they add
    pass_overhead_seconds: float      # fixed cost of every forward pass (prefill or decode step)
    allreduce_latency_seconds: float  # fixed cost of every all-reduce call

    def allreduce_seconds(self, link_seconds: float, allreduce_calls: int) -> float:
        """Communication of one pass: ``A / link_share + calls * allreduce_latency``."""
        return link_seconds / self.link_share + allreduce_calls * self.allreduce_latency_seconds

    def fixed_seconds(self, link_seconds: float, allreduce_calls: int) -> float:
        """The part of a pass's time that no FLOP or byte changes: communication plus the pass overhead."""
        return self.allreduce_seconds(link_seconds, allreduce_calls) + self.pass_overhead_seconds

    def roofline_seconds(self, compute_seconds, memory_seconds):
        """``max(C', M') + (1 - overlap) * min(C', M')`` of times already at the mode's shares (numpy-friendly)."""
        if isinstance(compute_seconds, np.ndarray) or isinstance(memory_seconds, np.ndarray):
            larger = np.maximum(compute_seconds, memory_seconds)
        else:
            larger = max(compute_seconds, memory_seconds)
        return larger + (1.0 - self.overlap) * (compute_seconds + memory_seconds - larger)


IDEAL = Efficiency("ideal", compute_share=1.0, bandwidth_share=1.0, link_share=1.0, overlap=1.0,
                   pass_overhead_seconds=0.0, allreduce_latency_seconds=0.0)

REALISTIC = Efficiency("realistic", compute_share=0.70, bandwidth_share=0.80, link_share=0.80, overlap=0.0,
                       pass_overhead_seconds=0.5e-3, allreduce_latency_seconds=20e-6)

EFFICIENCIES = {IDEAL.mode: IDEAL, REALISTIC.mode: REALISTIC}

