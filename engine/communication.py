"""What the GPUs of a layout say to each other in one forward pass, level by level.

Each level (``engine.layout``) is priced as ``link_seconds`` (its bytes at the full
datasheet rate of the link it crosses, one direction: half of the both-ways figure
the catalogue stores) and a number of ``calls`` (messages, each paying that link's
latency); ``engine.efficiency`` turns the two into seconds. The links:

- ``"link"``: the node's GPU-to-GPU link (NVLink, Infinity Fabric, HCCS, UB), at the
  share a group of that size can use (``engine.parallel.link_bytes_per_second_one_direction``);
- ``"pcie"``: the same, for cards whose only path to each other is PCIe (RTX 4090,
  L40S, A100 PCIe without a bridge) or whose bridge joins pairs only;
- ``"network"``: the scale-out network between nodes, ``Gpu.network_bytes_per_second``
  per GPU (one NIC per GPU, as on HGX boards).

The levels, for a pass over ``tokens`` tokens (a prefill's prompts, or one
decode step's sequences) on a stage of T x D GPUs:

1. tensor: two all-reduces per layer of ``tokens / D * hidden * 2`` bytes over the T
   GPUs of a replica (ring: ``2 (T-1)/T`` of the size through each GPU). A group
   wider than a node rings through several nodes and runs at the network's pace;
   a MoE layer whose experts exchange tokens all-to-all (D > 1) needs only the
   attention's all-reduce, the experts' sum being part of the combine.
2. pipeline: P - 1 hand-overs of the tokens' hidden states (``tokens * hidden * 2``
   bytes, each GPU sending its copy over its own NIC), over the network where the
   hand-over leaves a node; a decode step also returns the sampled tokens from the
   last stage to the first (one more message, a few bytes). At batch 1 the stages
   work in turn, so every hand-over is on the token's path.
3. expert (D > 1 only): each MoE layer dispatches every token to the GPUs of its k
   experts and combines their outputs back: two all-to-alls per layer. Each GPU
   sends its ``tokens / (T x D)`` tokens k times, ``(E-1)/E`` of them to another
   GPU, and of those the share on other nodes over the network; the slower link
   sets the time (DeepEP drives NVLink and RDMA at once).

With D = 1 and the experts spread over the tensor group (vLLM's and SGLang's
expert parallelism inside TP) every GPU already holds every token, so the
experts' outputs are summed by the same all-reduce as a dense MLP's.
"""
from __future__ import annotations


from engine.catalog_types import Gpu, Model
from engine.frozen import frozen
from engine.layout import Layout
from engine.parallel import (
    ACTIVATION_BYTES_PER_VALUE, ALLREDUCES_PER_LAYER, link_bytes_per_second_one_direction, ring_allreduce_link_seconds,
    uses_pcie,
)

LINKS = ("link", "pcie", "network")
LEVELS = ("tensor", "pipeline", "expert")


@frozen
class Transfer:
    """One level's communication in one pass: its bytes' time at full link speed, and its messages."""
    level: str              # one of LEVELS
    link: str               # one of LINKS
    link_seconds: float     # bandwidth time at the link's datasheet rate (one direction), no latency
    calls: int              # messages on the pass's path; each pays the link's latency


def node_link(gpu: Gpu, group: int) -> str:
    """``"pcie"`` when a group of ``group`` GPUs in one node talk over PCIe, else ``"link"``."""
    if uses_pcie(gpu) or (gpu.interconnect_topology == "pairs" and group > 2):
        return "pcie"
    return "link"


def network_bytes_per_second_one_direction(gpu: Gpu) -> float:
    """Each GPU's share of the scale-out network, one direction (half the both-ways catalogue figure)."""
    return gpu.network_bytes_per_second / 2


def _tensor(model: Model, gpu: Gpu, layout: Layout, tokens: float) -> Transfer | None:
    group = layout.tensor
    if group <= 1:
        return None
    size = tokens / layout.data * model.hidden_size * ACTIVATION_BYTES_PER_VALUE
    if layout.tensor_crosses_nodes:
        link = "network"
        rate = min(network_bytes_per_second_one_direction(gpu), link_bytes_per_second_one_direction(gpu, group))
    else:
        link, rate = node_link(gpu, group), link_bytes_per_second_one_direction(gpu, group)
    moe_layers = model.layers - model.dense_layers if model.is_moe else 0
    calls = ALLREDUCES_PER_LAYER * model.layers - (moe_layers if layout.data > 1 else 0)
    return Transfer("tensor", link, calls * ring_allreduce_link_seconds(size, group, rate), calls)


def _pipeline(model: Model, gpu: Gpu, layout: Layout, tokens: float, returns_tokens: bool) -> list[Transfer]:
    if layout.pipeline <= 1:
        return []
    size = tokens / layout.data * model.hidden_size * ACTIVATION_BYTES_PER_VALUE
    crossing = layout.network_hand_overs
    inside = layout.pipeline - 1 - crossing
    back_crosses = layout.nodes > 1          # the last stage's node is not the first's
    transfers = []
    network_calls = crossing + (1 if returns_tokens and back_crosses else 0)
    if network_calls:
        transfers.append(Transfer("pipeline", "network",
                                  crossing * size / network_bytes_per_second_one_direction(gpu), network_calls))
    link_calls = inside + (1 if returns_tokens and not back_crosses else 0)
    if link_calls:
        transfers.append(Transfer("pipeline", node_link(gpu, 2),
                                  inside * size / link_bytes_per_second_one_direction(gpu, 2), link_calls))
    return transfers


def _expert(model: Model, gpu: Gpu, layout: Layout, tokens: float) -> Transfer | None:
    if not model.is_moe or layout.data <= 1:
        return None
    stage = layout.stage_gpus
    sent = tokens / stage * model.experts_per_token * model.hidden_size * ACTIVATION_BYTES_PER_VALUE
    remote = sent * (layout.expert - 1) / layout.expert
    off_node = remote * max(0.0, 1.0 - layout.node_gpus / stage) if layout.stage_crosses_nodes else 0.0
    on_node = remote - off_node
    node_seconds = on_node / link_bytes_per_second_one_direction(gpu, min(stage, layout.node_gpus))
    if off_node:
        link = "network"
        seconds = max(node_seconds, off_node / network_bytes_per_second_one_direction(gpu))
    else:
        link, seconds = node_link(gpu, stage), node_seconds
    calls = 2 * (model.layers - model.dense_layers)          # dispatch and combine in every MoE layer
    return Transfer("expert", link, calls * seconds, calls)


def pass_transfers(model: Model, gpu: Gpu, layout: Layout, tokens: float,
                   returns_tokens: bool = False) -> tuple[Transfer, ...]:
    """Every level's communication of one pass over ``tokens`` tokens (module docstring).

    ``returns_tokens``: a decode step, whose sampled tokens go back from the last stage to the first.
    """
    found = [_tensor(model, gpu, layout, tokens), *_pipeline(model, gpu, layout, tokens, returns_tokens),
             _expert(model, gpu, layout, tokens)]
    return tuple(transfer for transfer in found if transfer is not None)
