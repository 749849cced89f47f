"""The story of "the model in GPU memory" (Qt-free): which what-if each build shows, and its memory bars.

The story (seed 1.2): Llama 3.1 70B at FP16 needs 70.6 billion parameters x 2
bytes = 141 GB of weights, and one H800 holds 80 GB. Three ways out: compress
the weights (FP8, INT4), split them over two GPUs (and, for a model that one
node of eight cannot hold, Llama 3.1 405B, over two nodes), or take a smaller
model. Each build is a what-if of the shared scenario (``STORY`` plus the build's
changes; batch, prompt, output, KV precision and mode stay the shared ones, the
layout is the default one whatever degrees the panel sets), so stepping builds
never changes the shared scenario. The last build, "explore",
shows the shared scenario itself, changed through the shared controls.

Every number comes from the engine's report (``weights_bytes_per_gpu``,
``kv_bytes_per_gpu``, ``overhead_bytes_per_gpu``, ``hbm_bytes_per_gpu``,
``free_bytes_per_gpu``, ``fits``, ``longest_context_tokens``, ``nodes``,
``layout``, the communication per level); ``bars`` arranges them into
``widgets.memory_bars_state`` states, ``figures`` formats them
(``engine.units``) for the texts. ``text(key, **values)`` gives the
scene's texts (``resources/text/model_memory.toml``) in the current language.
"""
from __future__ import annotations

import dataclasses
from dataclasses import replace
from collections.abc import Callable, Mapping

from functools import cached_property

from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.kit.answers import refused
from desktop.kit.story import Story, Values
from desktop.scenes.model_memory.bars import bars_state, scale_for
from desktop.scenes.model_memory.figures import Figure, figures, values_for
from engine import InputError, Report, Scenario
from widgets.memory_bars_state import MemoryBarsState

Text = Callable[..., str]

BUILDS = ("problem", "quantise", "int4", "split", "nodes", "smaller", "compare", "explore")
# The seed's problem: the fields every build fixes (the rest follow the shared scenario); the default layout.
STORY = {"model": "llama-3.1-70b", "gpu": "h800", "weights": "fp16", "gpus": 1, "tp": 0, "pp": 0, "ep": 0}
SMALLER_MODEL = "llama-3.1-8b"
# Past one node: a model whose FP16 weights more than one node of 8 H800s holds (the issue's own example).
NODES_CHANGES = {"model": "llama-3.1-405b", "gpus": 16}
# Each build's what-if: STORY with these changes. "compare" shows the three ways; "explore" the shared scenario.
BUILD_CHANGES: dict[str, dict] = {
    "problem": {},
    "quantise": {"weights": "fp8"},
    "int4": {"weights": "int4"},
    "split": {"gpus": 2},
    "nodes": NODES_CHANGES,
    "smaller": {"model": SMALLER_MODEL},
    "compare": {},
}
WAYS = ("quantise", "split", "smaller")          # the comparison, left to right
# The figures of a bar with a formula card, and their labels: what each GPU keeps.
BAR_FORMULAS = {"weights_bytes_per_gpu": "column.weights", "kv_bytes_per_gpu": "column.kv",
                "overhead_bytes_per_gpu": "column.runtime"}


def story_scenario(base: Scenario, phase: str) -> Scenario:
    """The what-if ``phase`` shows: ``base`` (the shared scenario) with ``STORY`` and the build's changes."""
    return dataclasses.replace(base, **{**STORY, **BUILD_CHANGES.get(phase, {})})


def shown_values(results: Mapping[str, Report | InputError], phase: str, text: Text, ask) -> Values:
    """``values_for`` plus the figures of what ``phase`` shows, unprefixed (compare: the problem's)."""
    values: dict[str, Figure] = values_for(results, text, ask)
    shown = results.get("explore" if phase == "explore" else ("problem" if phase == "compare" else phase))
    if shown is not None:
        values.update(figures(shown, text, ask))
    return Values(values)


def stage_states(results: Mapping[str, Report | InputError], phase: str, text: Text,
                 refusal_text: Callable[[InputError], str]) -> tuple[MemoryBarsState, ...]:
    """The bars on the stage in ``phase``: one state, or (compare) one per way out, on one scale.

    ``results`` holds the what-if of every story build (``BUILD_CHANGES``) and ``"explore"`` (the shared
    scenario's report).
    """
    story_scale = scale_for([results[p] for p in BUILD_CHANGES if p in results])
    if phase == "compare":              # the three ways on their own scale: the stage is for them alone
        ways_scale = scale_for([results[way] for way in WAYS])
        return tuple(replace(bars_state(results[way], text, refusal_text, ways_scale,
                                        title=text(f"label.title_{way}"), footer=text(f"label.cost_{way}"),
                                        footer_role="text"), aligned_rows=True) for way in WAYS)
    if phase == "explore":
        shown = results["explore"]
        return (bars_state(shown, text, refusal_text, scale_for([shown]), title=text("label.title_explore")),)
    return (bars_state(results[phase], text, refusal_text, story_scale, title=text(f"label.title_{phase}")),)


class ModelMemoryStory(Story):
    """The seed's story of one model on one card, and the shared scenario at the end; ``controls``: the shared
    controls' latest refused change (shown under the bars while exploring), or ""."""
    builds = BUILDS

    @cached_property
    def results(self) -> dict[str, Report | InputError]:
        """The what-if (``Report`` or refusal) behind every build, by build name."""
        results = {phase: self._story_result(phase) for phase in BUILD_CHANGES}
        results["explore"] = self.report
        return results

    def _story_result(self, phase: str):
        """The story's what-if at the shared batch and lengths; where the story's model cannot take those (a
        context past its longest), at the default scenario's, so the seed's story is always told."""
        result = self.report_for(story_scenario(self.scenario, phase))
        if refused(result):
            lengths = {name: getattr(DEFAULT_SCENARIO, name) for name in ("batch", "prompt_tokens", "output_tokens")}
            fallback = self.report_for(story_scenario(replace(self.scenario, **lengths), phase))
            if not refused(fallback):
                return fallback
        return result

    def phase(self) -> str:
        """The build's name; "refused" when the engine refuses what this build shows (a user entry breaking
        the tutorial's model or GPU)."""
        name = self.build_name
        shown = self.results.get("explore" if name == "explore" else "problem" if name == "compare" else name)
        if refused(shown) or (name == "compare" and any(refused(self.results[way]) for way in WAYS)):
            return "refused"
        return name

    @cached_property
    def _values(self) -> Values:
        values = shown_values(self.results, self.build_name, self.text, self.ask)
        refusals = [result for result in self.results.values() if refused(result)]
        if refusals:
            values = values.with_values(reason=self.inputs.refusal_text(refusals[0]))
        return values

    def caption_values(self) -> Values:
        return self._values

    def subject(self):
        phase = self.build_name
        if phase == "explore":
            return self.scenario, self.report
        shown = "problem" if phase == "compare" else phase
        return story_scenario(self.scenario, shown), self.results[shown]

    def formulas(self) -> dict:
        """The weights and the KV cache each GPU keeps, of the case each bar shows (the comparison: each way's,
        keyed "weights_bytes_per_gpu.split" and so on)."""
        cases = {way: story_scenario(self.scenario, way) for way in WAYS} if self.build_name == "compare" \
            else {"": self.subject()[0]}
        found = {}
        for name, scenario in cases.items():
            for key in BAR_FORMULAS:
                found.update(self.formula(scenario, key, figure=f"{key}.{name}" if name else key))
        return found

    def subject_note(self) -> str:
        """Every build but the last shows the tutorial's own case, whatever the side panel says: the corner says so."""
        return "" if self.build_name == "explore" else self.text("label.tutorial_case")

    def stage_states(self) -> tuple[MemoryBarsState, ...]:
        """What each set of bars shows in this build (one state, or three for the comparison)."""
        states = stage_states(self.results, self.build_name, self.text, self.inputs.refusal_text)
        if self.build_name == "explore" and self.controls:
            states = (replace(states[0], footer=self.controls, footer_role="warning"),)
        return states
