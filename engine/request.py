"""One request from prompt to last token: time to first token, then one decode step per token.

The prefill pass reads the prompt and produces the first output token, so
``ttft_seconds`` is the prefill time. Each of the remaining ``output - 1``
tokens costs one decode step; step j (j = 1 .. output-1) starts with
``prompt + j - 1`` tokens cached per sequence, so steps get slower as the
context grows (more KV to read, more attention to compute)::

    decode_seconds = sum over c = prompt .. prompt+output-2 of step_seconds(c)
    tpot_seconds   = decode_seconds / (output - 1)       (mean time per output token)
    total_seconds  = ttft_seconds + decode_seconds
    decode_share   = decode_seconds / total_seconds

With a single output token there is no decode step; ``tpot_seconds`` is then
the step that would come next (at context ``prompt``), so prices stay defined.

A step's compute and memory times are both linear in c, so its time (the
larger of the two, or their sum, plus constants; ``engine.efficiency``) is
piecewise linear with at most one kink where they cross (and one more where a
sliding window stops growing). The sum over the whole output is therefore
taken in closed form, exactly, in constant time;
``engine.sweep`` evaluates the same steps with numpy for plots and checks.
"""
from __future__ import annotations

import math
from dataclasses import field

from engine.efficiency import Efficiency
from engine.frozen import frozen
from engine.passes import DecodeStepWork, PassWork
from engine.roofline import bound


@frozen
class Machine:
    """The GPUs a pass runs on, and the mode's efficiencies (``engine.efficiency``)."""
    peak_flops_per_gpu: float
    bandwidth_bytes_per_second_per_gpu: float     # datasheet HBM bandwidth of each GPU
    gpus: int                                     # all GPUs of the deployment (utilisation counts them all)
    efficiency: Efficiency
    compute_precision: str = "fp16"               # whose peak ``peak_flops_per_gpu`` is
    gpu_id: str = ""                              # for the mode's measured shares on this GPU, if any
    wide_peak_flops_per_gpu: float = 0.0          # the 16-bit peak attention and the LM head run at (0: the same)
    dequantised: bool = False                     # the weights are widened before each matmul (weight-only formats)
    vector_flops_per_gpu: float = 0.0             # the plain (non-tensor) FP32 peak that widening runs at (0: none)

    # The rates the mode reaches on each GPU, worked out once (``__post_init__``):
    stack_share: float = field(init=False)                      # the stack's share on this GPU (1: all)
    matmul_flops_per_second: float = field(init=False)          # dense matmuls: peak * share * stack
    expert_flops_per_second: float = field(init=False)          # routed-expert matmuls
    wide_flops_per_second: float = field(init=False)            # attention and LM head, 16-bit
    bytes_per_second: float = field(init=False)                 # HBM: bandwidth * the GPU's share * stack
    seconds_per_widened_weight: float = field(init=False)       # widening one narrow weight (0: not dequantised)

    def __post_init__(self) -> None:
        eff = self.efficiency
        stack = eff.stack_share(self.gpu_id)
        dense = self.peak_flops_per_gpu * eff.compute_share_for(self.compute_precision) * stack
        wide = (self.wide_peak_flops_per_gpu or self.peak_flops_per_gpu) * eff.compute_share * stack
        bandwidth = self.bandwidth_bytes_per_second_per_gpu * eff.bandwidth_share_for(self.gpu_id) * stack
        vector = (self.vector_flops_per_gpu or self.wide_peak_flops_per_gpu or self.peak_flops_per_gpu) \
            * eff.compute_share * stack
        widening = eff.dequant_ops_per_weight / vector if self.dequantised else 0.0
        for name, value in (("stack_share", stack), ("matmul_flops_per_second", dense),
                            ("expert_flops_per_second", dense * eff.expert_share_for(self.compute_precision)),
                            ("wide_flops_per_second", wide), ("bytes_per_second", bandwidth),
                            ("seconds_per_widened_weight", widening)):
            object.__setattr__(self, name, value)

    def compute_seconds(self, matmul_flops, expert_flops=0.0, wide_flops=0.0, narrow_weights=0.0):
        """Time of one GPU's arithmetic, each kind at its own rate, and the widening of ``narrow_weights``
        weights stored narrower than their matmul (numpy-friendly)."""
        return (matmul_flops / self.matmul_flops_per_second + expert_flops / self.expert_flops_per_second
                + wide_flops / self.wide_flops_per_second + narrow_weights * self.seconds_per_widened_weight)

    def memory_seconds(self, bytes_per_gpu):
        """Time of one GPU's HBM traffic (numpy-friendly)."""
        return bytes_per_gpu / self.bytes_per_second

    def step_lines(self, step: DecodeStepWork) -> tuple[float, float, float, float]:
        """A decode step's compute and memory times as lines in the context c: (a0, a1, b0, b1),
        compute = a0 + a1 c, memory = b0 + b1 c (``engine.sweep`` and the closed-form sum use them)."""
        return (self.compute_seconds(step.matmul_flops_per_gpu, step.expert_flops_per_gpu,
                                     step.wide_flops_per_gpu_fixed, step.narrow_weights_per_gpu),
                self.compute_seconds(0.0, 0.0, step.wide_flops_per_gpu_per_context_token),
                self.memory_seconds(step.weight_bytes_per_gpu + step.kv_bytes_per_gpu_fixed),
                self.memory_seconds(step.kv_bytes_per_gpu_per_context_token))


@frozen
class PassTiming:
    seconds: float
    compute_seconds: float        # at the mode's compute shares
    memory_seconds: float         # at the mode's bandwidth shares
    bound: str                    # which of the two is longer
    utilisation: float            # achieved FLOP/s over peak FLOP/s of all GPUs, 0..1
    communication_seconds: float  # every level (engine.communication), at the mode's link shares and latencies


def time_pass(work: PassWork, machine: Machine) -> PassTiming:
    """How long one forward pass takes on ``machine``, and what limits it."""
    eff = machine.efficiency
    compute = machine.compute_seconds(work.matmul_flops_per_gpu, work.expert_flops_per_gpu, work.wide_flops_per_gpu,
                                      work.narrow_weights_per_gpu)
    memory = machine.memory_seconds(work.bytes_per_gpu)
    communication = eff.communication_seconds(work.transfers)
    seconds = eff.roofline_seconds(compute, memory) + communication + eff.overhead_seconds(work.layers)
    all_peaks = machine.peak_flops_per_gpu * machine.gpus
    return PassTiming(seconds=seconds, compute_seconds=compute, memory_seconds=memory,
                      bound=bound(compute, memory), utilisation=min(1.0, work.flops / (seconds * all_peaks)),
                      communication_seconds=communication)


def _sum_of_line(intercept: float, slope: float, first: int, last: int) -> float:
    """sum of intercept + slope * x for integers x = first .. last."""
    count = last - first + 1
    return count * intercept + slope * (first + last) * count / 2


def sum_of_max_of_two_lines(a0: float, a1: float, b0: float, b1: float, first: int, last: int) -> float:
    """Exact sum over integers x = first .. last of max(a0 + a1*x, b0 + b1*x)."""
    if last < first:
        return 0.0
    d_first = (a0 - b0) + (a1 - b1) * first
    d_last = (a0 - b0) + (a1 - b1) * last
    if d_first >= 0 and d_last >= 0:
        return _sum_of_line(a0, a1, first, last)
    if d_first <= 0 and d_last <= 0:
        return _sum_of_line(b0, b1, first, last)
    # One crossing inside: up to floor(crossing) the line ahead at `first` stays ahead.
    crossing = (b0 - a0) / (a1 - b1)
    split = min(max(math.floor(crossing), first), last - 1)
    early, late = ((a0, a1), (b0, b1)) if d_first > 0 else ((b0, b1), (a0, a1))
    return _sum_of_line(*early, first, split) + _sum_of_line(*late, split + 1, last)


def decode_seconds_sum(step: DecodeStepWork, machine: Machine, first_context: int, steps: int) -> float:
    """Total time of ``steps`` decode steps at contexts ``first_context`` .. ``first_context + steps - 1``.

    A sliding window bends the step's lines once, at the window (``DecodeStepWork.pieces``):
    each side is summed in closed form.
    """
    if steps <= 0:
        return 0.0
    last = first_context + steps - 1
    return sum(_line_seconds_sum(line, machine, first, end) for line, first, end in step.pieces(first_context, last))


def _line_seconds_sum(step: DecodeStepWork, machine: Machine, first_context: int, last: int) -> float:
    """``decode_seconds_sum`` of a step without a window, over contexts ``first_context .. last``."""
    steps = last - first_context + 1
    eff = machine.efficiency
    a0, a1, b0, b1 = machine.step_lines(step)
    # max + (1 - overlap) * min  ==  overlap * max + (1 - overlap) * (compute + memory)
    larger = sum_of_max_of_two_lines(a0, a1, b0, b1, first_context, last)
    both = _sum_of_line(a0 + b0, a1 + b1, first_context, last)
    fixed = eff.fixed_seconds(step.transfers, step.layers)
    return eff.overlap * larger + (1.0 - eff.overlap) * both + steps * fixed


def mean_decode_context(prompt_tokens: int, output_tokens: int) -> float:
    """Mean tokens cached per sequence over the decode steps (``prompt`` when there is none)."""
    steps = output_tokens - 1
    return prompt_tokens + (steps - 1) / 2 if steps > 0 else float(prompt_tokens)


@frozen
class RequestTimeline:
    ttft_seconds: float
    decode_seconds: float
    decode_steps: int
    tpot_seconds: float
    total_seconds: float
    decode_share: float
    mean_context_tokens: float      # mean tokens cached per sequence over the decode steps


def request_timeline(prefill: PassTiming, step: DecodeStepWork, machine: Machine,
                     prompt_tokens: int, output_tokens: int) -> RequestTimeline:
    """Time to first token, decode time, time per output token and the share spent decoding."""
    steps = output_tokens - 1
    decode = decode_seconds_sum(step, machine, prompt_tokens, steps)
    mean_context = mean_decode_context(prompt_tokens, output_tokens)
    if steps > 0:
        tpot = decode / steps
    else:
        tpot = time_pass(step.at(prompt_tokens), machine).seconds
    total = prefill.seconds + decode
    return RequestTimeline(ttft_seconds=prefill.seconds, decode_seconds=decode, decode_steps=steps,
                           tpot_seconds=tpot, total_seconds=total, decode_share=decode / total,
                           mean_context_tokens=mean_context)
