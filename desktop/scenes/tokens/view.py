"""The view of "tokens": the seed's examples cut, the Chinese/English ratios, the prices, and a playground.

It hands the story's states to the page the story names. Its mutable parts are
the person's ``Choices`` and the ``Results`` so far (each one frozen value,
replaced), the text boxes (what a person typed lives there; the deck keeps the
scene across scene and language changes), and the workers and debounce timers.

Everything that reads a vocabulary runs in the tokenizer process
(``desktop.kit.tokenizer_process``), waited for on the kit's ``Worker`` threads: the window
keeps painting while a vocabulary loads or a 10 MB paste is counted. Typing is
debounced (a parented single-shot timer), a superseded count stops between
chunks and its result is dropped, and a progress bar shows while the
playground works. What every visit shows first (``prepared``: the seed's cuts,
the corpus counts) is worked out once per run of the app and shown at once.
"""
from __future__ import annotations

from dataclasses import replace
from functools import partial

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QPushButton, QVBoxLayout, QWidget

from desktop.kit import tokenizer_process
from desktop.kit.idle import never_on_screen
from desktop.kit.scene import Scene
from desktop.kit.worker import Worker
from engine import InputError
from widgets.ratio_bars import RatioBars
from widgets.token_view import TokenView

from . import prepared
from .controls import GuardedTextBox, TokensControls, set_editor_font
from .corpus import pasted_corpus_job
from .cuts import VISIBLE_CHARS, chosen_ids, playground_job, safe_job, tokenizer_ids
from .story import Choices, Results, TokensInputs, TokensStory

# Typing is counted this long after the last key: quick enough to feel live, slow enough not to run per key.
DEBOUNCE_MS = 250
PARALLEL_DEBOUNCE_MS = 400
# The tokenizer process (and the vocabularies it holds, a few hundred MB) ends this long after the scene was left:
# long enough for a presenter who steps back to it, and what it showed stays (the next count starts a new one).
RELEASE_AFTER_MS = 60_000


class TokensScene(Scene):
    Story = TokensStory
    shows_times = True

    def __init__(self, kit, parent: QWidget | None = None):
        super().__init__(kit, parent)
        self._choices = Choices()
        # What earlier visits or the idle time after the first frame worked out shows at once (a preview too).
        self._results = Results().with_profiles(prepared.known(tokenizer_ids()))
        self._create_stage()
        self._side = self.own_controls(TokensControls(self._choices))
        self._side.choices_changed.connect(self._on_choices)
        self._side.parallel.edited.connect(self._parallel_timer.start)
        self._profiles_worker, self._corpus_worker, self.play_worker = Worker(self), Worker(self), Worker(self)
        self._profiles_worker.finished.connect(self._on_profiles)
        self._corpus_worker.finished.connect(self._on_pasted)
        self.play_worker.finished.connect(self._on_played)
        for worker in (self._profiles_worker, self._corpus_worker, self.play_worker):
            worker.failed.connect(self._on_failed)
        self.play_worker.busy_changed.connect(self.busy.setVisible)
        self.editor.set_full_text(self.text("label.sample"))
        self.editor.edited.connect(self._on_typed)
        self.start()

    def _create_stage(self) -> None:
        theme = self.kit.theme
        self.seed_view = self.themed(TokenView(theme, self))
        self.ratio_bars = self.themed(RatioBars(theme, self))
        self.price_bars = self.themed(RatioBars(theme, self))
        self.cost_bars = self.themed(RatioBars(theme, self))
        cost_page = QWidget(self)
        column = QVBoxLayout(cost_page)           # one above the other: each chart gets the stage's width
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.price_bars, 2)
        column.addWidget(self.cost_bars, 5)
        play_page = QWidget(self)
        column = QVBoxLayout(play_page)
        column.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        self.editor = GuardedTextBox(play_page)
        self.clear_button = QPushButton(play_page)
        self.clear_button.clicked.connect(self.editor.clear_text)
        top.addWidget(self.editor, 1)
        top.addWidget(self.clear_button)
        self.busy = QProgressBar(play_page)
        self.busy.setRange(0, 0)                  # indeterminate: the playground is working
        self.busy.setTextVisible(False)
        self.busy.setMaximumHeight(8)
        policy = self.busy.sizePolicy()
        policy.setRetainSizeWhenHidden(True)      # showing it moves nothing: no relayout of the stage
        self.busy.setSizePolicy(policy)
        self.busy.hide()
        self.play_view = self.themed(TokenView(theme, play_page))
        column.addLayout(top)
        column.addWidget(self.busy)
        column.addWidget(self.play_view, 1)
        self.pages = {"seed": self.seed_view, "ratio": self.ratio_bars, "cost": cost_page, "playground": play_page}
        self.widgets = {"seed": self.seed_view, "ratio": self.ratio_bars, "price": self.price_bars,
                        "cost": self.cost_bars, "playground": self.play_view}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for page in self.pages.values():
            layout.addWidget(page, 1)
        self._debounce = self._timer(DEBOUNCE_MS, self._count_playground)
        self._parallel_timer = self._timer(PARALLEL_DEBOUNCE_MS, self._read_parallel)
        self._release = self._timer(RELEASE_AFTER_MS, self._release_vocabularies)

    def _timer(self, milliseconds: int, slot) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.setInterval(milliseconds)
        timer.timeout.connect(slot)
        return timer

    @classmethod
    def prepare_before_first_visit(cls, kit) -> None:
        """Idle time after the app's first frame: start working out what the first visit shows (the seed's cuts
        and the corpus counts of the default tokenizers and the scenario model's), in the tokenizer process;
        returns at once. The visit then shows them at once instead of a loading message."""
        prepared.prepare(kit.store.scenario.model)

    # -- the scene contract ----------------------------------------------------------------------------------
    def control_values(self) -> TokensInputs:
        return TokensInputs(self._choices, self._results)

    def present(self, story: TokensStory, animate: bool) -> None:
        for name, page in self.pages.items():
            page.setVisible(name == story.page)
        for name, state in story.states().items():
            self.widgets[name].set_state(state)
        self._side.parallel_status.setText(story.parallel_status())

    def figure_places(self) -> dict:
        """Each figure's label on the widget drawing it (``TokensStory.figure_labels``)."""
        return {key: (self.widgets[widget], (label,))
                for key, (widget, label, _counts) in self.story().figure_labels().items()}

    def on_report(self, scenario, report) -> None:
        super().on_report(scenario, report)
        self._ask()                                # another model: its tokenizer's counts, for the notes

    def retranslate_controls(self) -> None:
        self._side.retranslate(self.text)
        self.clear_button.setText(self.text("control.clear"))
        self.editor.setPlaceholderText(self.text("control.playground_hint"))

    def set_theme(self, theme) -> None:
        super().set_theme(theme)
        set_editor_font(self.editor, round(theme.floor_px * 1.1))
        font = self.clear_button.font()
        font.setPixelSize(theme.floor_px)                           # on the stage: no smaller than its floor
        self.clear_button.setFont(font)
        # As tall as the text box, so the two line up on their row at every screen size.
        self.clear_button.setFixedHeight(self.editor.maximumHeight())

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._release.stop()
        tokenizer_process.hold(self)           # typing and stepping here cut again: the vocabularies stay loaded
        self._ask()

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        release = getattr(self, "_release", None)     # None while Python tears a scene down under a live widget
        if release is not None and not never_on_screen(self):
            tokenizer_process.let_go(self)
            release.start()

    def _release_vocabularies(self) -> None:
        if not self.isVisible():
            tokenizer_process.release_if_idle()     # the process ends once no scene on screen needs it

    def prepare_for_export(self) -> None:
        """A still picture cannot wait for the workers: what is missing is worked out here, waited for."""
        self._debounce.stop()
        for worker in (self._profiles_worker, self._corpus_worker, self.play_worker):
            worker.cancel()
        story = self.story()
        results = self._results.with_profiles(prepared.profiles(story.counted))
        if self._parallel_timer.isActive() or results.reading_paste or story.paste_to_count_again():
            self._parallel_timer.stop()
            pasted = tokenizer_process.run(*self._parallel_job())
            results = replace(results, reading_paste=False,
                              pasted=results.pasted if isinstance(pasted, InputError) else pasted)
        if results.played is None or results.counting:
            played = tokenizer_process.run(*self._playground_job())
            results = replace(results, counting=False,
                              played=results.played if isinstance(played, InputError) else played)
        self._set_results(results, texts_changed=False)
        super().prepare_for_export()

    # -- asking the tokenizer process --------------------------------------------------------------------------
    def _ask(self) -> None:
        """Ask for what the story shows and the results lack (never for a render that is never on screen)."""
        if never_on_screen(self) or not self.isVisible():
            return
        story = self.story()
        missing = story.missing_profiles()
        if missing:
            found = prepared.known(missing)        # worked out for an earlier visit, or in idle time
            if found:
                self._set_results(self._results.with_profiles(found), texts_changed=False)
            if len(found) < len(missing):
                self._profiles_worker.run(prepared.profiles, missing)
        if story.paste_to_count_again() and not self._parallel_timer.isActive():
            self._read_parallel(keep_counts=True)
        if story.playground_due() and not self._debounce.isActive() and not self.play_worker.busy:
            self._count_playground()

    def _on_profiles(self, found) -> None:
        self._set_results(self._results.with_profiles(found))
        self._keep_only_what_is_counted()
        self._ask()

    def _keep_only_what_is_counted(self) -> None:
        """Memory follows what is shown: the tokenizer process drops the vocabularies no longer counted with
        (never this process's own, which another scene may be using)."""
        if tokenizer_process.running():
            tokenizer_process.submit(prepared.keep_only, self.story().counted)

    def _on_failed(self, _message: str) -> None:
        """A job failed in a way the engine did not refuse with a sentence: say so in the person's language."""
        self.show_note(self.text("label.failed"))

    def _set_results(self, results: Results, texts_changed: bool = True) -> None:
        if results != self._results:
            self._results = results
            self.refresh()
            if texts_changed:
                self.texts_changed.emit()          # a result the frame did not make: captions may read otherwise

    # -- the person's choices and parallel text ----------------------------------------------------------------
    def _on_choices(self) -> None:
        self._choices = self._side.choices(chosen_ids(self._side.chosen()))
        if self._results.played is not None:       # the playground counts again with the new tokenizers
            self._results = replace(self._results, counting=True)
            self._debounce.start()
        self.refresh()
        if self._results.reading_paste:            # a paste being read: read again, counted with them
            self._read_parallel()
        self._ask()                                # what is known of a new tokenizer shows at once
        self.texts_changed.emit()
        self._keep_only_what_is_counted()

    def _read_parallel(self, keep_counts: bool = False) -> None:
        """Read and count the person's parallel text in the tokenizer process (a large paste stays responsive);
        its old counts leave the stage unless only a tokenizer was added (``keep_counts``)."""
        self._parallel_timer.stop()
        if not keep_counts:
            self._set_results(replace(self._results, reading_paste=True), texts_changed=False)
        self._corpus_worker.run(partial(tokenizer_process.run, channel="corpus"), *self._parallel_job())

    def _parallel_job(self) -> tuple:
        """The job that reads and counts the person's parallel text, and its arguments."""
        box = self._side.parallel
        return safe_job, pasted_corpus_job, box.full_text(), self.story().counted, box.held is not None

    def _on_pasted(self, pasted) -> None:
        if isinstance(pasted, InputError):
            self.show_note(self.kit.refusal_text(pasted))
            self._set_results(replace(self._results, reading_paste=False))
            return
        self._set_results(replace(self._results, pasted=pasted, reading_paste=False))
        self._ask()

    # -- the playground ------------------------------------------------------------------------------------------
    def playground_text(self) -> str:
        """What the playground counts: a held large paste, or what the box holds."""
        return self.editor.full_text()

    def set_playground_text(self, text: str) -> None:
        """Put ``text`` in the playground as a paste would: into the box, or held when it is too large."""
        self.editor.set_full_text(text)

    def clear_playground(self) -> None:
        self.editor.clear_text()

    def _on_typed(self) -> None:
        """The box changed: what is being counted is no longer its text. A held paste is counted at once (its
        old counts gone: "counting…"); typing after the debounce."""
        tokenizer_process.cancel("playground")
        self.play_worker.cancel()
        if self.editor.held is not None:
            self._set_results(replace(self._results, played=None, counting=True), texts_changed=False)
            self._count_playground()
            return
        self._set_results(replace(self._results, counting=True, box_empty=self.editor.document().isEmpty()),
                          texts_changed=False)
        self._debounce.start()

    def flush_typing(self) -> None:
        """Count what was typed now rather than after the debounce (a benchmark's hand, a test)."""
        if self._debounce.isActive():
            self._count_playground()

    def _count_playground(self) -> None:
        self._debounce.stop()
        if never_on_screen(self):
            return
        self.play_worker.run(partial(tokenizer_process.run, channel="playground"), *self._playground_job())

    def _playground_job(self) -> tuple:
        """The job that counts the playground's text, and its arguments."""
        return safe_job, playground_job, self.editor.full_text(), self._choices.chosen, VISIBLE_CHARS, \
            self.editor.held is not None

    def _on_played(self, result) -> None:
        if isinstance(result, InputError):
            self.show_note(self.kit.refusal_text(result))
            return
        self._set_results(replace(self._results, played=result, counting=False), texts_changed=False)

    def playground_result(self):
        return self._results.played


SCENE = TokensScene
