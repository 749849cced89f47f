"""Scene 2's memory bars (Qt-free): one bar per GPU, grouped by node past one node, and the links' labels.

In: a report of the engine (or its refusal) and the scene's ``text``. Out:
``widgets.memory_bars_state.MemoryBarsState``. Within one node every GPU has
its bar ("GPU 1", "GPU 2"; past ``MAX_BARS_PER_NODE``, one bar for each of
them), joined by the node's link ("NVLink 4 · 400 GB/s"). Past one node
(``Report.nodes``, ``Report.layout``) the bars are grouped into node frames:
the first node in full, then the second one, or, past two nodes, one frame
that stands for all the others alike ("Nodes 2–128 · 1,016 GPUs, each like
these"), so that 1,024 GPUs are never 1,024 slivers; the network between nodes
is labelled with the catalogue's per-GPU figure (``Gpu.network_bytes_per_second``).
A picture too small for the nodes' bars draws one bar "each of 16 GPUs in 2 nodes" instead.
Under tensor and pipeline parallelism the engine gives every GPU the same
share, so every bar is the same; the frames only count them.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from desktop.kit.answers import refused
from desktop.scenes.memory_bar_model import BarName, Label, memory_bars_state
from engine import InputError, Report
from engine.catalog_types import DEFAULT_NETWORK
from engine.communication import node_link
from engine.units import format_bandwidth, format_bytes, format_count
from widgets.memory_bars_state import GpuBar, MemoryBarsState, NodeGroup

Text = Callable[..., str]

MAX_BARS_PER_NODE = 8      # a node's GPUs one bar each up to this many; past it, one bar for each of them
# The full height of every story build's bars: the tallest stack or capacity among them, times this, so a
# change reads as growth against one fixed scale.
SCALE_HEADROOM = 1.05


def _short(link: str) -> str:
    """A catalogue link's name without its explanation: "NVLink 4 (400 GB/s total, ...)" -> "NVLink 4"."""
    return re.split(r" \(|, ", link, maxsplit=1)[0].strip()


def link_kind(report: Report) -> str:
    """How the GPUs of one node talk in this deployment (``engine.communication.node_link``): "link" or "pcie"."""
    group = report.layout.tensor if report.layout is not None else report.scenario.gpus
    return node_link(report.gpu, min(group, report.gpu.node_gpus))


def link_parts(report: Report) -> tuple[str, str]:
    """("NVLink 4", "400 GB/s"): the card's own GPU link as the catalogue names it, or its PCIe where the
    group talks over PCIe (no link, or a bridge that joins only pairs); both figures count both directions."""
    gpu = report.gpu
    if link_kind(report) == "pcie":
        return _short(gpu.pcie or "PCIe"), format_bandwidth(gpu.pcie_bytes_per_second)
    return _short(gpu.interconnect), format_bandwidth(gpu.interconnect_bytes_per_second)


def network_parts(report: Report, text: Text) -> tuple[str, str]:
    """("InfiniBand NDR", "100 GB/s"): the network between nodes and its rate per GPU, both directions
    summed like the GPU link's (``Gpu.network_bytes_per_second``)."""
    gpu = report.gpu
    name = text("label.network_unnamed") if gpu.network in ("", DEFAULT_NETWORK) else _short(gpu.network)
    return name, format_bandwidth(gpu.network_bytes_per_second)


def link_name(report: Report, kind: str, text: Text) -> str:
    """The name of a link kind of ``engine.communication.LINKS`` in this deployment ("NVLink 4", "InfiniBand NDR")."""
    if kind == "network":
        return network_parts(report, text)[0]
    if kind == "pcie":
        return _short(report.gpu.pcie or "PCIe")
    return _short(report.gpu.interconnect)


def nodes_of(report: Report) -> int:
    return report.layout.nodes if report.layout is not None else 1


def link_label(report: Report, text: Text) -> str:
    """"NVLink 4 · 400 GB/s" in the current language ("... inside each node" past one node); empty for one GPU."""
    name, speed = link_parts(report)
    if not name or report.scenario.gpus < 2:
        return ""
    return text("label.link_inside" if nodes_of(report) > 1 else "label.link", link=name, bandwidth=speed)


def network_label(report: Report, text: Text) -> str:
    """"InfiniBand NDR · 100 GB/s per GPU between nodes"; empty within one node."""
    if nodes_of(report) < 2:
        return ""
    name, speed = network_parts(report, text)
    return text("label.network", network=name, bandwidth=speed)


def scale_for(reports) -> float:
    """One scale for all ``reports``' bars: the tallest stack or capacity, with a little headroom."""
    tallest = [max(r.used_bytes_per_gpu, r.hbm_bytes_per_gpu) for r in reports if not refused(r)]
    return max(tallest, default=1.0) * SCALE_HEADROOM


def bar_label(text: Text) -> Label:
    """The texts of one bar: "Weights 141 GB", "8.1 GB free", "61 GB over" (``label.<kind>``)."""
    return lambda kind, n_bytes: text(f"label.{kind}", bytes=format_bytes(n_bytes))


def bar_names(report: Report, text: Text) -> tuple[BarName, ...]:
    """"GPU 1", "GPU 2" ... under the bars of one node; past ``MAX_BARS_PER_NODE`` one bar named for each."""
    gpus = report.scenario.gpus
    if gpus > MAX_BARS_PER_NODE:
        return (BarName(text("label.each_gpu", count=format_count(gpus))),)
    name_key = "label.gpu" if gpus <= 4 else "label.gpu_short"
    return tuple(BarName(text(name_key, number=format_count(n + 1)), format_count(n + 1)) for n in range(gpus))


def _node(number: int, gpus: int, text: Text) -> NodeGroup:
    """One node of ``gpus`` GPUs, drawn in full (or as one bar for each of them past ``MAX_BARS_PER_NODE``)."""
    whole = gpus <= MAX_BARS_PER_NODE
    return NodeGroup(text("label.node" if whole else "label.node_each", number=format_count(number),
                          count=format_count(gpus)),
                     gpus if whole else 1, text("label.node_short", number=format_count(number)))


def node_groups(report: Report, text: Text) -> tuple[NodeGroup, ...]:
    """The node frames: () within one node; node 1 and node 2; or node 1 and one frame for all the others,
    drawn as node 2 (a full node), labelled with how many nodes and GPUs it stands for."""
    nodes = nodes_of(report)
    if nodes < 2:
        return ()
    per_node, gpus = report.layout.node_gpus, report.scenario.gpus
    first = _node(1, per_node, text)
    if nodes == 2:
        return first, _node(2, gpus - per_node, text)
    values = {"first": format_count(2), "last": format_count(nodes)}
    rest = NodeGroup(text("label.nodes_alike", count=format_count(gpus - per_node), **values),
                     _node(2, per_node, text).bars, text("label.nodes_short", **values), repeated=True)
    return first, rest


def context_tokens(report: Report) -> int:
    return report.scenario.prompt_tokens + report.scenario.output_tokens


def more_context_tokens(report: Report) -> int:
    """Tokens of context each sequence could still add: the engine's longest context (memory's, or the model's
    maximum where that is lower: ``Report.longest_context_capped``) minus this scenario's."""
    return max(0, report.longest_context_tokens - context_tokens(report))


def verdict(result: Report | InputError, text: Text, refusal_text: Callable[[InputError], str]) -> tuple[str, str]:
    """The verdict line and its colour role: fits with what is free (and the context that buys, saying so where
    the model's maximum stops it first), by how much it does not, or the engine's refusal."""
    if refused(result):
        return refusal_text(result), "warning"
    if result.fits:
        key = "label.verdict_fits_capped" if result.longest_context_capped else "label.verdict_fits"
        return text(key, free=format_bytes(result.free_bytes_per_gpu), tokens=format_count(more_context_tokens(result)),
                    batch=format_count(result.scenario.batch),
                    longest=format_count(result.longest_context_tokens)), "good"
    return text("label.verdict_over", over=format_bytes(-result.free_bytes_per_gpu)), "warning"


def gpu_bars(report: Report, text: Text) -> tuple[GpuBar, ...]:
    """The bars drawn for ``report`` (``bars_state``'s): one per GPU of a node, all alike."""
    return bars_state(report, text, str, 1.0).bars


def bars_state(result: Report | InputError, text: Text, refusal_text: Callable[[InputError], str], scale_bytes: float,
               title: str = "", footer: str | None = None, footer_role: str | None = None) -> MemoryBarsState:
    """The bars for one what-if; the footer is its verdict unless given. A refusal: no bars, the refusal below."""
    line, role = verdict(result, text, refusal_text)
    footer = line if footer is None else footer
    role = role if footer_role is None else footer_role
    if refused(result):
        return MemoryBarsState((), scale_bytes, title=title, footer=footer, footer_role=role)
    nodes = node_groups(result, text)
    names = (BarName(""),) * sum(node.bars for node in nodes) if nodes else bar_names(result, text)
    each = text("label.each_gpu_nodes", count=format_count(result.scenario.gpus),
                nodes=format_count(nodes_of(result))) if nodes else ""
    return memory_bars_state(result, bar_label(text), names, scale_bytes=scale_bytes,
                             link_label=link_label(result, text), title=title, footer=footer, footer_role=role,
                             nodes=nodes, network_label=network_label(result, text), each_label=each)
