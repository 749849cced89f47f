"""What each GPU must hold, written out from its definition (engine/memory.py's docstring) and the models'
config.json values, independently of the engine's code: tests compare the engine with these.

Config values (the links are in resources/catalog/models.toml): hidden_size, num_attention_heads,
num_key_value_heads, head_dim (hidden_size / heads where config.json gives none), intermediate_size (the
MLP's width; MoE: moe_intermediate_size times the experts a token goes through), vocab_size.
"""
from __future__ import annotations

from dataclasses import dataclass

GIB = 2 ** 30
CHUNK_TOKENS = 8192          # vLLM V1's default per-pass token budget (max_num_batched_tokens) on >= 70 GiB GPUs


@dataclass(frozen=True)
class Shapes:
    hidden: int
    q_width: int             # the q projection's output: heads x head dim (MLA: heads x (nope + rope))
    kv_width: int            # the k and v projections' outputs together
    mlp_width: int           # the widest MLP a token passes through
    vocab: int
    kv_bytes_per_token_fp16: int     # 2 (K and V) x layers x KV heads x head dim x 2 bytes


# meta-llama/Llama-3.1-70B config.json: 80 layers, hidden 8192, 64 heads, 8 KV heads, head dim 128, MLP 28672.
LLAMA_31_70B = Shapes(hidden=8192, q_width=64 * 128, kv_width=2 * 8 * 128, mlp_width=28672, vocab=128256,
                      kv_bytes_per_token_fp16=2 * 80 * 8 * 128 * 2)
# meta-llama/Llama-3.1-8B config.json: 32 layers, hidden 4096, 32 heads, 8 KV heads, head dim 128, MLP 14336.
LLAMA_31_8B = Shapes(hidden=4096, q_width=32 * 128, kv_width=2 * 8 * 128, mlp_width=14336, vocab=128256,
                     kv_bytes_per_token_fp16=2 * 32 * 8 * 128 * 2)
# mistralai/Mixtral-8x7B-v0.1 config.json: hidden 4096, 32 heads, 8 KV heads, head dim 128, 8 experts of 14336,
# 2 per token: every token goes through two experts' MLPs.
MIXTRAL_8X7B = Shapes(hidden=4096, q_width=32 * 128, kv_width=2 * 8 * 128, mlp_width=2 * 14336, vocab=32000,
                      kv_bytes_per_token_fp16=2 * 32 * 8 * 128 * 2)
# deepseek-ai/DeepSeek-V3 config.json: hidden 7168, 128 heads, qk_nope_head_dim 128, qk_rope_head_dim 64,
# v_head_dim 128; 3 dense layers of 18432 and MoE layers of 8 routed + 1 shared experts of 2048 (also 18432).
DEEPSEEK_V3 = Shapes(hidden=7168, q_width=128 * (128 + 64), kv_width=128 * (128 + 128), mlp_width=18432,
                     vocab=129280, kv_bytes_per_token_fp16=0)      # latent KV: not used here


def tokens_in_biggest_pass(batch: int, prompt_tokens: int) -> int:
    return min(batch * prompt_tokens, CHUNK_TOKENS)


def allowance_bytes_per_gpu(shapes: Shapes, gpus: int, batch: int, prompt_tokens: int) -> float:
    """1 GiB of runtime; per token of the biggest pass, the residual stream and its normalised copy
    (2 x hidden) plus q, k, v and the MLP's gate and up outputs split over the GPUs, in 2-byte values;
    and FP32 logits of the last position of every sequence."""
    per_token = (2 * shapes.hidden + (shapes.q_width + shapes.kv_width + 2 * shapes.mlp_width) / gpus) * 2
    return GIB + tokens_in_biggest_pass(batch, prompt_tokens) * per_token + batch * shapes.vocab * 4
