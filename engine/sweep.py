"""Curves over context length, vectorised with numpy, for plots and the benchmark.

Each function evaluates the same formulas as the report (``engine.kv_cache``,
``engine.passes``, ``engine.efficiency``) for a whole array of context lengths
at once: a 1..131072-token sweep is a handful of array operations, no Python loop.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine.compute import Setup, decode_step_of, memory_of, setup_of
from engine.errors import InputError
from engine.kv_cache import kv_bytes
from engine.passes import DecodeStepWork
from engine.request import Machine
from engine.scenario import MAX_CONTEXT_TOKENS, Scenario
from engine.units import format_count

DEFAULT_MAX_CONTEXT_TOKENS = 131072


def context_tokens(max_tokens: int = DEFAULT_MAX_CONTEXT_TOKENS) -> np.ndarray:
    """The context lengths 1, 2, ..., ``max_tokens`` as a float array."""
    if (isinstance(max_tokens, bool) or not isinstance(max_tokens, (int, np.integer))
            or not 1 <= max_tokens <= MAX_CONTEXT_TOKENS):
        raise InputError(f"The longest context of a sweep must be a whole number from 1 to "
                         f"{format_count(MAX_CONTEXT_TOKENS)} tokens; got {max_tokens!r}.")
    return np.arange(1, max_tokens + 1, dtype=np.float64)


def checked_contexts(contexts) -> np.ndarray:
    """``contexts`` as a float array; ``InputError`` unless every one is a finite count of 0 to the maximum."""
    try:
        values = np.asarray(contexts, dtype=np.float64)
    except (TypeError, ValueError):
        values = None
    if values is None or not np.all(np.isfinite(values)) or np.any(values < 0) or np.any(values > MAX_CONTEXT_TOKENS):
        shown = repr(contexts) if len(repr(contexts)) <= 60 else repr(contexts)[:57] + "..."
        raise InputError(f"Context lengths must be finite numbers of tokens from 0 to {format_count(MAX_CONTEXT_TOKENS)}; "
                         f"got {shown}.")
    return values


def decode_step_seconds(step: DecodeStepWork, machine: Machine, contexts: np.ndarray) -> np.ndarray:
    """Time of one decode step at each context in ``contexts`` (the formula of ``request.time_pass``).

    Compute and memory time are both linear in the context, so their coefficients are
    taken once as numbers and the arrays see only a handful of operations.
    """
    if step.window_tokens:                       # a sliding window: one line up to it, another past it
        return np.where(contexts > step.window_tokens,
                        decode_step_seconds(step.past_window(), machine, contexts),
                        decode_step_seconds(replace(step, window_tokens=0), machine, contexts))
    eff = machine.efficiency
    a0, a1, b0, b1 = machine.step_lines(step)
    fixed = eff.fixed_seconds(step.transfers, step.layers)
    if eff.overlap == 0.0:                       # the times add: one line
        return (a0 + b0 + fixed) + (a1 + b1) * contexts
    larger = np.maximum(a0 + a1 * contexts, b0 + b1 * contexts)
    if eff.overlap == 1.0:                       # the roofline: the larger of the two
        return larger + fixed if fixed else larger
    both = (a0 + b0) + (a1 + b1) * contexts
    return eff.overlap * larger + (1.0 - eff.overlap) * both + fixed


def setup_for(scenario: Scenario, catalog=None) -> Setup:
    """The validated scenario with its catalogue entries (``InputError`` for bad input)."""
    return setup_of(scenario, catalog)


def decode_step_seconds_for_contexts(scenario: Scenario, contexts: np.ndarray, catalog=None) -> np.ndarray:
    """Seconds per decode step of ``scenario``'s batch when each sequence holds each context length."""
    s = setup_for(scenario, catalog)
    return decode_step_seconds(decode_step_of(s), s.machine, checked_contexts(contexts))


def kv_bytes_for_contexts(scenario: Scenario, contexts: np.ndarray, catalog=None) -> np.ndarray:
    """KV cache of ``scenario``'s batch at each context length, all sequences, in bytes."""
    s = setup_for(scenario, catalog)
    return kv_bytes(s.model, s.kv, s.scenario.batch, checked_contexts(contexts))


def free_bytes_per_gpu_for_contexts(scenario: Scenario, contexts: np.ndarray, catalog=None) -> np.ndarray:
    """HBM left on each GPU at each context length (negative: short by that much); allowance as in the report."""
    s = setup_for(scenario, catalog)
    plan = memory_of(s)
    sequences = s.deployment.sequences_per_gpu(s.scenario.batch)
    kv_per_gpu = kv_bytes(s.model, s.kv, sequences, checked_contexts(contexts)) * s.kv_share_per_gpu
    return plan.capacity_bytes_per_gpu - plan.weights_bytes_per_gpu - plan.allowance_bytes_per_gpu - kv_per_gpu


def max_sequences_for_contexts(scenario: Scenario, contexts: np.ndarray, catalog=None) -> np.ndarray:
    """Most sequences of each context length whose KV cache fits next to the weights (0 if none)."""
    s = setup_for(scenario, catalog)
    plan = memory_of(s)
    room = plan.capacity_bytes_per_gpu - plan.weights_bytes_per_gpu - plan.allowance_bytes_per_gpu
    per_sequence = kv_bytes(s.model, s.kv, 1, np.maximum(checked_contexts(contexts), 1.0)) * s.kv_share_per_gpu
    replicas = s.deployment.layout.data         # each attention replica holds its own sequences
    return (np.floor(np.maximum(room, 0.0) / per_sequence) * replicas).astype(np.int64)
