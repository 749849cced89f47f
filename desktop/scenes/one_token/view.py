"""The view of "one token at a time": the decode stepper and a memory bar, the cut made in the tokenizer process.

It hands the story's states to the two widgets. Its mutable parts are the
scene's own inputs (``OneTokenChoices``: the person's tokenizer, the speed, the
cut), the cut the worker is making, and the one motion: a
``widgets.playback.Playback`` of the passes on the scene clock (a pass stepped
to, the rest of the answer playing by itself, or Play from where the stage
is). The story says where each starts and stops and which build it is in.

The cut: a cut made before in this run of the app (``cuts``: in idle time
after the first frame, or for an earlier visit) shows at once; else the
tokenizer process makes it, waited for on the kit's worker, and until it
arrives the scene has one build, "loading". Reading the builds never waits for
a vocabulary: whoever needs the cut now (the export, Play, Step) calls
``ensure_ready``. While the scene is on screen it holds the tokenizer process,
so a person who picks another tokenizer does not wait for a new process.
"""
from __future__ import annotations

from dataclasses import replace
from functools import partial

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from desktop.i18n import LANGUAGES, Language
from desktop.kit import tokenizer_process
from desktop.kit.idle import never_on_screen
from desktop.kit.scene import Scene
from desktop.kit.worker import Worker
from engine.tokens import tokenizer_info
from engine.units import format_number
from widgets.decode_stepper import DecodeStepper
from widgets.memory_bars import MemoryBars
from widgets.playback import Playback

from . import cuts, pictures
from .controls import OneTokenControls
from .story import SPEEDS_TOKENS_PER_SECOND, OneTokenChoices, OneTokenStory, pass_share, plays_on, retimed


class OneTokenScene(Scene):
    Story = OneTokenStory

    playing_changed = Signal(bool)       # Play's playback started or stopped (by itself at the end marker)

    def __init__(self, kit, parent: QWidget | None = None):
        super().__init__(kit, parent)
        self._choices = OneTokenChoices()
        self._pending: tuple[str, str, str] | None = None    # the cut the worker is making (CutRequest.source)
        self._playback: Playback | None = None
        self._said_playing = False
        self.worker = Worker(self)
        self.worker.finished.connect(self._on_cut)
        self.worker.failed.connect(self._on_cut_failed)
        self.stepper = self.themed(DecodeStepper(kit.theme, self))
        self.bars = self.themed(MemoryBars(kit.theme, self))
        self.own_controls(self._create_controls())
        self.start()
        self._request_cut(announce=False)

    def control_values(self) -> OneTokenChoices:
        return self._choices

    # -- the cut ---------------------------------------------------------------------------------
    @property
    def cut(self):
        return self._choices.cut

    @property
    def report(self):
        """The engine's report for this request (or its refusal); None while the cut loads."""
        return self.story().request

    @property
    def build_names(self) -> tuple[str, ...]:
        return self.story().build_names()

    def _request_cut(self, wait: bool = False, announce: bool = True) -> None:
        """Cut the texts as the story wants them: at once when cut before, waited for here when ``wait``, else in
        the tokenizer process. ``announce``: tell the frame the texts changed (a cut it did not ask for)."""
        story = self.story()
        wanted = story.wanted_cut()
        made = None if story.cut_is_current else cuts.known(wanted)
        if story.cut_is_current or made is not None or wait:
            if self._pending is not None:
                self.worker.cancel()
                if self._pending != wanted:
                    cuts.cancel()                   # the vocabulary it would load is not wanted now
                self._pending = None
            if made is None and not story.cut_is_current:
                made = cuts.cut(wanted, insist=True)   # waited for: the same job when it was being made
            if made is not None:
                self._apply_cut(made, announce)
        elif wanted != self._pending:
            self._pending = wanted
            self.worker.run(cuts.cut, wanted)
        self._sync_controls()

    def _on_cut(self, cut: pictures.CutRequest | None) -> None:
        if cut is None:                             # superseded by a cut asked elsewhere: ask again
            self._pending = None
            self._request_cut()
        elif cut.source == self._pending:
            self._pending = None
            self._apply_cut(cut, announce=True)
            self._sync_controls()

    def _on_cut_failed(self, message: str) -> None:
        self._pending = None
        self._sync_controls()
        self.show_note(message)

    def ensure_ready(self) -> None:
        """The cut, now (the export, a click that cannot wait): loads the vocabulary on this thread if needed."""
        if not self.story().cut_is_current:
            self._request_cut(wait=True)

    def _apply_cut(self, cut: pictures.CutRequest, announce: bool) -> None:
        """Show ``cut``, at the build (and pass) that shows what the stage showed."""
        old = self.story()
        kept = old.passes_at(self._position(self.clock.seconds()))
        new = old.with_cut(cut)
        build, passes = new.place_of(old.build_name, kept)
        self._choices, self._playback = new.choices, None
        self.go_to_build(build, animate=False)
        if passes is not None:              # inside the rest of the answer: stand at the same pass, whole
            whole = passes + self.story().pass_share
            self._playback = Playback(passes, whole, self._choices.speed, position=whole)
            self.refresh()
        if announce:
            self.texts_changed.emit()

    def choose_tokenizer(self, tokenizer_id: str) -> None:
        """The person's tokenizer (the scene then no longer follows the model's)."""
        self._choices = replace(self._choices, tokenizer=tokenizer_info(tokenizer_id).id)
        self.refresh()
        self._request_cut()

    @classmethod
    def prepare_before_first_visit(cls, kit) -> None:
        """Idle time after the app's first frame: start cutting the request the first visit shows (the scenario
        model's tokenizer, the current language, then the other: L shows it at once) in the tokenizer process;
        returns at once."""
        tokenizer = pictures.default_tokenizer(kit.store.scenario.model)
        codes = (kit.language.code, *(code for code in LANGUAGES if code != kit.language.code))
        cuts.prepare([pictures.wanted_cut(tokenizer, partial(_scene_text, Language(code), cls.key))
                      for code in codes])

    def showEvent(self, event) -> None:
        super().showEvent(event)
        tokenizer_process.hold(self)            # picking another tokenizer here cuts again: keep the process

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        if not never_on_screen(self):
            tokenizer_process.let_go(self)
            tokenizer_process.release_if_idle()     # what it cut stays known here; the next cut starts another

    # -- the scene contract --------------------------------------------------------------------------
    def build_started(self, story: OneTokenStory, animate: bool) -> None:
        now = self.clock.seconds()
        position = self._position(now)
        if self._playback is not None and self._playback.playing(now) and story.build_at(position) == story.build:
            return                          # Play's playback has moved on into this build: it plays on
        entry = story.entry() if animate else None
        self._playback = None
        if entry is not None:
            self._run(*entry, now)
        note = story.refusal_note()
        if note:
            self.show_note(note)

    def present(self, story: OneTokenStory, animate: bool) -> None:
        self._show(story, self.clock.seconds())
        self._sync_controls()

    def on_tick(self, seconds: float) -> None:
        story = self.story()
        build = story.build_at(self._position(seconds))
        if build != self.build_index:
            self.go_to_build(build)         # the playback walks on into the next build
        else:
            self._show(story, seconds)

    def moving(self, seconds: float) -> bool:
        return self._playback is not None and self._playback.playing(seconds)

    def figure_places(self) -> dict:
        """The stepper's memory label and the bar's weights (``OneTokenStory.formulas``)."""
        return {"weights_bytes": (self.stepper, ("memory",)), "weights_bytes_per_gpu": (self.bars, ("column.weights",))}

    def lay_out(self) -> None:
        stepper, bars = pictures.stage_rects(self.width(), self.height())
        self.place({self.stepper: stepper, self.bars: bars})

    def on_report(self, scenario, report) -> None:
        super().on_report(scenario, report)
        self._request_cut(announce=False)   # the model's own tokenizer may be another now
        note = self.story().refusal_note()
        if note:
            self.show_note(note)

    def retranslate(self) -> None:
        super().retranslate()
        self._request_cut(announce=False)   # the texts to cut are the new language's

    def reset(self) -> None:
        self._playback = None
        super().reset()

    def prepare_for_export(self) -> None:
        self._playback = None
        self.ensure_ready()
        super().prepare_for_export()

    # -- what each frame shows ------------------------------------------------------------------------
    def _position(self, seconds: float) -> float | None:
        return None if self._playback is None else self._playback.position(seconds)

    def _show(self, story: OneTokenStory, seconds: float) -> None:
        position = self._position(seconds)
        state, progress = story.stepper_state(position), story.pass_progress(position)
        if state != self.stepper.state:
            self.stepper.set_state(state, progress)
        else:
            self.stepper.set_progress(progress)     # a frame of a pass: only the belt and the new token move
        # set, not eased: a pass adds a few hundred KB to a bar of tens of GB (the label carries the growth)
        bars = story.memory_state(position)
        if bars is not None:
            self.bars.set_state(bars)
        playing = self._playback is not None and plays_on(self._playback, seconds)
        if playing != self._said_playing:
            self._said_playing = playing
            self.playing_changed.emit(playing)
            self._sync_controls()

    # -- playback ---------------------------------------------------------------------------------------
    @property
    def playing(self) -> bool:
        """Whether Play's playback will still begin another pass."""
        return self._playback is not None and plays_on(self._playback, self.clock.seconds())

    @property
    def speed(self) -> float:
        """Passes per second of screen time while playing."""
        return self._choices.speed

    def _run(self, start: float, end: float, now: float) -> None:
        self._playback = Playback(start, end, self._choices.speed, position=start)
        self._playback.play(now)
        self.clock.wake()

    def set_speed(self, tokens_per_second: float) -> None:
        if tokens_per_second not in SPEEDS_TOKENS_PER_SECOND:
            allowed = ", ".join(format_number(s) for s in SPEEDS_TOKENS_PER_SECOND)
            self.show_note(self.text("control.speed_refused", got=repr(tokens_per_second), allowed=allowed))
            return
        old_share = self.story().pass_share
        self._choices = replace(self._choices, speed=tokens_per_second)
        if self._playback is not None:
            self._playback = retimed(self._playback, self.clock.seconds(), old_share,
                                     pass_share(tokens_per_second), tokens_per_second)
        self.refresh()
        self.texts_changed.emit()           # the notes quote the time on screen

    def play(self) -> None:
        """Play the passes from where the stage is to the end marker (from the prompt again when there)."""
        self.ensure_ready()
        now = self.clock.seconds()
        start = self.story().play_from(self._position(now))
        if start is None:
            self.go_to_build(0, animate=False)
            start = self.story().play_from(None)
        self._run(start, self.story().answer_end, now)
        self.refresh()

    def pause(self) -> None:
        """Stop beginning passes; the pass on the stage finishes."""
        now = self.clock.seconds()
        if self.playing:
            position = self._position(now)
            whole = int(position) + self.story().pass_share
            self._run(min(position, whole), whole, now)
        self.refresh()

    def step(self) -> None:
        """One pass forward (the Step button), up to the end marker."""
        self.ensure_ready()
        now = self.clock.seconds()
        target = self.story().step_target(self._position(now))
        if target is None:
            self.pause()
            return
        build, start, end = target
        if build != self.build_index:
            self.go_to_build(build, animate=False)
        self._run(start, end, now)
        self.refresh()

    # -- controls ----------------------------------------------------------------------------------------
    def _create_controls(self) -> OneTokenControls:
        controls = OneTokenControls(SPEEDS_TOKENS_PER_SECOND)
        controls.tokenizer_chosen.connect(self.choose_tokenizer)
        controls.speed_chosen.connect(self.set_speed)
        controls.step_button.clicked.connect(self.step)
        controls.play_button.clicked.connect(lambda: self.pause() if self.playing else self.play())
        controls.reset_button.clicked.connect(self.reset)
        # the buttons and boxes, for tests and the keyboard
        self.play_button, self.tokenizer_box, self.speed_box = (controls.play_button, controls.tokenizer_box,
                                                                controls.speed_box)
        return controls

    def retranslate_controls(self) -> None:
        self.controls().retranslate(self.text)
        self._sync_controls()

    def _sync_controls(self) -> None:
        self.controls().show_values(self.story().tokenizer, self._choices.speed, self._pending is not None,
                                    self.playing, self.text)


def _scene_text(language: Language, scene_key: str, key: str) -> str:
    return language.text(f"{scene_key}.{key}")


SCENE = OneTokenScene
