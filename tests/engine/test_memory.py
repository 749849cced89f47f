"""What fits in HBM: the seed's 70B story, tensor parallelism, MoE, the stated allowance."""
import pytest

from engine import memory
from engine.units import GB, GiB
from tests.engine import fixtures as fx
from tests.engine import memory_definition as md
from tests.engine.fixtures import report


def test_70b_at_fp16_is_140_gb_and_does_not_fit_one_h800():
    r = report(gpu="h800", model="llama-3.1-70b", weights="fp16")
    assert r.weights_bytes == pytest.approx(140 * GB, rel=0.01)
    assert r.hbm_bytes_per_gpu == 80 * GB
    assert not r.fits
    assert r.free_bytes_per_gpu < -60 * GB
    assert r.max_context_tokens == 0 and r.max_sequences == 0


def test_70b_at_fp8_fits_one_h800_with_1500_tokens():
    # 68.5B layer weights at 1 byte plus the embedding and LM head (2 x 1.05B) kept in 16 bits, as FP8
    # checkpoints ship them (engine.deployment): 72.7 GB, not the seed's rounder 70.
    r = report(gpu="h800", model="llama-3.1-70b", weights="fp8", kv="fp16", prompt_tokens=1000, output_tokens=500)
    assert r.weights_bytes == pytest.approx(72.7 * GB, rel=0.01)
    assert r.fits
    assert 0 < r.free_bytes_per_gpu < 10 * GB


def test_splitting_over_two_gpus_halves_weights_and_kv_per_gpu():
    one = report(model="llama-3.1-70b", gpus=1)
    two = report(model="llama-3.1-70b", gpus=2)
    assert two.weights_bytes == one.weights_bytes
    assert two.weights_bytes_per_gpu == one.weights_bytes_per_gpu / 2
    assert two.kv_bytes == one.kv_bytes
    assert two.kv_bytes_per_gpu == one.kv_bytes_per_gpu / 2
    assert two.fits                       # 70.6 GB of FP16 weights and a little KV per GPU


def test_moe_keeps_every_expert_resident():
    r = report(model="mixtral-8x7b", weights="fp16", gpu="h800")
    assert r.weights_bytes == pytest.approx(46.7e9 * 2, rel=0.01)
    assert r.active_parameters < r.parameters / 3


def test_allowance_is_stated_and_small():
    r = report(model="llama-3.1-70b", weights="fp8", prompt_tokens=1000, batch=1)
    assert 1 * GiB < r.overhead_bytes_per_gpu < 1.5 * GiB
    assert r.used_bytes_per_gpu == pytest.approx(r.weights_bytes_per_gpu + r.kv_bytes_per_gpu
                                                 + r.overhead_bytes_per_gpu)
    assert r.free_bytes_per_gpu == pytest.approx(r.hbm_bytes_per_gpu - r.used_bytes_per_gpu)


def test_allowance_grows_with_tokens_in_flight_up_to_one_prefill_chunk():
    chunk = memory.PREFILL_CHUNK_TOKENS
    small = memory.allowance_bytes_per_gpu(fx.LLAMA_31_8B, 1, 1, 100)
    one_chunk = memory.allowance_bytes_per_gpu(fx.LLAMA_31_8B, 1, 1, chunk)
    assert one_chunk > small + 0.5 * GB
    # Past one chunk only the logits (one row per sequence) grow: 8 x 8,000 tokens are prefilled 8,192 at a time.
    big = memory.allowance_bytes_per_gpu(fx.LLAMA_31_8B, 1, 8, 8000)
    assert big == pytest.approx(one_chunk + 7 * fx.LLAMA_31_8B.vocab_size * memory.LOGIT_BYTES_PER_VALUE)
    assert memory.tokens_per_pass(8, 8000) == chunk and memory.tokens_per_pass(2, 1000) == 2000


def test_a_long_prompt_is_prefilled_in_chunks_not_held_at_once():
    # DeepSeek-V3 on 8 GPUs, 64 prompts of 128K tokens: all at once would be over 400 GB of activations per GPU.
    r = report(gpu="h800", model="deepseek-v3", weights="fp8", gpus=8, batch=64, prompt_tokens=131072,
               output_tokens=1000)
    assert r.overhead_bytes_per_gpu < 2 * GiB
    assert r.overhead_bytes_per_gpu == pytest.approx(memory.allowance_bytes_per_gpu(
        fx.DEEPSEEK_V3, 8, 64, memory.PREFILL_CHUNK_TOKENS // 64))


def test_a_long_prompt_fits_when_weights_and_kv_fit():
    # 16 GB of weights + 52 GB of KV on an 80 GB H800: fits, as a chunked-prefill server would run it.
    r = report(gpu="h800", model="llama-3.1-8b", batch=12, prompt_tokens=32000, output_tokens=1000)
    assert r.fits and r.max_sequences >= 12 and r.max_context_tokens >= 33000


@pytest.mark.parametrize("batch, prompt, output", [(1, 1000, 500), (8, 4000, 4000), (64, 2000, 2000),
                                                   (12, 32000, 1000), (13, 40000, 1000), (4, 125000, 1000)])
def test_longest_context_and_most_sequences_agree_with_fits(batch, prompt, output):
    r = report(model="llama-3.1-8b", gpu="a100-80gb", batch=batch, prompt_tokens=prompt, output_tokens=output)
    assert r.fits == (r.max_sequences >= batch) == (r.max_context_tokens >= prompt + output)


def test_most_sequences_shrinks_as_context_grows():
    short = report(model="llama-3.1-8b", gpu="a100-80gb", prompt_tokens=1000, output_tokens=1000)
    long = report(model="llama-3.1-8b", gpu="a100-80gb", prompt_tokens=30000, output_tokens=2000)
    assert long.max_sequences < short.max_sequences / 10
    # Each sequence of 2,000 tokens takes 2000 * 128 KiB of KV: roughly (80 GB - 16 GB) / 262 MB of them.
    assert short.max_sequences == pytest.approx((80e9 - 16.06e9 - short.overhead_bytes_per_gpu) / (2000 * 131072), abs=1)


@pytest.mark.parametrize("model, shapes", [("llama-3.1-70b", md.LLAMA_31_70B), ("llama-3.1-8b", md.LLAMA_31_8B),
                                           ("mixtral-8x7b", md.MIXTRAL_8X7B), ("deepseek-v3", md.DEEPSEEK_V3)])
@pytest.mark.parametrize("gpus, batch, prompt", [(1, 1, 1000), (2, 1, 1000), (8, 1, 1000), (2, 3, 2000),
                                                 (8, 64, 4000), (4, 1, 30_000)])
def test_the_allowance_is_its_definition(model, shapes, gpus, batch, prompt):
    """The allowance from engine/memory.py's docstring and the model's config.json, written out in
    tests/engine/memory_definition.py (not the engine's code): runtime, one pass's activations, the logits."""
    r = report(gpu="h200", model=model, weights="fp8", gpus=gpus, batch=batch, prompt_tokens=prompt,
               output_tokens=100)
    assert r.overhead_bytes_per_gpu == pytest.approx(md.allowance_bytes_per_gpu(shapes, gpus, batch, prompt),
                                                     rel=1e-12)
    assert r.used_bytes_per_gpu == pytest.approx(r.weights_bytes_per_gpu + r.kv_bytes_per_gpu
                                                 + r.overhead_bytes_per_gpu, rel=1e-12)


def test_the_allowance_of_the_seeds_example_is_about_1_2_gb():
    # 1 GiB + 1,000 tokens x (2 x 8192 + 8192 + 2048 + 2 x 28672) x 2 bytes (168 MB) + 128,256 x 4 bytes (0.5 MB).
    expected = GiB + 1000 * (2 * 8192 + (64 * 128 + 2 * 8 * 128 + 2 * 28672)) * 2 + 128256 * 4
    assert expected == 1_242_190_848
    assert report(gpu="h800", model="llama-3.1-70b", weights="fp8").overhead_bytes_per_gpu == pytest.approx(expected)


def _on_a_card_of(capacity_bytes: float, model=fx.LLAMA_31_70B, gpus=2, batch=3):
    from dataclasses import replace
    from engine.deployment import deploy
    from engine.layout import plan_layout
    gpu = replace(fx.H800, memory_bytes=capacity_bytes)
    d = deploy(model, gpu, plan_layout(model, gpu, gpus), fx.FP8, fx.FP16)
    return memory.plan_memory(d, batch=batch, prompt_tokens=1000, output_tokens=500)


@pytest.mark.parametrize("gpus, batch", [(1, 1), (2, 3), (8, 64)])
def test_a_card_filled_to_the_last_byte_fits_and_one_byte_less_does_not(gpus, batch):
    """The boundary: what the scenario needs may take all of the card's memory (free 0 fits); it cannot take more.
    The longest context and the most sequences agree with that verdict on both sides of the line."""
    need = _on_a_card_of(80e9, gpus=gpus, batch=batch).used_bytes_per_gpu
    full = _on_a_card_of(need, gpus=gpus, batch=batch)
    assert full.free_bytes_per_gpu == 0 and full.fits
    assert full.max_sequences >= batch and full.max_context_tokens >= 1500
    short = _on_a_card_of(need - 1, gpus=gpus, batch=batch)
    assert short.free_bytes_per_gpu == -1 and not short.fits
    assert short.max_sequences < batch and short.max_context_tokens < 1500
