"""What scene 1's stage draws (Qt-free): the belt's and the roofline's states, made from the engine's figures.

The story decides what each build reveals (which labels, the gauge, the FP8
step times) and hands these functions the figures (``figures.Figures``) and
its texts; they only pick, format (``engine.units``) and arrange. The belt is
slowed down to be followed by eye: a box holds ``BOX_BYTES`` of weights and a
screen second is ``GPU_SECONDS_PER_SCREEN_SECOND`` of the GPU's time.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable

from engine import roofline
from engine.units import (
    TERA, format_bandwidth, format_bytes, format_flop, format_flops, format_number, format_percent, format_seconds,
)
from widgets.conveyor_state import (
    TRACE_WINDOW_SECONDS, ConveyorState, box_at_peak_screen_seconds, box_interval_screen_seconds,
)
from widgets.roofline_state import RooflinePoint, RooflineState

from .figures import Figures

INTENSITY_MIN = 0.1                   # FLOP/byte; FP32 weights decode at ~0.5
INTENSITY_MAX = 1e4
BOX_BYTES = 2e6                       # one box on the belt
GPU_SECONDS_PER_SCREEN_SECOND = 1e-6  # an H800 belt then brings a box every 0.6 s

Text = Callable[..., str]             # the scene's texts: text("label.busy", busy=...)


def clamp_intensity(flops_per_byte: float) -> float:
    return max(INTENSITY_MIN, min(INTENSITY_MAX, flops_per_byte))


def compute_tick_number(flops_per_second: float) -> str:
    """A y tick of the roofline, in TFLOPS (the unit its axis title names)."""
    return format_number(flops_per_second / TERA)


def intensity_text(text: Text, flops_per_byte: float) -> str:
    """An intensity with its unit in the reader's language ("295 FLOP/字节")."""
    return text("label.intensity", value=format_number(flops_per_byte))


def belt_numbers(figures: Figures, intensity: float, show_gauge: bool, compact: bool) -> ConveyorState:
    """The belt's speeds and the busy share at ``intensity``, without its labels."""
    return ConveyorState(
        bandwidth_bytes_per_second=figures.gpu.memory_bandwidth_bytes_per_second,
        peak_flops_per_second=figures.peak, flops_per_byte=intensity, utilisation=figures.busy(intensity)[0],
        box_bytes=BOX_BYTES, gpu_seconds_per_screen_second=GPU_SECONDS_PER_SCREEN_SECOND,
        show_gauge=show_gauge, compact=compact)


def fixed_belt_labels(figures: Figures, text: Text, precision_name: str, state: ConveyorState) -> dict[str, str]:
    """The belt's labels that do not follow the intensity (``state``: the belt at the build's intensity)."""
    return {
        "warehouse": text("label.warehouse"), "belt": text("label.belt"), "worker": text("label.worker"),
        "waiting": text("label.waiting"), "backed_up": text("label.backed_up"),
        "time_scale": text("label.time_scale", gpu_time=format_seconds(GPU_SECONDS_PER_SCREEN_SECOND),
                           box_bytes=format_bytes(BOX_BYTES)),
        "trace": text("label.trace", seconds=format_seconds(TRACE_WINDOW_SECONDS)),
        "capacity": format_bytes(figures.gpu.memory_bytes),
        "bandwidth": format_bandwidth(figures.gpu.memory_bandwidth_bytes_per_second),
        "peak": text("label.peak", peak=format_flops(figures.peak), precision=precision_name),
        "belt_time": text("label.belt_time", seconds=format_seconds(box_interval_screen_seconds(state))),
        "ratio": text("label.ratio", ridge=format_number(figures.ridge)),
    }


def belt_state(state: ConveyorState, fixed: dict[str, str], hidden: frozenset[str], figures: Figures,
               text: Text) -> ConveyorState:
    """The belt ``state`` (at its intensity) with its labels: ``fixed`` ones, and the box, the worker's time,
    busy, idle and their basis, which follow the intensity; ``hidden`` keep their place but are not drawn."""
    intensity = state.flops_per_byte
    busy, basis = figures.busy(intensity)
    labels = dict(fixed)
    labels.update(
        box=text("label.box", box_flop=format_flop(BOX_BYTES * intensity), intensity=intensity_text(text, intensity)),
        worker_time=text("label.worker_time", seconds=format_seconds(box_at_peak_screen_seconds(state))),
        busy=text("label.busy", busy=format_percent(busy)), idle=text("label.idle", idle=format_percent(1.0 - busy)),
        basis=text(f"label.basis_{basis}"))
    return replace(state, labels=labels, hidden=hidden)


def roofline_state(figures: Figures, text: Text, intensity: float) -> RooflineState:
    """The roofline in the shown precision, with decode, the prefill preset (when the engine gives one) and
    the control at ``intensity``."""
    gpu, precision, decode = figures.gpu, figures.precision, figures.decode_intensity
    # The roof starts a little left of decode (or of 1 FLOP/byte), and of the whole control range only
    # when the control goes below that: the x axis, and with it the plot's layout, changes when the
    # control crosses that edge, not on every step of the slider or frame of a transition.
    start = min(1.0, decode) / 1.5
    if intensity < start:
        start = INTENSITY_MIN / 1.5
    corners = tuple((x, roofline.attainable_flops(gpu, precision, x)) for x in (start, figures.ridge, INTENSITY_MAX))

    def point(key: str, x: float, in_legend: bool = True) -> RooflinePoint:
        value = intensity_text(text, x)
        return RooflinePoint(key, text(f"label.point_{key}", value=value), x,
                             roofline.attainable_flops(gpu, precision, x), value=value, in_legend=in_legend)

    points = [point("decode", decode)]
    if figures.prefill_intensity is not None:
        points.append(point("prefill", figures.prefill_intensity))
    # On decode's point the control's legend entry would repeat decode's: its hollow marker alone says so.
    points.append(point("control", intensity, in_legend=not math.isclose(intensity, decode, rel_tol=1e-9)))
    return RooflineState(
        roof=corners, ridge_flops_per_byte=figures.ridge,
        ridge_label=text("label.ridge", ridge=intensity_text(text, figures.ridge)),
        x_label=text("label.x_axis"), y_label=text("label.y_axis"),
        x_tick_text=format_number, y_tick_text=compute_tick_number, points=tuple(points),
        memory_bound_label=text("label.memory_bound"), compute_bound_label=text("label.compute_bound"))
