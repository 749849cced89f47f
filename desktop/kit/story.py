"""A scene's Qt-free story: what the stage shows for one set of inputs.

The view (``desktop.kit.scene.Scene``) builds one ``Story`` per change (the
shared scenario, the build, the scene's own control values, the language) and
hands each widget the state the story gives it. The story holds every decision
that depends on the build: which widgets show, their states, the phase that
picks the caption and the notes, their values, what the stage's corner names.
It asks the engine only through ``inputs.ask`` (the kit's one cached call), and
only for what the build on screen needs: compute parts lazily
(``functools.cached_property``), so a caption read costs no table.

Tested without Qt: ``Inputs(scenario, report, build, Answers(catalog).ask, text)``.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Callable, ClassVar, Iterator

from desktop.kit import questions
from desktop.kit.answers import Ask, refused
from engine import InputError, Report, Scenario
from engine.frozen import frozen

Text = Callable[..., str]            # text(key, count=None, **values): the scene's own texts


class Values(Mapping):
    """Formatted values a text may use, each worked out only when a text asks for it (then kept).

    ``Values(ttft="146 ms", crossover=lambda: format_count(story.crossover))``: a plain string is a value, a
    callable makes its value on first use. A caption filled from it (``Language.filled``) asks the engine
    only for the numbers it names; the notes, read more rarely, for theirs.
    """

    def __init__(self, entries: Mapping[str, str | Callable[[], str]] | None = None, **more: str | Callable[[], str]):
        self._entries = {**(entries or {}), **more}
        self._made: dict[str, str] = {}

    def __getitem__(self, name: str) -> str:
        if name not in self._made:
            entry = self._entries[name]
            self._made[name] = entry() if callable(entry) else entry
        return self._made[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def with_values(self, **more: str | Callable[[], str]) -> "Values":
        """These values and ``more`` (which win)."""
        return Values({**self._entries, **more})


def english_refusal(error: InputError) -> str:
    """A refusal as the engine words it (a story tested without the app's languages)."""
    return str(error)


@frozen
class Inputs:
    """Everything a story is made from."""
    scenario: Scenario                # the shared scenario
    report: Report                    # its report (the store only keeps scenarios the engine accepts)
    build: int                        # the build on screen, 0-based
    ask: Ask                          # the kit's cached engine call: ask(question, *arguments)
    text: Text                        # the scene's texts in the current language
    refusal_text: Callable[[InputError], str] = english_refusal
    controls: Any = None              # the scene's own control values (a frozen dataclass), if it has controls

    def at_build(self, build: int) -> "Inputs":
        return replace(self, build=build)


class Story:
    """The base of every scene's story; a subclass names its ``builds`` and adds what its stage shows."""

    builds: ClassVar[tuple[str, ...]] = ()      # one name per build; every phase the texts must cover

    def __init__(self, inputs: Inputs):
        self.inputs = inputs

    # -- the inputs, by name -------------------------------------------------------------------
    @property
    def scenario(self) -> Scenario:
        return self.inputs.scenario

    @property
    def report(self) -> Report:
        return self.inputs.report

    @property
    def build(self) -> int:
        return min(self.inputs.build, self.build_count - 1)

    @property
    def controls(self) -> Any:
        return self.inputs.controls

    def text(self, key: str, count: int | None = None, **values) -> str:
        return self.inputs.text(key, count=count, **values)

    def ask(self, question, *arguments):
        return self.inputs.ask(question, *arguments)

    def what_if(self, **changes):
        """The engine's report for the shared scenario with ``changes``, or its refusal."""
        try:
            scenario = questions.changed(self.scenario, **changes)
        except InputError as unknown_field:
            return unknown_field
        return self.ask(questions.report, scenario)

    def report_for(self, scenario: Scenario):
        """The engine's report for a whole ``scenario``, or its refusal."""
        return self.ask(questions.report, scenario)

    # -- what the frame reads --------------------------------------------------------------------
    def build_names(self) -> tuple[str, ...]:
        """One name per build (may follow the state: one per generated token); default ``builds``."""
        return self.builds

    @property
    def build_count(self) -> int:
        return len(self.build_names())

    @property
    def build_name(self) -> str:
        names = self.build_names()
        return names[min(self.inputs.build, len(names) - 1)]

    def phase(self) -> str:
        """What the stage shows now: picks the caption and the notes. Default: the build's name."""
        return self.build_name

    def caption_values(self) -> Mapping[str, str]:
        """Formatted numbers the caption of this phase uses (numbers formatted by ``engine.units``); a
        ``Values`` mapping computes each only when the text names it."""
        return {}

    def note_values(self) -> Mapping[str, str]:
        """Formatted numbers the notes use; by default the caption's."""
        return self.caption_values()

    def formulas(self) -> Mapping[str, Any]:
        """The formula behind each figure this build shows, by figure key (``engine.formulas.Formula``, asked with
        ``self.ask(questions.formula, scenario, key)``; a refusal left out). The view says where each is drawn
        (``Scene.figure_places``); a click on it or the I key shows its card (``desktop.kit.figures``).
        Default: none."""
        return {}

    def formula(self, scenario: Scenario, key: str, at: float | None = None, figure: str | None = None
                ) -> dict[str, Any]:
        """``{figure: formula}`` of ``scenario``'s ``key`` (at the stage's own value ``at``; ``figure``: the key
        the stage knows it by, by default ``key``), or {} when the engine refuses it."""
        return self.asked_formula(figure or key, questions.formula, scenario, key, at)

    def asked_formula(self, figure: str, question: Callable, *arguments) -> dict[str, Any]:
        """``{figure: the formula question gives}`` (a question of ``desktop.kit.questions`` asked with
        ``arguments``: a plan's, a measurement's, counts'), or {} when the engine refuses it."""
        answer = self.ask(question, *arguments)
        return {} if refused(answer) else {figure: answer}

    def subject(self) -> tuple[Scenario, Any]:
        """The scenario the stage shows and its report (or refusal): named in the stage's corner and marked
        hypothetical when it does not fit. Default: the shared one."""
        return self.scenario, self.report

    def subject_note(self) -> str:
        """Words before the corner's subject when the stage shows something other than the side panel's
        scenario ("The tutorial's case"), so a learner who changed the panel knows why the stage did not follow;
        "" when it shows the shared scenario."""
        return ""
