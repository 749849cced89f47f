"""What the roofline plot draws: plain, frozen states (Qt-free), and the number template its layout uses.

A scene's model builds a ``RooflineState`` (corners of the roof, the ridge, the
named points, every text already translated and every number already written
by ``engine.units``); ``widgets.roofline_plot`` draws it and
``widgets.roofline_layout`` places its texts. A second machine's roof
(``OtherRoof``: scene 9 draws the machine at hand under the H800's) is drawn
dashed beside the first, with its own ridge point and label.
"""
from __future__ import annotations

import re
from typing import Callable

from engine.frozen import frozen

NUMBER_TEMPLATE = "00.000"
# The point keys the plot knows, drawn in this order (the last on top). "reference": another machine's point
# (scene 9: the H800's decode step beside this machine's).
POINT_KEYS = ("reference", "prefill", "control", "decode")


def number_template(text: str) -> str:
    """``text`` with every number replaced by a fixed-width one: the room it needs whatever the value."""
    return re.sub(r"\d+(?:[.,]\d+)*", NUMBER_TEMPLATE, text)


@frozen
class RooflinePoint:
    """One marked point on the roofline: a GPU's operation at its arithmetic intensity, labelled."""
    key: str                             # one of ``POINT_KEYS``
    label: str                           # already translated, may hold the numbers
    flops_per_byte: float
    attainable_flops_per_second: float
    value: str = ""                      # the number and unit ``label`` ends with: kept whole, shown alone when narrow
    in_legend: bool = True               # False: the marker only (the control sitting on a point the legend names)


@frozen
class OtherRoof:
    """A second machine's roofline, drawn dashed beside the state's own: its corners and its ridge."""
    roof: tuple[tuple[float, float], ...]   # (FLOP/byte, FLOP/s): start, ridge, end (the same x range as the first)
    ridge_flops_per_byte: float
    ridge_label: str                        # names the machine: a dashed line alone does not say whose it is


@frozen
class RooflineState:
    """What the roofline plot draws: the roof, its ridge, the marked points and perhaps a second machine's roof."""
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
    other: OtherRoof | None = None          # a second machine's roof, or None


def extent(state: RooflineState) -> tuple[tuple[float, float], tuple[float, float]]:
    """((lowest FLOP/byte, lowest FLOP/s), (highest FLOP/byte, highest FLOP/s)) of every roof and point drawn (a
    measured point may lie below its roof: a run slowed down by other programs)."""
    corners = [*state.roof, *(state.other.roof if state.other else ()),
               *((p.flops_per_byte, p.attainable_flops_per_second) for p in state.points)]
    return ((min(x for x, _ in corners), min(y for _, y in corners)),
            (max(x for x, _ in corners), max(y for _, y in corners)))


__all__ = ["RooflinePoint", "RooflineState", "OtherRoof", "extent", "number_template", "NUMBER_TEMPLATE", "POINT_KEYS"]
