"""A model on its GPUs: the one record every pass and the memory plan start from.

``Deployment`` gathers what ``engine.passes`` and ``engine.memory`` need to know
about the hardware, the layout (``engine.layout``) and the model, so their
functions read ``prefill_work(deployment, batch=8, prompt_tokens=1000)``.

Bytes of the weights. The weight precision applies to the matrices of the
transformer layers; the embedding table, the LM head and the norms stay in 16 bits
(``wide_bytes_per_value``: 2, or the weights' own width when that is wider), as every
quantised format in use ships them: GPTQ and AWQ leave ``lm_head`` unquantised
(AutoGPTQ, AutoAWQ defaults), llm-compressor's FP8 and INT8 recipes ignore it,
and DeepSeek-V3's FP8 checkpoint keeps its embedding and output head in BF16
(DeepSeek-V3 technical report, arXiv:2412.19437, section 3.3.1).

Per GPU, with T tensor, P pipeline, D replicas and the routed experts spread over
each stage's T x D GPUs (``engine.layout``):

- resident: ``non-expert weights / (T * P) + routed experts / gpus`` (each stage holds
  its layers; stages taken as equal, ``ceil`` of a layer aside);
- read by one pass, along its path through all P stages: ``non-expert weights / T``
  plus the experts the pass's tokens touch divided over the stage's GPUs (routing taken
  as even: real routers are uneven, and DeepSeek deploys spare experts to even them);
- KV cache: each replica keeps its own sequences; each GPU ``kv_share(T) / P`` of a
  sequence's cache (``engine.kv_cache.kv_share_per_gpu``: heads split or copied);
  sliding-window layers hold at most their window of it (``kv_window_bytes_per_token``).
"""
from __future__ import annotations

import math
from functools import cached_property

from engine.catalog_types import Gpu, Model, Precision
from engine.frozen import frozen
from engine.kv_cache import kv_bytes_per_token, kv_share_per_gpu, kv_window_bytes_per_token
from engine.layout import Layout
from engine.parameters import ParameterCounts, parameter_counts

SIXTEEN_BIT_BYTES_PER_VALUE = 2.0


def wide_parameter_count(counts: ParameterCounts) -> int:
    """The parameters every precision keeps 16-bit (or wider): the embedding table, the LM head (if untied),
    the norms (module docstring)."""
    return counts.embedding + counts.lm_head + counts.norms


@frozen
class Deployment:
    model: Model
    counts: ParameterCounts          # the model's parameters (engine.parameters)
    gpu: Gpu                         # each GPU of the deployment
    layout: Layout                   # how the GPUs share the model (engine.layout)
    weight_bytes_per_value: float    # the layers' matrices, in the weights' precision
    wide_bytes_per_value: float      # embedding, LM head, norms: 16-bit (module docstring)
    kv_bytes_per_token: float        # one token of one sequence, all layers
    kv_share_per_gpu: float          # share of one sequence's KV cache each GPU holding it keeps
    kv_window_bytes_per_token: float = 0.0   # the part of kv_bytes_per_token in sliding-window layers

    @cached_property
    def gpus(self) -> int:
        return self.layout.gpus

    @cached_property
    def wide_parameters(self) -> int:
        """Parameters that stay 16-bit: the embedding table, the LM head (if untied), the norms."""
        return wide_parameter_count(self.counts)

    @cached_property
    def weights_bytes(self) -> float:
        """All resident weights (MoE: every expert)."""
        narrow = self.counts.total - self.wide_parameters
        return narrow * self.weight_bytes_per_value + self.wide_parameters * self.wide_bytes_per_value

    @cached_property
    def expert_bytes(self) -> float:
        """All routed experts of all layers."""
        return self.counts.routed_expert_total * self.weight_bytes_per_value

    @cached_property
    def weights_bytes_per_gpu(self) -> float:
        """Each GPU's resident share (module docstring)."""
        lay = self.layout
        return (self.weights_bytes - self.expert_bytes) / (lay.tensor * lay.pipeline) + self.expert_bytes / lay.gpus

    @cached_property
    def path_kv_share(self) -> float:
        """Share of one sequence's KV cache one GPU per stage reads along a pass through all stages."""
        return self.kv_share_per_gpu * self.layout.pipeline

    def sequences_per_gpu(self, batch: float) -> float:
        """Sequences whose KV cache each GPU keeps: those of the fullest attention replica."""
        return math.ceil(batch / self.layout.data)

    def streamed_narrow_weights_per_gpu(self, tokens: float) -> float:
        """Weights in the weights' precision (not the 16-bit parts) one GPU per stage reads in a pass
        over ``tokens`` tokens, all stages together."""
        c, lay = self.counts, self.layout
        dense = c.streamed_without_experts - c.lm_head_matmul - c.norms
        experts = c.moe_layers * c.expert * c.experts_touched_per_layer(tokens)
        return dense / lay.tensor + experts / lay.stage_gpus

    def streamed_weight_bytes_per_gpu(self, narrow_weights: float) -> float:
        """Weight bytes one GPU per stage reads in a pass that streams ``narrow_weights`` weights in the
        weights' precision (``streamed_narrow_weights_per_gpu``) and all the 16-bit ones, all stages together."""
        wide = (self.counts.lm_head_matmul + self.counts.norms) / self.layout.tensor
        return narrow_weights * self.weight_bytes_per_value + wide * self.wide_bytes_per_value


def deploy(model: Model, gpu: Gpu, layout: Layout, weights: Precision, kv: Precision,
           counts: ParameterCounts | None = None) -> Deployment:
    """``model`` with ``weights`` and a ``kv`` cache on ``layout``'s GPUs of kind ``gpu`` (counts computed if not given)."""
    return Deployment(model=model, counts=parameter_counts(model) if counts is None else counts, gpu=gpu,
                      layout=layout, weight_bytes_per_value=weights.bytes_per_value,
                      wide_bytes_per_value=max(weights.bytes_per_value, SIXTEEN_BIT_BYTES_PER_VALUE),
                      kv_bytes_per_token=kv_bytes_per_token(model, kv),
                      kv_share_per_gpu=kv_share_per_gpu(model, layout.tensor) / layout.pipeline,
                      kv_window_bytes_per_token=kv_window_bytes_per_token(model, kv))
