"""A scene that could not be built: its title, one sentence saying so, and the rest of the app working.

Any saved state the engine accepted must let the app start (reliability): if a
scene's constructor still fails, the deck shows this stand-in in its place,
with the reason, instead of dying at start-up.
"""
from __future__ import annotations

import sys
import traceback

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout

from desktop.scene import Scene, SceneContext


class FailedScene(Scene):
    build_names = ("failed",)
    shows_times = False

    @classmethod
    def for_entry(cls, entry, context: SceneContext, failure: BaseException) -> "FailedScene":
        """A stand-in with the registered scene's number, key and title, showing why it failed (its module
        would not import, or its constructor raised)."""
        traceback.print_exception(failure, file=sys.stderr)     # the details, for whoever reports it
        stand_in = type(f"Failed_{entry.key}", (cls,), {"number": entry.number, "key": entry.key})
        return stand_in(context, failure)

    def __init__(self, context: SceneContext, failure: BaseException):
        super().__init__(context)
        self._failure = failure
        self._label = QLabel(self)
        self._label.setWordWrap(True)
        self._label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        QVBoxLayout(self).addWidget(self._label)
        self.retranslate()

    def caption(self) -> str:
        return self.context.language.text("app.note.scene_failed", reason=str(self._failure) or
                                          type(self._failure).__name__)

    def notes(self) -> str:
        return self.caption()

    def show_build(self, index: int, animate: bool) -> None:
        pass

    def on_report(self, scenario, report) -> None:
        pass

    def retranslate(self) -> None:
        self._label.setText(self.caption())
