"""The contract every scene follows (the scene kit: ``docs/scene-kit.md``).

A scene is a Qt-free model (``desktop/scenes/<key>_model.py``: scenario, report,
build index and the scene's own control values in; widget states, caption and
note values out) plus this thin view, which hands each widget its state. The
frame (``desktop.window``) shows the stage, the caption of the current phase
and the scene's controls, and drives it with ``next_build``/``previous_build``/
``reset``.

Texts: the title is ``"<key>.title"``; the caption and the speaker notes of
phase ``p`` (by default the build's name) are ``"<key>.caption.<p>"`` and
``"<key>.notes.<p>"`` in ``resources/text/<key>.toml``, filled from
``caption_values()`` / ``note_values()`` (numbers formatted by ``engine.units``).

A scene never computes physics and never calls the engine itself: the shared
scenario's report arrives in ``on_report``; variants come from
``context.what_if(**changes)`` (cached, a refusal returned as a value).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from desktop.error_text import error_text
from desktop.what_if import WhatIf
from engine import InputError
from widgets.clock import AnimationClock
from widgets.inline_note import InlineNote
from widgets.theme import Theme

if TYPE_CHECKING:
    from desktop.i18n import Language
    from desktop.scenario_store import ScenarioStore
    from engine import Scenario


@dataclass
class SceneContext:
    """What a scene is given: the language, the shared scenario (and its catalogue and what-ifs), the theme."""
    language: "Language"
    store: "ScenarioStore"
    theme: Theme

    @property
    def catalog(self):
        """The catalogue every report of this app comes from (built-in plus the user's file)."""
        return self.store.catalog

    def what_if(self, **changes) -> WhatIf:
        """The engine's report for the shared scenario with ``changes``, or its refusal (an ``InputError``)."""
        return self.store.what_ifs.changed(self.store.scenario, **changes)

    def what_if_for(self, scenario: "Scenario") -> WhatIf:
        """The engine's report for a whole ``scenario``, or its refusal."""
        return self.store.what_ifs.report(scenario)

    def crossover_batch(self) -> int | None | InputError:
        """The smallest batch at which the shared scenario's decode becomes compute-bound (None: never within
        the allowed batches), or the engine's refusal; cached."""
        return self.store.what_ifs.crossover_batch(self.store.scenario)

    def context_sweep(self, contexts: tuple[int, ...], **changes):
        """KV bytes and free bytes per GPU at ``contexts`` (the points a plot draws) for the shared scenario with
        ``changes`` (``desktop.what_if.ContextSweep``), or the engine's refusal; cached."""
        try:
            scenario = dataclasses.replace(self.store.scenario, **changes)
        except TypeError:
            return self.store.what_ifs.changed(self.store.scenario, **changes)     # the refusal for a bad field
        return self.store.what_ifs.context_sweep(scenario, tuple(contexts))

    def refusal_text(self, error: InputError) -> str:
        """A refusal as one sentence in the current language."""
        return error_text(self.language, error)


class Scene(QWidget):
    number: ClassVar[int]              # DESIGN.md number, 1..7: the scene's one identity
    key: ClassVar[str]                 # "gpu_waits": text namespace and export file name
    build_names: ClassVar[tuple[str, ...]]   # one per build, in order (``build_count`` may follow the state)
    shows_times: ClassVar[bool] = True       # the stage shows times or prices (hypothetical when it does not fit)

    build_changed = Signal(int)
    jump_requested = Signal(int)       # the scene asks the frame to show the scene with this DESIGN.md number
    texts_changed = Signal()           # caption or notes read differently without a build change

    def __init__(self, context: SceneContext, parent: QWidget | None = None):
        super().__init__(parent)
        self.context = context
        self.clock = AnimationClock(self)
        self._build = 0
        self._themed: list = []
        self._note: InlineNote | None = None

    # -- what the frame reads -------------------------------------------------
    def text(self, key: str, count: int | None = None, **values) -> str:
        """This scene's text ``"<scene key>.<key>"`` in the current language (labels, controls, notes)."""
        return self.context.language.text(f"{self.key}.{key}", count=count, **values)

    def title(self) -> str:
        return self.context.language.text(f"{self.key}.title")

    def phase(self) -> str:
        """The name of what the stage shows now: picks the caption and the notes. Default: the build's name."""
        return self.build_names[min(self._build, len(self.build_names) - 1)]

    def caption(self) -> str:
        return self.context.language.text(f"{self.key}.caption.{self.phase()}", **self.caption_values())

    def notes(self) -> str:
        """The speaker notes of the current phase, with this scenario's values filled in."""
        return self.context.language.text(f"{self.key}.notes.{self.phase()}", **self.note_values())

    def handout_texts(self) -> list[tuple[str, str]]:
        """(caption, notes) for the handout page, one per phase in order of first appearance, each with its
        last build's values (a scene that steps one build per token repeats a phase). Steps through the builds:
        call it before choosing the build a picture shows."""
        texts: dict[str, tuple[str, str]] = {}
        for index in range(self.build_count):
            self.go_to_build(index, animate=False)
            texts[self.phase()] = (self.caption(), self.notes())    # a repeated phase keeps its first place
        return list(texts.values())

    def caption_values(self) -> dict[str, str]:
        """Formatted numbers the captions use; computed once per change by the scene's model and kept."""
        return {}

    def note_values(self) -> dict[str, str]:
        """Formatted numbers the notes use; by default the caption's."""
        return self.caption_values()

    def stage_subject(self) -> tuple["Scenario", WhatIf]:
        """The scenario the stage shows and its report (or refusal): named in the stage's corner, and marked
        hypothetical when it does not fit. Default: the shared one; a scene showing a what-if returns that."""
        return self.context.store.scenario, self.context.store.report

    def controls(self) -> QWidget | None:
        """The scene's own controls, shown in the side panel above the shared scenario controls.

        A column (top to bottom) with no fixed widths: the panel is as narrow as its widest control,
        and every pixel it takes is one the stage loses on a 1024x768 screen."""
        return None

    @property
    def build_count(self) -> int:
        return len(self.build_names)

    @property
    def build_index(self) -> int:
        return self._build

    # -- what the frame drives ------------------------------------------------
    def go_to_build(self, index: int, animate: bool = True) -> None:
        index = max(0, min(index, self.build_count - 1))
        self._build = index
        self.show_build(index, animate)
        self.build_changed.emit(index)

    def next_build(self) -> bool:
        """Step forward; False when already at the last build (the frame then moves to the next scene)."""
        if self._build + 1 >= self.build_count:
            return False
        self.go_to_build(self._build + 1)
        return True

    def previous_build(self) -> bool:
        if self._build == 0:
            return False
        self.go_to_build(self._build - 1)
        return True

    def reset(self) -> None:
        """Back to the first build, animations at their start."""
        self.clock.set_seconds(0.0)
        self.go_to_build(0, animate=False)

    def prepare_for_export(self) -> None:
        """Show the last build with every transition finished, for a still picture."""
        self.go_to_build(self.build_count - 1, animate=False)
        self.clock.set_seconds(self.clock.seconds() + 1.0)

    # -- what a scene implements ------------------------------------------------
    def show_build(self, index: int, animate: bool) -> None:
        """Reveal everything up to build ``index``; ``animate`` False jumps to the end state.

        Must not depend on how quickly earlier builds were stepped through.
        """
        raise NotImplementedError

    def on_report(self, scenario, report) -> None:
        """The scenario changed: hand each widget its new state."""
        raise NotImplementedError

    def retranslate(self) -> None:
        """The language changed: re-read every text the scene itself shows."""

    # -- given by the kit -------------------------------------------------------
    def themed(self, widget):
        """Register ``widget`` (anything with ``set_theme``): it gets the theme now and on every change."""
        self._themed.append(widget)
        widget.set_theme(self.context.theme)
        return widget

    def own_controls(self, controls: QWidget) -> QWidget:
        """``controls`` (what ``controls()`` will return) as this scene's hidden Qt child until the side panel
        places them. Qt then deletes them with a scene that never reached the panel (an export, a speaker
        preview, a test); a parentless widget would wait for Python's cycle collector, which may delete it
        in the middle of Qt's event dispatch and crash the app."""
        controls.setParent(self)
        controls.hide()
        return controls

    def set_theme(self, theme: Theme) -> None:
        self.context.theme = theme
        for widget in self._themed:
            widget.set_theme(theme)

    def show_note(self, text: str) -> None:
        """A one-line note over the stage that goes away by itself (never a dialog)."""
        if self._note is None:
            self._note = InlineNote(self)
        self._note.show_note(text)
        self._note.raise_()

    # -- the clock runs only while the scene is visible -------------------------
    def showEvent(self, event) -> None:
        self.clock.start()
        super().showEvent(event)

    def hideEvent(self, event) -> None:
        clock = getattr(self, "clock", None)     # None while Python tears a scene down under a still-live widget
        if clock is not None:
            clock.stop()
        super().hideEvent(event)


def create_scene(cls: type[Scene], context: SceneContext) -> Scene:
    """A scene ready to show, as the window and the export both need it: given the theme and the current report."""
    scene = cls(context)
    scene.set_theme(context.theme)
    scene.on_report(context.store.scenario, context.store.report)
    return scene
