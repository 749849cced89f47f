"""The two modes: the pure roofline, and what widely used serving stacks measurably reach.

What "realistic" means, in words a presenter can say: realistic is what you get from
the serving software people actually run (vLLM, SGLang, TensorRT-LLM, llama.cpp)
on that GPU today. Its kernels stream weights at nine-tenths of the memory bandwidth
the chip really delivers and reach three quarters of its 16-bit arithmetic peak, half
of its FP8 peak; every step also pays the software's own time, about half a
millisecond plus 35 microseconds per layer for launching and finishing small kernels;
and every message between GPUs pays a delay of its own: some 14 microseconds over
NVLink, 30 over PCIe, and 160 for an all-reduce that must cross the network to
another server. Those fixed costs are why a small model on a fast GPU, or a big model
split over many GPUs, runs far below the roofline.

Time of one forward pass (a prefill pass or one decode step) on the GPUs of its path
(``engine.passes``), from its compute time ``C``, memory time ``M`` and communication
``A`` (``engine.communication``, level by level)::

    C' = matmul FLOPs / (peak * share * stack) + expert FLOPs / (... * expert_share)
         + 16-bit FLOPs (attention, LM head) / (16-bit peak * compute_share * stack)
         + narrow weights * dequant_ops_per_weight / (FP32 peak * compute_share * stack)
    M' = HBM bytes / (bandwidth * the GPU's bandwidth share * stack)
    t  = max(C', M') + (1 - overlap) * min(C', M')
         + sum over levels (link seconds / link share + messages * latency)
         + pass_overhead + layers * layer_overhead

``share`` is ``compute_share`` for 16/32-bit matmuls and ``narrow_compute_share`` for
FP8/INT8/INT4/FP4 ones, ``expert_share`` = ``narrow_expert_share`` for routed experts at
those precisions, ``stack`` the stack's share on that GPU (``gpu_stack_shares``, else 1).

``ideal``: every share 1, overlap 1, no latency, no overhead, no widening, so
``t = max(C, M) + A``; on one GPU exactly the roofline (attention and the LM head at
the 16-bit peak, where they run whatever the weights). No real system beats it.

``realistic``: fitted together (least squares on the log of predicted over measured)
on three sets, each case within 25% and ideal faster than every one:
``tests/engine/test_calibration.py`` (batch 1: gpt-fast, calm, TensorRT-LLM v0.5 first
tokens), ``test_batched_calibration.py`` (49 static batches of 1 to 1,024 sequences,
TensorRT-LLM v0.9 and vLLM on MI300X, and 17 held-out ones within 35%) and
``test_serving_calibration.py`` with ``serving_cases.py``: 35 measurements of vLLM,
SGLang, TensorRT-LLM (and NIM), llama.cpp, LMDeploy and MLC LLM on 11 GPUs (H800, H100,
H200, B200, A100 40 and 80 GB, L40S, RTX 4090 and 5090, M3 Max, M4 Max), batch 1 to 384,
one GPU to two 8-GPU nodes. Median error 7%, worst 24% (llama.cpp on an RTX 5090, whose
per-layer cost is lower than the serving stacks'). The factors:

- ``bandwidth_share`` per GPU = 0.93 of the read bandwidth a streaming benchmark
  measures on it (``MEASURED_READ_SHARES``): H100 SXM 0.95, H200 0.93, MI300X 0.73,
  A100 80GB 0.86 (Azure AI-benchmarking-guide, BabelStream Dot, one GPU of an ND v5/v4
  VM; github.com/Azure/AI-benchmarking-guide, Azure_Results); A100 40GB 0.96, H100
  PCIe 0.97, L40 (the L40S's memory) 0.98 (te42kyfo/gpu-benches, gpu-stream read);
  RTX 4090 0.95 (calm README: about 955 of 1,008 GB/s is the most any kernel reached);
  H800 and A800 as the H100 SXM and A100 80GB whose memory they share. Other GPUs:
  0.88 of the datasheet (0.93 of the median measured share, 0.95).
- ``compute_share`` 0.75, ``narrow_compute_share`` 0.51, ``narrow_expert_share`` 0.32:
  as before (large 16-bit GEMMs reach 70-80% of peak, FP8 ones about half, FP8 routed
  experts a third of that: grouped GEMMs over uneven tokens, routing, permuting);
  refitted with the new sets, each moved by under 10%.
- ``pass_overhead_seconds`` 0.5 ms and ``layer_overhead_seconds`` 35 µs: the
  per-step framework cost. Fitted alone, the data put it on the layers (a 32-layer
  8B model pays 1.6 ms a step, an 80-layer 70B 3.3 ms): each layer runs a dozen
  kernels, and the small ones (norms, rotary embedding, activations, residual adds)
  cost a few microseconds each whatever their size, CUDA graphs or not. vLLM's own
  profile of v0.5.3 (vLLM blog, 2024-09-05) found 62% of the time outside the GPU;
  v0.6 removed most of it, so vLLM 0.4 batch-1 numbers sit at the slow edge.
- ``allreduce_latency_seconds`` 14 µs on NVLink: the serving stacks' one-shot custom
  all-reduces take 4-13 µs for a decode step's message (vLLM PRs #24532 and #24111,
  SGLang PR #2904), stock NCCL 21-30 µs (Azure nccl-tests tables); ``link_share`` 0.80.
- ``pcie_latency_seconds`` 30 µs, ``pcie_link_share`` 0.80: cards without peer-to-peer
  access (RTX 4090 and 5090) cannot run the custom all-reduce (sgl-project/sglang issue
  #4814) and fall back to NCCL through host memory: 26-27 µs for a small all-reduce of
  2 GPUs behind one PCIe switch (ROCm/rccl issue #362), 42 µs over 8 RTX 4090
  (NVIDIA/nccl issue #1530). MLC LLM's 34.5 tok/s for Llama 2 70B in 4 bits on two RTX
  4090 then comes out within 8%.
- ``network_link_share`` 0.94: NDR InfiniBand delivers 46-48 GB/s of a NIC's 50
  (NVIDIA, nccl-tests issue #290). ``network_latency_seconds`` 20 µs per message
  between nodes (a pipeline hand-over; nccl-tests issue #150: 19-20 µs for an 8-byte
  all-reduce of two GPUs on two HDR nodes). ``network_allreduce_latency_seconds``
  160 µs for an all-reduce whose ring spans nodes, fitted on SGLang's DeepSeek-R1 with
  TP16 over two H100 nodes (23.1 and 24.0 ms a token at batch 1; tenstorrent/
  tt-inference-server issue #356): 122 of them in every step, where a single node's
  eight GPUs do the same in 12.8 ms at batch 8 (the held-out InferenceX rows).
- ``dequant_ops_per_weight`` 0.8: weights stored narrower than the unit that multiplies
  them (INT4 on FP16 tensor cores, FP8 on an A100) are widened on the way, a few
  integer and float operations each; fitted, less than one of them per weight stays
  on the path, the rest hides behind the loads. What measurably shrinks a 4-bit
  model's speed-up is the rest: 4.5 bits, not 4, with their group scales
  (``resources/catalog/precisions.toml``), the embedding and LM head kept in 16 bits
  (``engine.deployment``), and the per-layer cost, which no format shrinks
  (llama.cpp's Q4_0 runs 2.6 times F16's speed on an M3 Max for 3.5 times fewer bytes).
- ``gpu_stack_shares`` MI300X 0.62: vLLM on ROCm reached about 60% of what the NVIDIA
  stacks reach of their GPUs' rates (Oracle's Llama 3.1 405B rows), on top of the
  MI300X's lower measured bandwidth share.
- Long-context attention needs no factor of its own: KV reads were fitted separately
  and came out at the weights' rate (within 4%), from contexts of 2,048 tokens at
  batch 64 to 8,192 at batch 1 (SGLang's DeepSeek-R1 grows 4%, as predicted). What
  makes batch-1 decoding slow at long context is the KV cache's bytes, 128 KiB a token
  for Llama 3.1 8B, which the engine counts.

Left out, each still bounding the ideal mode (``serving_cases.py`` says why): vLLM
0.4.2 at a 200,000-token context (its kernel read each KV head once per query head,
four times at Llama 3's grouping), vLLM's first token on four B200 (one Blackwell
point), TensorRT-LLM v0.5's FP8 first token of 128 tokens on four H100 (its FP8 rows
at 2,048 tokens fit), and llama.cpp's CUDA prompt speed (INT8 tensor-core kernels the
catalogue's INT4 does not model). The older sets' sources are in their test modules;
before this fit every stack was taken to run at the CUDA-graph speed of gpt-fast and
TensorRT-LLM, 0.5 ms a step: its batch-1 cases still land within 25%, now on the slow
side (gpt-fast's Llama 2 7B on 8 A100s: 14% slower than measured).
"""
from __future__ import annotations

from functools import cached_property

from engine.arrays import numpy_of
from engine.frozen import frozen


NARROW_PRECISIONS = ("fp8", "int8", "int4", "fp4")   # matmuls at these peaks use the ``narrow_`` shares


@frozen
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
        return self._shares[0].get(gpu_id, 1.0)

    def bandwidth_share_for(self, gpu_id: str) -> float:
        """Share of ``gpu_id``'s datasheet bandwidth reached: its measured one, else ``bandwidth_share``."""
        return self._shares[1].get(gpu_id, self.bandwidth_share)

    @cached_property
    def _shares(self) -> tuple[dict[str, float], dict[str, float]]:
        return dict(self.gpu_stack_shares), dict(self.gpu_bandwidth_shares)

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
        total = 0.0
        for transfer in transfers:
            total += self.transfer_seconds(transfer)
        return total

    def overhead_seconds(self, layers: int) -> float:
        """The framework's cost of one pass: per pass, and per layer on its path."""
        return self.pass_overhead_seconds + layers * self.layer_overhead_seconds

    def fixed_seconds(self, transfers, layers: int) -> float:
        """The part of a pass's time that no FLOP or byte changes: communication and the framework's cost."""
        return self.communication_seconds(transfers) + self.overhead_seconds(layers)

    def roofline_seconds(self, compute_seconds, memory_seconds):
        """``max(C', M') + (1 - overlap) * min(C', M')`` of times already at the mode's shares (numpy-friendly)."""
        np = numpy_of(compute_seconds, memory_seconds)
        if np is not None:
            larger = np.maximum(compute_seconds, memory_seconds)
        else:
            larger = max(compute_seconds, memory_seconds)
        return larger + (1.0 - self.overlap) * (compute_seconds + memory_seconds - larger)


# Read bandwidth that a streaming benchmark reaches on each GPU, as a share of its datasheet figure
# (module docstring: the sources). Serving kernels reach KERNEL_BANDWIDTH_SHARE of it.
MEASURED_READ_SHARES = {"h100-sxm": 0.95, "h800": 0.95, "h200": 0.93, "h100-pcie": 0.97, "a100-80gb": 0.86,
                        "a800": 0.86, "a100-40gb": 0.96, "l40s": 0.98, "mi300x": 0.73, "rtx-4090": 0.95}
KERNEL_BANDWIDTH_SHARE = 0.93
# A GPU without a published measurement: the median of those above (0.95) times the kernels' share, rounded.
TYPICAL_BANDWIDTH_SHARE = 0.88

IDEAL = Efficiency("ideal", compute_share=1.0, bandwidth_share=1.0, link_share=1.0, overlap=1.0,
                   pass_overhead_seconds=0.0, allreduce_latency_seconds=0.0)

REALISTIC = Efficiency(
    "realistic", compute_share=0.75, bandwidth_share=TYPICAL_BANDWIDTH_SHARE,
    link_share=0.80, overlap=0.0, pass_overhead_seconds=0.5e-3, allreduce_latency_seconds=14e-6,
    narrow_compute_share=0.51, narrow_expert_share=0.32, gpu_stack_shares=(("mi300x", 0.62),),
    gpu_bandwidth_shares=tuple((gpu, KERNEL_BANDWIDTH_SHARE * share) for gpu, share in MEASURED_READ_SHARES.items()),
    layer_overhead_seconds=35e-6, dequant_ops_per_weight=0.8,
    pcie_link_share=0.80, pcie_latency_seconds=30e-6,
    network_link_share=0.94, network_latency_seconds=20e-6, network_allreduce_latency_seconds=160e-6)

EFFICIENCIES = {IDEAL.mode: IDEAL, REALISTIC.mode: REALISTIC}
