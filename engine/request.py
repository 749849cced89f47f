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
piecewise linear with at most one kink where they cross. The sum over the
whole output is therefore taken in closed form, exactly, in constant time;
``engine.sweep`` evaluates the same steps with numpy for plots and checks.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from engine.efficiency import Efficiency
from engine.passes import DecodeStepWork, PassWork
from engine.roofline import bound


@dataclass(frozen=True)
class Machine:
    """The GPUs a pass runs on, and the mode's efficiencies."""
    peak_flops_per_gpu: float
    bandwidth_bytes_per_second: float
    gpus: int
    efficiency: Efficiency

    @property
    def compute_flops_per_second(self) -> float:
        """FLOP/s the mode reaches on all GPUs together: ``gpus * peak * compute_share``."""
        return self.peak_flops_per_gpu * self.gpus * self.efficiency.compute_share

    @property
    def memory_bytes_per_second(self) -> float:
        """HBM bytes/s the mode reaches on each GPU: ``bandwidth * bandwidth_share``."""
        return self.bandwidth_bytes_per_second * self.efficiency.bandwidth_share


@dataclass(frozen=True)
class PassTiming:
    seconds: float
    compute_seconds: float      # at the mode's compute share
    memory_seconds: float       # at the mode's bandwidth share
    bound: str                  # which of the two is longer
    utilisation: float          # achieved FLOP/s over peak FLOP/s of all GPUs, 0..1
    allreduce_seconds: float    # communication, at the mode's link share and latency


def time_pass(work: PassWork, machine: Machine) -> PassTiming:
    """How long one forward pass takes on ``machine``, and what limits it."""
    eff = machine.efficiency
    compute = work.flops / machine.compute_flops_per_second
    memory = work.bytes_per_gpu / machine.memory_bytes_per_second
    seconds = eff.roofline_seconds(compute, memory) + eff.fixed_seconds(work.link_seconds, work.allreduce_calls)
    all_peaks = machine.peak_flops_per_gpu * machine.gpus
    return PassTiming(seconds=seconds, compute_seconds=compute, memory_seconds=memory,
                      bound=bound(compute, memory), utilisation=min(1.0, work.flops / (seconds * all_peaks)),
                      allreduce_seconds=eff.allreduce_seconds(work.link_seconds, work.allreduce_calls))


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
    """Total time of ``steps`` decode steps at contexts ``first_context`` .. ``first_context + steps - 1``."""
    if steps <= 0:
        return 0.0
    eff = machine.efficiency
    compute_rate, memory_rate = machine.compute_flops_per_second, machine.memory_bytes_per_second
    a0, a1 = step.flops_fixed / compute_rate, step.flops_per_context_token / compute_rate
    b0, b1 = step.bytes_per_gpu_fixed / memory_rate, step.bytes_per_gpu_per_context_token / memory_rate
    last = first_context + steps - 1
    # max + (1 - overlap) * min  ==  overlap * max + (1 - overlap) * (compute + memory)
    larger = sum_of_max_of_two_lines(a0, a1, b0, b1, first_context, last)
    both = _sum_of_line(a0 + b0, a1 + b1, first_context, last)
    fixed = eff.fixed_seconds(step.link_seconds, step.allreduce_calls)
    return eff.overlap * larger + (1.0 - eff.overlap) * both + steps * fixed


@dataclass(frozen=True)
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
    if steps > 0:
        tpot = decode / steps
        mean_context = prompt_tokens + (steps - 1) / 2
    else:
        tpot = time_pass(step.at(prompt_tokens), machine).seconds
        mean_context = float(prompt_tokens)
    total = prefill.seconds + decode
    return RequestTimeline(ttft_seconds=prefill.seconds, decode_seconds=decode, decode_steps=steps,
                           tpot_seconds=tpot, total_seconds=total, decode_share=decode / total,
                           mean_context_tokens=mean_context)
