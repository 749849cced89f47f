"""KV cache sizes: the seed's numbers, GQA vs MLA, and the N² vs N work argument."""
import numpy as np
import pytest

from engine import kv_cache
from engine.units import GiB, KiB
from tests.engine import fixtures as fx


def test_70b_gqa_is_exactly_320_kib_per_token():
    assert kv_cache.kv_bytes_per_token(fx.LLAMA_31_70B, fx.FP16) == 327_680 == 320 * KiB


@pytest.mark.parametrize("tokens, seed_gib", [(2048, 0.6), (32 * 1024, 10), (128 * 1024, 40)])
def test_seed_table_of_kv_size_by_context(tokens, seed_gib):
    size = kv_cache.kv_bytes(fx.LLAMA_31_70B, fx.FP16, 1, tokens)
    assert size / GiB == pytest.approx(seed_gib, rel=0.05)


def test_mla_caches_the_latent_and_rope_key_not_full_k_and_v():
    assert kv_cache.kv_bytes_per_token(fx.DEEPSEEK_V3, fx.BF16) == 61 * (512 + 64) * 2 == 70_272
    full_kv = 2 * 61 * 128 * (128 + 64) * 2      # what ordinary MHA with these heads would cache
    assert kv_cache.kv_bytes_per_token(fx.DEEPSEEK_V3, fx.BF16) < full_kv / 40


def test_kv_precision_scales_bytes():
    assert kv_cache.kv_bytes_per_token(fx.LLAMA_31_70B, fx.FP8) == 163_840


def test_kv_bytes_accepts_arrays():
    contexts = np.array([1, 10, 100])
    assert list(kv_cache.kv_bytes(fx.LLAMA_31_8B, fx.FP16, 2, contexts)) == [
        2 * c * 131_072 for c in (1, 10, 100)]


def test_tensor_parallel_share_of_kv_heads():
    assert kv_cache.kv_share_per_gpu(fx.LLAMA_31_70B, 1) == 1
    assert kv_cache.kv_share_per_gpu(fx.LLAMA_31_70B, 4) == 0.25
    assert kv_cache.kv_share_per_gpu(fx.LLAMA_31_70B, 16) == 1 / 8     # 8 KV heads: replicated
    assert kv_cache.kv_share_per_gpu(fx.DEEPSEEK_V3, 8) == 1           # latent kept whole


def test_attention_flops_per_position():
    assert kv_cache.attention_flops_per_position(fx.LLAMA_31_70B) == 2 * 2 * 80 * 64 * 128
    assert kv_cache.attention_flops_per_position(fx.DEEPSEEK_V3) == 2 * 61 * 128 * (192 + 128)


def test_work_without_cache_is_about_250_times_at_500_tokens():
    assert kv_cache.tokens_processed_without_cache(500) == 125_250
    assert kv_cache.tokens_processed_with_cache(500) == 500
    assert kv_cache.work_ratio_without_cache(500) == pytest.approx(250, rel=0.01)
    n = np.arange(1, 6)
    assert list(kv_cache.tokens_processed_without_cache(n)) == [1, 3, 6, 10, 15]
