"""Scene 2's figures (Qt-free): each what-if's numbers, formatted for its captions and notes.

Every number is the engine's: the report's fields, its communication per level
(``DecodeReport.communication_levels``), and the split of the weights into the
layers' matrices, stored in the weights' precision, and the embedding table,
LM head and norms, which stay 16-bit (``weight_parts``, from
``engine.deployment.Deployment``), so that a formula on screen adds up to the
report's ``weights_bytes``. Figures that need another question of the engine
(the weights' split, a what-if) are callables, worked out only when a text
names them (``desktop.kit.story.Values``).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from desktop.kit import questions
from desktop.kit.answers import Ask, refused
from desktop.scenes.model_memory.bars import (
    context_tokens, link_name, link_parts, more_context_tokens, network_parts, nodes_of, verdict,
)
from engine import InputError, Report, Scenario
from engine.communication import network_bytes_per_second_one_direction
from engine.compute import setup_of
from engine.frozen import frozen
from engine.units import format_bandwidth, format_bytes, format_count, format_number, format_parameters, format_seconds

Text = Callable[..., str]
Figure = str | Callable[[], str]


@frozen
class WeightParts:
    """The engine's weights in two parts: the layers' matrices, and the parameters that stay 16-bit."""
    narrow_parameters: float        # the transformer layers' matrices, in the weights' precision
    narrow_bytes_per_value: float
    narrow_bytes: float
    wide_parameters: float          # the embedding table, the LM head (if untied), the norms
    wide_bytes_per_value: float
    wide_bytes: float


def weight_parts(catalog, scenario: Scenario) -> WeightParts:
    """``scenario``'s weights as ``engine.deployment.Deployment.weights_bytes`` adds them up (a kit question)."""
    deployment = setup_of(scenario, catalog).deployment
    wide = deployment.wide_parameters
    narrow = deployment.counts.total - wide
    return WeightParts(narrow, deployment.weight_bytes_per_value, narrow * deployment.weight_bytes_per_value,
                       wide, deployment.wide_bytes_per_value, wide * deployment.wide_bytes_per_value)


def value_size(bytes_per_value: float, text: Text) -> str:
    """"2 bytes", "1 byte", "4.5 bits": a weight's storage, in bits below one byte."""
    if bytes_per_value < 1:
        return text("label.value_bits", value=format_number(8 * bytes_per_value))
    return text("label.value_bytes", count=1 if bytes_per_value == 1 else 2, value=format_number(bytes_per_value))


def weights_formula(report: Report, parts: WeightParts | InputError, text: Text) -> str:
    """"70.6B parameters × 2 bytes = 141 GB", or, where the layers are narrower than the 16-bit parts,
    "68.5B layer weights × 1 byte + 2.1B ... × 2 bytes = 68.5 GB + 4.2 GB = 72.7 GB"."""
    total = format_bytes(report.weights_bytes)
    if refused(parts) or parts.narrow_bytes_per_value == parts.wide_bytes_per_value:
        return text("label.weights_all", parameters=format_parameters(report.parameters),
                    size=value_size(report.weights_precision.bytes_per_value, text), total=total)
    return text("label.weights_parts", narrow=format_parameters(parts.narrow_parameters),
                size=value_size(parts.narrow_bytes_per_value, text), wide=format_parameters(parts.wide_parameters),
                wide_size=value_size(parts.wide_bytes_per_value, text), narrow_bytes=format_bytes(parts.narrow_bytes),
                wide_bytes=format_bytes(parts.wide_bytes), total=total)


def weights_share(report: Report, text: Text) -> str:
    """How the weights are shared out per GPU: all on one, an even share, or the experts over all GPUs."""
    gpus, lay = report.scenario.gpus, report.layout
    values = {"total": format_bytes(report.weights_bytes), "gpus": format_count(gpus),
              "each": format_bytes(report.weights_bytes_per_gpu)}
    if gpus == 1:
        return text("label.share_one", **values)
    if lay is None or lay.data == 1:          # every GPU holds 1/gpus of everything (engine.deployment)
        return text("label.share_even", **values)
    return text("label.share_experts", tensor=format_count(lay.tensor), **values)


def network_seconds(report: Report) -> float:
    """One decode step's communication over the network between nodes (the report's levels)."""
    return sum(seconds for _level, link, seconds in report.decode.communication_levels if link == "network")


def node_seconds(report: Report) -> float:
    """One decode step's communication inside the nodes (over the GPU link or PCIe)."""
    return sum(seconds for _level, link, seconds in report.decode.communication_levels if link != "network")


def communication_text(report: Report, text: Text) -> str:
    """Each level of one decode step's communication: "tensor all-reduces over NVLink 4: 3.62 ms; ..."."""
    levels = report.decode.communication_levels
    if not levels:
        return text("label.no_communication")
    return text("label.list_separator").join(
        text("label.level", level=text(f"label.level_{level}"), link=link_name(report, link, text),
             seconds=format_seconds(seconds)) for level, link, seconds in levels)


def layout_text(report: Report, text: Text) -> str:
    """" in 2 nodes, tensor parallelism over 8 cards inside each and 2 pipeline stages across them" (and how
    the experts spread), or "" in one node."""
    lay = report.layout
    if nodes_of(report) < 2:
        return ""
    experts = text("label.layout_experts", expert=format_count(lay.expert)) if lay.expert > 1 else ""
    return text("label.layout_nodes", nodes=format_count(lay.nodes), tensor=format_count(lay.tensor),
                pipeline=format_count(lay.pipeline)) + experts


def tensor_over_all(report: Report, ask: Ask) -> Report | InputError:
    """The same deployment with one tensor group over all its GPUs (no pipeline): what crossing nodes costs."""
    s = report.scenario
    return ask(questions.report, replace(s, tp=s.gpus, pp=1, ep=0))


def across_text(report: Report, ask: Ask, text: Text) -> str:
    """One decode step's communication with tensor parallelism over every GPU, or why the engine refuses it."""
    wide = tensor_over_all(report, ask)
    if refused(wide):
        return text("label.across_refused")
    return format_seconds(wide.decode.communication_seconds)


def figures(result: Report | InputError, text: Text, ask: Ask) -> dict[str, Figure]:
    """The formatted numbers of one what-if, for captions and notes (callables: worked out when named)."""
    if refused(result):
        return {}
    r, s = result, result.scenario
    precision, kv_precision, lay = r.weights_precision, r.kv_precision, r.layout
    network, network_bandwidth = network_parts(r, text)
    return {
        "model": r.model.name,
        "gpu": r.gpu.name,
        "gpus": format_count(s.gpus),
        "capacity": format_bytes(r.hbm_bytes_per_gpu),
        "precision": precision.name,
        "value_bytes": format_number(precision.bytes_per_value),
        "value_size": value_size(precision.bytes_per_value, text),
        "kv_precision": kv_precision.name,
        "kv_value_bytes": format_number(kv_precision.bytes_per_value),
        "parameters": format_parameters(r.parameters),
        "weights_total": format_bytes(r.weights_bytes),
        "weights": format_bytes(r.weights_bytes_per_gpu),
        "weights_formula": lambda: weights_formula(r, ask(weight_parts, s), text),
        "weights_share": weights_share(r, text),
        "kv_per_token": format_bytes(r.kv_bytes_per_token, binary=True),
        "context": format_count(context_tokens(r)),
        "batch": format_count(s.batch),
        "batch_sequences": text("label.sequences", count=s.batch, n=format_count(s.batch)),
        "kv_total": format_bytes(r.kv_bytes),
        "kv": format_bytes(r.kv_bytes_per_gpu),
        "runtime": format_bytes(r.overhead_bytes_per_gpu),
        "used": format_bytes(r.used_bytes_per_gpu),
        # Boundary: nothing is free below 0; a shortfall is "over" (test_model_memory_model.py).
        "free": format_bytes(max(0.0, r.free_bytes_per_gpu)),
        "over": format_bytes(max(0.0, -r.free_bytes_per_gpu)),
        # what is left, or by how much it does not fit: never "0 B free" for an option that is over
        "room": text("label.room_free", free=format_bytes(r.free_bytes_per_gpu)) if r.free_bytes_per_gpu >= 0
        else text("label.room_over", over=format_bytes(-r.free_bytes_per_gpu)),
        "weights_over": format_bytes(max(0.0, r.weights_bytes_per_gpu - r.hbm_bytes_per_gpu)),
        # the longest context, never past the model's maximum, and saying so where that is what stops it
        "longest": text("label.longest_capped" if r.longest_context_capped else "label.longest",
                        tokens=format_count(r.longest_context_tokens)),
        "more_context": format_count(more_context_tokens(r)),
        "max_sequences": format_count(r.max_sequences),
        "max_sequences_text": text("label.sequences_of", count=r.max_sequences, n=format_count(r.max_sequences)),
        "link": link_parts(r)[0],
        "link_bandwidth": link_parts(r)[1],
        "network": network,
        "network_bandwidth": network_bandwidth,
        "network_each_way": format_bandwidth(network_bytes_per_second_one_direction(r.gpu)),
        "nodes": format_count(nodes_of(r)),
        "node_gpus": format_count(r.gpu.node_gpus),
        "tensor": format_count(lay.tensor if lay else s.gpus),
        "pipeline": format_count(lay.pipeline if lay else 1),
        "layout": layout_text(r, text),
        "communication": communication_text(r, text),
        "inside": format_seconds(node_seconds(r)),
        "between": format_seconds(network_seconds(r)),
        "step": format_seconds(r.decode.seconds_per_token),
        "across": lambda: across_text(r, ask, text),
        "verdict": verdict(r, text, str)[0],
    }


def values_for(results: Mapping[str, Report | InputError], text: Text, ask: Ask) -> dict[str, Figure]:
    """Caption and note values: each build's figures under ``<build>_<name>``."""
    values: dict[str, Figure] = {}
    for phase, result in results.items():
        values.update({f"{phase}_{name}": value for name, value in figures(result, text, ask).items()})
    return values
