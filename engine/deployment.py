"""A model on a tensor-parallel group of GPUs: the one record every pass and the memory plan start from.

``Deployment`` gathers what ``engine.passes`` and ``engine.memory`` need to know
about the hardware and the model, so their functions read
``prefill_work(deployment, batch=8, prompt_tokens=1000)`` rather than nine
positional numbers. Per GPU and per group are said in the names: weights are
split over ``gpus`` GPUs; ``kv_share_per_gpu`` is the share of the whole KV cache
each GPU keeps (``engine.kv_cache.kv_share_per_gpu``).
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.catalog_types import Gpu, Model, Precision
from engine.kv_cache import kv_bytes_per_token, kv_share_per_gpu, kv_window_bytes_per_token
from engine.parameters import ParameterCounts, parameter_counts


@dataclass(frozen=True)
class Deployment:
    model: Model
    counts: ParameterCounts          # the model's parameters (engine.parameters)
    gpu: Gpu                         # each GPU of the group
    gpus: int                        # tensor-parallel group size
    weight_bytes_per_value: float    # the weights' precision
    kv_bytes_per_token: float        # one token of one sequence, all layers, whole group
    kv_share_per_gpu: float          # share of the whole KV cache each GPU keeps and reads
    kv_window_bytes_per_token: float = 0.0   # the part of kv_bytes_per_token in sliding-window layers

    @property
    def weights_bytes(self) -> float:
        """All resident weights of the group (MoE: every expert)."""
        return self.counts.total * self.weight_bytes_per_value


def deploy(model: Model, gpu: Gpu, gpus: int, weights: Precision, kv: Precision,
           counts: ParameterCounts | None = None) -> Deployment:
    """``model`` with ``weights`` and a ``kv`` cache on ``gpus`` GPUs of kind ``gpu`` (counts computed if not given)."""
    return Deployment(model=model, counts=parameter_counts(model) if counts is None else counts, gpu=gpu,
                      gpus=gpus, weight_bytes_per_value=weights.bytes_per_value,
                      kv_bytes_per_token=kv_bytes_per_token(model, kv),
                      kv_share_per_gpu=kv_share_per_gpu(model, gpus),
                      kv_window_bytes_per_token=kv_window_bytes_per_token(model, kv))
