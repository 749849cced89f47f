"""The registered scenes in order, and moving through them build by build.

Scenes are created the first time they are shown, so start-up builds only the
first one. The deck hands every scene the shared scenario (the visible scene
at once, the others when they are next shown), the theme and the language.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QStackedWidget

from desktop.i18n import Language
from desktop.scenario_store import ScenarioStore
from desktop.kit import imports
from desktop.kit.scene import Scene, SceneKit, create_scene
from desktop.scenes.registry import SceneEntry, find_entry
from widgets.theme import Theme


# Soon after the first frame, and before any scene's own idle work (``desktop.kit.idle.DELAY_MS``), which then
# waits for the imports instead of importing pyqtgraph on the UI thread itself. The imports run on a thread of
# their own, so a transition's frames go on meanwhile.
PREPARE_DELAY_MS = 100


class SceneDeck(QObject):
    current_changed = Signal(str)    # the key of the scene now shown (positions stay inside the deck)
    texts_changed = Signal()         # the title or caption of the shown scene may read differently

    def __init__(self, entries: tuple[SceneEntry, ...], language: Language, store: ScenarioStore,
                 theme: Theme, stage: QStackedWidget, parent: QObject | None = None):
        super().__init__(parent)
        if not entries:
            raise ValueError("the deck needs at least one registered scene")
        self.entries = entries              # named, not imported: a scene's module loads when it is first shown
        self._language, self._store, self._theme, self._stage = language, store, theme, stage
        self._scenes: dict[int, Scene] = {}
        self._stale: set[int] = set()      # created scenes that have not seen the latest report
        self._position = 0
        self._unprepared: list = []         # scenes whose first visit is still to be prepared in idle time
        self._interactive = False           # the window's plots zoom and pan; presenting and export keep them fixed
        store.changed.connect(self._on_report)
        language.changed.connect(self._on_language)

    # -- reading ----------------------------------------------------------------
    @property
    def position(self) -> int:
        return self._position

    @property
    def current(self) -> Scene:
        return self.scene(self._position)

    @property
    def current_class(self) -> type[Scene]:
        return self.entries[self._position].load()

    @property
    def current_key(self) -> str:
        """The key of the scene shown: a scene's one identity outside the deck."""
        return self.entries[self._position].key

    def position_of(self, name) -> int | None:
        """The position of the scene named by its key or its number (``registry.find_entry``), or None."""
        entry = find_entry(name, self.entries)
        return None if entry is None else self.entries.index(entry)

    def title_of(self, position: int) -> str:
        return self._language.text(self.entries[position].title_key)

    def label_of(self, position: int) -> str:
        """"3  One token at a time": what the scene list shows."""
        return self.entries[position].label(self._language)

    def scene(self, position: int) -> Scene:
        """The scene at ``position``, created (with the current scenario and theme) on first use."""
        if position not in self._scenes:
            kit = SceneKit(self._language, self._store, self._theme)
            entry = self.entries[position]
            try:
                scene = create_scene(entry.load(), kit)
            except Exception as failure:     # one scene that cannot be built must not take the app with it
                from desktop.scene_failure import FailedScene      # loaded only when a scene fails
                scene = FailedScene.for_entry(entry, kit, failure)
            scene.set_interactive(self._interactive)
            scene.build_changed.connect(self._on_build_changed)
            scene.texts_changed.connect(self._on_build_changed)
            scene.jump_requested.connect(self.go_to)     # e.g. the summary's links back to scenes
            self._stage.addWidget(scene)
            self._scenes[position] = scene
        return self._scenes[position]

    # -- moving -----------------------------------------------------------------
    def show(self, position: int, at: str = "first") -> None:
        """Show the scene at ``position`` from its first build (``at="first"``) or its last (``"last"``)."""
        position = max(0, min(position, len(self.entries) - 1))
        scene = self.scene(position)
        if position in self._stale:
            self._stale.discard(position)
            scene.on_report(self._store.scenario, self._store.report)
        if at == "first":
            scene.reset()
        else:
            scene.go_to_build(scene.build_count - 1, animate=False)
        self._position = position
        self._stage.setCurrentWidget(scene)
        self.current_changed.emit(self.entries[position].key)
        self.texts_changed.emit()

    def next(self) -> None:
        """The next build, or the first build of the next scene."""
        if not self.current.next_build() and self._position + 1 < len(self.entries):
            self.show(self._position + 1, "first")

    def previous(self) -> None:
        """The previous build, or the last build of the previous scene."""
        if not self.current.previous_build() and self._position > 0:
            self.show(self._position - 1, "last")

    def first(self) -> None:
        self.show(0, "first")

    def last(self) -> None:
        self.show(len(self.entries) - 1, "first")

    def reset_current(self) -> None:
        self.current.reset()

    def go_to(self, name) -> bool:
        """Show the scene named by its key or number; False when it is not registered."""
        position = self.position_of(name)
        if position is None:
            return False
        self.show(position, "first")
        return True

    # -- idle time after the first frame ---------------------------------------------
    def prepare_in_idle(self, delay_ms: int = PREPARE_DELAY_MS) -> None:
        """From ``delay_ms`` after the first frame: import the process libraries, every scene's modules, then the
        plotting libraries, on a thread of their own (``desktop.kit.imports``: the window keeps its frames
        meanwhile), and as each scene's modules arrive, let it start on this thread what its first visit would wait for
        (``Scene.prepare_before_first_visit``: the tokenizer process's first work), one scene per turn of the
        event loop, so no first visit shows a loading message for long. A scene that fails to import or to
        prepare here fails again, inline, when shown."""
        self._unprepared = list(self.entries)
        QTimer.singleShot(delay_ms, self, self._start_idle_imports)

    def _start_idle_imports(self) -> None:
        imports.import_in_background([*imports.PROCESS_LIBRARIES, *(entry.module for entry in self._unprepared),
                                      *imports.LIBRARIES])
        self._prepare_next()

    def _prepare_next(self) -> None:
        if not self._unprepared:
            return
        entry = self._unprepared[0]
        if not imports.ready(entry.module):
            QTimer.singleShot(imports.WAIT_MS, self, self._prepare_next)      # still on its way
            return
        self._unprepared.pop(0)
        try:
            entry.load().prepare_before_first_visit(SceneKit(self._language, self._store, self._theme))
        except Exception:                 # not now: its first show builds it and shows why it cannot be built
            pass
        QTimer.singleShot(0, self, self._prepare_next)

    # -- passing things on ----------------------------------------------------------
    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        for scene in self._scenes.values():
            scene.set_theme(theme)

    def set_interactive(self, interactive: bool) -> None:
        """Whether every scene's plots zoom and pan with the mouse (``Scene.set_interactive``)."""
        self._interactive = interactive
        for scene in self._scenes.values():
            scene.set_interactive(interactive)

    def _on_report(self, scenario, report) -> None:
        for position, scene in self._scenes.items():
            if position == self._position:
                scene.on_report(scenario, report)
            else:
                self._stale.add(position)
        self.texts_changed.emit()

    def _on_language(self, _code: str) -> None:
        for scene in self._scenes.values():
            scene.retranslate()
        self.texts_changed.emit()

    def _on_build_changed(self, *_args) -> None:
        if self.sender() is self._scenes.get(self._position):
            self.texts_changed.emit()
