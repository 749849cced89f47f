"""The Mode control's tooltip: what "ideal" and "realistic" mean, with the shares realistic uses on the GPU in use.

Qt-free. Realistic mode reaches a share of each GPU's datasheet bandwidth that
was measured on that GPU where a measurement is published, and a typical share
elsewhere (``engine.efficiency``: ``bandwidth_share_for``), times the share the
serving stack reaches on that GPU (``stack_share``); the tooltip names the GPU,
its figures, and which of the two its bandwidth share is.
"""
from __future__ import annotations

from collections.abc import Callable

from engine.catalog_types import Gpu
from engine.efficiency import REALISTIC
from engine.units import format_percent


def measured_bandwidth(gpu_id: str) -> bool:
    """Whether realistic mode's bandwidth share for ``gpu_id`` comes from a published measurement of that GPU."""
    return gpu_id in dict(REALISTIC.gpu_bandwidth_shares)


def mode_tip(text: Callable[..., str], gpu: Gpu) -> str:
    """The tooltip in the current language (``text``: the app's ``Language.text``), for ``gpu``."""
    stack = REALISTIC.stack_share(gpu.id)
    basis = "controls.mode.basis_measured" if measured_bandwidth(gpu.id) else "controls.mode.basis_typical"
    return text("controls.mode.tip", gpu=gpu.name, basis=text(basis),
                bandwidth=format_percent(REALISTIC.bandwidth_share_for(gpu.id) * stack),
                compute=format_percent(REALISTIC.compute_share * stack),
                narrow=format_percent(REALISTIC.narrow_compute_share * stack))
