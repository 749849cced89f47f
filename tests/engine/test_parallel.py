"""Tensor parallelism: the all-reduce formula, its links, and what splitting buys."""
import pytest

from engine import parallel
from engine.catalog import default_catalog
from engine.communication import pass_transfers
from engine.efficiency import REALISTIC
from engine.layout import Layout
from tests.engine import fixtures as fx
from tests.engine.fixtures import report


def test_ring_allreduce_formula():
    size = 1e6
    assert parallel.ring_allreduce_link_seconds(size, 1, 200e9) == 0
    assert parallel.ring_allreduce_link_seconds(size, 2, 200e9) == pytest.approx(1 * size / 200e9)
    assert parallel.ring_allreduce_link_seconds(size, 8, 200e9) == pytest.approx(2 * 7 / 8 * size / 200e9)


def test_link_is_one_direction_of_nvlink_or_pcie():
    assert parallel.link_bytes_per_second_one_direction(fx.H800) == 200e9
    assert parallel.link_bytes_per_second_one_direction(fx.RTX_4090) == 32e9       # no NVLink: PCIe
    assert parallel.uses_pcie(fx.RTX_4090) and not parallel.uses_pcie(fx.H800)


def _tensor_link_seconds(model, gpu, gpus, tokens):
    layout = Layout(gpus=gpus, node_gpus=gpu.node_gpus, tensor=gpus, pipeline=1, expert=1)
    [tensor] = [t for t in pass_transfers(model, gpu, layout, tokens) if t.level == "tensor"]
    return tensor.link_seconds


def test_decode_step_allreduce_time_from_the_formula():
    model = fx.LLAMA_31_70B
    per_call = 2 * 3 / 4 * (8 * 8192 * 2) / 200e9
    assert _tensor_link_seconds(model, fx.H800, 4, tokens=8) == pytest.approx(160 * per_call)
    ideal = report(model="llama-3.1-70b", gpus=4, batch=8, mode="ideal")
    assert ideal.decode.communication_seconds == pytest.approx(160 * per_call)
    real = report(model="llama-3.1-70b", gpus=4, batch=8, mode="realistic")
    eff = REALISTIC
    assert real.decode.communication_seconds == pytest.approx(
        160 * per_call / eff.link_share + 160 * eff.allreduce_latency_seconds)
    assert report(model="llama-3.1-70b", gpus=1).decode.communication_seconds == 0


def test_more_gpus_decode_faster_but_not_proportionally():
    one = report(model="llama-3.1-8b", gpu="a100-80gb", gpus=1, prompt_tokens=100, output_tokens=100)
    eight = report(model="llama-3.1-8b", gpu="a100-80gb", gpus=8, prompt_tokens=100, output_tokens=100)
    assert one.tpot_seconds / 8 < eight.tpot_seconds < one.tpot_seconds / 2


def test_pcie_cards_pay_more_for_communication_than_nvlink_cards():
    pcie = report(model="llama-3.1-8b", gpu="rtx-4090", gpus=2, prompt_tokens=2000, output_tokens=10, mode="ideal")
    nvlink = report(model="llama-3.1-8b", gpu="a100-80gb", gpus=2, prompt_tokens=2000, output_tokens=10, mode="ideal")
    assert pcie.allreduce_seconds_per_step > 5 * nvlink.allreduce_seconds_per_step


def test_a_tensor_group_wider_than_the_heads_is_refused():
    from engine.errors import InputError
    with pytest.raises(InputError, match="32 attention heads"):
        report(model="llama-3.1-8b", gpus=64, tp=64)


@pytest.mark.parametrize("model, counts", [
    ("llama-3.1-8b", (1, 2, 4, 8, 16, 32)),           # 32 heads; 8 KV heads split (1..8) or copied (16, 32)
    ("llama-3.1-405b", (1, 2, 4, 8, 16, 32, 64, 128)),   # 128 heads
    ("qwen2.5-7b", (1, 2, 4)),                        # 28 heads, 4 KV heads: 7 and 14 neither split nor copy
    ("llama-2-13b", (1, 2, 4, 8)),                    # 40 heads, but an MLP 13,824 wide: 5 does not divide it
    ("deepseek-v3", (1, 2, 4, 8, 16, 32, 64, 128)),   # MLA: the latent is copied, no KV-head rule
])
def test_allowed_gpu_counts_are_those_that_share_heads_kv_heads_and_mlp_evenly(model, counts):
    assert parallel.allowed_gpu_counts(default_catalog().model(model)) == counts


def test_the_limit_cuts_the_allowed_counts():
    llama = default_catalog().model("llama-3.1-8b")
    assert parallel.allowed_gpu_counts(llama, limit=8) == (1, 2, 4, 8)
    assert parallel.allowed_gpu_counts(llama, limit=1) == (1,)


def test_every_allowed_count_gives_a_report_and_every_other_count_is_refused_naming_them():
    from engine.errors import InputError
    for model in default_catalog().models.values():
        allowed = parallel.allowed_gpu_counts(model)
        for gpus in range(1, 130):                   # past every catalogue model's widest allowed group
            if gpus in allowed:
                report(model=model.id, gpus=gpus, tp=gpus)
                continue
            with pytest.raises(InputError) as caught:
                report(model=model.id, gpus=gpus, tp=gpus)
            sentence = str(caught.value)
            assert caught.value.code.startswith("parallel.uneven_") and f"over {gpus} GPUs" in sentence
            assert sentence.endswith(f"tensor parallelism allows {parallel.or_list(allowed)} GPUs.")


def test_kv_heads_split_below_their_count_and_are_copied_above_it():
    """vLLM: 8 KV heads over 4 GPUs: 2 each; over 16 or 32 GPUs: one each, copied on 2 or 4 GPUs."""
    from engine.kv_cache import kv_share_per_gpu
    llama = default_catalog().model("llama-3.1-8b")
    assert [kv_share_per_gpu(llama, g) for g in (1, 2, 4, 8, 16, 32)] == [1, 1 / 2, 1 / 4, 1 / 8, 1 / 8, 1 / 8]
    four = report(model="llama-3.1-8b", gpus=16, tp=16, prompt_tokens=4000, output_tokens=1)
    eight = report(model="llama-3.1-8b", gpus=8, prompt_tokens=4000, output_tokens=1)
    assert four.kv_bytes_per_gpu == pytest.approx(eight.kv_bytes_per_gpu)   # copies do not shrink the share


def test_or_list_reads_as_a_sentence():
    assert parallel.or_list([1]) == "1"
    assert parallel.or_list([1, 2]) == "1 or 2"
    assert parallel.or_list([1, 2, 4, 8, 16, 32]) == "1, 2, 4, 8, 16 or 32"


def test_mesh_links_are_shared_by_peer_count():
    """MI300X: 7 Infinity Fabric links of 128 GB/s; 2 GPUs talk over one, 8 over all seven."""
    mi300x = default_catalog().gpu("mi300x")
    assert mi300x.interconnect_topology == "mesh" and mi300x.interconnect_links == 7
    assert parallel.link_bytes_per_second_one_direction(mi300x, 2) == pytest.approx(128e9 / 2)
    assert parallel.link_bytes_per_second_one_direction(mi300x, 4) == pytest.approx(3 * 128e9 / 2)
    assert parallel.link_bytes_per_second_one_direction(mi300x, 8) == pytest.approx(896e9 / 2)


def test_a_bridge_joins_pairs_only_so_larger_groups_cross_pcie():
    h100_pcie = default_catalog().gpu("h100-pcie")
    assert parallel.link_bytes_per_second_one_direction(h100_pcie, 2) == pytest.approx(600e9 / 2)
    assert parallel.link_bytes_per_second_one_direction(h100_pcie, 4) == pytest.approx(128e9 / 2)


def test_switched_links_give_every_group_the_full_figure():
    h800 = default_catalog().gpu("h800")
    assert {parallel.link_bytes_per_second_one_direction(h800, g) for g in (2, 4, 8)} == {200e9}


def test_two_mesh_gpus_pay_seven_times_the_link_time_of_eight():
    """Per-call link time scales with the usable share of the mesh, not with the total figure."""
    model = default_catalog().model("llama-3.1-70b")
    mi300x = default_catalog().gpu("mi300x")
    two = _tensor_link_seconds(model, mi300x, 2, tokens=1)
    eight = _tensor_link_seconds(model, mi300x, 8, tokens=1)
    ring_share = (2 * 1 / 2) / (2 * 7 / 8)
    assert two / eight == pytest.approx(7 * ring_share)
