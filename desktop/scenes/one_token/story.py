"""The story of "one token at a time" (seed 1.3): the answer made pass by pass, each pass reading all the weights.

In: the shared scenario and its report, the build, and ``OneTokenChoices``:
the tokenizer the person chose (None: the scenario's model's own), the
playback speed, and the texts as the tokenizer cut them (None while the first
cut loads: the scene then has one build, ``loading``). Out: the build names,
the phase, the passes each build shows and how it plays, the stepper's and the
memory bar's states, captions and notes, and the stage's subject.

The builds follow the cut: ``prompt`` (nothing computed yet), ``prefill``
(pass 1: the whole prompt in at once, the first token out), ``step_2`` (pass 2,
phase ``step``: the newest token in, the next one out), ``rest`` (passes 3 to
A+1, the rest of the answer, played by themselves up to the end marker; a
build shown still shows its end), then the seed's three misconceptions, each
shown on the stage: ``why_decode`` (prefill gave one token; each further one
needs the one before), ``no_plan`` (a pass sees only the tokens so far; the
rest exists nowhere yet), ``same_computation`` (prefill and decode: the same
model, the same weights read, one token out).

The motion is one ``widgets.playback.Playback`` (the view keeps it) whose
position counts passes: pass n begins at position n and its animation (the
belt runs, the token comes out and joins the context) takes the first
``pass_share`` of the unit, so a playback that stops at pass n stops at
n + ``pass_share``, the pass whole. Where a playback starts and stops, and
which build its position is in, is decided here.

Engine questions (through ``ask``): this request (a what-if of the shared
scenario: batch 1, the prompt's tokens, the answer's tokens plus the end
marker), and the same request stopped after the passes shown.
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import replace
from functools import cached_property
from typing import Mapping

from desktop.kit.answers import refused
from desktop.kit.story import Story
from engine.frozen import frozen
from engine.tokens import tokenizer_info
from engine.units import format_count
from widgets.decode_stepper_state import DecodeStepperState
from widgets.memory_bars_state import MemoryBarsState
from widgets.playback import Playback

from . import pictures
from .pictures import MISCONCEPTIONS, CutRequest

SPEEDS_TOKENS_PER_SECOND = (0.5, 1.0, 2.0, 4.0)
DEFAULT_SPEED = 1.0
SINGLE_PASSES = 2               # passes that are builds of their own (the prefill, the first decode step)
NO_PLAN_ANSWER_TOKENS = 3       # the no_plan build shows the model after this many answer tokens (or fewer)
PASS_SECONDS = 0.6              # one pass on screen: the belt runs, the token flies in; short, a room never waits
PASS_SHARE_OF_STEP = 0.8        # at high speed a pass's animation takes at most this share of a step
BARS_AT_PROGRESS = 0.5          # of a pass: the token has left the model; its K and V are in the cache
WHOLE_TOLERANCE = 1e-9          # a pass stopped at n + pass_share is whole, whatever the float rounding of n + share
SINGLE_PASS_BUILDS = {"prompt": 0, "prefill": 1}     # and "step_n": pass n
PHASES = ("loading", "prompt", "prefill", "step", "rest", *MISCONCEPTIONS)


@frozen
class OneTokenChoices:
    """The scene's own inputs: what the person chose, and the cut the worker made for it."""
    tokenizer: str | None = None         # the person's tokenizer; None: the scenario's model's own
    speed: float = DEFAULT_SPEED         # passes per second of screen time while playing
    cut: CutRequest | None = None        # the texts as cut; None while the first cut loads


def pass_share(tokens_per_second: float) -> float:
    """The share of a pass's unit of playback its animation takes: ``PASS_SECONDS`` on screen, less at speed."""
    return min(PASS_SECONDS, PASS_SHARE_OF_STEP / tokens_per_second) * tokens_per_second


def build_names(cut: CutRequest) -> tuple[str, ...]:
    """One name per build, each its own: the first passes one by one, then the rest of the answer."""
    singles = min(SINGLE_PASSES, len(cut.answer))
    names = ("prompt", *("prefill" if n == 1 else f"step_{n}" for n in range(1, singles + 1)))
    return (*names, "rest", *MISCONCEPTIONS)


def phase_of(name: str) -> str:
    """The phase (caption and notes) of a build: a single decode step has the "step" texts."""
    return "step" if name.startswith("step_") else name


def plays_on(playback: Playback, now: float) -> bool:
    """Whether ``playback`` will still begin another pass (Play's "playing"); its last pass's own animation
    runs on after this turns False, as a single step's does."""
    return math.floor(playback.position(now)) < math.floor(playback.end)


def retimed(playback: Playback, now: float, old_share: float, new_share: float,
            tokens_per_second: float) -> Playback:
    """``playback`` at a new speed from ``now`` on: the same pass at the same point of its animation, the same
    last pass, playing if it was."""
    position = playback.position(now)
    passes = math.floor(position)
    progress = min(1.0, (position - passes) / old_share)
    moved = passes + progress * new_share
    again = Playback(min(float(math.floor(playback.start)), moved), math.floor(playback.end) + new_share,
                     tokens_per_second, position=moved)
    if playback.playing(now):
        again.play(now)
    return again


class OneTokenStory(Story):
    builds = PHASES                      # every phase the texts cover; the builds themselves follow the cut

    # -- the inputs -----------------------------------------------------------------------------
    @property
    def choices(self) -> OneTokenChoices:
        return self.controls if self.controls is not None else OneTokenChoices()

    @property
    def cut(self) -> CutRequest | None:
        return self.choices.cut

    @property
    def speed(self) -> float:
        return self.choices.speed

    @cached_property
    def tokenizer(self) -> str:
        """The tokenizer wanted: the person's, else the scenario's model's own."""
        return self.choices.tokenizer or pictures.default_tokenizer(self.scenario.model)

    def wanted_cut(self) -> tuple[str, str, str]:
        """(tokenizer, prompt text, answer text) the stage should show cut (``CutRequest.source``)."""
        return pictures.wanted_cut(self.tokenizer, self.text)

    @property
    def cut_is_current(self) -> bool:
        return self.cut is not None and self.cut.source == self.wanted_cut()

    def with_cut(self, cut: CutRequest) -> "OneTokenStory":
        """This story with ``cut`` (its build index kept)."""
        return type(self)(replace(self.inputs, controls=replace(self.choices, cut=cut)))

    # -- the builds -------------------------------------------------------------------------------
    def build_names(self) -> tuple[str, ...]:
        return ("loading",) if self.cut is None else build_names(self.cut)

    def phase(self) -> str:
        """The build's phase; the question's own build has its "prompt_bytes" texts when the tokenizer cuts a
        character's bytes across tokens (hex tiles), which the stage must not leave a riddle."""
        name = phase_of(self.build_name)
        if name == "prompt" and self.cut is not None and any(
                segment.is_partial for piece in self.cut.prompt for segment in piece.segments):
            return "prompt_bytes"
        if name == "same_computation":
            return pictures.same_computation_phase(self.report.model)
        return name

    def formulas(self) -> dict:
        """The weights the belt carries (the stepper's memory, all of them) and those each GPU keeps (the bar)."""
        if not self.shows_request:
            return {}
        return {**self.formula(self.scenario, "weights_bytes"), **self.formula(self.scenario, "weights_bytes_per_gpu")}

    def span(self, name: str | None = None) -> tuple[int, int] | None:
        """(first, last) pass a pass build shows (one pass; the rest: up to the end marker); None for a still
        picture (loading, the misconceptions)."""
        name = self.build_name if name is None else name
        cut = self.cut
        if cut is None or name in MISCONCEPTIONS:
            return None
        if name == "rest":
            return min(SINGLE_PASSES, len(cut.answer)) + 1, cut.passes
        passes = SINGLE_PASS_BUILDS[name] if name in SINGLE_PASS_BUILDS else int(name.removeprefix("step_"))
        return passes, passes

    def passes_at(self, position: float | None = None) -> int:
        """Model passes done on the stage with the playback at ``position`` (None: none, the build's end)."""
        span, name, cut = self.span(), self.build_name, self.cut
        if span is None:
            if cut is None:
                return 0
            return {"why_decode": 1, "no_plan": min(NO_PLAN_ANSWER_TOKENS, len(cut.answer))}.get(name, cut.passes)
        if position is None:
            return span[1]
        return max(span[0], min(span[1], math.floor(position)))

    @property
    def pass_share(self) -> float:
        return pass_share(self.speed)

    @property
    def answer_end(self) -> float:
        """Where a playback of the whole answer stops: the end marker's pass, whole."""
        return self.cut.passes + self.pass_share

    def pass_progress(self, position: float | None) -> float:
        """How far the pass on the stage is, 0..1 (1: at rest; a still build and the prompt are)."""
        passes = self.passes_at(position)
        if position is None or self.span() is None or passes == 0:
            return 1.0
        progress = (position - passes) / self.pass_share
        return 1.0 if progress >= 1.0 - WHOLE_TOLERANCE else max(0.0, progress)

    def build_of_passes(self, passes: int) -> int:
        """The pass build that shows ``passes`` passes."""
        singles = min(SINGLE_PASSES, len(self.cut.answer))
        return passes if passes <= singles else self.build_names().index("rest")

    def build_at(self, position: float | None) -> int:
        """The build a playback at ``position`` is in (Play from the prompt walks the pass builds); a still
        build stays."""
        if position is None or self.span() is None:
            return self.build
        return self.build_of_passes(max(0, min(self.cut.passes, math.floor(position))))

    def entry(self) -> tuple[float, float] | None:
        """(start, end) of the playback a build starts with when stepped to: its pass, or the rest of the answer
        pass after pass up to the end marker; None for a still build (the prompt, the misconceptions)."""
        span = self.span()
        if span is None or span[0] == 0:
            return None
        return float(span[0]), span[1] + self.pass_share

    def step_target(self, position: float | None) -> tuple[int, float, float] | None:
        """(build, start, end) of one pass forward from ``position``; None at the end marker and on a still
        picture (the Step button stops there)."""
        if self.span() is None:
            return None
        passes = self.passes_at(position)
        if passes >= self.cut.passes:
            return None
        return self.build_of_passes(passes + 1), float(passes + 1), passes + 1 + self.pass_share

    def play_from(self, position: float | None) -> float | None:
        """Where Play starts: where the playback stands (without one, the pass on the stage, whole); None: from
        the prompt again (at the end marker, or on a still picture)."""
        if self.span() is None or self.passes_at(position) >= self.cut.passes:
            return None
        return position if position is not None else self.passes_at(None) + self.pass_share

    def place_of(self, name: str, passes: int) -> tuple[int, int | None]:
        """Where this cut shows what build ``name`` after ``passes`` passes showed in another: the same
        misconception, else the build of the same pass (as far as this answer goes); with the pass to stand at
        inside the rest of the answer, or None for the build's own end."""
        if name in MISCONCEPTIONS:
            return self.build_names().index(name), None
        if name == "loading" or self.cut is None:
            return 0, None
        passes = min(passes, self.cut.passes)
        build = self.build_of_passes(passes)
        return build, passes if passes < self.span(self.build_names()[build])[1] else None

    # -- the engine --------------------------------------------------------------------------------
    @cached_property
    def request(self):
        """The engine's report for this request (or its refusal); None while the cut loads."""
        return None if self.cut is None else self.what_if(**pictures.request_changes(self.cut))

    @property
    def shows_request(self) -> bool:
        return self.request is not None and not refused(self.request)

    def step_report(self, passes: int):
        """The engine's report for this request stopped after ``passes`` passes (None before the first)."""
        if passes < 1 or self.cut is None:
            return None
        step = self.what_if(**pictures.request_changes(self.cut, passes))
        return None if refused(step) else step

    def subject(self):
        return (self.request.scenario, self.request) if self.shows_request else super().subject()

    def refusal_note(self) -> str:
        """The inline note when the engine refuses this request, else ""."""
        return self.inputs.refusal_text(self.request) if self.cut is not None and refused(self.request) else ""

    # -- the pictures ---------------------------------------------------------------------------------
    @cached_property
    def _steppers(self) -> dict[int, DecodeStepperState]:
        return {}

    def stepper_state(self, position: float | None = None) -> DecodeStepperState:
        """The stepper with the playback at ``position`` (None: the build's end); the question uncut while the
        vocabulary loads or the engine refuses the request."""
        if not self.shows_request:
            label = self.text("control.loading") if self.cut is None else \
                self.text("label.context", tokenizer=tokenizer_info(self.cut.tokenizer).short_name)
            return pictures.uncut_state(self.text("label.prompt_text"), label)
        passes = self.passes_at(position)
        if passes not in self._steppers:
            self._steppers[passes] = pictures.stepper_state(
                self.cut, self.request, self.build_name, passes, self.speed, self.step_report(passes),
                self.report.model.name, self.text)
        return self._steppers[passes]

    @cached_property
    def _bars(self) -> dict[int, MemoryBarsState]:
        return {}

    def memory_state(self, position: float | None = None) -> MemoryBarsState | None:
        """The memory bar with the playback at ``position``: the KV cache grows when the new token leaves the
        model, halfway through its pass. None while there is no request to show."""
        if not self.shows_request:
            return None
        passes = self.passes_at(position)
        if self.pass_progress(position) < BARS_AT_PROGRESS:
            passes -= 1
        if passes not in self._bars:
            self._bars[passes] = pictures.memory_state(self.step_report(passes), self.request, self.text)
        return self._bars[passes]

    # -- captions and notes -------------------------------------------------------------------------------
    def caption_values(self) -> Mapping[str, str]:
        """The build's values (at its end: the rest of the answer's texts quote the whole request)."""
        if not self.shows_request:
            return defaultdict(str, tokenizer=tokenizer_info(self.tokenizer).short_name)
        return self._values

    @cached_property
    def _values(self) -> dict[str, str]:
        passes = self.passes_at(None)
        values = pictures.caption_values(self.cut, self.request, passes, self.speed, self.report.model.name,
                                         self.step_report(passes))
        values["rest_from"] = format_count(self.span("rest")[0])
        return values
