"""Speculative decoding: a cheap drafter guesses k tokens, the target checks them all in one pass.

Each pass, per sequence (Leviathan et al., "Fast Inference from Transformers
via Speculative Decoding", ICML 2023, arXiv:2211.17192; Chen et al.,
arXiv:2302.01318): the drafter proposes k tokens one after another; the
target scores the k + 1 positions in one forward pass and keeps the guesses
up to the first it rejects, plus one token of its own. With a per-token
acceptance rate a the expected tokens kept per pass are::

    E = 1 + a + a^2 + ... + a^k = (1 - a^(k+1)) / (1 - a)

The pass costs k draft steps plus one verify pass; plain decoding costs one
target step per token::

    speedup = E * t_step / (k * t_draft + t_verify)

- ``t_verify``: the target's pass over ``batch * (k+1)`` tokens, timed by the
  engine's own roofline (``engine.request.time_pass``): the weights are read
  once, as in a plain step, each sequence's cached KV is read once (all k+1
  queries attend to it), FLOPs and the KV written grow k+1 times. While decode
  is memory-bound the pass costs about one step; once the batch makes it
  compute-bound it costs up to k+1 steps, and the guesses that are thrown away
  (k + 1 - E of every k + 1) are paid in compute the worker no longer has spare.
- ``t_draft``: one decode step of the draft model on the same GPUs (its own
  weights and KV, the target's precision and mode), or, for self-drafting heads
  (EAGLE, arXiv:2401.15077; Medusa, arXiv:2401.10774), the stated share of a
  target step (``Scenario.draft_head_cost``).

Speculative decoding stops paying at the batch where ``speedup`` falls below 1
(``loss_batch``): the verify pass turns compute-bound first (it carries k+1
times the tokens) while the plain step is still memory-bound. Only the decode
phase changes; the draft model also prefills the prompt (added to the first
token's time) and keeps its own weights and KV in HBM. Acceptance is taken
as one rate for every position and sequence (the papers' simplifying assumption);
a batch's pass waits for its slowest sequence, which this leaves out.
"""
from __future__ import annotations


from engine.batch_search import smallest_batch
from engine.deployment import Deployment
from engine.frozen import frozen
from engine.passes import decode_step_work, prefill_work
from engine.request import Machine, time_pass


def tokens_per_pass(acceptance: float, draft_tokens: int) -> float:
    """Expected tokens each verify pass keeps per sequence: ``(1 - a^(k+1)) / (1 - a)`` (k+1 when a = 1)."""
    if acceptance >= 1:
        return float(draft_tokens + 1)
    return (1.0 - acceptance ** (draft_tokens + 1)) / (1.0 - acceptance)


@frozen
class Drafter:
    """Who proposes the guesses: a draft model on the target's GPUs, or heads of a stated cost."""
    deployment: Deployment | None = None    # the draft model, split over the target's GPUs
    head_cost: float = 0.0                  # heads: one drafted token costs this share of a target step


@frozen
class PassTimes:
    """One speculative pass against one plain step, at one batch and context."""
    plain_step_seconds: float      # the target's ordinary decode step
    draft_seconds: float           # the k draft steps
    verify_seconds: float          # the target's pass over k+1 tokens per sequence
    verify_bound: str              # "compute" or "memory"

    @property
    def pass_seconds(self) -> float:
        return self.draft_seconds + self.verify_seconds


def verify_work(target: Deployment, *, batch: int, draft_tokens: int):
    """The verify pass as a decode step of ``k+1`` new tokens per sequence that reads each sequence's KV once."""
    return decode_step_work(target, batch=batch, tokens_per_sequence=draft_tokens + 1)


def pass_times(target: Deployment, drafter: Drafter, machine: Machine, *, batch: int, context_tokens: float,
               draft_tokens: int) -> PassTimes:
    """The plain step, the k draft steps and the verify pass at ``context_tokens`` cached per sequence."""
    plain = time_pass(decode_step_work(target, batch=batch).at(context_tokens), machine).seconds
    if drafter.deployment is not None:
        draft_step = time_pass(decode_step_work(drafter.deployment, batch=batch).at(context_tokens), machine).seconds
    else:
        draft_step = drafter.head_cost * plain
    verify = time_pass(verify_work(target, batch=batch, draft_tokens=draft_tokens).at(context_tokens), machine)
    return PassTimes(plain_step_seconds=plain, draft_seconds=draft_tokens * draft_step,
                     verify_seconds=verify.seconds, verify_bound=verify.bound)


def speedup(times: PassTimes, expected_tokens: float) -> float:
    """Plain time per token over speculative time per token: ``E * t_step / (k * t_draft + t_verify)``."""
    return expected_tokens * times.plain_step_seconds / times.pass_seconds


def loss_batch(target: Deployment, drafter: Drafter, machine: Machine, *, context_tokens: float,
               draft_tokens: int, acceptance: float) -> int | None:
    """The smallest batch at which speculative decoding is slower than plain decoding; None up to ``MAX_BATCH``.

    The speed-up falls as the batch grows (the verify pass turns compute-bound before the
    plain step does), so one bisection finds the crossing.
    """
    expected = tokens_per_pass(acceptance, draft_tokens)

    def loses(batch: int) -> bool:
        times = pass_times(target, drafter, machine, batch=batch, context_tokens=context_tokens,
                           draft_tokens=draft_tokens)
        return speedup(times, expected) < 1.0

    return smallest_batch(loses)


def draft_prefill_seconds(drafter: Drafter, machine: Machine, *, batch: int, prompt_tokens: int,
                          cached_tokens: int = 0) -> float:
    """The draft model's own prefill of the prompt (heads need none: they read the target's hidden state)."""
    if drafter.deployment is None:
        return 0.0
    work = prefill_work(drafter.deployment, batch=batch, prompt_tokens=prompt_tokens, cached_tokens=cached_tokens)
    return time_pass(work, machine).seconds


@frozen
class SpeculativeReport:
    """What speculative decoding does to this scenario's decode phase (JSON: ``speculative``)."""
    tokens_per_pass: float            # E, per sequence
    speedup: float                    # plain time per output token / speculative (below 1: a loss)
    loss_batch: int | None            # smallest batch at which it loses; None: not up to MAX_BATCH
    draft_seconds_per_pass: float     # the k draft steps of one pass, at the mean context
    verify_seconds_per_pass: float    # the target's verify pass, at the mean context
    plain_step_seconds: float         # one plain target step at the same context
    verify_bound: str                 # "compute" or "memory"
    wasted_tokens_per_pass: float     # guesses scored and thrown away: k + 1 - E per sequence
    draft_prefill_seconds: float      # added to the first token's time
    draft_bytes_per_gpu: float        # the draft model's weights and KV on each GPU

    JSON_KEYS = ("tokens_per_pass", "speedup", "loss_batch", "draft_seconds_per_pass", "verify_seconds_per_pass")

    def to_json_dict(self) -> dict:
        return {key: getattr(self, key) for key in self.JSON_KEYS}
