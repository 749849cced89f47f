"""The two modes: the pure roofline, and what real inference engines measurably reach.

Time of one forward pass (a prefill pass or one decode step) from its compute
time ``C = FLOPs / (g * peak)``, memory time ``M = bytes_per_gpu / bandwidth``
and all-reduce time ``A`` (``engine.parallel``)::

    C' = C_dense / (share * stack) + C_experts / (share * expert_share * stack)
    M' = M / (bandwidth_share * stack)
    t  = max(C', M') + (1 - overlap) * min(C', M')
         + A / link_share + calls * allreduce_latency + pass_overhead

where ``share`` is ``compute_share`` for 16-bit matmuls and ``narrow_compute_share``
for FP8/INT8/INT4 ones, ``C_experts`` the routed-expert matmuls of an MoE model
(``expert_share`` = ``narrow_expert_share`` at FP8/INT8/INT4, else 1) and
``stack`` the measured stack's share on that GPU (``gpu_stack_shares``, else 1).

``ideal``: every share 1, overlap 1, no latency, no overhead, so
``t = max(C, M) + A``; on one GPU exactly the roofline ``max(C, M)``. No real
system beats it (communication is on the critical path of tensor parallelism:
each layer waits for the previous all-reduce).

``realistic``: the factors below, chosen from published measurements and
checked in ``tests/engine/test_calibration.py`` (each within 25%; ideal must
beat every one), then the large-batch factors further down:

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

At large batch (``tests/engine/test_batched_calibration.py``: batches of 1 to
1,024 sequences, static and continuous, dense and MoE, four NVIDIA GPUs and
the MI300X; each within 25% of 49 calibration cases and 35% of 17 held-out
ones, ideal faster than all) the batch-1 factors alone promised up to three
times the measured throughput. The data ask for three more factors, fitted together (least
squares on the log of the ratio) on the calibration cases only:

- ``narrow_compute_share`` 0.52: FP8 matmuls reach about half of the FP8 peak,
  not the 70% that 16-bit ones reach of theirs (quantising activations, scales,
  and the attention, norms and activations that stay 16-bit do not get faster).
  TensorRT-LLM v0.9's LLaMA 7B first token after 2,048 tokens on an H100 in FP8
  (30.8 ms) is 45% of the FP8 peak; on an A100 in FP16 (132.4 ms), 67% of its.
- ``narrow_expert_share`` 0.34: Mixtral's routed experts in FP8 run at a third
  of the dense FP8 matmuls' rate (grouped GEMMs over 8 experts with uneven
  token counts, plus routing and permuting tokens): on an H200 its first token
  after 2,048 tokens on 2 GPUs takes 87.7 ms, where twice LLaMA 7B's active
  weights on twice the GPUs would take LLaMA's 30.2 ms. In FP16 (A100) the
  same stack runs experts as fast as dense layers (Mixtral within 17%), so the
  share applies to the narrow precisions only. Stacks with FP8 grouped GEMMs
  tuned for MoE (e.g. DeepSeek's DeepGEMM) can beat it.
- ``gpu_stack_shares`` MI300X 0.50: vLLM on ROCm reached half of what the
  NVIDIA stacks reach of their GPUs' datasheet rates: Llama 3.1 405B FP8 on 8
  MI300X takes 27.6 ms a token at batch 1 (50.7 GB of weights per GPU:
  1.8 TB/s, 35% of 5.3 TB/s), and from batch 1 to 256 it stays 3 to 4 times
  slower than the pure roofline, where dense models on the NVIDIA GPUs are
  1.3 to 2.7 times.
- Attention at long context needs no factor of its own in this data
  (contexts up to 4,096 tokens): fitted separately, the KV cache's bandwidth
  share came out at 0.82, the weights' 0.80.

Sources (batch, GPUs, input and output lengths as published; throughput of a
static batch = batch x output / the batch's whole time, prefill included):

- TensorRT-LLM v0.9.0, docs/source/performance.md (github.com/NVIDIA/TensorRT-LLM,
  tag v0.9.0), "Peak Throughput": gptSessionBenchmark, FP8 weights and FP8 KV
  cache on H200, H100 SXM and L40S, FP16 on A100 80GB; output tokens/s per GPU
  for LLaMA 7B and 70B (Llama 2's shapes) and Mixtral 8x7B, TP 1 to 8, batch 16
  to 1,024, 128 or 2,048 tokens in and out. Calibration, except four rows
  held out (one per GPU).
- TensorRT-LLM, the same file as updated for v0.6.1: H100 FP8, LLaMA 7B and 70B.
  Held out. Its two LLaMA 70B rows with 2,048 output tokens (1.8 times slower
  than v0.9 on the same GPUs; v0.9 notes that it enabled its grouped-query
  attention kernels, XQA, for these benchmarks) are left out.
- Oracle Cloud, "Serving Llama 3.1 405B model with AMD Instinct MI300X
  Accelerators", 10 Oct 2024 (blogs.oracle.com/cloud-infrastructure/post/
  serving-llama-31-405b-model-with-amd-mi300x-gpus): vLLM
  benchmarks/benchmark_latency.py on 8 MI300X, Llama 3.1 405B FP8, 128 tokens
  in and 128 out, average latency of a batch of 1 to 256 (KV cache taken as
  16-bit; an FP8 one would change the batch of 256 by under 1%). Batches 1, 8,
  32, 64, 128, 256 calibrate; 2, 4, 16 are held out.
- SemiAnalysis InferenceX, github.com/SemiAnalysisAI/InferenceX issue 870
  (March 2026): DeepSeek-R1-0528 (DeepSeek-V3's shapes) FP8 on 8 H200, SGLang
  v0.5.7, TP 8, 1,024 tokens in and out, 8 to 64 concurrent requests: mean
  time per output token 12.8, 17.2, 25.6, 34.6 ms. Held out; compared with a
  step of that many sequences plus the share of other requests' prefills that
  interrupts it. The realistic mode comes out 17-29% short (9.1 to 28.8 ms):
  a few milliseconds per step that this model leaves out, probably the
  routing of 256 small experts in each of 58 layers. A fixed cost per MoE
  layer that closes the gap (about 30 µs) would make the TensorRT-LLM
  Mixtral rows too slow, so none is assumed.
- Left out: v0.9's A100 Mixtral batch 32, 2,048 in and out (801 tokens/s per
  GPU): reading Mixtral's 93 GB of FP16 weights once per step at the A100's
  full 2.04 TB/s allows at most 584, so the row cannot be what its labels say.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


NARROW_PRECISIONS = ("fp8", "int8", "int4", "fp4")   # matmuls at these peaks use the ``narrow_`` shares


@dataclass(frozen=True)
class Efficiency:
    """How much of each peak a mode assumes is reached, and what each pass costs on top."""
    mode: str
    compute_share: float              # share of the 16/32-bit peak FLOPS reached by dense matmuls
    bandwidth_share: float            # share of datasheet HBM bandwidth reached (GPUs without a measured one)
    link_share: float                 # share of the node's GPU-to-GPU link (NVLink-class) reached
    overlap: float                    # 1: compute and memory time overlap fully (max); 0: they add
    pass_overhead_seconds: float      # fixed cost of every forward pass (prefill or decode step)
    allreduce_latency_seconds: float  # fixed cost of every message on the node's GPU link
    narrow_compute_share: float = 1.0         # share of the FP8/INT8/INT4/FP4 peak reached by dense matmuls
    narrow_expert_share: float = 1.0          # routed experts at FP8/INT8/INT4/FP4 reach this fraction of that rate
    gpu_stack_shares: tuple[tuple[str, float], ...] = ()   # (gpu id, share): a stack that reaches less of that GPU
    gpu_bandwidth_shares: tuple[tuple[str, float], ...] = ()   # (gpu id, measured share of its bandwidth)
    layer_overhead_seconds: float = 0.0       # fixed cost of every layer of a pass (kernel launches and gaps)
    dequant_ops_per_weight: float = 0.0       # ALU operations to widen one narrow weight before its matmul
    pcie_link_share: float = 1.0              # share of PCIe reached by GPU-to-GPU traffic
    pcie_latency_seconds: float = 0.0         # fixed cost of every message over PCIe
    network_link_share: float = 1.0           # share of the scale-out network reached
    network_latency_seconds: float = 0.0      # fixed cost of every message over the network (a hand-over)
    network_allreduce_latency_seconds: float = 0.0   # fixed cost of every all-reduce whose ring crosses nodes

    def compute_share_for(self, compute_precision: str) -> float:
        """Share of peak the dense matmuls reach at ``compute_precision`` (the peak actually used)."""
        return self.narrow_compute_share if compute_precision in NARROW_PRECISIONS else self.compute_share

    def expert_share_for(self, compute_precision: str) -> float:
        """Routed-expert matmuls' rate as a fraction of the dense matmuls' (16-bit experts: 1)."""
        return self.narrow_expert_share if compute_precision in NARROW_PRECISIONS else 1.0

    def stack_share(self, gpu_id: str) -> float:
        """How much of this mode's rates the measured software stack reaches on ``gpu_id`` (1: all of it)."""
        return dict(self.gpu_stack_shares).get(gpu_id, 1.0)

    def bandwidth_share_for(self, gpu_id: str) -> float:
        """Share of ``gpu_id``'s datasheet bandwidth reached: its measured one, else ``bandwidth_share``."""
        return dict(self.gpu_bandwidth_shares).get(gpu_id, self.bandwidth_share)

    def _link(self, link: str, level: str) -> tuple[float, float]:
        """(share of its bandwidth, seconds per message) of one kind of link (``engine.communication.LINKS``)."""
        if link == "network":
            latency = self.network_allreduce_latency_seconds if level == "tensor" else self.network_latency_seconds
            return self.network_link_share, latency
        if link == "pcie":
            return self.pcie_link_share, self.pcie_latency_seconds
        return self.link_share, self.allreduce_latency_seconds

    def transfer_seconds(self, transfer) -> float:
        """One level's communication in seconds: ``link_seconds / share + calls * latency`` of its link."""
        share, latency = self._link(transfer.link, transfer.level)
        return transfer.link_seconds / share + transfer.calls * latency

    def communication_seconds(self, transfers) -> float:
        """All levels of one pass's communication, in seconds (they follow each other on the token's path)."""
        return sum(self.transfer_seconds(t) for t in transfers)

    def fixed_seconds(self, transfers, layers: int) -> float:
        """The part of a pass's time that no FLOP or byte changes: communication and the per-pass and per-layer costs."""
        return (self.communication_seconds(transfers) + self.pass_overhead_seconds
                + layers * self.layer_overhead_seconds)

    def roofline_seconds(self, compute_seconds, memory_seconds):
        """``max(C', M') + (1 - overlap) * min(C', M')`` of times already at the mode's shares (numpy-friendly)."""
        if isinstance(compute_seconds, np.ndarray) or isinstance(memory_seconds, np.ndarray):
            larger = np.maximum(compute_seconds, memory_seconds)
        else:
            larger = max(compute_seconds, memory_seconds)
        return larger + (1.0 - self.overlap) * (compute_seconds + memory_seconds - larger)


# Read bandwidth that a streaming benchmark reaches on each GPU, as a share of its datasheet figure
# (module docstring: the sources). Serving kernels reach KERNEL_BANDWIDTH_SHARE of it.
MEASURED_READ_SHARES = {"h100-sxm": 0.95, "h800": 0.95, "h200": 0.93, "h100-pcie": 0.97, "a100-80gb": 0.86,
                        "a800": 0.86, "a100-40gb": 0.96, "l40s": 0.98, "mi300x": 0.73, "rtx-4090": 0.95}
TYPICAL_READ_SHARE = 0.95            # for a GPU without a published measurement: the median of those above
KERNEL_BANDWIDTH_SHARE = 0.93

IDEAL = Efficiency("ideal", compute_share=1.0, bandwidth_share=1.0, link_share=1.0, overlap=1.0,
                   pass_overhead_seconds=0.0, allreduce_latency_seconds=0.0)

REALISTIC = Efficiency(
    "realistic", compute_share=0.75, bandwidth_share=KERNEL_BANDWIDTH_SHARE * TYPICAL_READ_SHARE,
    link_share=0.80, overlap=0.0, pass_overhead_seconds=0.5e-3, allreduce_latency_seconds=14e-6,
    narrow_compute_share=0.51, narrow_expert_share=0.32, gpu_stack_shares=(("mi300x", 0.62),),
    gpu_bandwidth_shares=tuple((gpu, KERNEL_BANDWIDTH_SHARE * share) for gpu, share in MEASURED_READ_SHARES.items()),
    layer_overhead_seconds=35e-6, dequant_ops_per_weight=0.8,
    pcie_link_share=0.80, pcie_latency_seconds=30e-6,
    network_link_share=0.94, network_latency_seconds=20e-6, network_allreduce_latency_seconds=160e-6)

EFFICIENCIES = {IDEAL.mode: IDEAL, REALISTIC.mode: REALISTIC}
