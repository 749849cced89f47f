"""Curves over context length, vectorised with numpy, for plots and the benchmark.

Each function evaluates the same formulas as the report (``engine.kv_cache``,
``engine.passes``, ``engine.efficiency``) for a whole array of context lengths
at once: a 1..131072-token sweep is a handful of array operations, no Python loop.
"""
from __future__ import annotations

import numpy as np

from engine.compute import Setup, decode_step_of, memory_of, resolve, setup
from engine.passes import DecodeStepWork
from engine.request import Machine
from engine.scenario import Scenario

DEFAULT_MAX_CONTEXT_TOKENS = 131072


def context_tokens(max_tokens: int = DEFAULT_MAX_CONTEXT_TOKENS) -> np.ndarray:
    """The context lengths 1, 2, ..., ``max_tokens`` as a float array."""
    return np.arange(1, max_tokens + 1, dtype=np.float64)


def decode_step_seconds(step: DecodeStepWork, machine: Machine, contexts: np.ndarray) -> np.ndarray:
    """Time of one decode step at each context in ``contexts`` (same formula as ``efficiency.pass_seconds``)."""
    eff = machine.efficiency
    compute_rate = machine.peak_flops_per_gpu * machine.gpus * eff.compute_share
    memory_rate = machine.bandwidth_bytes_per_second * eff.bandwidth_share
    compute = (step.flops_fixed + step.flops_per_context_token * contexts) / compute_rate
    memory = (step.bytes_per_gpu_fixed + step.bytes_per_gpu_per_context_token * contexts) / memory_rate
    fixed = (step.link_seconds / eff.link_share + step.allreduce_calls * eff.allreduce_latency_seconds
             + eff.pass_overhead_seconds)
    larger = np.maximum(compute, memory)
    return larger + (1.0 - eff.overlap) * (compute + memory - larger) + fixed


def setup_for(scenario: Scenario, catalog=None) -> Setup:
    """The validated scenario with its catalogue entries (``InputError`` for bad input)."""
    return setup(*resolve(scenario, catalog))


def decode_step_seconds_for_contexts(scenario: Scenario, contexts: np.ndarray, catalog=None) -> np.ndarray:
    """Seconds per decode step of ``scenario``'s batch when each sequence holds each context length."""
    s = setup_for(scenario, catalog)
    return decode_step_seconds(decode_step_of(s), s.machine, np.asarray(contexts, dtype=np.float64))


def kv_bytes_for_contexts(scenario: Scenario, contexts: np.ndarray, catalog=None) -> np.ndarray:
    """KV cache of ``scenario``'s batch at each context length, all sequences, in bytes."""
    s = setup_for(scenario, catalog)
    return s.kv_bytes_per_token * s.scenario.batch * np.asarray(contexts, dtype=np.float64)


def free_bytes_per_gpu_for_contexts(scenario: Scenario, contexts: np.ndarray, catalog=None) -> np.ndarray:
    """HBM left on each GPU at each context length (negative: short by that much); allowance as in the report."""
    s = setup_for(scenario, catalog)
    plan = memory_of(s)
    kv_per_gpu = s.kv_bytes_per_token * s.kv_share_per_gpu * s.scenario.batch * np.asarray(contexts, dtype=np.float64)
    return plan.capacity_bytes_per_gpu - plan.weights_bytes_per_gpu - plan.allowance_bytes_per_gpu - kv_per_gpu


def max_sequences_for_contexts(scenario: Scenario, contexts: np.ndarray, catalog=None) -> np.ndarray:
    """Most sequences of each context length whose KV cache fits next to the weights (0 if none)."""
    s = setup_for(scenario, catalog)
    plan = memory_of(s)
    room = plan.capacity_bytes_per_gpu - plan.weights_bytes_per_gpu - plan.allowance_bytes_per_gpu
    per_sequence = s.kv_bytes_per_token * s.kv_share_per_gpu * np.asarray(contexts, dtype=np.float64)
    return np.floor(np.maximum(room, 0.0) / per_sequence).astype(np.int64)
