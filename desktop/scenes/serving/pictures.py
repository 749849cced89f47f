"""The serving scene's pictures (Qt-free): the latency plot and the fleet, as plain states of the engine's answers.

``latency_state`` draws the engine's latency curve (``engine.plan_curve``): the
P90 first-token time and time per token of the plan's fleet against the
request rate, each target as a level line, the knee where the first-token
time has doubled (``KNEE_FACTOR``), the planned traffic as a line.
``fleet_state`` draws the plan's replicas on their nodes exactly as
``engine.plan_costs.fleet_nodes`` counts them: a replica of at least a node
fills its own nodes, smaller ones share a node, never split over two; past
``most_drawn_nodes`` nodes the rest are counted in one box.
"""
from __future__ import annotations

import math

from engine.plan import FleetPlan
from engine.plan_curve import KNEE_FACTOR, LatencyCurve
from engine.units import format_bandwidth, format_count, format_number, format_seconds
from widgets.fleet_picture_state import FREE, FleetNode, FleetPictureState
from widgets.latency_plot_state import LatencyPanel, LatencyPlotState

# A panel's scale reaches this many times the larger of its target and its lightest-load value, so the flat
# part, the target and the start of the climb all show; past it the curve leaves through the top.
PANEL_HEADROOM = 2.5
TARGET_HEADROOM = 1.25        # the target line never sits at the very top
MOST_DRAWN_SLOTS = 96         # GPUs a picture draws one by one at most (12 nodes of 8 in one view is too small)
MOST_DRAWN_NODES = 8
WIDE_NODE_COLUMNS = 12        # a node of more than 8 GPUs draws them in rows of about this many


def nice_ticks(top: float, most: int = 5) -> list[float]:
    """0 and round steps (1, 2 or 5 times a power of ten) up to ``top``, at most ``most`` + 1 of them."""
    if not top > 0 or not math.isfinite(top):
        return [0.0]
    raw = top / most
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    count = int(top / step + 1e-9)
    return [i * step for i in range(count + 1)]


def _panel(key: str, title: str, rates, seconds, target: float, target_label: str, off_chart) -> LatencyPanel:
    values = [float(s) for s in seconds]
    top = max(TARGET_HEADROOM * target, min(max(values), PANEL_HEADROOM * max(target, values[0])))
    top = max(top, 1e-9)
    ticks = tuple((t, format_seconds(t)) for t in nice_ticks(top, 4))
    highest = max(values)
    label = off_chart(format_seconds(highest), format_number(float(rates[values.index(highest)]))) \
        if highest > top else ""
    return LatencyPanel(key, title, tuple((float(r), s) for r, s in zip(rates, values)), target, target_label, top,
                        ticks, label)


def latency_state(curve: LatencyCurve, rate: float, ttft_target: float, tpot_target: float, text) -> LatencyPlotState:
    """The plot of ``curve`` for a plan at ``rate`` requests/s within the two targets; ``text`` the scene's texts."""
    rates = curve.requests_per_second

    def off_chart(value: str, at: str) -> str:
        return text("plot.off_chart", value=value, rate=at)

    panels = (
        _panel("ttft", text("plot.ttft"), rates, curve.ttft_p90_seconds, ttft_target,
               text("plot.target", value=format_seconds(ttft_target)), off_chart),
        _panel("tpot", text("plot.tpot"), rates, curve.tpot_p90_seconds, tpot_target,
               text("plot.target", value=format_seconds(tpot_target)), off_chart),
    )
    x_max = float(rates[-1])
    knee = curve.knee_requests_per_second
    has_knee = math.isfinite(knee)
    return LatencyPlotState(
        panels=panels, x_max=x_max, x_ticks=tuple((t, format_number(t)) for t in nice_ticks(x_max, 5)),
        x_label=text("plot.x_axis", replicas=format_count(curve.replicas), count=curve.replicas),
        knee_rate=knee if has_knee else None,
        knee_seconds=KNEE_FACTOR * float(curve.ttft_p90_seconds[0]) if has_knee else 0.0,
        knee_label=text("plot.knee", rate=format_number(knee)) if has_knee else "",
        rate=rate, rate_label=text("plot.rate", rate=format_number(rate)))


def replica_slots(plan: FleetPlan, node_gpus: int) -> list[tuple[int, ...]]:
    """Every node of the fleet as its GPU slots, each the replica it holds or ``FREE``, as ``fleet_nodes``
    counts them (a replica never split over two nodes when it fits in one)."""
    g, replicas, per_node = plan.gpus_per_replica, plan.replicas, max(1, node_gpus)
    nodes: list[tuple[int, ...]] = []
    if g >= per_node:
        for replica in range(replicas):
            left = g
            while left > 0:
                used = min(per_node, left)
                nodes.append((replica,) * used + (FREE,) * (per_node - used))
                left -= used
        return nodes
    per = per_node // g
    for first in range(0, replicas, per):
        held = [r for r in range(first, min(replicas, first + per)) for _ in range(g)]
        nodes.append(tuple(held) + (FREE,) * (per_node - len(held)))
    return nodes


def most_drawn_nodes(node_gpus: int) -> int:
    return max(1, min(MOST_DRAWN_NODES, MOST_DRAWN_SLOTS // max(1, node_gpus)))


def slot_columns(node_gpus: int) -> int:
    if node_gpus <= 8:
        return max(1, node_gpus)
    return min(node_gpus, max(WIDE_NODE_COLUMNS, math.ceil(math.sqrt(node_gpus * 2))))


def fleet_state(plan: FleetPlan, links, text) -> FleetPictureState:
    """The fleet of ``plan`` on its nodes (``links``: ``asked.NodeLinks``), its counts and links in words."""
    nodes = replica_slots(plan, links.node_gpus)
    most = most_drawn_nodes(links.node_gpus)
    drawn = nodes if len(nodes) <= most else nodes[:most - 1]
    hidden = nodes[len(drawn):]
    hidden_gpus = sum(1 for slots in hidden for slot in slots if slot != FREE)
    network = "" if len(nodes) == 1 else text(
        "fleet.network", network=links.network, bandwidth=format_bandwidth(links.network_bytes_per_second))
    return FleetPictureState(
        nodes=tuple(FleetNode(slots) for slots in drawn), hidden_nodes=len(hidden), hidden_gpus=hidden_gpus,
        slot_columns=slot_columns(links.node_gpus),
        headline=text("fleet.headline", gpus=format_count(plan.gpus), replicas=format_count(plan.replicas),
                      per_replica=format_count(plan.gpus_per_replica), nodes=format_count(plan.nodes),
                      node_gpus=format_count(links.node_gpus), count=plan.nodes),
        more_label=text("fleet.more", nodes=format_count(len(hidden)), gpus=format_count(hidden_gpus),
                        count=len(hidden)) if hidden else "",
        node_link_label=text("fleet.link", link=links.link, bandwidth=format_bandwidth(links.link_bytes_per_second)),
        network_label=network,
        replica_label=text("fleet.replica_joined" if plan.gpus_per_replica > links.node_gpus else "fleet.replica",
                           gpus=format_count(plan.gpus_per_replica), count=plan.gpus_per_replica),
        free_label=text("fleet.free"))


def message_plot(message: str, role: str = "muted") -> LatencyPlotState:
    return LatencyPlotState(message=message, message_role=role)


def message_fleet(message: str, role: str = "muted") -> FleetPictureState:
    return FleetPictureState(message=message, message_role=role)
