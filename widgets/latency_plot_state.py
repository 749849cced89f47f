"""What the latency plot draws: P90 latencies of a fixed fleet against the request rate, one panel per latency.

Qt-free. The serving scene hands the engine's latency curve
(``engine.plan_curve.latency_curve``): for each fleet request rate the P90
first-token time (one panel) and the P90 time per token (another), each with
its target as a dashed level line. The knee (where the first-token time has
doubled) is marked on the first panel, the traffic the plan serves as a
vertical line across both. A panel's scale ends at ``y_top``: past it the curve
leaves the panel through its top, and ``off_chart_label`` says how high it
goes. Every value arrives computed, every text formatted and translated.
``message`` is drawn instead of the panels (computing, a refusal).
"""
from __future__ import annotations


from engine.frozen import frozen

LABEL_PRIORITY = ("message", "title", "target", "knee", "rate", "off_chart", "x_axis", "tick")


@frozen
class LatencyPanel:
    key: str                                      # "ttft" or "tpot"
    title: str                                    # "P90 first-token time"
    points: tuple[tuple[float, float], ...]       # (requests per second, seconds), rates increasing
    target_seconds: float
    target_label: str                             # "target 1 s"
    y_top: float                                  # seconds at the panel's top
    y_ticks: tuple[tuple[float, str], ...] = ()   # (seconds, text)
    off_chart_label: str = ""                     # where the curve leaves the top: its highest value


@frozen
class LatencyPlotState:
    panels: tuple[LatencyPanel, ...] = ()
    x_max: float = 1.0                            # requests per second at the right end
    x_ticks: tuple[tuple[float, str], ...] = ()   # (requests per second, text)
    x_label: str = ""
    knee_rate: float | None = None                # marked on the first panel (None: the row never bends so far)
    knee_seconds: float = 0.0                     # the first panel's value there
    knee_label: str = ""
    rate: float | None = None                     # the traffic planned for: a line across every panel
    rate_label: str = ""
    message: str = ""                             # drawn instead of the panels
    message_role: str = "muted"


def y_share(panel: LatencyPanel, seconds: float) -> float:
    """How high ``seconds`` stands in ``panel``, 0 (bottom) .. 1 (top); above 1: off the chart."""
    return max(0.0, seconds) / panel.y_top if panel.y_top > 0 else 0.0


def x_share(state: LatencyPlotState, rate: float) -> float:
    """How far right ``rate`` stands, 0 .. 1."""
    return max(0.0, rate) / state.x_max if state.x_max > 0 else 0.0
