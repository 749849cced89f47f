"""How many parameters a model has, counted from its configuration.

Every count comes from the architecture numbers in ``Model`` (the values of
the model's ``config.json``); nothing is copied from a model card. A test
checks each catalogue model against its ``published_parameters``.

Formulas (h = hidden_size, V = vocab_size, all projections without bias, as
in Llama, Mixtral and DeepSeek-V3; Qwen2.5's q/k/v biases, under 0.01% of its
parameters, are left out):

- token embedding: ``V * h``; LM head: ``V * h`` unless ``tied_embeddings``.
- attention, multi-head / grouped-query (GQA): q and o are ``h * heads * head_dim``
  each, k and v ``h * kv_heads * head_dim`` each.
- attention, multi-head latent (MLA, DeepSeek-V2/V3), with r_q = q_lora_rank,
  r_kv = kv_lora_rank, d_n / d_r / d_v the no-rope, rope and value head dims:
  q: ``h*r_q + r_q + r_q*heads*(d_n+d_r)`` (down projection, its norm, up
  projection; without a q rank: ``h*heads*(d_n+d_r)``); kv: ``h*(r_kv+d_r) + r_kv
  + r_kv*heads*(d_n+d_v)``; o: ``heads*d_v*h``.
- gated MLP (SwiGLU: gate, up, down): ``3 * h * intermediate``.
- mixture of experts, per MoE layer: every routed expert ``3*h*expert_intermediate``,
  the shared experts the same size each, the router ``experts * h``.
  The first ``dense_layers`` layers of a MoE model keep a dense MLP.
- norms: two RMSNorm vectors of ``h`` per layer plus the final one.

*Active* parameters are those one token uses: everything except the routed
experts it is not sent to (top-k of E routed experts, plus the shared ones).
DeepSeek-V3's published 671B excludes its 14B multi-token-prediction module,
which is not part of next-token inference, so it is not counted here either.
"""
from __future__ import annotations

from functools import cached_property

from engine.catalog_types import Model
from engine.frozen import frozen


@frozen
class ParameterCounts:
    """A model's parameters, grouped by the role each group plays in inference."""
    embedding: int                # input token table (a lookup, not a matmul)
    lm_head: int                  # output projection; 0 when tied to the embedding
    lm_head_matmul: int           # V*h: the LM head's matmul, tied or not
    attention_per_layer: int
    norms: int                    # all norm vectors, model-wide
    dense_mlp_per_layer: int
    dense_layers: int             # layers with a dense MLP
    moe_layers: int               # layers with routed experts
    expert: int                   # one routed (or shared) expert
    experts: int                  # routed experts per MoE layer
    experts_per_token: int
    shared_experts: int
    router_per_layer: int
    layers: int

    @cached_property
    def routed_expert_total(self) -> int:
        """All routed experts of all MoE layers."""
        return self.moe_layers * self.experts * self.expert

    @cached_property
    def total(self) -> int:
        """Every parameter that must be resident in memory (MoE: all experts)."""
        return (self.embedding + self.lm_head + self.norms
                + self.layers * self.attention_per_layer
                + self.dense_layers * self.dense_mlp_per_layer
                + self.moe_layers * ((self.experts + self.shared_experts) * self.expert
                                     + self.router_per_layer))

    @cached_property
    def active(self) -> int:
        """Parameters one token uses (MoE: top-k routed plus shared experts)."""
        unused = self.moe_layers * (self.experts - self.experts_per_token) * self.expert
        return self.total - unused

    @cached_property
    def matmul_per_token(self) -> int:
        """Weights one token multiplies through in a full forward pass, LM head included.

        FLOPs per token = 2 * this (a multiply and an add per weight). The
        embedding lookup and the norms are not matmuls and are left out.
        """
        return self.active - self.embedding - self.lm_head - self.norms + self.lm_head_matmul

    @cached_property
    def routed_matmul_per_token(self) -> int:
        """Routed-expert weights one token multiplies through: top-k experts of every MoE layer (0 if dense)."""
        return self.moe_layers * self.experts_per_token * self.expert

    @cached_property
    def streamed_without_experts(self) -> int:
        """Weights read from HBM on every forward pass, routed experts aside.

        The untied input embedding is only looked up (one row per token), so
        it is not streamed; a tied table is streamed because it is the LM head.
        """
        return self.total - self.embedding - self.routed_expert_total + self.lm_head_matmul - self.lm_head

    def experts_touched_per_layer(self, tokens: float) -> float:
        """Expected number of distinct routed experts that ``tokens`` tokens use in one MoE layer.

        With uniform routing each token picks k of E experts, so one expert is
        missed by all of them with probability (1 - k/E)^tokens:
        ``E * (1 - (1 - k/E)^tokens)``. One token touches exactly k; a long
        prompt touches all E. 0 for a dense model.
        """
        if self.experts == 0:
            return 0.0
        return self.experts * (1.0 - (1.0 - self.experts_per_token / self.experts) ** tokens)

    def streamed(self, tokens: float) -> float:
        """Parameters read from HBM by one forward pass over ``tokens`` tokens (weights read once)."""
        return self.streamed_without_experts + self.moe_layers * self.expert * self.experts_touched_per_layer(tokens)


def attention_parameters_per_layer(model: Model) -> int:
    """q, k, v and o projections of one layer (GQA or MLA; see the module docstring)."""
    h, heads = model.hidden_size, model.attention_heads
    if model.uses_mla:
        qk_head = model.qk_nope_head_dim + model.qk_rope_head_dim
        if model.q_lora_rank:
            q = h * model.q_lora_rank + model.q_lora_rank + model.q_lora_rank * heads * qk_head
        else:
            q = h * heads * qk_head
        kv = (h * (model.kv_lora_rank + model.qk_rope_head_dim) + model.kv_lora_rank
              + model.kv_lora_rank * heads * (model.qk_nope_head_dim + model.v_head_dim))
        o = heads * model.v_head_dim * h
        return q + kv + o
    q_and_o = 2 * h * heads * model.head_dim
    k_and_v = 2 * h * model.kv_heads * model.head_dim
    return q_and_o + k_and_v


def parameter_counts(model: Model) -> ParameterCounts:
    """Count ``model``'s parameters from its configuration (see the module docstring)."""
    h, vocab = model.hidden_size, model.vocab_size
    if model.is_moe:
        dense_layers = min(model.dense_layers, model.layers)
        moe_layers = model.layers - dense_layers
    else:
        dense_layers, moe_layers = model.layers, 0
    return ParameterCounts(
        embedding=vocab * h,
        lm_head=0 if model.tied_embeddings else vocab * h,
        lm_head_matmul=vocab * h,
        attention_per_layer=attention_parameters_per_layer(model),
        norms=(2 * model.layers + 1) * h,
        dense_mlp_per_layer=3 * h * model.intermediate_size,
        dense_layers=dense_layers,
        moe_layers=moe_layers,
        expert=3 * h * model.expert_intermediate_size if model.is_moe else 0,
        experts=model.experts,
        experts_per_token=model.experts_per_token,
        shared_experts=model.shared_experts,
        router_per_layer=model.experts * h,
        layers=model.layers,
    )
