"""FLOPs and bytes of a prefill pass and a decode step."""
import pytest

from engine.kv_cache import attention_flops_per_position
from engine.parameters import parameter_counts
from engine.deployment import deploy
from engine.layout import plan_layout
from engine.passes import decode_step_work, prefill_work
from tests.engine import fixtures as fx


def _deploy(model, precision, gpus=1, **degrees):
    return deploy(model, fx.H800, plan_layout(model, fx.H800, gpus, **degrees), precision, precision)


def _decode(model, batch, precision=fx.FP16, gpus=1):
    return decode_step_work(_deploy(model, precision, gpus), batch=batch)


def _prefill(model, batch, prompt, precision=fx.FP16, gpus=1):
    return prefill_work(_deploy(model, precision, gpus), batch=batch, prompt_tokens=prompt)


def test_decode_step_reads_every_weight_once_plus_the_kv_cache():
    counts = parameter_counts(fx.LLAMA_31_70B)
    step = _decode(fx.LLAMA_31_70B, batch=1).at(1000)
    assert step.bytes == step.bytes_per_gpu                      # one GPU: its traffic is all there is
    weights = (counts.total - counts.embedding) * 2
    kv = 1001 * 327_680                          # 1000 cached tokens read, 1 written
    assert step.bytes_per_gpu == pytest.approx(weights + kv)
    assert step.flops == pytest.approx(2 * counts.matmul_per_token + attention_flops_per_position(fx.LLAMA_31_70B) * 1001)


def test_decode_flops_grow_with_batch_but_weight_bytes_do_not():
    one, many = _decode(fx.LLAMA_31_8B, 1), _decode(fx.LLAMA_31_8B, 64)
    assert many.flops_fixed == pytest.approx(64 * one.flops_fixed)
    assert many.weight_bytes_per_gpu == pytest.approx(one.weight_bytes_per_gpu)
    assert many.kv_bytes_per_gpu_per_context_token == pytest.approx(64 * one.kv_bytes_per_gpu_per_context_token)


def test_moe_decode_reads_only_active_experts_at_batch_1_and_all_at_large_batch():
    counts = parameter_counts(fx.MIXTRAL_8X7B)
    one = _decode(fx.MIXTRAL_8X7B, 1)
    assert one.weight_bytes_per_gpu == pytest.approx((counts.active - counts.embedding) * 2)
    big = _decode(fx.MIXTRAL_8X7B, 256)
    assert big.weight_bytes_per_gpu == pytest.approx((counts.total - counts.embedding) * 2, rel=1e-6)
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
    sixteen_bit = counts.lm_head + counts.norms           # read at 2 bytes, not 1 (engine.deployment)
    weights = (counts.total - counts.embedding - sixteen_bit) * 1 + sixteen_bit * 2
    assert work.bytes_per_gpu == pytest.approx(weights + 4096 * 35_136, rel=1e-6)


def test_fp8_weights_keep_the_embedding_and_lm_head_in_16_bits():
    counts = parameter_counts(fx.LLAMA_31_70B)
    d16, d8 = _deploy(fx.LLAMA_31_70B, fx.FP16), _deploy(fx.LLAMA_31_70B, fx.FP8)
    wide = counts.embedding + counts.lm_head + counts.norms
    assert d8.weights_bytes == pytest.approx((counts.total - wide) * 1 + wide * 2)
    assert d16.weights_bytes == pytest.approx(counts.total * 2)


def test_a_pipeline_reads_the_same_bytes_per_token_as_one_tensor_group_but_holds_half_per_gpu():
    one_node = _deploy(fx.LLAMA_31_70B, fx.FP16, gpus=8)
    two_nodes = _deploy(fx.LLAMA_31_70B, fx.FP16, gpus=16)
    assert (two_nodes.layout.tensor, two_nodes.layout.pipeline) == (8, 2)
    assert two_nodes.weights_bytes_per_gpu == pytest.approx(one_node.weights_bytes_per_gpu / 2)
    step_one, step_two = decode_step_work(one_node, batch=1), decode_step_work(two_nodes, batch=1)
    assert step_two.weight_bytes_per_gpu == pytest.approx(step_one.weight_bytes_per_gpu)   # both stages, in turn
    assert {t.level for t in step_two.transfers} == {"tensor", "pipeline"}


def test_a_pipeline_decodes_as_many_micro_batches_as_it_has_stages():
    d = _deploy(fx.LLAMA_31_70B, fx.FP16, gpus=16)             # 2 stages
    assert decode_step_work(d, batch=64).sequences == 32
    assert decode_step_work(d, batch=1).sequences == 1
    assert decode_step_work(d, batch=3).sequences == 2


def test_attention_replicas_share_the_batch_but_every_gpu_holds_experts():
    d = _deploy(fx.DEEPSEEK_V3, fx.FP8, gpus=16, tp=4, ep=16)
    assert (d.layout.tensor, d.layout.pipeline, d.layout.data, d.layout.expert) == (4, 1, 4, 16)
    step = decode_step_work(d, batch=16)
    assert d.sequences_per_gpu(16) == 4
    levels = {t.level: t for t in step.transfers}
    assert levels["expert"].link == "network" and levels["expert"].calls == 2 * 58
    assert levels["tensor"].calls == 2 * 3 + 58              # dense layers: two each; MoE layers: attention only


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
    sixteen_bit = counts.lm_head + counts.norms           # read at 2 bytes, not 1 (engine.deployment)
    weights = (counts.total - counts.embedding - sixteen_bit) * 1 + sixteen_bit * 2
    one = _prefill(fx.DEEPSEEK_V3, batch=1, prompt=4096, precision=fx.FP8)
    eight = _prefill(fx.DEEPSEEK_V3, batch=1, prompt=4096, precision=fx.FP8, gpus=8)
    assert eight.bytes_per_gpu == pytest.approx(weights / 8 + 4096 * 61 * (512 + 64))
    assert one.bytes_per_gpu - eight.bytes_per_gpu == pytest.approx(weights * 7 / 8)
