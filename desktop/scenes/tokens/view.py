"""Scene 6, "tokens" (seed 1.6): real tokenizers side by side, Chinese against English, what a token costs.

A thin view over ``tokens_model`` (jobs: seed cuts, corpus counts, the
playground), ``tokens_corpus_model`` (the parallel text) and
``tokens_stage_model`` (widget states, caption and note values). Builds: the
seed's examples cut by real tokenizers, the Chinese/English ratio per tokenizer
on a parallel corpus, the price of input and output tokens (the report's) and
of the same content in each language, and a playground.

Everything that reads a vocabulary runs on the kit's ``Worker``: typing is
debounced (a parented single-shot timer), a superseded job is cancelled
between chunks and its result dropped, a progress bar shows while the
playground works, and the window keeps painting. What a person typed lives in
the text boxes of this scene, which the deck keeps across scene and language
changes.
"""
from __future__ import annotations

import threading

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QPushButton, QVBoxLayout, QWidget

from desktop.scene import Scene, SceneContext
from desktop.scenes.tokens_controls import PlaygroundEditor, TokensControls, preview, set_editor_font
from desktop.scenes.tokens_corpus_model import (
    MAX_PAIRS, PastedCorpus, app_corpus, corpus_job, counted_tokenizers, pasted_corpus_job,
)
from desktop.scenes.tokens_model import (
    BUILDS, DEFAULT_TOKENIZERS, LARGE_PASTE_CHARS, VISIBLE_CHARS, PlaygroundResult, chosen_ids, playground_job, safe_job, seed_job,
)
from desktop.scenes import tokens_stage_model as stage
from desktop.worker import Worker
from engine import InputError
from engine.units import format_count
from widgets.ratio_bars import RatioBars
from widgets.token_view import TokenView

# Typing is tokenized this long after the last key: quick enough to feel live, slow enough not to run per key.
DEBOUNCE_MS = 250
PARALLEL_DEBOUNCE_MS = 400
PAGES = {"what": 0, "chinese": 1, "cost": 2, "playground": 3}
# Vocabularies start loading this long after the scene is first shown: loading one holds Python's GIL for
# 60-280 ms (engine.tokenizer_vocab), so it waits until the scene's first frames are on screen and the stage
# is still, rather than delaying the key press that brought the scene in.
FIRST_LOAD_DELAY_MS = 400


class TokensScene(Scene):
    number = 6
    key = "tokens"
    build_names = BUILDS
    shows_times = True

    def __init__(self, context: SceneContext, parent: QWidget | None = None):
        super().__init__(context, parent)
        self._chosen = DEFAULT_TOKENIZERS
        self._cuts = None                         # seed cuts, once loaded
        self._counts = None                       # corpus counts of the counted tokenizers (``_counted``)
        self._parallel = app_corpus()
        self._own_parallel = False
        self._parallel_read = None                # what the person's parallel text gave, once read
        self._played: PlaygroundResult | None = None
        self._held_text: str | None = None        # a paste too large for the text box
        self._held_bytes = 0                      # its UTF-8 size, for the note
        self._cancel = threading.Event()          # the playground's running count stops when this is set
        self._corpus_cancel = threading.Event()   # the corpus count's, likewise
        self._paste_pending = False               # the person's parallel text is being read and counted
        self._values: dict[str, str] = {}
        self._report = context.store.report
        self._build_stage()
        self._controls = self.own_controls(TokensControls(self._chosen))
        self._controls.chosen_changed.connect(self._on_chosen)
        self._controls.toggles_changed.connect(self._refresh)
        self._controls.parallel_changed.connect(self._parallel_timer.start)
        self._seed_worker, self._corpus_worker, self.play_worker = Worker(self), Worker(self), Worker(self)
        self._seed_worker.finished.connect(self._on_seed)
        self._corpus_worker.finished.connect(self._on_counts)
        self.play_worker.finished.connect(self._on_played)
        for worker in (self._seed_worker, self._corpus_worker, self.play_worker):
            worker.failed.connect(self._on_failed)
        self.play_worker.busy_changed.connect(self.busy.setVisible)
        self._started = False                     # vocabularies asked for (first show, a choice, an export)
        self._first_load = QTimer(self)
        self._first_load.setSingleShot(True)
        self._first_load.setInterval(FIRST_LOAD_DELAY_MS)
        self._first_load.timeout.connect(self._load_chosen)
        self.retranslate()
        self.editor.setPlainText(self.text("label.sample"))
        self.go_to_build(0, animate=False)

    def _build_stage(self) -> None:
        theme = self.context.theme
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
        self.editor = PlaygroundEditor(play_page)
        self.editor.large_paste.connect(self.set_playground_text)
        self.editor.textChanged.connect(self._on_typed)
        self.clear_button = QPushButton(play_page)
        self.clear_button.clicked.connect(self.clear_playground)
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
        self.pages = [self.seed_view, self.ratio_bars, cost_page, play_page]
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for page in self.pages:
            layout.addWidget(page, 1)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self._start_playground)
        self._parallel_timer = QTimer(self)
        self._parallel_timer.setSingleShot(True)
        self._parallel_timer.setInterval(PARALLEL_DEBOUNCE_MS)
        self._parallel_timer.timeout.connect(self._on_parallel_text)

    # -- the contract ----------------------------------------------------------------------------------
    def controls(self) -> QWidget:
        return self._controls

    def show_build(self, index: int, animate: bool) -> None:
        shown = PAGES[self.phase()]
        for n, page in enumerate(self.pages):
            page.setVisible(n == shown)
        self._refresh()

    def on_report(self, scenario, report) -> None:
        self._report = report
        counted = tuple(c.tokenizer for c in self._counts or ())
        if self._counts is not None and counted != self._counted():     # another model: its tokenizer for the notes
            self._count_corpus()
        self._refresh()
        self.texts_changed.emit()

    def retranslate(self) -> None:
        self._controls.retranslate(self.text)
        self.clear_button.setText(self.text("control.clear"))
        self.editor.setPlaceholderText(self.text("control.playground_hint"))
        self._update_parallel_status()
        self._refresh()
        self.texts_changed.emit()

    def caption_values(self) -> dict[str, str]:
        return self._values

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
        if not self._started and not self._first_load.isActive():
            self._first_load.start()

    def prepare_for_export(self) -> None:
        """A still picture cannot wait for the workers: what is missing is computed here, once."""
        self._first_load.stop()
        self._started = True
        if self._cuts is None or self._seed_worker.busy:
            self._seed_worker.cancel()
            self._on_seed(seed_job(self._chosen))
        pasted = self._paste_pending or self._parallel_timer.isActive()
        if self._counts is None or self._corpus_worker.busy or pasted:
            self._parallel_timer.stop()
            self._corpus_cancel.set()
            self._corpus_worker.cancel()
            if pasted:
                self._paste_pending = False
                self._on_counts(safe_job(pasted_corpus_job, self._controls.parallel.toPlainText(), self._counted()))
            else:
                self._on_counts(safe_job(corpus_job, self._parallel, self._counted()))
        if self._played is None or self._debounce.isActive() or self.play_worker.busy:
            self._debounce.stop()
            self.play_worker.cancel()
            self._on_played(safe_job(playground_job, self.playground_text(), self._chosen))
        super().prepare_for_export()

    # -- what the stage shows --------------------------------------------------------------------------
    def _refresh(self) -> None:
        spaces, ids = self._controls.show_spaces.isChecked(), self._controls.show_ids.isChecked()
        text = self.text
        pairs = len(self._parallel.pairs)
        self._values = stage.figures(self._report, self._counts, self._cuts, pairs, self._chosen, text)
        phase = self.phase()
        if phase == "what":
            self.seed_view.set_state(stage.seed_state(self._cuts, self._chosen, text, spaces, ids))
        elif phase == "chinese":
            self.ratio_bars.set_state(stage.ratio_state(self._counts, pairs, self._own_parallel, text, self._chosen))
        elif phase == "cost":
            self.price_bars.set_state(stage.price_state(self._report, text, self.context.refusal_text))
            self.cost_bars.set_state(stage.cost_state(self._counts, self._chosen, self._report, text))
        else:
            self.play_view.set_state(stage.playground_state(self._played, text, spaces, ids, self._held_bytes))

    # -- the seed's examples and the corpus ------------------------------------------------------------------
    def _on_seed(self, cuts) -> None:
        self._cuts = cuts
        self._refresh()
        self.texts_changed.emit()

    def _on_parallel_text(self) -> None:
        """The person's parallel text changed: read and count it on the worker (a large paste stays responsive)."""
        self._counts = None
        self._refresh()
        self._paste_pending = True
        self._corpus_worker.run(safe_job, pasted_corpus_job, self._controls.parallel.toPlainText(), self._counted(),
                                self._new_corpus_cancel())

    def _count_corpus(self) -> None:
        """Count the corpus again with ``_counted()`` (another choice, another model). A paste still being read
        is read again with the current text: counting the old corpus would supersede it and lose it."""
        if self._paste_pending or self._parallel_timer.isActive():
            self._on_parallel_text()
        else:
            self._corpus_worker.run(safe_job, corpus_job, self._parallel, self._counted(), self._new_corpus_cancel())

    def _new_corpus_cancel(self) -> threading.Event:
        """The running corpus count stops at its next pair; the next one gets a fresh event."""
        self._parallel_timer.stop()
        self._corpus_cancel.set()
        self._corpus_cancel = threading.Event()
        return self._corpus_cancel

    def _on_failed(self, _message: str) -> None:
        """A job failed in a way the engine did not refuse with a sentence: say so in the person's language."""
        self.show_note(self.text("label.failed"))

    def _on_counts(self, counts) -> None:
        if isinstance(counts, InputError):
            self._paste_pending = False
            self.show_note(self.context.refusal_text(counts))
            return
        if isinstance(counts, PastedCorpus):      # the person's parallel text, read and counted
            self._paste_pending = False
            self._own_parallel, self._parallel_read, self._parallel = counts.own, counts.read, counts.counted
            self._update_parallel_status()
            counts = counts.counts
        self._counts = counts
        self._refresh()
        self.texts_changed.emit()

    def _update_parallel_status(self) -> None:
        own = self._parallel_read
        if own is None or not own.pairs:
            self._controls.parallel_status.setText(self.text("control.parallel_none"))
            return
        status = self.text("control.parallel_read", pairs=format_count(len(own.pairs)),
                            skipped=format_count(len(own.skipped_lines)))
        if own.cut_pairs:
            status += " " + self.text("control.parallel_cut", cut=format_count(own.cut_pairs),
                                       most=format_count(MAX_PAIRS))
        self._controls.parallel_status.setText(status)

    def _on_chosen(self, chosen) -> None:
        self._chosen = chosen_ids(chosen)
        self._load_chosen()
        self._refresh()

    def _counted(self) -> tuple[str, ...]:
        """The tokenizers the corpus is counted with: the chosen ones and the scenario model's (for the notes)."""
        return counted_tokenizers(self._chosen, self.context.store.scenario.model)

    def _load_chosen(self) -> None:
        """Seed cuts and corpus counts for the chosen tokenizers, on the workers, and the playground's text.
        Only chosen vocabularies are loaded (each takes tens of MB resident), so memory follows the choice."""
        self._started = True
        self._first_load.stop()
        self._seed_worker.run(seed_job, self._chosen)
        self._count_corpus()
        self._debounce.start()

    # -- the playground --------------------------------------------------------------------------------------
    def playground_text(self) -> str:
        """What the playground tokenizes: a held large paste, or what the box holds."""
        return self._held_text if self._held_text is not None else self.editor.toPlainText()

    def set_playground_text(self, text: str) -> None:
        """Put ``text`` in the playground as a paste would: into the box, or held when it is too large."""
        if len(text) > LARGE_PASTE_CHARS:
            self._held_text = text
            self._held_bytes = len(text.encode("utf-8", "surrogatepass"))
            self.editor.blockSignals(True)
            self.editor.setPlainText(preview(text))
            self.editor.blockSignals(False)
            self.editor.setReadOnly(True)
            self._played = None                    # the old counts are not this text's: "counting…" until new ones
            self._refresh()
            self._start_playground()
        else:
            self._held_text, self._held_bytes = None, 0
            self.editor.setReadOnly(False)
            self.editor.setPlainText(text)

    def clear_playground(self) -> None:
        self.set_playground_text("")

    def _on_typed(self) -> None:
        if self._held_text is None and self._started:
            self._cancel.set()                     # what is being counted is no longer the text: drop it
            self.play_worker.cancel()
            self._debounce.start()

    def flush_typing(self) -> None:
        """Tokenize what was typed now rather than after the debounce (a benchmark's hand, a test)."""
        if self._debounce.isActive() and self._started:
            self._start_playground()

    def _start_playground(self) -> None:
        self._debounce.stop()
        self._cancel.set()                         # the job before this one stops at its next chunk
        self._cancel = threading.Event()
        self.play_worker.run(safe_job, playground_job, self.playground_text(), self._chosen, VISIBLE_CHARS, self._cancel)

    def _on_played(self, result) -> None:
        if isinstance(result, InputError):
            self.show_note(self.context.refusal_text(result))
            return
        self._played = result
        self._refresh()

    def playground_result(self) -> PlaygroundResult | None:
        return self._played


SCENE = TokensScene
