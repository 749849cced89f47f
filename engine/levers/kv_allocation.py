"""KV allocation: a fixed length reserved per sequence, or pages handed out as tokens arrive.

A server that reserves (FasterTransformer, Orca as the PagedAttention paper
ran it) sets aside ``reserve`` tokens of KV for every sequence when it
starts, because it cannot know how long the answer will be: the model's
maximum context unless told less. Paged allocation (vLLM's PagedAttention,
Kwon et al., SOSP 2023, arXiv:2309.06180) hands out blocks of
``PAGE_TOKENS`` = 16 tokens as the sequence grows, so a sequence holds
``ceil(context / 16)`` pages: under one page wasted, against ``reserve - context``.

Per GPU, with ``room`` = HBM - weights - allowance (``engine.memory``, the
draft model's weights too when decoding speculatively) and ``kv`` one token's
KV on that GPU::

    paged:    max_batch = floor((room - shared * kv) / (pages(context - shared) * 16 * kv))
    reserved: max_batch = floor(room / (reserve * kv))

``shared`` is the cached prefix the batch shares (``engine.levers.prefix_cache``):
only whole pages can be shared (vLLM shares full blocks), so
``floor(prefix / 16) * 16`` tokens, held once. A reserved buffer is one piece
per sequence and shares nothing. A speculative draft model keeps its own KV
for each sequence's context as well.

The report's memory plan (``kv_bytes``, ``fits``) counts paged KV token by token
(the half page left at each sequence's end is under 1% at a thousand tokens, and
the KV cache scene multiplies bytes per token by tokens); ``max_batch`` counts
whole pages, so at the very edge ``fits`` can hold with ``max_batch`` one below the batch.
"""
from __future__ import annotations

import math
from typing import NamedTuple

from engine.levers.fields import PAGE_TOKENS, reserved_tokens_per_sequence


def pages(tokens: float) -> int:
    """Pages of ``PAGE_TOKENS`` tokens needed to hold ``tokens`` tokens."""
    return math.ceil(tokens / PAGE_TOKENS)


def shared_prefix_tokens(scenario) -> int:
    """Tokens of the cached prefix that the batch's sequences hold once between them (whole pages, paged only)."""
    if scenario.kv_allocation != "paged":
        return 0
    return scenario.cached_prefix_tokens // PAGE_TOKENS * PAGE_TOKENS


def kv_tokens_held(scenario, model) -> float:
    """Tokens of KV the batch holds: one reservation per sequence, or its tokens with the shared prefix once."""
    return kv_tokens_held_by(scenario, model, scenario.batch)


def kv_tokens_held_by(scenario, model, sequences: int) -> float:
    """``kv_tokens_held`` of ``sequences`` of the scenario's sequences (those one attention replica keeps, say)."""
    context = scenario.prompt_tokens + scenario.output_tokens
    if scenario.kv_allocation == "reserved":
        return sequences * reserved_tokens_per_sequence(scenario, model)
    shared = shared_prefix_tokens(scenario)
    return shared + sequences * (context - shared) if shared else sequences * context


def held_tokens_per_sequence(scenario, model) -> int:
    """What each further sequence adds: its reservation, or its unshared tokens in whole pages."""
    if scenario.kv_allocation == "reserved":
        return reserved_tokens_per_sequence(scenario, model)
    context = scenario.prompt_tokens + scenario.output_tokens
    return pages(context - shared_prefix_tokens(scenario)) * PAGE_TOKENS


class SequenceFit(NamedTuple):
    """How many sequences fit on each GPU: the room for their KV against what one holds (module docstring)."""
    room_bytes_per_gpu: float        # HBM less weights, allowance, the draft's weights and the shared prefix
    sequence_bytes_per_gpu: float    # the KV one further sequence holds on each GPU (its draft's KV too)
    replicas: int = 1                # attention replicas, each holding its own sequences

    @property
    def sequences(self) -> int:
        if self.room_bytes_per_gpu <= 0:
            return 0
        return math.floor(self.room_bytes_per_gpu / self.sequence_bytes_per_gpu) * self.replicas


def sequence_fit(room_bytes_per_gpu: float, kv_bytes_per_token_per_gpu: float, scenario, model,
                 draft_kv_bytes_per_token_per_gpu: float = 0.0, replicas: int = 1) -> SequenceFit:
    """The room and one sequence's KV of this scenario's length, per GPU (module docstring)."""
    shared = shared_prefix_tokens(scenario) * kv_bytes_per_token_per_gpu
    per_sequence = held_tokens_per_sequence(scenario, model) * kv_bytes_per_token_per_gpu
    if draft_kv_bytes_per_token_per_gpu:
        context = scenario.prompt_tokens + scenario.output_tokens
        draft_tokens = (reserved_tokens_per_sequence(scenario, model) if scenario.kv_allocation == "reserved"
                        else pages(context) * PAGE_TOKENS)
        per_sequence += draft_tokens * draft_kv_bytes_per_token_per_gpu
    return SequenceFit(room_bytes_per_gpu - shared, per_sequence, replicas)
