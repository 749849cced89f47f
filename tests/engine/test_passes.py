"""FLOPs and bytes of a prefill pass and a decode step."""
import pytest

from engine.kv_cache import attention_flops_per_position
from engine.parameters import parameter_counts
from engine.deployment import deploy
from engine.passes import decode_step_work, prefill_work
from tests.engine import fixtures as fx


def _decode(model, batch, precision=fx.FP16, gpus=1):
    return decode_step_work(deploy(model, fx.H800, gpus, precision, precision), batch=batch)


def _prefill(model, batch, prompt, precision=fx.FP16, gpus=1):
    return prefill_work(deploy(model, fx.H800, gpus, precision, precision), batch=batch, prompt_tokens=prompt)


def test_decode_step_reads_every_weight_once_plus_the_kv_cache():
    counts = parameter_counts(fx.LLAMA_31_70B)
    step = _decode(fx.LLAMA_31_70B, batch=1).at(1000)
    weights = (counts.total - counts.embedding) * 2
    kv = 1001 * 327_680                          # 1000 cached tokens read, 1 written
    assert step.bytes_per_gpu == pytest.approx(weights + kv)
    assert step.flops == pytest.approx(2 * counts.matmul_per_token + attention_flops_per_position(fx.LLAMA_31_70B) * 1001)


def test_decode_flops_grow_with_batch_but_weight_bytes_do_not():
    one, many = _decode(fx.LLAMA_31_8B, 1), _decode(fx.LLAMA_31_8B, 64)
    assert many.flops_fixed == pytest.approx(64 * one.flops_fixed)
    weights_one = one.bytes_per_gpu_fixed - one.bytes_per_gpu_per_context_token
    weights_many = many.bytes_per_gpu_fixed - many.bytes_per_gpu_per_context_token
    assert weights_many == pytest.approx(weights_one)


def test_moe_decode_reads_only_active_experts_at_batch_1_and_all_at_large_batch():
    counts = parameter_counts(fx.MIXTRAL_8X7B)
    one = _decode(fx.MIXTRAL_8X7B, 1)
    weights_one = one.bytes_per_gpu_fixed - one.bytes_per_gpu_per_context_token
    assert weights_one == pytest.approx((counts.active - counts.embedding) * 2)
    big = _decode(fx.MIXTRAL_8X7B, 256)
    weights_big = big.bytes_per_gpu_fixed - big.bytes_per_gpu_per_context_token
    assert weights_big == pytest.approx((counts.total - counts.embedding) * 2, rel=1e-6)
    # FLOPs per token stay those of the active parameters.
    assert big.flops_fixed / 256 == pytest.approx(one.flops_fixed)


def test_prefill_counts_causal_attention_and_the_lm_head_once_per_sequence():
    model, counts = fx.LLAMA_2_7B, parameter_counts(fx.LLAMA_2_7B)
    work = _prefill(model, batch=2, prompt=128)
    body = counts.matmul_per_token - counts.lm_head_matmul
    expected = (2 * body * 256 + 2 * counts.lm_head_matmul * 2
                + attention_flops_per_position(model) * 2 * 128 * 129 / 2)
    assert work.flops == pytest.approx(expected)
    assert work.bytes_per_gpu == pytest.approx((counts.total - counts.embedding) * 2 + 256 * 524_288)


def test_prefill_of_a_long_prompt_touches_every_expert():
    counts = parameter_counts(fx.DEEPSEEK_V3)
    work = _prefill(fx.DEEPSEEK_V3, batch=1, prompt=4096, precision=fx.FP8)
    assert work.bytes_per_gpu == pytest.approx((counts.total - counts.embedding) * 1 + 4096 * 35_136, rel=1e-6)


@pytest.mark.parametrize("gpus", [1, 2, 4, 8])
def test_prefill_bytes_per_gpu_are_a_slice_of_the_weights_and_of_the_kv_written(gpus):
    """Tensor parallelism over g GPUs: each reads 1/g of the weights and writes the K and V of its 8/g of
    Llama 3.1 70B's 8 KV heads (config.json: 80 layers, 8 KV heads of 128 values; 327,680 bytes a token at FP16)."""
    counts = parameter_counts(fx.LLAMA_31_70B)
    work = _prefill(fx.LLAMA_31_70B, batch=3, prompt=1000, gpus=gpus)
    weights = (counts.total - counts.embedding) * 2
    assert work.bytes_per_gpu == pytest.approx(weights / gpus + 3 * 1000 * (2 * 80 * 8 * 128 * 2) / gpus)


def test_prefill_writes_the_whole_latent_kv_on_every_gpu():
    """Multi-head latent attention (DeepSeek-V3) keeps one latent per token that every GPU needs: 61 layers x
    (512 latent + 64 rope values) x 1 byte at FP8 = 35,136 bytes a token on each GPU, however many there are."""
    counts = parameter_counts(fx.DEEPSEEK_V3)
    one = _prefill(fx.DEEPSEEK_V3, batch=1, prompt=4096, precision=fx.FP8)
    eight = _prefill(fx.DEEPSEEK_V3, batch=1, prompt=4096, precision=fx.FP8, gpus=8)
    assert eight.bytes_per_gpu == pytest.approx((counts.total - counts.embedding) / 8 + 4096 * 61 * (512 + 64))
    assert one.bytes_per_gpu - eight.bytes_per_gpu == pytest.approx((counts.total - counts.embedding) * 7 / 8)
