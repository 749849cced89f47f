"""What the stage of "Your machine" draws (Qt-free): each widget's state, made from ``figures.Figures``.

- the figures table (build "question"): this machine's bandwidth, compute and
  ridge beside the H800's datasheet figures;
- the roofline (build "roofline"): scene 1's log-log picture, the H800's roof
  (solid) with its decode point, and this machine's roof (dashed) with its own
  ridge and its measured decode step and prefill pass;
- the times (builds "waits", "prefill"): predicted and measured time side by side;
- the shares (the same builds): the compute busy and idle, here and on the H800;
- the strip under every build: the machine and the date, the invitation, the
  probe's progress (its four stages, named, and the share done) or why it stopped.

These functions only pick, format (``engine.units``, through ``Figures``) and arrange.
"""
from __future__ import annotations

from engine import roofline
from engine.probe import STAGES
from engine.probe_result import PassMeasurement
from engine.units import TERA, format_number, format_percent, format_seconds
from widgets.figure_table_state import Cell, FigureTableState, TableNote, TableRow
from widgets.ratio_bars_state import Bar, RatioBarsState
from widgets.roofline_state import OtherRoof, RooflinePoint, RooflineState
from widgets.share_bars_state import BarPart, BarRow, ShareBarsState

from .figures import Figures, achieved_flops_per_second, intensity
from .measurement import ProbeState

INTENSITY_END = 1e4          # FLOP/byte: the right end of scene 1's roofline
TABLE_TEXT_SCALE = 2.0       # the figures table alone on its build: its text as large as the room allows


def compute_tick_number(flops_per_second: float) -> str:
    """A y tick in TFLOPS, the unit the axis title names (scene 1's axis)."""
    return format_number(flops_per_second / TERA)


# -- the figures table -------------------------------------------------------------------------------------------
def table_state(figures: Figures) -> FigureTableState:
    """This machine's figures (or "not measured yet"), its GPU's where the probe measured one, and the H800's."""
    text, here, gpu, accelerator = figures.text, figures.here, figures.gpu, figures.accelerator

    def mine(values: dict, key: str, value: str | None = None) -> Cell:
        if not values:
            return Cell(text("label.not_measured"), role="muted")
        return Cell(figures.measured(value or values[key]), bold=True)

    def theirs(key: str, value: str | None = None) -> Cell:
        return Cell(figures.datasheet(value or gpu[key])) if gpu else Cell("—", role="muted")

    def rate(values: dict, rate_key: str, precision_key: str) -> str | None:
        return values and text("label.rate_in", rate=values[rate_key], precision=values[precision_key])

    sides = [here, *([accelerator] if accelerator else [])]
    rows = (
        TableRow(text("label.row_bandwidth"), (*(mine(v, "bandwidth") for v in sides), theirs("gpu_bandwidth"))),
        TableRow(text("label.row_compute"), (*(mine(v, "flops", rate(v, "flops", "precision")) for v in sides),
                                             theirs("gpu_flops", rate(gpu, "gpu_flops", "gpu_precision")))),
        TableRow(text("label.row_ridge"), (*(mine(v, "ridge") for v in sides), theirs("gpu_ridge"))),
    )
    headers = (text("label.column_here"),
               *([text("label.column_accelerator", device=accelerator["device"])] if accelerator else []),
               figures.gpu_name())
    refusal = figures.refusal()
    notes = (TableNote(figures.gpu_name(), figures.refusal_text(refusal), "warning"),) if refusal else ()
    return FigureTableState(title=text("label.table_title"), headers=headers, rows=rows, notes=notes,
                            drop_order=(1,) if accelerator else (), max_text_scale=TABLE_TEXT_SCALE)


# -- the roofline ---------------------------------------------------------------------------------------------------
def _corners(start: float, ridge: float, attainable) -> tuple[tuple[float, float], ...]:
    return tuple((x, attainable(x)) for x in (start, ridge, INTENSITY_END))


def plot_state(figures: Figures) -> RooflineState | None:
    """The H800's roof with this machine's beside it (or whichever of the two there is); None with neither."""
    text, report, cpu = figures.text, figures.gpu_report, figures.cpu
    points: list[RooflinePoint] = []
    lows = [1.0]
    if cpu is not None:
        lows.append(intensity(cpu.decode))
    if report is not None:
        lows.append(report.decode.flops_per_byte)
    start = min(lows) / 1.5
    roofs = []
    if report is not None:
        gpu, precision = report.gpu, report.weights_precision
        attainable = lambda x: float(roofline.attainable_flops(gpu, precision, x))     # noqa: E731
        x = report.decode.flops_per_byte
        value = figures.engine(compute_tick_number(attainable(x)) + " TFLOPS")
        points.append(RooflinePoint("reference", text("label.point_reference", gpu=gpu.name, value=value), x,
                                    attainable(x), value=value))
        roofs.append((_corners(start, report.ridge_flops_per_byte, attainable), report.ridge_flops_per_byte,
                      text("label.ridge_gpu", gpu=gpu.name, ridge=figures.intensity_text(report.ridge_flops_per_byte))))
    if cpu is not None:
        peak, bandwidth = cpu.flops_per_second, cpu.memory_bandwidth_bytes_per_second
        ridge = cpu.ridge_flops_per_byte
        roofs.append((_corners(start, ridge, lambda x: min(peak, bandwidth * x)), ridge,
                      text("label.ridge_here", ridge=figures.measured(figures.intensity_text(ridge)))))
        for key, measured in (("prefill", cpu.prefill), ("decode", cpu.decode)):
            value = figures.measured(compute_tick_number(achieved_flops_per_second(measured)) + " TFLOPS")
            points.append(RooflinePoint(key, text(f"label.point_{key}", tokens=format_number(measured.tokens),
                                                  value=value),
                                        intensity(measured), achieved_flops_per_second(measured), value=value))
    if not roofs:
        return None
    (roof, ridge, ridge_label), others = roofs[0], roofs[1:]
    other = OtherRoof(*others[0]) if others else None
    return RooflineState(roof=roof, ridge_flops_per_byte=ridge, ridge_label=ridge_label,
                         x_label=text("label.x_axis"), y_label=text("label.y_axis"),
                         x_tick_text=format_number, y_tick_text=compute_tick_number, points=tuple(points), other=other)


# -- the times and the shares -------------------------------------------------------------------------------------
def times_state(figures: Figures, which: str) -> RatioBarsState | None:
    """The decode step's or the prefill's predicted and measured times on one scale (None before a measurement)."""
    cpu = figures.cpu
    if cpu is None:
        return None
    text, here = figures.text, figures.here
    measured: PassMeasurement = cpu.decode if which == "decode" else cpu.prefill
    title = text(f"label.times_{which}", part=figures.part_measured(), bytes=here["weights_bytes"],
                 tokens=here["prefill_tokens"])
    return RatioBarsState(bars=(
        Bar(text("label.bar_predicted"), measured.predicted_seconds,
            figures.predicted(format_seconds(measured.predicted_seconds)), "hatched", "muted"),
        Bar(text("label.bar_measured"), measured.measured_seconds,
            figures.measured(format_seconds(measured.measured_seconds)), "solid", "warning"),
    ), title=title, footer=text("label.times_footer", ratio=here[f"{which}_ratio"]))


def shares_state(figures: Figures, which: str) -> ShareBarsState | None:
    """Compute busy and idle: "waits" the decode step here and on the H800, "prefill" the prefill and the decode
    step here; before a measurement the H800's alone (None when the engine refused it too)."""
    text, report, cpu = figures.text, figures.gpu_report, figures.cpu

    def row(key: str, title: str, busy: float, label) -> BarRow:
        return BarRow(key, title, (
            BarPart("busy", busy, label(text("label.busy", share=format_percent(busy))), "compute"),
            BarPart("idle", 1.0 - busy, label(text("label.idle", share=format_percent(1.0 - busy))), "muted",
                    "dotted")))

    rows: list[BarRow] = []
    if cpu is not None:
        decode = row("here_decode", text("label.row_here_decode"), cpu.decode.measured_utilisation, figures.measured)
        if which == "prefill":
            rows += [row("here_prefill", text("label.row_here_prefill", tokens=figures.here["prefill_tokens"]),
                         cpu.prefill.measured_utilisation, figures.measured), decode]
            headline = figures.measured(text("label.busy_headline", share=figures.here["prefill_busy"]))
        else:
            rows.append(decode)
            headline = figures.measured(text("label.idle_headline", share=figures.here["idle"]))
    if report is not None:
        gpu = figures.gpu
        gpu_decode = row("gpu_decode", text("label.row_gpu_decode", gpu=gpu["gpu"], model=report.model.name,
                                            step=figures.engine(gpu["gpu_step"])),
                         report.decode.utilisation, figures.engine)
        if cpu is None and which == "prefill":
            rows += [row("gpu_prefill", text("label.row_gpu_prefill", gpu=gpu["gpu"], model=report.model.name,
                                             tokens=format_number(report.scenario.prompt_tokens)),
                         report.prefill.utilisation, figures.engine), gpu_decode]
            headline = figures.engine(text("label.gpu_busy_headline", gpu=gpu["gpu"], share=gpu["gpu_prefill_busy"]))
        elif which == "waits":
            rows.append(gpu_decode)
            if cpu is None:
                headline = figures.engine(text("label.gpu_idle_headline", gpu=gpu["gpu"], share=gpu["gpu_idle"]))
    if not rows:
        return None
    return ShareBarsState(tuple(rows), headline=headline, headline_role="warning" if which == "waits" else "accent")


# -- the strip under every build ------------------------------------------------------------------------------------
def stage_names(text) -> list[str]:
    return [text(f"label.stage_{stage}") for stage in STAGES]


def progress_state(figures: Figures, probe: ProbeState) -> ShareBarsState:
    """The probe running: the stage now, named, and the share of the whole done; over the bar its stages in
    order, or, while an earlier measurement stays on the stage, that measurement's machine and date."""
    text = figures.text
    stage = text(f"label.stage_{probe.stage}") if probe.stage else text("label.starting")
    done = min(1.0, max(0.0, probe.fraction))
    title = figures.identity() if figures.result is not None else \
        text("label.stage_order", stages=" → ".join(stage_names(text)))
    return ShareBarsState((BarRow("progress", title, (
        BarPart("done", done, stage, "accent"),
        BarPart("left", 1.0 - done, "", "muted", "dotted"))),),
        headline=text("label.measuring", stage=stage, share=format_percent(done)), headline_role="accent")


def strip_state(figures: Figures, probe: ProbeState) -> FigureTableState:
    """The machine and the date (or that it is not measured yet), and the invitation or why the probe stopped."""
    text = figures.text
    title = figures.identity() if figures.result is not None else text("label.unmeasured_title")
    notes = []
    if figures.result is not None and figures.result.busy:
        notes.append(TableNote(text("label.busy_lead"), text("label.busy_note", share=figures.here["core_share"]),
                               "warning"))
    problem = None if figures.result is None else figures.result.accelerator_error
    if problem is not None:                  # a GPU was found but could not be measured: the CPU's figures stand
        notes.append(TableNote(text("label.accelerator_lead"), figures.refusal_text(problem), "warning"))
    if probe.error is not None:
        return FigureTableState(title=title, message=figures.refusal_text(probe.error), message_role="warning")
    if figures.result is None:
        return FigureTableState(title=title, message=text("label.invite"), message_role="accent")
    return FigureTableState(title=title, notes=tuple(notes))
