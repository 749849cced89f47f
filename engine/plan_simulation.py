"""A discrete-event simulation of one replica serving a stream of requests with continuous batching.

Requests arrive (``Workload``), wait in one first-come-first-served queue, are
prefilled, then decode in one shared batch, one token per step each, and
leave when their last token is out (iteration-level scheduling: Orca; the
batch is bounded by the KV cache that fits, as in vLLM). Every time comes from
the engine through ``engine.plan_costs.ReplicaCosts``. Three kinds of replica:

- ``"colocated"``: the replica prefills and decodes. Whenever requests wait and
  their KV cache fits, the next step is one prefill pass over as many of them
  (in order) as fit in ``PREFILL_TOKENS_PER_PASS`` tokens (a longer prompt goes
  alone), and the batch's decoding pauses for it: prefill first and whole
  prompts, as vLLM's original scheduler did and as DistServe measured it.
  Chunked prefill (Sarathi-Serve, vLLM V1) would spread a long prompt over
  several steps and shorten these pauses, so this replica is on the cautious
  side for the time per token.
- ``"prefill"``: a prefill-only replica of a disaggregated fleet: prefill passes
  as above, nothing else; a request is done at its first token.
- ``"decode"``: a decode-only replica: a request arrives with its first token
  already out, waits for its KV cache to cross the link
  (``kv_transfer_seconds``) and for room, and joins the batch at the next step.

Admission holds a request's whole KV cache until its end (``kv_tokens_held``: the
pages of all its tokens under paged allocation, the cached prefix's pages once, or
its reservation), so no request is ever preempted, and is in arrival order: a
request that does not fit blocks the ones behind it.

The loop jumps from event to event (an arrival that can be admitted, a
request's last token, a prefill pass), not from step to step: between events
the batch is fixed, its context grows by one token per sequence per step, and
the time of k steps is the sum of a line (``DecodeLines``), taken in closed
form. The work is about three events per request whatever the lengths.

Measured: each request's time to first token (arrival to first token) and
time per output token ((last token - first token) / (output - 1), requests of
more than one output token). The first ``WARM_UP`` share of the requests (the
replica starts empty) and the last ``COOL_DOWN`` share (arrivals stop, the batch
drains) are simulated but not measured.
"""
from __future__ import annotations

import heapq
import math
from collections import deque

import numpy as np

from engine.frozen import frozen
from engine.plan_costs import PREFILL_TOKENS_PER_PASS, ReplicaCosts

WARM_UP = 0.15
COOL_DOWN = 0.15
KINDS = ("colocated", "prefill", "decode")


@frozen
class Workload:
    """Requests at one request per second (arrival times scale as 1 / rate), with their lengths."""
    unit_arrival_seconds: np.ndarray   # Poisson arrivals at a rate of 1 per second, increasing
    prompt_tokens: np.ndarray          # int64
    output_tokens: np.ndarray          # int64

    def __len__(self) -> int:
        return len(self.prompt_tokens)

    @property
    def measured(self) -> slice:
        n = len(self)
        return slice(int(n * WARM_UP), max(int(n * WARM_UP) + 1, n - int(n * COOL_DOWN)))


def sample_workload(prompt_tokens: int, output_tokens: int, *, requests: int, seed: int,
                    prompt_spread: float = 0.0, output_spread: float = 0.0,
                    max_context_tokens: int | None = None) -> Workload:
    """``requests`` Poisson arrivals and lengths drawn for ``seed``, the same for every rate.

    A spread is a coefficient of variation (standard deviation / mean): 0 gives every request
    the mean; otherwise lengths are log-normal with that mean and spread (long-tailed, as
    measured chat prompts and answers are), rounded, at least 1, and cut so that prompt plus
    output stays within ``max_context_tokens``.
    """
    rng = np.random.default_rng(seed)
    arrivals = np.cumsum(rng.exponential(1.0, requests))

    def lengths(mean: int, spread: float) -> np.ndarray:
        if spread <= 0:
            return np.full(requests, mean, dtype=np.int64)
        sigma2 = math.log1p(spread * spread)
        drawn = rng.lognormal(math.log(mean) - sigma2 / 2, math.sqrt(sigma2), requests)
        return np.maximum(1, np.rint(drawn)).astype(np.int64)

    prompts, outputs = lengths(prompt_tokens, prompt_spread), lengths(output_tokens, output_spread)
    if max_context_tokens:
        prompts = np.minimum(prompts, max_context_tokens - 1)
        outputs = np.minimum(outputs, max_context_tokens - prompts)
    return Workload(arrivals, prompts, outputs)


@frozen
class ReplicaRun:
    """What one replica did with a workload at one rate (measured requests only, except the busy times)."""
    rate_per_second: float
    ttft_seconds: np.ndarray
    tpot_seconds: np.ndarray          # requests with more than one output token
    mean_batch: float                 # sequences in the decode batch, averaged over the measured time
    prefill_busy_seconds: float       # whole run
    decode_busy_seconds: float        # whole run
    room_waits: int                   # measured requests that waited for KV room or a place in the batch
    completions_per_second: float     # measured requests over the time between the first and last of them ending
    peak_kv_tokens: int = 0           # the most KV tokens held at once (never above ``kv_token_capacity``)

    def ttft_percentile(self, percent: float = 90.0) -> float:
        return float(np.percentile(self.ttft_seconds, percent)) if len(self.ttft_seconds) else 0.0

    def tpot_percentile(self, percent: float = 90.0) -> float:
        return float(np.percentile(self.tpot_seconds, percent)) if len(self.tpot_seconds) else 0.0


def simulate_replica(costs: ReplicaCosts, workload: Workload, rate_per_second: float,
                     kind: str = "colocated") -> ReplicaRun:
    """Run one replica of ``kind`` (one of ``KINDS``, module docstring) on ``workload`` at ``rate_per_second``."""
    if kind not in KINDS:
        raise ValueError(f"a replica is one of {KINDS}, not {kind!r}")
    prefills, decodes = kind != "decode", kind != "prefill"
    arrival = (workload.unit_arrival_seconds / rate_per_second).tolist()
    prompt = workload.prompt_tokens.tolist()
    output = workload.output_tokens.tolist()
    n = len(prompt)
    ready, order = arrival, range(n)
    if kind == "decode":                # a request can join once its KV cache has crossed the link
        ready = (np.asarray(arrival) + costs.kv_transfer_seconds(workload.prompt_tokens)).tolist()
        order = sorted(order, key=ready.__getitem__)
    held = [costs.kv_tokens_held(p, o) for p, o in zip(prompt, output)] if decodes else [0] * n
    capacity, limit = (costs.kv_token_capacity, costs.batch_limit) if decodes else (math.inf, math.inf)
    lines = _Lines(costs)
    low, low_slope, high, high_slope = lines.low, lines.low_slope, lines.high, lines.high_slope
    prefill_seconds = costs.prefill_seconds

    measured = workload.measured
    window_start, window_end = arrival[measured.start], arrival[measured.stop - 1]
    first = [0.0] * n
    last = [0.0] * n
    waited = [False] * n
    clock = batch_seconds = prefill_busy = decode_busy = 0.0
    step = batch = context = reserved = peak = done = taken = 0
    finishing: list[tuple[int, int]] = []           # (global step of the request's last token, request)
    waiting: deque[int] = deque()

    # The loop below is the hot path of every plan: plain locals, no calls it can do without.
    while done < n:
        while taken < n and ready[order[taken]] <= clock:
            waiting.append(order[taken])
            taken += 1
        # an empty replica takes any request, so the queue always moves
        if waiting and batch < limit and (reserved == 0 or reserved + held[waiting[0]] <= capacity):
            group, tokens = [], 0
            while (waiting and batch + len(group) < limit and (reserved == 0 or reserved + held[waiting[0]] <= capacity)
                   and (not prefills or not group or tokens + prompt[waiting[0]] <= PREFILL_TOKENS_PER_PASS)):
                i = waiting.popleft()
                group.append(i)
                tokens += prompt[i]
                reserved += held[i]
            peak = max(peak, reserved)
            if prefills:
                seconds = prefill_seconds(len(group), round(tokens / len(group)))
                if batch and clock < window_end and clock + seconds > window_start:
                    batch_seconds += batch * (min(clock + seconds, window_end) - max(clock, window_start))
                clock += seconds
                prefill_busy += seconds
            for i in group:
                first[i] = clock if prefills else arrival[i]
                if decodes and output[i] > 1:
                    batch += 1
                    context += prompt[i]
                    heapq.heappush(finishing, (step + output[i] - 1, i))
                else:
                    last[i] = clock
                    reserved -= held[i]
                    done += 1
            continue
        if waiting:
            waited[waiting[0]] = True
        if batch == 0:                  # idle until the next request is ready
            clock = max(clock, ready[order[taken]])
            continue
        if batch >= len(low):
            low, low_slope, high, high_slope = lines.grow(batch)
        # The step is the larger of two lines in the context (DecodeLines); run on the one ahead now,
        # and stop where the other overtakes it, at the batch's next last token, or where the next
        # request that can join arrives.
        steps = finishing[0][0] - step
        a0, a1, b0, b1 = low[batch], low_slope[batch], high[batch], high_slope[batch]
        if a0 + a1 * context < b0 + b1 * context:
            a0, a1, b0, b1 = b0, b1, a0, a1
        if a1 < b1:
            crossing = math.ceil(((a0 - b0) / (b1 - a1) - context) / batch)
            if crossing < steps:
                steps = max(1, crossing)
        first_step, growth = a0 + a1 * context, a1 * batch
        if not waiting and taken < n and batch < limit and (reserved == 0 or
                                                            reserved + held[order[taken]] <= capacity):
            steps = min(steps, _steps_to_cover(ready[order[taken]] - clock, first_step, growth))
        seconds = steps * first_step + growth * steps * (steps - 1) / 2
        if clock < window_end and clock + seconds > window_start:
            batch_seconds += batch * (min(clock + seconds, window_end) - max(clock, window_start))
        clock += seconds
        decode_busy += seconds
        context += batch * steps
        step += steps
        while finishing and finishing[0][0] <= step:
            _, i = heapq.heappop(finishing)
            last[i] = clock
            batch -= 1
            context -= prompt[i] + output[i] - 1
            reserved -= held[i]
            done += 1

    first_m, last_m = np.asarray(first)[measured], np.asarray(last)[measured]
    out = workload.output_tokens[measured]
    decoding = (out > 1) & decodes
    span = window_end - window_start
    ends = last_m.max() - last_m.min()
    return ReplicaRun(rate_per_second=rate_per_second, ttft_seconds=first_m - np.asarray(arrival)[measured],
                      tpot_seconds=(last_m[decoding] - first_m[decoding]) / (out[decoding] - 1),
                      mean_batch=batch_seconds / span if span > 0 else 0.0,
                      prefill_busy_seconds=prefill_busy, decode_busy_seconds=decode_busy,
                      room_waits=int(sum(waited[measured])),
                      completions_per_second=(len(last_m) - 1) / ends if ends > 0 else math.inf,
                      peak_kv_tokens=peak)


class _Lines:
    """The replica's ``DecodeLines`` as plain lists (fast to index), grown when the batch outgrows them."""

    def __init__(self, costs: ReplicaCosts):
        self._costs = costs
        self.grow(1)

    def grow(self, batch: int) -> tuple[list, list, list, list]:
        lines = self._costs.decode_lines(batch)
        self.low, self.low_slope, self.high, self.high_slope = (
            a.tolist() for a in (lines.low, lines.low_slope, lines.high, lines.high_slope))
        return self.low, self.low_slope, self.high, self.high_slope


def _steps_to_cover(seconds: float, first_step: float, growth: float) -> int:
    """The fewest steps (at least 1) whose summed time ``k * first + growth * k(k-1)/2`` reaches ``seconds``."""
    if seconds <= first_step:
        return 1
    if growth <= 0:
        return math.ceil(seconds / first_step)
    b = first_step - growth / 2
    return max(1, math.ceil((-b + math.sqrt(b * b + 2 * growth * seconds)) / growth))
