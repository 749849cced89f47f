"""Scene 5, "the KV cache" (seed 1.5): work N² against N, bytes per token, growth with context, sharing a card.

The thin view: it keeps the playback's position and the context control,
asks ``desktop.scenes.kv_cache_model`` for every widget's state and hands it
over. Numbers come from the shared report, the engine's context sweep of the
shared scenario at the contexts the plot draws and at the current one
(``context.context_sweep``, cached) and what-ifs of the same scenario on 1 to
8 GPUs (``context.what_if``). What does not move is worked out once per
scenario and language; a frame changes only the revealed tiles, the
comparison's growth and the current point.

Builds, in the seed's order: the naive cost (the counter plays 1..500 tokens),
the cache (played again, with the second counter), the bytes per token (factor
tiles one after another), the designs compared, growth with context (played
from 1 token to the model's longest, the memory bar filling until it spills),
and sharing the card at one context (conversations per GPU count, and the
scenario's GPUs filled with them). Playback runs on the scene clock; a build
shown without animation (export, reset, a jump) shows its end state.
"""
from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSlider, QToolButton, QVBoxLayout, QWidget

from desktop.scene import Scene, SceneContext
from desktop.scenes import kv_cache_memory_model as memory
from desktop.scenes import kv_cache_model as model
from desktop.scenes.kv_cache_model import (
    BUILDS, FACTOR_BUILDS, GROWTH_BUILD, MARKS, PLAYBACK_TOKENS, SHARING_BUILD, SHARING_CONTEXT_TOKENS,
    SHARING_GPU_COUNTS, WORK_BUILDS, Architectures,
)
from desktop.what_if import refused
from engine.units import format_count
from widgets.kv_factors import KvFactors
from widgets.kv_growth_plot import KvGrowthPlot
from widgets.kv_sharing import KvSharing
from widgets.memory_bars import MemoryBars
from widgets.transition import Transition
from widgets.work_counter import WorkCounter

BAR_SHARE = 0.36                 # of the stage's width: the memory bar beside the plot or the table
SLIDER_STEPS_PER_DECADE = 200


class KvCacheScene(Scene):
    number = 5
    key = "kv_cache"
    build_names = BUILDS
    shows_times = False

    def __init__(self, context: SceneContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self._report = context.store.report
        self._entries = self._architectures()
        self._values: dict[str, str] | None = None
        # Worked out once per scenario (and language), not per frame: the sweep over the plot's contexts, the
        # plot's fixed parts and the bar's scale, the factor tiles with the comparison.
        self._sweep = None                        # desktop.what_if.ContextSweep, or the engine's refusal
        self._growth_base = None
        self._bar_scale = 0.0
        self._factors_full = None
        self._tile_count = model.tile_count(self._report.model, self._report.kv_precision)
        self._tokens = PLAYBACK_TOKENS
        self._context_tokens = SHARING_CONTEXT_TOKENS
        self._playing: str | None = None          # "work" or "context" while a playback runs
        self._play_started = 0.0
        self._factors_started: float | None = None    # clock seconds the factor tiles began (None: all shown)
        self._compare = Transition(0.0)
        self._compare_drawn = 0.0
        self.work = self.themed(WorkCounter(context.theme, self))
        self.factors = self.themed(KvFactors(context.theme, self))
        self.growth = self.themed(KvGrowthPlot(context.theme, self))
        self.sharing = self.themed(KvSharing(context.theme, self))
        self.bars = self.themed(MemoryBars(context.theme, self))
        self._controls = self.own_controls(self._create_controls())
        self.clock.ticked.connect(self._on_tick)
        self.clock.ticked.connect(self.bars.set_seconds)
        self.go_to_build(0, animate=False)

    # -- what the model needs ------------------------------------------------------------------
    def _architectures(self) -> Architectures:
        return model.architectures(self.context.catalog)

    @property
    def longest(self) -> int:
        return model.longest_context(self._report.model)

    def context_sweep(self):
        """The engine's sweep of the shared scenario over the contexts the plot draws (the kit caches it), or its
        refusal (a model whose longest context is past what the engine sweeps)."""
        if self._sweep is None:
            self._sweep = self.context.context_sweep(model.sweep_contexts(self.longest))
        return self._sweep

    def _growth_fixed(self):
        """The plot's fixed parts and the bar's scale (once per scenario and language); None when refused."""
        sweep = self.context_sweep()
        if refused(sweep):
            return None
        if self._growth_base is None:
            self._growth_base = model.growth_base(sweep, self._report, self.longest, self.text)
            self._bar_scale = memory.bar_scale_bytes(self._report, sweep)
        return self._growth_base

    def _show_growth_refusal(self) -> None:
        sweep = self.context_sweep()
        if self._build == GROWTH_BUILD and refused(sweep):
            self.show_note(model.growth_refusal_text(sweep, self.longest, self.text, self.context.refusal_text))

    def sharing_results(self) -> dict[int, object]:
        """What-ifs of one conversation of the chosen context on 1 to 8 GPUs (and on the scenario's own count)."""
        changes = memory.sharing_changes(self._report.scenario, self.sharing_context)
        counts = set(SHARING_GPU_COUNTS) | {self._report.scenario.gpus}
        return {gpus: self.context.what_if(gpus=gpus, **changes) for gpus in sorted(counts)}

    @property
    def sharing_context(self) -> int:
        return max(2, min(self._context_tokens, self.longest)) if self._build == SHARING_BUILD \
            else min(SHARING_CONTEXT_TOKENS, self.longest)

    # -- the frame's texts ---------------------------------------------------------------------
    def phase(self) -> str:
        current = self.sharing_results().get(self._report.scenario.gpus) if self._build == SHARING_BUILD else None
        return model.phase(self._build, self._report, self.longest, current)

    def caption_values(self) -> dict[str, str]:
        if self._values is None:
            results = self.sharing_results()
            sweep = self.context_sweep()
            if refused(sweep):              # the plot is not drawn; the captions still name the seed's marks
                sweep = self.context.context_sweep(tuple(t for _, _, t in MARKS if t <= self.longest))
            self._values = model.caption_values(self._report, self._entries, sweep, self.longest,
                                                results, self.sharing_context, self.text)
        return self._values

    # -- states ------------------------------------------------------------------------------------
    def _refresh(self) -> None:
        now = self.clock.seconds()
        build = self._build
        if build in WORK_BUILDS:
            self.work.set_state(model.work_state(self._tokens, build >= WORK_BUILDS[1], self.text))
        elif build in FACTOR_BUILDS:
            count = self._tile_count
            revealed = model.factors_revealed(now - self._factors_started, count, True) \
                if self._factors_started is not None else count + 1.0
            self._compare_drawn = self._compare.value(now)
            if self._factors_full is None:
                self._factors_full = model.factors_state(self._report.model, self._report.kv_precision,
                                                         self._entries, count + 1.0, 1.0, self.text)
            state = model.factors_at(self._factors_full, revealed, self._compare_drawn)
            if state != self.factors.state:
                self.factors.set_state(state)
        elif build == GROWTH_BUILD:
            base = self._growth_fixed()
            if base is not None:
                point = self.context.context_sweep((self._context_tokens,))
                if not refused(point):
                    self.growth.set_state(model.growth_at(base, self._context_tokens, float(point.kv_bytes[0]),
                                                          self.text))
                    bar = memory.growth_bar(self._report, point, self._bar_scale, self.text)
                    if bar != self.bars.state:
                        self.bars.set_state(bar)
        elif build == SHARING_BUILD:
            results = self.sharing_results()
            self.sharing.set_state(memory.sharing_state(results, self._report.scenario.gpus, self.sharing_context,
                                                       1.0, self.text))
        self._sync_controls()

    def _show_sharing_bar(self, animate: bool) -> None:
        state = memory.sharing_bar(self.sharing_results().get(self._report.scenario.gpus), self.text)
        if state is not None:
            self.bars.show_state(state, self.clock.seconds(), animate)

    # -- the scene contract -------------------------------------------------------------------------
    def show_build(self, index: int, animate: bool) -> None:
        now = self.clock.seconds()
        self._playing = None
        self._factors_started = None
        self._values = None
        if index in WORK_BUILDS:
            self._tokens = PLAYBACK_TOKENS
            if animate:
                self._start_playing("work")
        elif index in FACTOR_BUILDS:
            if index == FACTOR_BUILDS[0] and animate:
                self._factors_started = now
            self._compare.retarget(1.0 if index == FACTOR_BUILDS[1] else 0.0, now, animate)
        elif index == GROWTH_BUILD:
            self._context_tokens = self.longest
            if animate:
                self._start_playing("context")
            self._show_growth_refusal()
        elif index == SHARING_BUILD:
            self._context_tokens = min(SHARING_CONTEXT_TOKENS, self.longest)
            # The table appears at once (it is read, not watched); the memory bar fills with the conversations.
            self._show_sharing_bar(animate)
        self._place_stage()
        self._refresh()

    def on_report(self, scenario, report) -> None:
        longest_before = self.longest
        self._report = report
        self._sweep = self._growth_base = self._factors_full = None
        self._tile_count = model.tile_count(report.model, report.kv_precision)
        self._values = None
        if self.longest != longest_before or self._context_tokens > self.longest:
            self._context_tokens = min(self._context_tokens, self.longest)
        self._configure_slider()
        if self._build == SHARING_BUILD:
            self._show_sharing_bar(False)
        self._show_growth_refusal()
        self._refresh()

    def retranslate(self) -> None:
        self._values = None
        self._growth_base = self._factors_full = None
        self._retranslate_controls()
        if self._build == SHARING_BUILD:
            self._show_sharing_bar(False)
        self._refresh()

    def controls(self) -> QWidget:
        return self._controls

    def prepare_for_export(self) -> None:
        super().prepare_for_export()
        self._refresh()

    # -- playback and transitions --------------------------------------------------------------------
    def _start_playing(self, kind: str) -> None:
        self._playing = kind
        self._play_started = self.clock.seconds()
        if kind == "work":
            self._tokens = model.tokens_at(0.0)
        else:
            self._context_tokens = model.context_at(0.0, self.longest)

    def play(self) -> None:
        """Play the current build's motion from its start: the tokens, or the context."""
        if self._build in WORK_BUILDS:
            self._start_playing("work")
        elif self._build == GROWTH_BUILD:
            self._start_playing("context")
        elif self._build == FACTOR_BUILDS[0]:
            self._factors_started = self.clock.seconds()
        self._refresh()

    def step(self) -> None:
        """One more token (work builds; from the first again after the last), or twice the context."""
        self._playing = None
        if self._build in WORK_BUILDS:
            self._tokens = self._tokens + 1 if self._tokens < PLAYBACK_TOKENS else 1
        elif self._build in (GROWTH_BUILD, SHARING_BUILD):
            doubled = self._context_tokens * 2 if self._context_tokens < self.longest else 1
            self.set_context(min(self.longest, doubled))
            return
        self._refresh()

    def set_context(self, tokens: int) -> None:
        """The context control: 1 token to the model's longest (2 at least when sharing)."""
        self._playing = None
        self._context_tokens = max(1, min(self.longest, int(tokens)))
        if self._build == SHARING_BUILD:
            self._values = None
            self._show_sharing_bar(True)
            self.texts_changed.emit()
        self._refresh()

    @property
    def generated_tokens(self) -> int:
        return self._tokens

    @property
    def context_tokens(self) -> int:
        return self._context_tokens

    def _on_tick(self, seconds: float) -> None:
        moved = False
        if self._playing == "work":
            self._tokens = model.tokens_at(seconds - self._play_started)
            moved = True
            if self._tokens >= PLAYBACK_TOKENS or seconds < self._play_started:
                self._tokens, self._playing = PLAYBACK_TOKENS, None
        elif self._playing == "context":
            elapsed = seconds - self._play_started
            self._context_tokens = model.context_at(elapsed, self.longest)
            moved = True
            if elapsed >= model.CONTEXT_PLAY_SECONDS or seconds < self._play_started:
                self._context_tokens, self._playing = self.longest, None
        if self._factors_started is not None and self._build == FACTOR_BUILDS[0]:
            count = self._tile_count + 1
            moved = True
            if seconds - self._factors_started > count * model.FACTOR_SECONDS or seconds < self._factors_started:
                self._factors_started = None
        # Refreshed until the bars show exactly their target (the last frame of the transition included).
        if moved or (self._build in FACTOR_BUILDS and self._compare.value(seconds) != self._compare_drawn):
            self._refresh()

    # -- layout -----------------------------------------------------------------------------------------
    def _place_stage(self) -> None:
        w, h = self.width(), self.height()
        build = self._build
        shown = {
            self.work: build in WORK_BUILDS,
            self.factors: build in FACTOR_BUILDS,
            self.growth: build == GROWTH_BUILD,
            self.sharing: build == SHARING_BUILD,
            self.bars: build in (GROWTH_BUILD, SHARING_BUILD),
        }
        bar_width = round(w * BAR_SHARE)
        for widget, visible in shown.items():
            widget.setVisible(visible)
        self.work.setGeometry(0, 0, w, h)
        self.factors.setGeometry(0, 0, w, h)
        self.growth.setGeometry(0, 0, w - bar_width, h)
        self.sharing.setGeometry(0, 0, w - bar_width, h)
        self.bars.setGeometry(w - bar_width, 0, bar_width, h)

    def resizeEvent(self, event) -> None:
        self._place_stage()
        super().resizeEvent(event)

    # -- controls ----------------------------------------------------------------------------------------
    def _create_controls(self) -> QWidget:
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        buttons = QHBoxLayout()
        self.play_button, self.step_button = QPushButton(), QPushButton()
        buttons.addWidget(self.play_button)
        buttons.addWidget(self.step_button)
        layout.addLayout(buttons)
        self._context_label = QLabel()
        self.context_slider = QSlider(Qt.Orientation.Horizontal)
        self.context_value = QLabel()
        presets = QHBoxLayout()
        self.preset_buttons: dict[int, QToolButton] = {}
        for _, name, tokens in MARKS:
            button = QToolButton()      # a tool button: as wide as "128K", not a push button's 80 px minimum
            button.setText(name)
            button.clicked.connect(lambda _=False, t=tokens: self.set_context(t))
            presets.addWidget(button)
            self.preset_buttons[tokens] = button
        for widget in (self._context_label, self.context_slider, self.context_value):
            layout.addWidget(widget)
        layout.addLayout(presets)
        # The context controls come and go with the builds; the panel (and so the stage) keeps its width.
        for widget in (self._context_label, self.context_slider, self.context_value, *self.preset_buttons.values()):
            policy = widget.sizePolicy()
            policy.setRetainSizeWhenHidden(True)
            widget.setSizePolicy(policy)
        self.play_button.clicked.connect(self.play)
        self.step_button.clicked.connect(self.step)
        self.context_slider.valueChanged.connect(self._on_slider_moved)
        self._configure_slider()
        self._retranslate_controls()
        return box

    def _configure_slider(self) -> None:
        self.context_slider.blockSignals(True)
        self.context_slider.setRange(0, round(math.log10(self.longest) * SLIDER_STEPS_PER_DECADE))
        self.context_slider.blockSignals(False)
        for tokens, button in self.preset_buttons.items():
            button.setEnabled(tokens <= self.longest)

    def _retranslate_controls(self) -> None:
        self.play_button.setText(self.text("control.play"))
        self.play_button.setToolTip(self.text("control.play_tip"))
        self.step_button.setText(self.text("control.step"))
        self.step_button.setToolTip(self.text("control.step_tip"))
        self._context_label.setText(self.text("control.context"))
        for widget in (self._context_label, self.context_slider):
            widget.setToolTip(self.text("control.context_tip"))
        self._sync_controls()

    def _sync_controls(self) -> None:
        if not hasattr(self, "context_slider"):
            return
        uses_context = self._build in (GROWTH_BUILD, SHARING_BUILD)
        for widget in (self._context_label, self.context_slider, self.context_value, *self.preset_buttons.values()):
            widget.setVisible(uses_context)
        self.play_button.setEnabled(self._build in WORK_BUILDS or self._build in (FACTOR_BUILDS[0], GROWTH_BUILD))
        self.step_button.setEnabled(self._build in WORK_BUILDS or uses_context)
        self.context_slider.blockSignals(True)
        self.context_slider.setValue(round(math.log10(max(1, self._context_tokens)) * SLIDER_STEPS_PER_DECADE))
        self.context_slider.blockSignals(False)
        self.context_value.setText(self.text("control.context_value", tokens=format_count(self._context_tokens)))

    def _on_slider_moved(self, value: int) -> None:
        self.set_context(round(10 ** (value / SLIDER_STEPS_PER_DECADE)))


SCENE = KvCacheScene
