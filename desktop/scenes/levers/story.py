"""The story of "what speeds it up": which lever each build shows, its figures, picture, captions and notes.

In: the shared scenario and its report, the build, ``LeversChoices`` (each
lever's setting and the levers the last build stacks). Out: the belt's
``ConveyorState`` (scene 1's factory, with the lever's parts), the figure
tables' states, where each goes on the stage, the phase, the caption and note
values (``notes``), and what the controls show (which lever's, its refusal).

Engine questions, through the kit (``asked``): the lever's outcome (one lever
alone, or the levers switched on, stacked), the curves as a prompt or context
grows, and the reports of the scenario the picture shows. A refused setting
is a value: the build shows the reason in its table and beside the control.
"""
from __future__ import annotations

from dataclasses import replace
from functools import cached_property

from desktop.kit.answers import refused
from desktop.kit.story import Story
from engine import InputError
from engine.levers import LEVERS
from widgets.conveyor_state import ConveyorState
from widgets.figure_table_state import FigureTableState, TableNote

from . import asked, growth, notes, pictures, tables
from .choices import BUILDS, GROUP_OF, HEADS, LEVER_BUILDS, SMALL_DRAFT, LeversChoices, lever_settings, shown_scenario

PICTURED = frozenset({"kinds", "weights", "batching", "speculative", "kv_allocation", "stack"})
PICTURE_SHARE = 0.52         # of the stage's width: the belt (or a curve) on the left, the figures on the right
CURVE_SHARE = 0.5

Rect = tuple[int, int, int, int]


class LeversStory(Story):
    builds = BUILDS

    # -- the inputs --------------------------------------------------------------------------------------
    @property
    def choices(self) -> LeversChoices:
        return self.controls or LeversChoices()

    @property
    def lever(self) -> str | None:
        """The lever this build shows alone (None: the first build and the stack)."""
        return self.build_name if self.build_name in LEVER_BUILDS else None

    @cached_property
    def draft(self) -> str:
        """Who drafts: the person's choice, else Llama 3.2 1B where it can draft for this model, else heads."""
        if self.choices.draft is not None:
            return self.choices.draft
        return SMALL_DRAFT if self.ask(asked.shares_tokenizer, self.scenario, SMALL_DRAFT) is True else HEADS

    def settings(self, lever: str) -> tuple:
        return lever_settings(self.choices, lever, self.scenario, self.draft)

    def shown(self, lever: str):
        """The scenario ``lever`` is shown on (speculative decoding: at the batch its control chose)."""
        return shown_scenario(self.choices, lever, self.scenario)

    def outcome_of(self, lever: str):
        """The engine's outcome of ``lever`` alone, or its refusal."""
        return self.ask(asked.lever, self.shown(lever), lever, self.settings(lever))

    @property
    def stacked_levers(self) -> tuple[str, ...]:
        return tuple(name for name in LEVERS if name in self.choices.stack)

    @cached_property
    def outcome(self):
        """This build's outcome (a lever alone, or the stack), its refusal, or None (the first build, an empty stack)."""
        if self.lever is not None:
            return self.outcome_of(self.lever)
        if self.build_name == "stack" and self.stacked_levers:
            return self.ask(asked.stack, self.scenario, tuple((n, self.settings(n)) for n in self.stacked_levers))
        return None

    @property
    def refusal(self) -> InputError | None:
        return self.outcome if refused(self.outcome) else None

    def control_note(self, lever: str) -> str:
        """The engine's reason beside ``lever``'s control when it refuses its settings (empty when it does not)."""
        result = self.outcome_of(lever)
        return self.inputs.refusal_text(result) if refused(result) else ""

    def stack_note(self) -> str:
        """The reason beside the stack's switches when the engine refuses the levers stacked."""
        return self.inputs.refusal_text(self.refusal) if self.build_name == "stack" and self.refusal else ""

    # -- what the frame reads ------------------------------------------------------------------------------
    def phase(self) -> str:
        name = self.build_name
        if name == "stack" and not self.stacked_levers:
            return "stack_empty"
        if self.refusal is not None:
            return "refused"
        if name == "speculative" and self.outcome.with_levers.tpot_seconds > self.outcome.base.tpot_seconds:
            return "speculative_loss"
        return name

    def caption_values(self):
        return self._values

    @cached_property
    def _values(self):
        return notes.values(self)

    # -- the picture ---------------------------------------------------------------------------------------
    @property
    def shows_belt(self) -> bool:
        return self.build_name in PICTURED and (self.outcome is None or not refused(self.outcome))

    def what_if_report(self, scenario):
        """The engine's report of ``scenario``; the shared report where the engine refuses it (a picture only)."""
        report = self.report_for(scenario)
        return self.report if refused(report) else report

    @cached_property
    def belt(self) -> pictures.Belt | None:
        return pictures.belt_of(self) if self.shows_belt else None

    def conveyor_state(self) -> ConveyorState | None:
        belt = self.belt
        if belt is None:
            return None
        line = self.build_name if self.outcome is not None else "kinds"      # an empty stack: the three kinds
        step = self.text(f"belt.{line}", **notes.belt_values(self, belt))
        labels = pictures.belt_labels(self.text, belt.report, belt.work_report, step)
        if belt.guesses_per_box:
            labels["waiting"] = self.text("label.guessing")      # he fills the wait with guesses
        return pictures.belt_state(belt, labels)

    # -- the tables ----------------------------------------------------------------------------------------
    def _title(self) -> str:
        if self.lever is None:
            return self.text("label.stack_title", count=len(self.stacked_levers))
        return self.text("label.table_title", group=self.text(f"group.{GROUP_OF[self.lever]}"),
                         lever=self.text(f"lever.{self.lever}"))

    @cached_property
    def figures(self) -> FigureTableState | None:
        """The lever's (or the stack's) five figures without and with it, what it costs, where it stops paying."""
        name = self.build_name
        if name == "kinds" or (name == "stack" and not self.stacked_levers):
            return None
        if self.refusal is not None:
            return tables.refused_table(self._title(), self.inputs.refusal_text(self.refusal))
        key = "stack" if self.lever is None else self.lever
        heading = notes.column_values(self)
        lines = tuple(TableNote(self.text(f"label.{kind}"), self._values[kind]) for kind in ("costs", "stops"))
        if self.lever is None:                                 # the stack names what it stacks
            lines = (TableNote(self.text("label.stacked"), self._values["names"]), *lines)
        return tables.figures_table(self.outcome, self.text, self._title(),
                                    self.text(f"column.{key}.base", **heading),
                                    self.text(f"column.{key}.with", **heading), lines)

    @cached_property
    def curve(self) -> FigureTableState | None:
        """The lever's figure as something grows, beside its figures (the levers drawn without the belt)."""
        if self.shows_belt or self.lever is None or self.refusal is not None:
            return None
        return growth.growth_table(self)

    # -- the formula behind a figure ---------------------------------------------------------------------
    def formula_labels(self) -> dict[str, tuple[str, ...]]:
        """Where each figure of ``formulas`` is drawn: the "on" cells of the table and the belt's idle share."""
        labels = {}
        if self.belt is not None:
            labels["step_idle_share"] = ("idle", "busy")
        if self.figures is not None and self.refusal is None and self.outcome is not None:
            labels.update({key: (cell,) for key, cell in tables.with_cells(self.outcome).items()})
        return labels

    def formulas(self) -> dict:
        """The belt's idle share (the report whose decode the worker does), and each figure of the "on" column
        that is the report of the scenario with the levers on (``engine.levers.LeverOutcome.with_scenario``)."""
        found = {}
        for key in self.formula_labels():
            if key == "step_idle_share":
                belt = self.belt
                found.update(self.formula((belt.work_report or belt.report).scenario, "step_idle_share"))
            else:
                found.update(self.formula(self.outcome.with_scenario, key))
        return found

    # -- the stage -----------------------------------------------------------------------------------------
    def rects(self, width: int, height: int) -> dict[str, Rect | None]:
        """Where the belt, the curve and the figures go on a ``width`` x ``height`` stage (None: hidden)."""
        figures, curve = self.figures is not None, self.curve is not None
        if not figures:
            return {"belt": (0, 0, width, height) if self.shows_belt else None, "curve": None, "figures": None}
        left = round(width * (PICTURE_SHARE if self.shows_belt else CURVE_SHARE)) if (self.shows_belt or curve) else 0
        gap = round(width * 0.02) if left else 0
        return {"belt": (0, 0, left, height) if self.shows_belt else None,
                "curve": (0, 0, left, height) if curve else None,
                "figures": (left + gap, 0, width - left - gap, height)}

    def for_build(self, build: int) -> "LeversStory":
        return type(self)(self.inputs.at_build(build))

    def with_choices(self, choices: LeversChoices) -> "LeversStory":
        return type(self)(replace(self.inputs, controls=choices))
