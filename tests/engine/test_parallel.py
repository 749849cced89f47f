"""Tensor parallelism: the all-reduce formula, its links, and what splitting buys."""
import pytest

from engine import parallel
from engine.catalog import default_catalog
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


def test_decode_step_allreduce_time_from_the_formula():
    model = fx.LLAMA_31_70B
    per_call = 2 * 3 / 4 * (8 * 8192 * 2) / 200e9
    assert parallel.allreduce_link_seconds_per_pass(model, fx.H800, 4, tokens=8) == pytest.approx(160 * per_call)
    ideal = report(model="llama-3.1-70b", gpus=4, batch=8, mode="ideal")
    assert ideal.allreduce_seconds_per_step == pytest.approx(160 * per_call)
    real = report(model="llama-3.1-70b", gpus=4, batch=8, mode="realistic")
    assert real.allreduce_seconds_per_step == pytest.approx(160 * per_call / 0.8 + 160 * 20e-6)
    assert report(model="llama-3.1-70b", gpus=1).allreduce_seconds_per_step == 0


def test_more_gpus_decode_faster_but_not_proportionally():
    one = report(model="llama-3.1-8b", gpu="a100-80gb", gpus=1, prompt_tokens=100, output_tokens=100)
    eight = report(model="llama-3.1-8b", gpu="a100-80gb", gpus=8, prompt_tokens=100, output_tokens=100)
    assert one.tpot_seconds / 8 < eight.tpot_seconds < one.tpot_seconds / 2


def test_pcie_cards_pay_more_for_communication_than_nvlink_cards():
    pcie = report(model="llama-3.1-8b", gpu="rtx-4090", gpus=2, prompt_tokens=2000, output_tokens=10, mode="ideal")
    nvlink = report(model="llama-3.1-8b", gpu="a100-80gb", gpus=2, prompt_tokens=2000, output_tokens=10, mode="ideal")
    assert pcie.allreduce_seconds_per_step > 5 * nvlink.allreduce_seconds_per_step


def test_more_gpus_than_heads_is_refused():
    from engine.errors import InputError
    with pytest.raises(InputError, match="32 attention heads"):
        report(model="llama-3.1-8b", gpus=64)


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
    two = parallel.allreduce_link_seconds_per_pass(model, mi300x, 2, tokens=1)
    eight = parallel.allreduce_link_seconds_per_pass(model, mi300x, 8, tokens=1)
    ring_share = (2 * 1 / 2) / (2 * 7 / 8)
    assert two / eight == pytest.approx(7 * ring_share)
