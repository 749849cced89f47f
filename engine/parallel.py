"""Tensor parallelism: splitting one model across g GPUs, and what the GPUs must then say to each other.

With Megatron-style tensor parallelism every weight matrix is cut into g
slices, so each GPU holds and reads ``1/g`` of the weights (MoE: a slice of
every expert), computes ``1/g`` of the FLOPs and keeps its share of the KV
heads (``engine.kv_cache.kv_share_per_gpu``). The price: after the attention
output projection and after the MLP down projection of every layer the g
partial results must be summed on all GPUs, two all-reduces per layer.

One all-reduce of ``tokens * hidden_size * 2`` bytes (16-bit activations) by
the ring algorithm moves ``2 * (g-1)/g`` of that size through each GPU's link,
so it takes::

    2 * (g - 1) / g * size_bytes / link_bytes_per_second_one_direction + latency

where the link is the GPU's interconnect (NVLink) or, for GPUs without one,
PCIe (``engine.communication`` prices every level, the network between nodes
included), and one direction is half the datasheet's both-directions figure (H800:
400 GB/s NVLink -> 200 GB/s each way). How much of that figure a group of g
GPUs can use depends on the interconnect's topology (``Gpu.interconnect_topology``):

- switch (NVSwitch, or PCIe through the host): the whole figure, for any g;
- mesh (MI300X Infinity Fabric, Ascend HCCS): the figure is the sum of L direct
  links, one per peer; g GPUs run g - 1 rings over g - 1 links at once, so
  ``figure * min(g - 1, L) / L`` (MI300X: 2 GPUs share one 128 GB/s link, 8 use all 7);
- pairs (H100 PCIe NVLink bridge): the bridge serves 2 GPUs; a larger group's
  ring crosses PCIe, whose speed then sets the pace. A decode step all-reduces ``batch``
tokens per call, a prefill pass ``batch * prompt_tokens``. The per-call latency
(``engine.efficiency``) is what small messages cost regardless of size.
One GPU needs no communication at all.

Which GPU counts tensor parallelism allows (as vLLM and Megatron-LM refuse the
rest): every GPU must get the same whole number of attention heads, so g must
divide ``attention_heads``; the KV heads are split when g divides ``kv_heads``
and copied when g is a multiple of ``kv_heads`` (each group of ``g / kv_heads``
GPUs keeps the same head), any other g is refused; MLA's one latent is copied to
every GPU, so it sets no rule. The MLP weights are cut along their width, so g
must also divide the dense MLP width and, for MoE, each expert's width.
``allowed_gpu_counts`` lists what passes; ``check_gpu_count`` refuses the rest.
"""
from __future__ import annotations

from engine.catalog_types import Gpu, Model
from engine.errors import InputError
from engine.scenario import MAX_GPUS   # the widest tensor group the scenario allows
from engine.units import format_count

ALLREDUCES_PER_LAYER = 2
ACTIVATION_BYTES_PER_VALUE = 2.0     # activations are FP16/BF16, in memory and on the link (engine.memory too)


def uses_pcie(gpu: Gpu) -> bool:
    """True when the GPU has no GPU-to-GPU link of its own, so all-reduces cross PCIe."""
    return gpu.interconnect_bytes_per_second <= 0 or "pcie" in gpu.interconnect.lower()


def link_bytes_per_second_one_direction(gpu: Gpu, gpus: int = 2) -> float:
    """What ``gpus`` GPUs get of their link in one direction: half the usable both-ways figure (module docstring)."""
    if gpu.interconnect_bytes_per_second <= 0:
        return gpu.pcie_bytes_per_second / 2
    if gpu.interconnect_topology == "mesh":
        usable_links = min(max(gpus - 1, 1), gpu.interconnect_links)
        return gpu.interconnect_bytes_per_second * usable_links / gpu.interconnect_links / 2
    if gpu.interconnect_topology == "pairs" and gpus > 2:
        return gpu.pcie_bytes_per_second / 2
    return gpu.interconnect_bytes_per_second / 2


def ring_allreduce_link_seconds(size_bytes: float, gpus: int, link_bytes_per_second: float) -> float:
    """Bandwidth part of one ring all-reduce: ``2 * (g-1)/g * size / link`` (0 for one GPU)."""
    if gpus <= 1:
        return 0.0
    return 2.0 * (gpus - 1) / gpus * size_bytes / link_bytes_per_second


def _uneven_part(model: Model, gpus: int) -> tuple[str, int] | None:
    """The first part of ``model`` that ``gpus`` GPUs cannot share evenly, as (code suffix, its size); None if none."""
    if model.attention_heads % gpus:
        return "heads", model.attention_heads
    if not model.uses_mla and model.kv_heads % gpus and gpus % model.kv_heads:
        return "kv_heads", model.kv_heads
    if (not model.is_moe or model.dense_layers > 0) and model.intermediate_size % gpus:
        return "mlp", model.intermediate_size
    if model.is_moe and model.expert_intermediate_size % gpus:
        return "mlp", model.expert_intermediate_size
    return None


def allowed_gpu_counts(model: Model, limit: int = MAX_GPUS) -> tuple[int, ...]:
    """The GPU counts from 1 to ``limit`` over which tensor parallelism can split ``model`` (module docstring).

    Llama 3.1 8B (32 heads, 8 KV heads): (1, 2, 4, 8, 16, 32).
    """
    return tuple(g for g in range(1, limit + 1) if _uneven_part(model, g) is None)


def or_list(numbers) -> str:
    """1, 2, 4 -> "1, 2 or 4"."""
    shown = [format_count(n) for n in numbers]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


_REFUSALS = {
    "heads": "{model}'s {size} attention heads cannot be split evenly over {got} GPUs",
    "kv_heads": "{model}'s {size} KV heads can be neither split evenly over {got} GPUs nor copied evenly to them",
    "mlp": "{model}'s MLP width of {size} values cannot be split evenly over {got} GPUs",
}


def check_gpu_count(model: Model, gpus: int) -> None:
    """Raise ``InputError`` (code ``parallel.uneven_<part>``) when ``gpus`` cannot share ``model`` evenly.

    The sentence names the model, the part that does not divide, the count and the allowed counts:
    "Llama 3.1 8B's 32 attention heads cannot be split evenly over 3 GPUs; tensor parallelism
    allows 1, 2, 4, 8, 16 or 32 GPUs." ``gpus`` is a whole number already checked by the scenario.
    """
    uneven = _uneven_part(model, gpus)
    if uneven is None:
        return
    part, size = uneven
    counts = allowed_gpu_counts(model)
    raise InputError(
        _REFUSALS[part].format(model=model.name, size=format_count(size), got=format_count(gpus))
        + f"; tensor parallelism allows {or_list(counts)} GPUs.",
        f"parallel.uneven_{part}", {"model": model.name, "size": size, "got": gpus, "counts": counts})
