"""The one shared scenario: every scene and control reads and changes this object.

A control calls ``update(gpu="h100")``; the store builds the new immutable
``Scenario``, asks the engine for its ``Report`` and emits ``changed``. Input
the engine refuses leaves the previous scenario in place and emits ``error``
with the engine's one-sentence message, in the app's language where the store
was given one (``desktop.error_text``), so the control can show it inline.
"""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QObject, Signal

from desktop.default_scenario import DEFAULT_SCENARIO, accepted_scenario
from desktop.error_text import error_text
from desktop.kit import questions
from desktop.kit.answers import refused, shared_answers
from engine import InputError, Scenario
from engine.catalog import default_catalog


class NoScenario(Exception):
    """No scenario the engine accepts can be made from this catalogue; ``sentence(language)`` says what to change."""

    def __init__(self, refusal: InputError):
        super().__init__(str(refusal))
        self.refusal = refusal

    def sentence(self, language) -> str:
        from engine.catalog import user_catalog_path
        return language.text("app.note.no_scenario", reason=error_text(language, self.refusal).rstrip("。."),
                             path=str(user_catalog_path()))


class ScenarioStore(QObject):
    changed = Signal(object, object)   # (Scenario, Report)
    error = Signal(str)                # one sentence naming the refused value
    catalog_changed = Signal(object)   # the Catalog every answer now comes from (``use_catalog``)

    def __init__(self, scenario: Scenario | None = None, parent: QObject | None = None, *, language=None,
                 catalog=None):
        """``scenario`` should be valid (settings validate before handing one over); one the engine refuses
        is replaced by the first the engine accepts (the default, or the closest the catalogue allows:
        ``default_scenario.accepted_scenario``) and the refusal kept in ``last_error``. Where the catalogue
        leaves none (a user entry breaking every model), ``NoScenario`` says in one sentence what to change.

        ``language`` (a ``desktop.i18n.Language``): the one refusals are written in; None: the engine's English.
        ``catalog``: the catalogue every report and what-if uses (default: built-in plus the user's file).
        """
        super().__init__(parent)
        self._language = language
        self.catalog = catalog if catalog is not None else default_catalog()
        self.answers = shared_answers(self.catalog)   # the one cache of engine answers: the store's and every scene's
        self.last_error: InputError | None = None     # the latest refusal, kept so a view can re-read it
        wanted = scenario if scenario is not None else DEFAULT_SCENARIO
        result = self.answers.ask(questions.report, wanted)
        if refused(result):
            self.last_error = result
            found = accepted_scenario(wanted, lambda s: self.answers.ask(questions.report, s), self.catalog)
            if found is None:
                raise NoScenario(result)
            wanted, result = found, self.answers.ask(questions.report, found)
        self._scenario, self._report = wanted, result

    def use_catalog(self, catalog) -> None:
        """Answer from ``catalog`` from now on (one with a model just imported: a superset of the one in use, so the
        scenario in use stays valid); every cached answer is dropped, and ``catalog_changed`` tells the controls."""
        self.catalog = catalog
        self.answers = shared_answers(catalog)
        self.catalog_changed.emit(catalog)

    def error_message(self, error: InputError) -> str:
        """``error`` as the store's ``error`` signal words it."""
        return error_text(self._language, error) if self._language is not None else str(error)

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
        report = self.answers.ask(questions.report, scenario)
        if refused(report):
            self.last_error = report
            self.error.emit(self.error_message(report))
            return False
        self._scenario, self._report, self.last_error = scenario, report, None
        self.changed.emit(scenario, report)
        return True
