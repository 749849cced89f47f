"""The formula behind the figures scene 9 shows of this machine (``engine.probe``'s ``DeviceMeasurement``).

``formula(device, key, pass_name)`` gives an ``engine.formulas.Formula`` for a figure of ``device`` or of the
decode step or the prefill pass (``pass_name``) the probe timed on it, every value one the probe measured or
counted and the result the measurement's own:

- ``measured_ridge``: the device's ridge, its measured compute over its measured bandwidth;
- ``measured_busy_share``: the share of the measured peak the timed run used, its FLOP over its measured
  time over that peak (``PassMeasurement.measured_utilisation``); ``measured_idle_share``: one minus it;
- ``predicted_seconds``: the engine's roofline in ideal mode at the measured bandwidth and compute, the
  larger of the time its FLOP and its bytes take (``engine.probe``: ``engine.request.time_pass``).

The H800 beside it is the engine's report (``engine.formulas``: ``step_idle_share``, ``decode_step_seconds``).
Qt-free.
"""
from __future__ import annotations

from engine.errors import refusal
from engine.formulas import Formula, Term
from engine.probe_result import DeviceMeasurement
from engine.units import format_bandwidth, format_bytes, format_flop, format_flops, format_intensity, format_percent, \
    format_seconds

PASSES = ("decode", "prefill")


def _share(device: DeviceMeasurement, pass_name: str, idle: bool) -> Formula:
    measured = getattr(device, pass_name)
    f, t, p = format_flop(measured.flops), format_seconds(measured.measured_seconds), \
        format_flops(measured.peak_flops_per_second)
    busy = measured.measured_utilisation
    key, lead = ("measured_idle_share", "idle = 1 − ") if idle else ("measured_busy_share", "busy = ")
    return Formula(key, f"{lead}(F ÷ t) ÷ P", f"{'1 − ' if idle else ''}({f} ÷ {t}) ÷ {p}",
                   format_percent(1.0 - busy if idle else busy), 1.0 - busy if idle else busy,
                   (Term("F", f"{pass_name}_pass_flop", f), Term("t", "measured_seconds", t),
                    Term("P", "measured_peak", p)), "engine.probe_result.PassMeasurement.measured_utilisation")


def _predicted(device: DeviceMeasurement, pass_name: str) -> Formula:
    measured = getattr(device, pass_name)
    f, m = format_flop(measured.flops), format_bytes(measured.bytes)
    p, b = format_flops(measured.peak_flops_per_second), format_bandwidth(device.memory_bandwidth_bytes_per_second)
    return Formula("predicted_seconds", "t = max(F ÷ P, M ÷ B)", f"max({f} ÷ {p}, {m} ÷ {b})",
                   format_seconds(measured.predicted_seconds), measured.predicted_seconds,
                   (Term("F", f"{pass_name}_pass_flop", f), Term("M", "pass_bytes", m), Term("P", "measured_peak", p),
                    Term("B", "measured_bandwidth", b)), "engine.probe (the roofline in ideal mode)")


def _ridge(device: DeviceMeasurement, pass_name: str) -> Formula:
    p, b = format_flops(device.flops_per_second), format_bandwidth(device.memory_bandwidth_bytes_per_second)
    return Formula("measured_ridge", "ridge = P ÷ B", f"{p} ÷ {b}", format_intensity(device.ridge_flops_per_byte),
                   device.ridge_flops_per_byte, (Term("P", "measured_peak", p), Term("B", "measured_bandwidth", b)),
                   "engine.probe_result.DeviceMeasurement.ridge_flops_per_byte")


BUILDERS = {"measured_ridge": _ridge, "measured_busy_share": lambda d, name: _share(d, name, idle=False),
            "measured_idle_share": lambda d, name: _share(d, name, idle=True),
            "predicted_seconds": _predicted}


def formula(device: DeviceMeasurement, key: str, pass_name: str = "decode") -> Formula:
    """The formula behind figure ``key`` of ``device`` (its ``pass_name`` pass, "decode" or "prefill", where the
    figure is one of a pass); an unknown key or pass is refused in one sentence naming the known ones."""
    if key not in BUILDERS:
        raise refusal("formula.unknown", {"got": key, "allowed": tuple(BUILDERS)})
    if pass_name not in PASSES:
        raise refusal("formula.unknown_pass", {"got": pass_name, "allowed": PASSES})
    return BUILDERS[key](device, pass_name)
