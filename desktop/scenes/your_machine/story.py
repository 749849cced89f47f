"""The story of "Your machine waits too" (Qt-free): this computer measured, on the roofline beside the H800.

In: the shared scenario (its precisions and mode for the H800 beside this
machine), the build, and the scene's one control value, the probe's state
(``measurement.ProbeState``: the session's measurement, a probe running, or
why one stopped). Out: which widgets show where, their states
(``pictures``), the phase and the caption and note values.

Builds: "question" (is this machine, like the H800, a fast worker its memory
cannot feed? its bandwidth, compute and ridge beside the H800's), "roofline"
(both machines on scene 1's picture), "waits" (a decode step: predicted and
measured side by side, the compute idle here and on an H800), "prefill" (the
same matrices against many tokens: compute-bound, busy at last). Before a
measurement each build's phase is ``<build>_invite``: the stage shows the
H800's figures (the engine's) and the invitation, never a number of this
machine. The H800's figures are the engine's report of the probe's model on
one H800 (``figures.comparison_scenario``), asked through the kit.
"""
from __future__ import annotations

from functools import cached_property
from typing import Mapping

from desktop.kit import questions
from desktop.kit.story import Story, Values
from engine import InputError, Scenario
from engine.probe_sizes import probe_model
from engine.units import format_count, format_percent

from . import pictures
from .figures import FALLBACK_PROMPT_TOKENS, GPU_NAMES, HERE_NAMES, MEASUREMENT_NAMES, Figures, comparison_scenario
from .measurement import ProbeState

Rect = tuple[int, int, int, int]

STRIP_SHARE = 0.2          # of the stage's height: the strip under every build (invitation, progress, a refusal)
STRIP_SHARE_MEASURED = 0.14  # ... when it only names the machine and the date (two lines where narrow)
ONE_ROW_SHARE = 0.55        # of the area above the strip: shares of one row alone (the H800's, before a measurement)
TIMES_SHARE = 0.4          # of the area above it: the times over the shares
GAP_SHARE = 0.02
# The shares' headline: the figure it shows, by (build, measured) (the H800's prefill has no card)
HEADLINE_FIGURE = {("waits", True): "here_decode.idle", ("waits", False): "gpu_decode.idle",
                   ("prefill", True): "here_prefill.busy"}
PROBE_FORMULA_OF = {"busy": "measured_busy_share", "idle": "measured_idle_share", "predicted": "predicted_seconds",
                    "ridge": "measured_ridge"}
RIDGE_ROW = 2                # the figures table's row of the ridges (``pictures.table_state``)


class YourMachineStory(Story):
    builds = ("question", "roofline", "waits", "prefill")

    # -- the inputs -------------------------------------------------------------------------------------------
    @property
    def probe(self) -> ProbeState:
        return self.controls if isinstance(self.controls, ProbeState) else ProbeState()

    @property
    def measured(self) -> bool:
        return self.probe.result is not None

    def phase(self) -> str:
        return self.build_name if self.measured else f"{self.build_name}_invite"

    # -- the H800 beside this machine -----------------------------------------------------------------------------
    @cached_property
    def comparison_subject(self) -> Scenario | None:
        """The H800 case the stage compares with (None: the catalogue has no model the probe could run)."""
        result = self.probe.result
        if result is not None:
            return comparison_scenario(self.scenario, result.model_id, result.cpu.prefill.tokens)
        model = self.ask(probe_model)                     # the model the probe will run, before it has
        if isinstance(model, InputError):
            return None
        return comparison_scenario(self.scenario, model.id, FALLBACK_PROMPT_TOKENS)

    @cached_property
    def comparison(self):
        """The engine's report of the H800 case, or its refusal."""
        subject = self.comparison_subject
        if subject is None:
            return self.ask(probe_model)                  # its refusal: why there is no model to compare
        return self.report_for(subject)

    @cached_property
    def figures(self) -> Figures:
        return Figures(self.probe.result, self.comparison, self.text, self.inputs.refusal_text)

    def subject(self):
        subject = self.comparison_subject
        if subject is None:
            return super().subject()
        return subject, self.comparison

    def subject_note(self) -> str:
        return self.text("label.subject_note") if self.comparison_subject is not None else ""

    # -- the stage ---------------------------------------------------------------------------------------------
    def shows(self) -> tuple[str, ...]:
        """The widgets this build shows (besides the strip): "table", "plot", "times", "shares"."""
        name = self.build_name
        if name == "question":
            return ("table",)
        if name == "roofline":
            return ("plot",) if self.plot_state() is not None else ()
        shown = (("times",) if self.measured else ()) + (("shares",) if self.shares_state() is not None else ())
        return shown

    def rects(self, width: int, height: int) -> dict[str, Rect | None]:
        """Where each widget goes on a stage of ``width`` x ``height`` (None: hidden)."""
        gap = round(GAP_SHARE * height)
        strip = round((STRIP_SHARE if self.strip_lines() > 1 else STRIP_SHARE_MEASURED) * height)
        main = max(1, height - strip - gap)
        shown = self.shows()
        rects: dict[str, Rect | None] = {key: None for key in ("table", "plot", "times", "shares")}
        rects["strip"] = (0, height - strip, width, strip)
        if "times" in shown and "shares" in shown:
            times = round(TIMES_SHARE * main)
            rects["times"] = (0, 0, width, times - gap)
            rects["shares"] = (0, times, width, main - times)
        else:
            for key in shown:
                rects[key] = (0, 0, width, main)
            if "shares" in shown and len(self.shares_state().rows) == 1:
                rects["shares"] = (0, 0, width, round(ONE_ROW_SHARE * main))
        return rects

    def table_state(self):
        return pictures.table_state(self.figures)

    @cached_property
    def _plot(self):
        return pictures.plot_state(self.figures)

    def plot_state(self):
        return self._plot

    def times_state(self):
        return pictures.times_state(self.figures, "prefill" if self.build_name == "prefill" else "decode")

    @cached_property
    def _shares(self):
        return pictures.shares_state(self.figures, "prefill" if self.build_name == "prefill" else "waits")

    def shares_state(self):
        return self._shares

    def strip_lines(self) -> int:
        """1 when the strip only names the machine and the date, else 2 or more (a message, a note, the progress)."""
        probe = self.probe
        if probe.running or probe.error is not None or not self.measured:
            return 2
        return 2 if probe.result.busy or probe.result.accelerator_error is not None else 1

    def strip_kind(self) -> str:
        """What the strip under the build shows: "progress" while the probe runs, else "table"."""
        return "progress" if self.probe.running else "table"

    def strip_state(self):
        if self.probe.running:
            return pictures.progress_state(self.figures, self.probe)
        return pictures.strip_state(self.figures, self.probe)

    # -- the formula behind a figure ----------------------------------------------------------------------------
    def formula_labels(self) -> dict[str, tuple[str, tuple[str, ...]]]:
        """Where each figure of ``formulas`` is drawn: (the widget, "table", "shares" or "times"; its labels), by figure
        key "<row>.<figure>[.<where>]": this machine's ridge, busy and idle shares and predicted time, the H800's
        ridge, idle share and decode step."""
        shown, places = self.shows(), {}
        if "table" in shown:         # the ridges: this machine's (once measured) and the H800's, its last column
            if self.measured:
                places["here.ridge"] = ("table", (f"cell.{RIDGE_ROW}.0",))
            if self.figures.gpu_report is not None:
                places["gpu.ridge"] = ("table", (f"cell.{RIDGE_ROW}.{1 + bool(self.figures.accelerator)}",))
        if "shares" in shown:
            rows = {row.key for row in self.shares_state().rows}
            for row in rows & {"here_decode", "here_prefill"}:
                places.update({f"{row}.{part}": ("shares", (f"part.{row}.{part}",)) for part in ("busy", "idle")})
            if "gpu_decode" in rows:
                places["gpu_decode.idle"] = ("shares", ("part.gpu_decode.idle",))
                places["gpu_decode.step"] = ("shares", ("title.gpu_decode",))
            headline = HEADLINE_FIGURE.get((self.build_name, self.measured))
            if headline is not None:
                places[f"{headline}.headline"] = ("shares", ("headline",))
        if "times" in shown:
            which = "prefill" if self.build_name == "prefill" else "decode"
            places[f"here_{which}.predicted"] = ("times", ("value",))      # the first bar's value: the prediction
        return places

    def formulas(self) -> dict:
        """The formula behind each figure of ``formula_labels``: this machine's from the probe's measurement
        (``engine.probe_formulas``), the H800's from the engine's report of the case beside it."""
        found = {}
        for key in self.formula_labels():
            row, figure = key.split(".")[:2]
            if row == "gpu":
                found.update(self.formula(self.comparison_subject, "ridge_point", figure=key))
            elif row == "gpu_decode":
                name = "step_idle_share" if figure == "idle" else "decode_step_seconds"
                found.update(self.formula(self.comparison_subject, name, figure=key))
            else:
                found.update(self.asked_formula(key, questions.probe_formula, self.figures.cpu,
                                                PROBE_FORMULA_OF[figure],
                                                row.removeprefix("here_") if row != "here" else "decode"))
        return found

    # -- the side panel -----------------------------------------------------------------------------------------
    def button_text(self) -> str:
        """The button's word: stop a probe running, measure again once measured, else measure."""
        if self.probe.running:
            return self.text("control.stop")
        return self.text("control.measure_again" if self.measured else "control.measure")

    def status_text(self) -> str:
        """The line under the button: the probe's stage and share, when it measured, or that it has not."""
        probe = self.probe
        if probe.running:
            stage = self.text(f"label.stage_{probe.stage}") if probe.stage else self.text("label.starting")
            return self.text("control.status_running", stage=stage, share=format_percent(probe.fraction))
        if probe.error is not None:
            return self.inputs.refusal_text(probe.error)
        if probe.result is None:
            return self.text("control.status_unmeasured")
        return self.text("control.status_measured", date=self.figures.values["date"],
                         seconds=self.figures.values["probe_seconds"])

    # -- the texts ------------------------------------------------------------------------------------------------
    def caption_values(self) -> Mapping[str, str]:
        return self._values

    @cached_property
    def _values(self) -> Values:
        figures = self.figures

        def value(name: str):
            return lambda: figures.values.get(name, "—")
        values = {name: value(name) for name in (*GPU_NAMES, *HERE_NAMES, *MEASUREMENT_NAMES)}
        values["refusal"] = lambda: (self.inputs.refusal_text(figures.refusal()) if figures.refusal() else "")
        values["prompt_tokens"] = lambda: (format_count(self.comparison_subject.prompt_tokens)
                                           if self.comparison_subject else "—")
        return Values(values)

    def note_values(self) -> Mapping[str, str]:
        return self._values
