"""The view every scene is built on, and the kit of services it is given (``docs/scene-kit.md``).

A scene is a package ``desktop/scenes/<key>/``: its key is the package's name.
Its Qt-free **story** (``story.py``, a ``desktop.kit.story.Story``) decides
what the stage shows; its thin **view** (``view.py``, a ``Scene``) creates the
widgets once and, whenever the story changes, hands each widget the state the
story gives it (``present``). The view keeps the scene's own control values and
its motions (transitions, playbacks), nothing the story could derive.

The frame (``desktop.window``, the export, the speaker view) reads the title,
caption and notes of the current phase, and drives the scene with
``next_build``/``previous_build``/``reset``. Texts: ``"<key>.title"``,
``"<key>.caption.<phase>"`` and ``"<key>.notes.<phase>"`` in
``resources/text/<key>.toml``, filled from the story's values.

A scene never calls the engine itself: the shared scenario's report is in the
story's inputs, and every other engine question goes through ``kit.ask`` (the
story's ``ask``), cached, a refusal returned as a value.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from desktop.error_text import error_text
from desktop.kit.figures import FigureFormulas
from desktop.kit.idle import IdleWork
from desktop.kit.story import Inputs, Story
from desktop.scenes.registry import title_key
from engine import InputError
from widgets.clock import AnimationClock
from widgets.inline_note import InlineNote
from widgets.theme import Theme

if TYPE_CHECKING:
    from desktop.i18n import Language
    from desktop.scenario_store import ScenarioStore

Rect = tuple[int, int, int, int]        # x, y, width, height in the scene's pixels


@dataclass
class SceneKit:
    """The services a scene is given: the language, the shared scenario, the theme and the engine."""
    language: "Language"
    store: "ScenarioStore"
    theme: Theme

    @property
    def catalog(self):
        """The catalogue every report of this app comes from (built-in plus the user's file)."""
        return self.store.catalog

    def ask(self, question: Callable[..., Any], *arguments: Any) -> Any:
        """The engine's answer to ``question(catalog, *arguments)`` (``desktop.kit.questions``), or its
        refusal (an ``InputError``); cached in the one cache the store and every scene share."""
        return self.store.answers.ask(question, *arguments)

    def known(self, question: Callable[..., Any], *arguments: Any) -> Any:
        """The cached answer to ``question`` if there is one, else ``desktop.kit.answers.NOT_KNOWN``; never
        computes (a slow question is asked from a worker thread through ``ask``; the UI thread only looks)."""
        return self.store.answers.known(question, *arguments)

    def refusal_text(self, error: InputError) -> str:
        """A refusal as one sentence in the current language."""
        return error_text(self.language, error)


class Scene(QWidget):
    key: ClassVar[str] = ""                # the package's name, set when the class is defined
    Story: ClassVar[type[Story]] = Story
    shows_times: ClassVar[bool] = True     # the stage shows times or prices (hypothetical when it does not fit)

    build_changed = Signal(int)
    jump_requested = Signal(str)           # the scene asks the frame to show the scene with this key
    texts_changed = Signal()               # caption or notes read differently after a change the frame did not make

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        parts = cls.__module__.split(".")
        if len(parts) >= 3 and parts[:2] == ["desktop", "scenes"]:
            cls.key = parts[2]             # a scene is known by its folder: desktop/scenes/<key>/

    def __init__(self, kit: SceneKit, parent: QWidget | None = None):
        super().__init__(parent)
        self.kit = kit
        self.clock = AnimationClock(self, moving=self.moving)
        self.idle = IdleWork(self)
        self._build = 0
        self._story: Story | None = None
        self._themed: list = []
        self._note: InlineNote | None = None
        self._controls: QWidget | None = None
        self.formula_cards = FigureFormulas(self)        # the formula behind a figure, on a click or the I key
        self._interactive = False                  # plots zoom and pan (the window; never presenting or export)
        self._clickable: set[QWidget] = set()      # plots whose clicks the formula cards hear
        self.clock.ticked.connect(self.on_tick)

    def start(self) -> None:
        """The end of a view's constructor: its controls' texts, then its first build, still."""
        self.retranslate_controls()
        self.go_to_build(0, animate=False)

    # -- the story ---------------------------------------------------------------------------
    def story(self) -> Story:
        """The story of what the stage shows now (made once per change)."""
        if self._story is None:
            self._story = self.Story(self.inputs())
        return self._story

    def inputs(self) -> Inputs:
        store, kit = self.kit.store, self.kit
        return Inputs(store.scenario, store.report, self._build, kit.ask, self.text, kit.refusal_text,
                      self.control_values())

    def control_values(self) -> Any:
        """The scene's own control values as one frozen value (None: the scene has no controls of its own)."""
        return None

    # -- what the frame reads ---------------------------------------------------------------------
    def text(self, key: str, count: int | None = None, **values) -> str:
        """This scene's text ``"<scene key>.<key>"`` in the current language (labels, controls, notes)."""
        return self.kit.language.filled(f"{self.key}.{key}", values, count)

    def title(self) -> str:
        return self.kit.language.text(title_key(self.key))

    def phase(self) -> str:
        return self.story().phase()

    def caption(self) -> str:
        return self.kit.language.filled(f"{self.key}.caption.{self.phase()}", self.story().caption_values())

    def notes(self) -> str:
        """The speaker notes of the current phase, with this scenario's values filled in."""
        return self.kit.language.filled(f"{self.key}.notes.{self.phase()}", self.story().note_values())

    def handout_texts(self) -> list[tuple[str, str]]:
        """(caption, notes) of every build in order, for the handout; steps through the builds (call it before
        choosing the build a picture shows)."""
        texts = []
        for index in range(self.build_count):
            self.go_to_build(index, animate=False)
            texts.append((self.caption(), self.notes()))
        return texts

    def stage_subject(self):
        """The scenario the stage shows and its report (or refusal), for the stage's corner."""
        return self.story().subject()

    def controls(self) -> QWidget | None:
        """The scene's own controls for the side panel (``own_controls``), or None."""
        return self._controls

    @property
    def build_count(self) -> int:
        return self.story().build_count

    @property
    def build_index(self) -> int:
        return self._build

    # -- what the frame drives ---------------------------------------------------------------------
    def go_to_build(self, index: int, animate: bool = True) -> None:
        self._build = max(0, min(index, self.build_count - 1))
        self._story = None
        story = self.story()
        self.formula_cards.hide()
        self.build_started(story, animate)
        self.present(story, animate)
        self._keep_interactive()
        self.clock.wake()
        self.build_changed.emit(self._build)

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

    @classmethod
    def prepare_before_first_visit(cls, kit: SceneKit) -> None:
        """Idle time after the app's first frame, before the scene is first shown: start what its first visit
        would otherwise wait for (a vocabulary, a sweep), returning at once. The default has nothing to start."""

    def ensure_ready(self) -> None:
        """Whatever the scene prepares in the background (a vocabulary, counts), now, on this thread: for a still
        picture, or a click that cannot wait. The default has nothing to prepare."""

    def prepare_for_export(self) -> None:
        """Show the last build with every motion finished, for a still picture, with what the notes quote loaded."""
        self.ensure_ready()
        self.go_to_build(self.build_count - 1, animate=False)
        self.clock.set_seconds(self.clock.seconds() + 1.0)

    def on_report(self, scenario, report) -> None:
        """The shared scenario changed."""
        self.refresh(animate=self.isVisible())
        self._schedule_idle_work()        # what the idle jobs prepared was for the old numbers

    def retranslate(self) -> None:
        """The language changed."""
        self.retranslate_controls()
        self.refresh()
        self._schedule_idle_work()        # and for the old words

    def refresh(self, animate: bool = False) -> None:
        """The story's inputs changed (the scenario, the language, a control, a result): show the new story."""
        self._story = None
        self.present(self.story(), animate)
        self._keep_interactive()
        self.formula_cards.follow()
        self.clock.wake()

    # -- the formula behind a figure (``desktop.kit.figures``) -------------------------------------------
    def formulas(self) -> dict:
        """The formula behind each figure of this build (the story's; a view whose figure is shown at a value of
        its own, such as an eased control, passes that value on)."""
        return self.story().formulas()

    def figure_places(self) -> dict[str, tuple[QWidget | None, tuple[str, ...]]]:
        """Where each figure of ``formulas()`` is drawn: its widget and the names of its labels there (in the
        widget's ``label_rects()``; none: the whole widget). Default: nowhere."""
        return {}

    def mousePressEvent(self, event) -> None:
        self.formula_cards.pressed(event.position().toPoint())
        event.accept()

    def mouseReleaseEvent(self, event) -> None:
        self.formula_cards.released(event.position().toPoint())
        event.accept()

    def set_interactive(self, interactive: bool) -> None:
        """Whether the stage's plots zoom and pan with the mouse (the window) or stay fixed (presenting, export):
        every widget of the scene that offers ``set_interactive`` is told."""
        self._interactive = interactive
        label = self.kit.language.text("learner.menu.reset_view")
        for widget in self.findChildren(QWidget):
            if widget is not self and callable(getattr(widget, "set_interactive", None)):
                widget.set_interactive(interactive, label)
                if widget not in self._clickable:       # a click on a plot that takes the mouse: its formula
                    self._clickable.add(widget)
                    widget.clicked.connect(lambda point, w=widget: self.formula_cards.clicked(w.mapTo(self, point)))

    def _keep_interactive(self) -> None:
        """A plot a build made just now (scene 1's roofline is made when first needed) zooms like the others."""
        if self._interactive:
            self.set_interactive(True)

    # -- what a scene implements ---------------------------------------------------------------------
    def build_started(self, story: Story, animate: bool) -> None:
        """A build is shown (``animate``: stepped to, not jumped to): start its own motions (playbacks)."""

    def present(self, story: Story, animate: bool) -> None:
        """Hand each widget the state ``story`` gives it; ``animate`` eases what moves."""
        raise NotImplementedError

    def on_tick(self, seconds: float) -> None:
        """A frame: hand the moving parts their state at ``seconds`` (the scene clock)."""

    def moving(self, seconds: float) -> bool:
        """Whether anything on the stage still moves at ``seconds``; the clock rests when nothing does."""
        return False

    def retranslate_controls(self) -> None:
        """Re-read the texts of the scene's own controls."""

    def idle_jobs(self) -> list[Callable[[], object]]:
        """Work to do after the first frame, one job per turn of the event loop (``desktop.kit.idle``)."""
        return []

    # -- given by the kit ---------------------------------------------------------------------------------
    def themed(self, widget):
        """Register ``widget`` (anything with ``set_theme``): it gets the theme now and on every change."""
        self._themed.append(widget)
        widget.set_theme(self.kit.theme)
        return widget

    def own_controls(self, controls: QWidget) -> QWidget:
        """``controls`` become what ``controls()`` returns, this scene's hidden Qt child until the side panel
        places them. Qt then deletes them with a scene that never reached the panel (an export, a speaker
        preview, a test); a parentless widget would wait for Python's cycle collector, which may delete it
        in the middle of Qt's event dispatch and crash the app."""
        controls.setParent(self)
        controls.hide()
        self._controls = controls
        return controls

    def place(self, rects: dict[QWidget, Rect | None]) -> None:
        """Each widget at its rectangle, shown; a widget given None hidden."""
        for widget, rect in rects.items():
            if rect is None:
                widget.hide()
            else:
                widget.setGeometry(*rect)
                widget.show()

    def set_theme(self, theme: Theme) -> None:
        self.kit.theme = theme
        for widget in self._themed:
            widget.set_theme(theme)
        self._schedule_idle_work()

    def show_note(self, text: str) -> None:
        """A one-line note over the stage that goes away by itself (never a dialog)."""
        if self._note is None:
            self._note = InlineNote(self)
        self._note.show_note(text)
        self._note.raise_()

    def _schedule_idle_work(self) -> None:
        if self.isVisible():
            self.idle.schedule(self.idle_jobs())

    # -- the clock runs only while the scene is visible ----------------------------------------------------
    def showEvent(self, event) -> None:
        self.clock.start()
        super().showEvent(event)
        self.idle.schedule(self.idle_jobs())

    def hideEvent(self, event) -> None:
        clock = getattr(self, "clock", None)     # None while Python tears a scene down under a still-live widget
        if clock is not None:
            clock.stop()
        super().hideEvent(event)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.lay_out()
        self._schedule_idle_work()

    def lay_out(self) -> None:
        """Place the stage's widgets for the current size (called on resize; a scene whose layout depends on
        the build calls it from ``present`` too)."""


def create_scene(cls: type[Scene], kit: SceneKit) -> Scene:
    """A scene ready to show, as the window and the export both need it: given the theme and the current report."""
    scene = cls(kit)
    scene.set_theme(kit.theme)
    scene.on_report(kit.store.scenario, kit.store.report)
    return scene
