"""Scene 3, "one token at a time" (seed 1.3): the answer made pass by pass, each pass reading all the weights.

The thin view over ``one_token_model``: it cuts the prompt and the answer with
a real tokenizer (the scenario's model's own until the person picks another;
a vocabulary not loaded yet is loaded by the kit's worker, off the UI thread),
asks the engine for this very request (a what-if: batch 1, the prompt's and the
answer's tokens) and hands the stepper and the memory bar their states.

Builds follow the tokens: one per model pass (``one_token_model.build_names``).
Step, play, pause, reset and a speed control are the scene's controls; playback
steps through the passes on the scene clock (``playing_changed`` says when it
starts and stops) and stops at the end marker. A pass animates for
``PASS_SECONDS`` (or less at high speed): the belt runs, the token comes out
and joins the context.
"""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from desktop.scene import Scene, SceneContext
from desktop.scenes import one_token_model as model
from desktop.scenes.one_token_controls import OneTokenControls
from desktop.what_if import refused
from desktop.worker import Worker
from engine.tokenizer_vocab import is_loaded
from engine.tokens import tokenizer_info
from engine.units import format_number
from widgets.decode_stepper import DecodeStepper
from widgets.memory_bars import MemoryBars

PASS_SECONDS = 0.6              # one pass on screen: the belt runs, the token flies in; short, a room never waits
PASS_SHARE_OF_STEP = 0.8        # at high speed a pass's animation takes at most this share of a step
BARS_AT_PROGRESS = 0.5          # of a pass: the token has left the model; its K and V are in the cache
BARS_SHARE = 0.27               # of the stage's width: the memory bar beside the stepper
BARS_MIN_PX = 270
NARROW_STAGE_PX = 900
NARROW_BARS_SHARE = 0.3          # a narrow stage: room for the bar and its labels at the floor


class _BuildNames:
    """``build_names`` of the scene: on the class, every phase (what the registry and the text checks read);
    on a scene, one name per build of its cut."""

    def __get__(self, scene, owner=None) -> tuple[str, ...]:
        if scene is None:
            return ("loading", "prompt", "prefill", "step", "end", *model.MISCONCEPTIONS)
        return scene._current_build_names()


class OneTokenScene(Scene):
    number = 3
    key = "one_token"
    build_names = _BuildNames()

    playing_changed = Signal(bool)

    def __init__(self, context: SceneContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self._chosen_tokenizer: str | None = None        # the person's choice; None: the model's own
        self._cut: model.CutRequest | None = None
        self._cut_for: tuple | None = None                # (tokenizer, language) of the cut
        self._pending: tuple | None = None                # (tokenizer, language) being cut by the worker
        self._report = None
        self._values: dict[str, str] = {}
        self._bars_state = None                           # the memory bar's next state, shown during a pass
        self._speed = model.DEFAULT_SPEED
        self._playing = False
        self._last_step_at = 0.0
        self._pass_started_at = -1e9
        self._build_names: tuple[str, ...] = ("loading",)   # one per build once the texts are cut
        self.worker = Worker(self)
        self.worker.finished.connect(self._on_cut)
        self.worker.failed.connect(self._on_cut_failed)
        self.stepper = self.themed(DecodeStepper(context.theme, self))
        self.bars = self.themed(MemoryBars(context.theme, self))
        self._controls = None
        self._controls = self.own_controls(self._create_controls())
        self._retranslate_controls()
        self.clock.ticked.connect(self._on_tick)
        self._request_cut()

    # -- the cut ---------------------------------------------------------------------------------
    def tokenizer(self) -> str:
        return self._chosen_tokenizer or model.default_tokenizer(self.context.store.scenario.model)

    def _texts(self) -> tuple[str, str]:
        return self.text("label.prompt_text"), self.text("label.answer_text")

    def _request_cut(self, wait: bool = False) -> None:
        """Cut the texts with the tokenizer now when its vocabulary is loaded (or ``wait``), else in the worker."""
        wanted = (self.tokenizer(), self.context.language.code)
        if wanted == self._cut_for:
            self._pending = None
            self.worker.cancel()
            return
        if wait or is_loaded(tokenizer_info(wanted[0])):
            self.worker.cancel()
            self._pending = None
            self._apply_cut(model.cut_request(wanted[0], *self._texts()), wanted)
        elif wanted != self._pending:
            self._pending = wanted
            self.worker.run(model.cut_request, wanted[0], *self._texts())
        self._sync_controls()

    def _on_cut(self, cut) -> None:
        if self._pending is not None and cut.tokenizer == self._pending[0]:
            wanted, self._pending = self._pending, None
            self._apply_cut(cut, wanted)
            self._sync_controls()

    def _on_cut_failed(self, message: str) -> None:
        self._pending = None
        self._sync_controls()
        self.show_note(message)

    def ensure_ready(self) -> None:
        """The cut, now (export, a click that cannot wait): loads the vocabulary on this thread if needed."""
        if self._cut is None or self._pending is not None:
            self._request_cut(wait=True)

    def _apply_cut(self, cut: model.CutRequest, wanted: tuple) -> None:
        old_names, old_build = self._build_names, self._build
        self._cut, self._cut_for = cut, wanted
        self._build_names = model.build_names(cut)
        old_name = old_names[min(old_build, len(old_names) - 1)]
        end = self.build_names.index("end")
        build = self.build_names.index(old_name) if old_name in model.MISCONCEPTIONS else min(old_build, end)
        self._update_report()
        self.go_to_build(build, animate=False)
        self.texts_changed.emit()

    def _update_report(self) -> None:
        """The engine's report for this request, and (asked now, cached, so a pass's frame does not wait for
        the engine) its reports for the request stopped after each pass: the KV cache so far."""
        self._report = self.context.what_if(**model.request_changes(self._cut)) if self._cut else None
        if self._report is not None and not refused(self._report):
            for passes in range(1, self._cut.passes + 1):
                self.context.what_if(**model.request_changes(self._cut, passes))

    @property
    def cut(self) -> model.CutRequest | None:
        return self._cut

    @property
    def report(self):
        """The engine's report for this request (or its refusal)."""
        return self._report

    # -- the scene contract --------------------------------------------------------------------------
    def phase(self) -> str:
        return "loading" if self._cut is None else model.phase_of(super().phase())

    def caption_values(self) -> dict[str, str]:
        return self._values

    def stage_subject(self):
        if self._report is not None and not refused(self._report):
            return self._report.scenario, self._report
        return super().stage_subject()

    def show_build(self, index: int, animate: bool) -> None:
        if animate and self._cut is not None and 1 <= index <= self.build_names.index("end"):
            self._pass_started_at = self.clock.seconds()
        else:
            self._pass_started_at = -1e9
        self._refresh()

    def on_report(self, scenario, report) -> None:
        if self._cut is None or self._cut_for[0] != self.tokenizer():
            self._request_cut()
        self._update_report()
        self._refresh()

    def retranslate(self) -> None:
        self._request_cut()
        self._retranslate_controls()
        self._refresh()

    def _current_build_names(self) -> tuple[str, ...]:
        """One per pass and per misconception (``one_token_model.build_names``). Whoever asks for them needs
        them (the export, a click, the speaker view): a vocabulary still loading is then loaded at once."""
        if self._cut is None:
            self.ensure_ready()
        return self._build_names

    @property
    def build_count(self) -> int:
        return len(self.build_names)

    def reset(self) -> None:
        self.pause()
        if self._cut is None:        # the first show: the worker still loads the vocabulary; nothing waits for it
            self.clock.set_seconds(0.0)
            self._build = 0
            self.show_build(0, animate=False)
            self.build_changed.emit(0)
            return
        super().reset()

    def prepare_for_export(self) -> None:
        self.pause()
        self.ensure_ready()
        super().prepare_for_export()

    def controls(self) -> QWidget:
        return self._controls

    # -- states for the widgets -----------------------------------------------------------------------
    def _model_name(self) -> str:
        try:
            return self.context.catalog.model(self.context.store.scenario.model).name
        except Exception:                      # an id the catalogue no longer has: the corner says so
            return self.context.store.scenario.model

    def _refresh(self) -> None:
        cut, report = self._cut, self._report
        if cut is None or report is None or refused(report):
            self._values = {"tokenizer": tokenizer_info(self.tokenizer()).name}
            if cut is None:
                self.stepper.set_state(model.loading_state(self._texts()[0], self.text))
            if report is not None and refused(report):
                self.show_note(self.context.refusal_text(report))
            return
        build = min(self._build, len(self.build_names) - 1)
        passes = model.passes_at(cut, build)
        step = self.context.what_if(**model.request_changes(cut, passes)) if passes >= 1 else None
        step = None if step is not None and refused(step) else step
        self._values = model.caption_values(cut, report, build, self._speed, self._model_name(), step)
        state = model.stepper_state(cut, report, build, self._speed, step, self._model_name(), self.text)
        self.stepper.set_state(state, self._pass_progress(self.clock.seconds()))
        # set, not eased: a pass adds a few hundred KB to a bar of tens of GB (the label carries the growth).
        # During a pass the bar takes its new state when the token leaves the model (``_on_tick``): the KV
        # cache grows then, and the two repaints fall on different frames.
        self._bars_state = model.memory_state(step, report, self.text)
        if self._pass_progress(self.clock.seconds()) >= 1.0:
            self._show_bars()

    def _show_bars(self) -> None:
        if self._bars_state is not None:
            if self._bars_state != self.bars.state:      # the same build shown again: nothing to repaint
                self.bars.set_state(self._bars_state)
            self._bars_state = None

    def _pass_seconds(self) -> float:
        return min(PASS_SECONDS, PASS_SHARE_OF_STEP / self._speed)

    def _pass_progress(self, now: float) -> float:
        return max(0.0, min(1.0, (now - self._pass_started_at) / self._pass_seconds()))

    # -- playback --------------------------------------------------------------------------------------
    @property
    def playing(self) -> bool:
        return self._playing

    @property
    def speed(self) -> float:
        """Passes per second of screen time while playing."""
        return self._speed

    def set_speed(self, tokens_per_second: float) -> None:
        if tokens_per_second not in model.SPEEDS_TOKENS_PER_SECOND:
            allowed = ", ".join(format_number(s) for s in model.SPEEDS_TOKENS_PER_SECOND)
            self.show_note(self.text("control.speed_refused", got=repr(tokens_per_second), allowed=allowed))
            return
        self._speed = tokens_per_second
        self._sync_controls()
        self._refresh()

    def play(self) -> None:
        self.ensure_ready()
        if self._build >= self.build_names.index("end"):
            self.go_to_build(0, animate=False)
        self._last_step_at = self.clock.seconds()
        if not self._playing:
            self._playing = True
            self.playing_changed.emit(True)
        self._sync_controls()

    def pause(self) -> None:
        if self._playing:
            self._playing = False
            self.playing_changed.emit(False)
        self._sync_controls()

    def step(self) -> None:
        """One pass forward (the Step button), up to the end marker."""
        self.pause()
        self.ensure_ready()
        if self._build < self.build_names.index("end"):
            self.go_to_build(self._build + 1)

    def _on_tick(self, now: float) -> None:
        if self._playing and now - self._last_step_at >= 1.0 / self._speed:
            self._last_step_at = now
            if self._build < self.build_names.index("end"):
                self.go_to_build(self._build + 1)
            if self._build >= self.build_names.index("end"):
                self.pause()
        progress = self._pass_progress(now)
        self.stepper.set_progress(progress)
        if progress >= BARS_AT_PROGRESS:
            self._show_bars()

    # -- controls ----------------------------------------------------------------------------------------
    def _create_controls(self) -> OneTokenControls:
        controls = OneTokenControls(model.SPEEDS_TOKENS_PER_SECOND)
        controls.tokenizer_chosen.connect(self.choose_tokenizer)
        controls.speed_chosen.connect(self.set_speed)
        controls.step_button.clicked.connect(self.step)
        controls.play_button.clicked.connect(lambda: self.pause() if self._playing else self.play())
        controls.reset_button.clicked.connect(self.reset)
        self.worker.busy_changed.connect(lambda _busy: self._sync_controls())
        # the buttons and boxes, for tests and the keyboard
        self.play_button, self.tokenizer_box, self.speed_box = (controls.play_button, controls.tokenizer_box,
                                                                controls.speed_box)
        return controls

    def _retranslate_controls(self) -> None:
        self._controls.retranslate(self.text)
        self._sync_controls()

    def _sync_controls(self) -> None:
        if getattr(self, "_controls", None) is not None:
            self._controls.show_values(self._pending[0] if self._pending else self.tokenizer(), self._speed,
                                       self._pending is not None, self._playing, self.text)

    def choose_tokenizer(self, tokenizer_id: str) -> None:
        """The person's tokenizer (the scene then no longer follows the model's)."""
        self._chosen_tokenizer = tokenizer_info(tokenizer_id).id
        self._request_cut()

    # -- geometry --------------------------------------------------------------------------------------
    def resizeEvent(self, event) -> None:
        # the bar's labels need BARS_MIN_PX; on a narrow stage the stepper keeps the room (its counters
        # say the KV cache's size too)
        bars_width = round(self.width() * BARS_SHARE)
        if bars_width < BARS_MIN_PX:
            bars_width = BARS_MIN_PX if self.width() >= NARROW_STAGE_PX else round(self.width() * NARROW_BARS_SHARE)
        self.stepper.setGeometry(0, 0, self.width() - bars_width, self.height())
        self.bars.setGeometry(self.width() - bars_width, 0, bars_width, self.height())
        super().resizeEvent(event)


SCENE = OneTokenScene
