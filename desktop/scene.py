"""The contract every scene follows.

A scene is a stage (its animations and plots) plus an ordered list of builds,
each build revealing or animating the next idea. The frame (``desktop.window``)
shows the scene's stage, its caption for the current build and its own
controls, and drives it with ``next_build``/``previous_build``/``reset``.

Texts: the scene's title is ``"<key>.title"`` and the caption of build ``name``
is ``"<key>.caption.<name>"`` in ``resources/text/<key>.toml``; captions may use
``{placeholders}`` filled from ``caption_values()`` (numbers from the report,
formatted by ``engine.units``).

A scene never computes physics: it receives ``(scenario, report)`` in
``on_report`` and hands each widget the slice it draws.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from widgets.clock import AnimationClock
from widgets.theme import Theme

if TYPE_CHECKING:
    from desktop.i18n import Language
    from desktop.scenario_store import ScenarioStore


@dataclass
class SceneContext:
    """What a scene is given: the language, the shared scenario, the theme."""
    language: "Language"
    store: "ScenarioStore"
    theme: Theme


class Scene(QWidget):
    number: ClassVar[int]              # position in the app, 1..7
    key: ClassVar[str]                 # "gpu_waits": text namespace and export file name
    build_names: ClassVar[tuple[str, ...]]   # one per build, in order

    build_changed = Signal(int)
    jump_requested = Signal(int)       # the scene asks the frame to show the scene with this DESIGN.md number

    def __init__(self, context: SceneContext, parent: QWidget | None = None):
        super().__init__(parent)
        self.context = context
        self.clock = AnimationClock(self)
        self._build = 0

    # -- what the frame reads -------------------------------------------------
    def title(self) -> str:
        return self.context.language.text(f"{self.key}.title")

    def caption(self) -> str:
        name = self.build_names[self._build]
        return self.context.language.text(f"{self.key}.caption.{name}", **self.caption_values())

    def caption_values(self) -> dict[str, str]:
        """Formatted numbers the captions use; override where captions have placeholders."""
        return {}

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

    def set_theme(self, theme: Theme) -> None:
        self.context.theme = theme

    # -- the clock runs only while the scene is visible -------------------------
    def showEvent(self, event) -> None:
        self.clock.start()
        super().showEvent(event)

    def hideEvent(self, event) -> None:
        self.clock.stop()
        super().hideEvent(event)


def create_scene(cls: type[Scene], context: SceneContext) -> Scene:
    """A scene ready to show, as the window and the export both need it: given the theme and the current report."""
    scene = cls(context)
    scene.set_theme(context.theme)
    scene.on_report(context.store.scenario, context.store.report)
    return scene
