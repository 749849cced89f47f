"""What the window adds for a learner exploring alone (DESIGN.md, "Learner standard"), in one place.

- the build marker and its buttons on the stage's frame (``desktop.build_navigator``);
- the side panel's guard against accidental changes (``desktop.focus_guard``);
- the formula behind a figure, on a click or the I key (``desktop.kit.figures``);
- File: save the scenario, open one, import a model from its ``config.json``
  (``desktop.scenario_actions``); Scenario: named presets, pin and compare
  (``desktop.compare_window``); Help: a short guide and About (``desktop.help_windows``);
- plots that zoom and pan in the window, fixed while presenting.

Nothing here is shown while presenting, and nothing opens a dialog then: the
menus are hidden, and the commands say in a note that they wait for Esc.
"""
from __future__ import annotations

from PySide6.QtCore import QObject

from desktop.focus_guard import FocusGuard
from desktop.learner_menus import LearnerMenus


class LearnerTools(QObject):
    def __init__(self, window):
        super().__init__(window)
        self._window = window
        self.guard = FocusGuard(window.side_panel, window.slide, self)
        self.menus = LearnerMenus(window)
        slide = window.slide
        slide.builds.previous_requested.connect(lambda: window.run_command("previous"))
        slide.builds.next_requested.connect(lambda: window.run_command("next"))
        slide.show_builds(True)
        slide.presenting_changed.connect(lambda presenting: window.deck.set_interactive(not presenting))
        window.deck.set_interactive(True)
        window.deck.texts_changed.connect(self._show_build)
        window.deck.current_changed.connect(self._on_scene)
        window.language.changed.connect(self.retranslate)
        self.retranslate()

    def commands(self) -> dict:
        """The window's commands this adds or extends: I shows the formula cards; Esc closes a card first."""
        window = self._window
        leave = window._commands["leave"]

        def leave_after_card() -> None:
            if not window.deck.current.formula_cards.hide():
                leave()
        return {"formula": lambda: window.deck.current.formula_cards.show_next(), "leave": leave_after_card}

    # -- following the deck ---------------------------------------------------------------
    def _show_build(self) -> None:
        deck = self._window.deck
        scene = deck.current
        self._window.slide.builds.set_build(scene.build_index, scene.build_count, first_scene=deck.position == 0,
                                            last_scene=deck.position + 1 >= len(deck.entries))

    def _on_scene(self, _key: str) -> None:
        self.guard.watch()                  # the scene's own controls, now placed in the panel

    def retranslate(self, *_args) -> None:
        text = self._window.language.text
        self.menus.retranslate()
        self._window.slide.builds.set_texts(text("learner.builds.previous"), text("learner.builds.next"),
                                            text("learner.builds.marker"))
        self._show_build()
