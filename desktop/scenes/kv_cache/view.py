"""The view of "the KV cache": the work counters, the factor tiles, the growth plot, the sharing table, a bar.

It hands the story's states to the widgets. Its mutable parts are the scene's
one control value (the context) and the motions: the build's playback (tokens,
the context, or the tiles; ``widgets.playback.Playback``) and the comparison's
growth (``Transition``), all on the scene clock. A build shown without
animation (export, reset, a jump) shows its end state.
"""
from __future__ import annotations

import math
from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSlider, QToolButton, QVBoxLayout, QWidget

from desktop.kit.scene import Scene
from desktop.kit.signals import signals_blocked
from engine.units import format_count
from widgets.kv_factors import KvFactors
from widgets.kv_growth_plot import KvGrowthPlot
from widgets.kv_sharing import KvSharing
from widgets.memory_bars import MemoryBars
from widgets.playback import Playback
from widgets.transition import Transition
from widgets.work_counter import WorkCounter

from .pictures import GROWTH_BUILD, MARKS
from .story import KvCacheStory, KvControls

SLIDER_STEPS_PER_DECADE = 200


class KvCacheScene(Scene):
    Story = KvCacheStory
    shows_times = False

    def __init__(self, kit, parent: QWidget | None = None):
        super().__init__(kit, parent)
        self._controls_values = KvControls()
        self._playback: Playback | None = None     # the build's motion while it plays or has played
        self._compare = Transition(0.0)
        self.work = self.themed(WorkCounter(kit.theme, self))
        self.factors = self.themed(KvFactors(kit.theme, self))
        self.growth = self.themed(KvGrowthPlot(kit.theme, self))
        self.sharing = self.themed(KvSharing(kit.theme, self))
        self.bars = self.themed(MemoryBars(kit.theme, self))
        self.own_controls(self._create_controls())
        self.clock.ticked.connect(self.bars.set_seconds)
        self.start()

    def control_values(self) -> KvControls:
        return self._controls_values

    # -- the scene contract -------------------------------------------------------------------------
    def build_started(self, story: KvCacheStory, animate: bool) -> None:
        now = self.clock.seconds()
        self._controls_values = KvControls(story.build_context())
        self._playback = None
        self._story = None                         # the context changed: the story with it
        story = self.story()
        self._compare.retarget(story.compare_target(), now, animate)
        if animate and story.motion() is not None:
            self._play(story)
        note = story.refusal_note()
        if note:
            self.show_note(note)
        sharing_bar = story.sharing_bar() if story.build_name == "sharing" else None
        if sharing_bar is not None:          # the table appears at once; the bar fills with the conversations
            self.bars.show_state(sharing_bar, now, animate)

    def present(self, story: KvCacheStory, animate: bool) -> None:
        self.lay_out()
        self._show(story, self.clock.seconds())
        self._sync_controls(story)

    def on_report(self, scenario, report) -> None:
        super().on_report(scenario, report)
        story = self.story()
        if story.build_name == "sharing" and story.sharing_bar() is not None:
            self.bars.show_state(story.sharing_bar(), self.clock.seconds(), False)
        note = story.refusal_note()
        if note:
            self.show_note(note)

    def on_tick(self, seconds: float) -> None:
        self._show(self.story(), seconds)

    def moving(self, seconds: float) -> bool:
        playing = self._playback is not None and self._playback.playing(seconds)
        return playing or self._compare.running(seconds) or self.bars.animating()

    def lay_out(self) -> None:
        widgets = {"work": self.work, "factors": self.factors, "growth": self.growth, "sharing": self.sharing,
                   "bars": self.bars}
        rects = self.story().rects(self.width(), self.height())
        self.place({widgets[name]: rect for name, rect in rects.items()})

    def figure_places(self) -> dict:
        return {"kv_bytes_per_token": (self.factors, ()), "kv_bytes": (self.growth, ())}

    def idle_jobs(self) -> list:
        # The growth build's plot and bar painted once while hidden, at the size they will show: the plot's
        # still layer and the bar's layout are ready, so stepping to that build costs no long frame.
        return [self._paint_growth_once]

    def _paint_growth_once(self) -> None:
        inputs = self.inputs().at_build(GROWTH_BUILD)
        story = self.Story(replace(inputs, controls=KvControls(self.Story(inputs).build_context())))
        rects, states = story.rects(self.width(), self.height()), story.states(0.0, 0.0)
        for name, widget in (("growth", self.growth), ("bars", self.bars)):
            if name in states and rects[name] is not None and widget.isHidden():
                widget.setGeometry(*rects[name])
                widget.set_state(states[name])
                widget.grab()

    # -- what each frame shows ------------------------------------------------------------------------
    def _position(self, seconds: float) -> float | None:
        return None if self._playback is None else self._playback.position(seconds)

    def _show(self, story: KvCacheStory, seconds: float) -> None:
        widgets = {"work": self.work, "factors": self.factors, "growth": self.growth, "sharing": self.sharing,
                   "bars": self.bars}
        for name, state in story.states(self._position(seconds), self._compare.value(seconds)).items():
            if state != widgets[name].state:
                widgets[name].set_state(state)

    @property
    def context_tokens(self) -> int:
        return self.story().shown_context(self._position(self.clock.seconds()))

    @property
    def generated_tokens(self) -> int:
        return self.story().generated_tokens(self._position(self.clock.seconds()))

    # -- playback ---------------------------------------------------------------------------------------
    def _play(self, story: KvCacheStory) -> None:
        motion = story.motion()
        self._playback = Playback(motion.start, motion.end, motion.rate)
        self._playback.play(self.clock.seconds(), from_start=True)
        self.clock.wake()

    def play(self) -> None:
        """Play the current build's motion from its start: the tokens, the tiles, or the context."""
        if self.story().motion() is not None:
            self._play(self.story())
            self.refresh()

    def step(self) -> None:
        """One more token (work builds; from the first again after the last), or twice the context."""
        story, now = self.story(), self.clock.seconds()
        if story.build_name in ("naive", "cache"):
            if self._playback is None:
                motion = story.motion()
                self._playback = Playback(motion.start, motion.end, motion.rate)
            self._playback.step(now, by=1.0, wrap=True)
            self.refresh()
        elif story.uses_context:
            self.set_context(story.stepped_context(self.context_tokens))

    def set_context(self, tokens: int) -> None:
        """The context control: 1 token to the model's longest (2 at least when sharing)."""
        self._playback = None
        self._controls_values = KvControls(max(1, int(tokens)))
        self.refresh()
        story = self.story()
        if story.build_name == "sharing":
            if story.sharing_bar() is not None:
                self.bars.show_state(story.sharing_bar(), self.clock.seconds(), True)
            self.texts_changed.emit()

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
        for widget in self._context_widgets():
            policy = widget.sizePolicy()
            policy.setRetainSizeWhenHidden(True)
            widget.setSizePolicy(policy)
        self.play_button.clicked.connect(self.play)
        self.step_button.clicked.connect(self.step)
        self.context_slider.valueChanged.connect(self._on_slider_moved)
        return box

    def _context_widgets(self) -> list[QWidget]:
        return [self._context_label, self.context_slider, self.context_value, *self.preset_buttons.values()]

    def retranslate_controls(self) -> None:
        self.play_button.setText(self.text("control.play"))
        self.play_button.setToolTip(self.text("control.play_tip"))
        self.step_button.setText(self.text("control.step"))
        self.step_button.setToolTip(self.text("control.step_tip"))
        self._context_label.setText(self.text("control.context"))
        for widget in (self._context_label, self.context_slider):
            widget.setToolTip(self.text("control.context_tip"))

    def _sync_controls(self, story: KvCacheStory) -> None:
        """Show the story's values in the controls without them writing back."""
        for widget in self._context_widgets():
            widget.setVisible(story.uses_context)
        self.play_button.setEnabled(story.motion() is not None)
        self.step_button.setEnabled(story.steps())
        tokens = self.context_tokens
        with signals_blocked(self.context_slider):
            self.context_slider.setRange(0, round(math.log10(story.longest) * SLIDER_STEPS_PER_DECADE))
            self.context_slider.setValue(round(math.log10(max(1, tokens)) * SLIDER_STEPS_PER_DECADE))
        self.context_value.setText(self.text("control.context_value", tokens=format_count(tokens)))
        for preset, button in self.preset_buttons.items():
            button.setEnabled(preset <= story.longest)

    def _on_slider_moved(self, value: int) -> None:
        self.set_context(round(10 ** (value / SLIDER_STEPS_PER_DECADE)))


SCENE = KvCacheScene
