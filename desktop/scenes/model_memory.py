"""Scene 2, "the model in GPU memory" (seed 1.2): live memory bars and the three ways out.

A thin view over ``desktop.scenes.model_memory_model``: it asks the context for
each build's what-if (the shared scenario with the story's model, GPU,
precision and count; ``model_memory_model.STORY``), hands the model's states
to the memory bars and eases them on the scene clock. Stepping builds never
changes the shared scenario; the last build ("explore") shows the shared one,
changed through the shared controls beside the stage, and shows a refused
change (a GPU count the model's heads do not divide) inline under the bars
until the next accepted one.
"""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import QHBoxLayout, QWidget

from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.scene import Scene, SceneContext
from desktop.scenes.model_memory_model import (
    BUILD_CHANGES, BUILDS, WAYS, shown_values, stage_states, story_scenario,
)
from desktop.what_if import refused
from widgets.memory_bars import MemoryBars

COMPARE_BUILD = BUILDS.index("compare")
EXPLORE_BUILD = BUILDS.index("explore")


class ModelMemoryScene(Scene):
    number = 2
    key = "model_memory"
    build_names = BUILDS
    shows_times = False

    def __init__(self, context: SceneContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self._results: dict = {}
        self._values: dict[str, str] = {}
        self._refusal = ""                  # the shared controls' latest refused change (explore only)
        # One set of bars, or three side by side for the comparison.
        self.bars = [self.themed(MemoryBars(context.theme, self)) for _ in WAYS]
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        for bars in self.bars:
            layout.addWidget(bars, 1)
            self.clock.ticked.connect(bars.set_seconds)
        context.store.error.connect(self._on_store_error)
        self._collect(context.store.scenario, context.store.report)
        self.go_to_build(0, animate=False)

    # -- what the engine says, through the context -------------------------------------------
    def _collect(self, scenario, report) -> None:
        """Every build's what-if (cached by the context) and the shared report for "explore"."""
        self._results = {phase: self._story(scenario, phase) for phase in BUILD_CHANGES}
        self._results["explore"] = report

    def _story(self, scenario, phase: str):
        """The story's what-if at the shared batch and lengths; where the story's model cannot take those (a
        context past its longest), at the default scenario's, so the seed's story is always told."""
        result = self.context.what_if_for(story_scenario(scenario, phase))
        if refused(result):
            lengths = {name: getattr(DEFAULT_SCENARIO, name) for name in ("batch", "prompt_tokens", "output_tokens")}
            fallback = self.context.what_if_for(story_scenario(replace(scenario, **lengths), phase))
            if not refused(fallback):
                return fallback
        return result

    def phase_results(self) -> dict:
        """The what-if (``Report`` or refusal) behind every build, by build name."""
        return dict(self._results)

    # -- the contract -------------------------------------------------------------------------
    def show_build(self, index: int, animate: bool) -> None:
        if index != EXPLORE_BUILD:
            self._refusal = ""
        self._refresh(animate)

    def on_report(self, scenario, report) -> None:
        self._refusal = ""
        self._collect(scenario, report)
        self._refresh(animate=self.isVisible())
        self.texts_changed.emit()

    def retranslate(self) -> None:
        self._refresh(animate=False)
        self.texts_changed.emit()

    def caption_values(self) -> dict[str, str]:
        return self._values

    def stage_subject(self):
        phase = self.phase()
        if phase == "explore":
            return self.context.store.scenario, self.context.store.report
        shown = "problem" if phase == "compare" else phase
        return story_scenario(self.context.store.scenario, shown), self._results[shown]

    # -- states for the widgets ------------------------------------------------------------------
    def stage_states(self):
        """What each set of bars shows in the current build (one state, or three for the comparison)."""
        states = stage_states(self._results, self.phase(), self.text, self.context.refusal_text)
        if self.phase() == "explore" and self._refusal:
            states = (replace(states[0], footer=self._refusal, footer_role="warning"),)
        return states

    def _refresh(self, animate: bool) -> None:
        self._values = shown_values(self._results, self.phase(), self.text)
        states = self.stage_states()
        now = self.clock.seconds()
        for n, bars in enumerate(self.bars):
            if n < len(states):
                bars.show_state(states[n], now, animate and bars.isVisible())
            bars.setVisible(n < len(states))

    def _on_store_error(self, message: str) -> None:
        if self.build_index == EXPLORE_BUILD:
            self._refusal = message
            self._refresh(animate=False)


SCENE = ModelMemoryScene
