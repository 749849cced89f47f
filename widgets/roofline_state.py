"""What the roofline plot draws: plain, frozen states (Qt-free), and the number template its layout uses.

A scene's model builds a ``RooflineState`` (corners of the roof, the ridge, the
named points, every text already translated and every number already written
by ``engine.units``); ``widgets.roofline_plot`` draws it and
``widgets.roofline_layout`` places its texts.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

NUMBER_TEMPLATE = "00.000"
# The point keys the plot knows, drawn in this order (the last on top).
POINT_KEYS = ("prefill", "control", "decode")


def number_template(text: str) -> str:
    """``text`` with every number replaced by a fixed-width one: the room it needs whatever the value."""
    return re.sub(r"\d+(?:[.,]\d+)*", NUMBER_TEMPLATE, text)


@dataclass(frozen=True)
class RooflinePoint:
    key: str                             # one of ``POINT_KEYS``
    label: str                           # already translated, may hold the numbers
    flops_per_byte: float
    attainable_flops_per_second: float
    value: str = ""                      # the number and unit ``label`` ends with: kept whole, shown alone when narrow
    in_legend: bool = True               # False: the marker only (the control sitting on a point the legend names)


@dataclass(frozen=True)
class RooflineState:
    roof: tuple[tuple[float, float], ...]   # (FLOP/byte, FLOP/s): start, ridge, end of the roofline
    ridge_flops_per_byte: float
    ridge_label: str
    x_label: str
    y_label: str
    # The tick numbers: a decade of FLOP/byte (x) or of FLOP/s (y) -> its text, in the axis title's unit.
    # Pass the same functions every time (not new lambdas): they are part of what the layout depends on.
    x_tick_text: Callable[[float], str]
    y_tick_text: Callable[[float], str]
    points: tuple[RooflinePoint, ...] = ()
    # Written left and right of the ridge; a first line alone is the short form, used when room is short.
    memory_bound_label: str = ""
    compute_bound_label: str = ""


__all__ = ["RooflinePoint", "RooflineState", "number_template", "NUMBER_TEMPLATE", "POINT_KEYS"]
