"""A scene that could not be built: its title, one sentence saying so, and the rest of the app working.

Any saved state the engine accepted must let the app start (reliability): if a
scene's package will not import or its constructor fails, the deck shows this
stand-in in its place, with the reason, instead of dying at start-up.
"""
from __future__ import annotations

import sys
import traceback

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout

from desktop.kit.scene import Scene, SceneKit
from desktop.kit.story import Story


class FailedStory(Story):
    builds = ("failed",)


class FailedScene(Scene):
    Story = FailedStory
    shows_times = False

    @classmethod
    def for_entry(cls, entry, kit: SceneKit, failure: BaseException) -> "FailedScene":
        """A stand-in with the registered scene's key and title, showing why it failed."""
        traceback.print_exception(failure, file=sys.stderr)     # the details, for whoever reports it
        stand_in = type(f"Failed_{entry.key}", (cls,), {"key": entry.key})
        return stand_in(kit, failure)

    def __init__(self, kit: SceneKit, failure: BaseException):
        super().__init__(kit)
        self._failure = failure
        self._label = QLabel(self)
        self._label.setWordWrap(True)
        self._label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        QVBoxLayout(self).addWidget(self._label)
        self.retranslate()

    def caption(self) -> str:
        return self.kit.language.text("app.note.scene_failed", reason=str(self._failure) or
                                      type(self._failure).__name__)

    def notes(self) -> str:
        return self.caption()

    def present(self, story, animate: bool) -> None:
        self._label.setText(self.caption())
