"""The one shared scenario: every scene and control reads and changes this object.

A control calls ``update(gpu="h100")``; the store builds the new immutable
``Scenario``, asks the engine for its ``Report`` and emits ``changed``. Input
the engine refuses leaves the previous scenario in place and emits ``error``
with the engine's one-sentence message, so the control can show it inline.
"""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QObject, Signal

from engine import InputError, Scenario, compute_report


class ScenarioStore(QObject):
    changed = Signal(object, object)   # (Scenario, Report)
    error = Signal(str)                # one sentence naming the refused value

    def __init__(self, scenario: Scenario | None = None, parent: QObject | None = None):
        """``scenario`` must be valid (settings validate before handing one over)."""
        super().__init__(parent)
        self._scenario = scenario if scenario is not None else Scenario()
        self._report = compute_report(self._scenario)

    @property
    def scenario(self) -> Scenario:
        return self._scenario

    @property
    def report(self):
        return self._report

    def update(self, **fields) -> bool:
        """Replace ``fields`` and recompute; False (and ``error``) when the engine refuses them."""
        return self.set_scenario(replace(self._scenario, **fields))

    def set_scenario(self, scenario: Scenario) -> bool:
        """Make ``scenario`` the shared one; False (and ``error``) when the engine refuses it."""
        if scenario == self._scenario:
            return True
        try:
            report = compute_report(scenario)
        except InputError as refused:
            self.error.emit(str(refused))
            return False
        self._scenario, self._report = scenario, report
        self.changed.emit(scenario, report)
        return True
