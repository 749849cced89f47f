"""A scenario saved to a file and read back: ``--scenario FILE``, and the learner's File menu. Qt-free.

The file is JSON: one table of the ``Scenario`` fields, as the settings file keeps
its scenario::

    {"gpu": "h800", "model": "llama-3.1-70b", "weights": "fp16", "kv": "fp16", "gpus": 2,
     "batch": 1, "prompt_tokens": 1000, "output_tokens": 500, "usd_per_gpu_hour": 2.0, ...}

``write_scenario`` writes every field; a file written by hand may leave fields
out, which then take the app's default scenario's values (``DEFAULT_SCENARIO``).
A file is used whole or not at all (a trainer's typo must not turn into a
different scenario without a word): ``read_scenario`` refuses it in one
sentence naming the file and the reason (not found, not JSON, not a table, a
field that is not a scenario field, a value of the wrong kind, or the engine's
own refusal of the scenario), as ``ScenarioFileError.sentence(language)``.
"""
from __future__ import annotations

from dataclasses import asdict, fields, replace
from pathlib import Path

from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.json_file import read_json_table, write_json_table
from engine import InputError, Scenario, compute_report
from engine.errors import shown_value

MAX_FILE_BYTES = 100_000          # a scenario is a few hundred bytes
SUFFIX = ".json"                  # what the File menu's dialogs offer
_KINDS = {str: "text", int: "whole_number", float: "number"}


class ScenarioFileError(Exception):
    """A scenario file that cannot be used: ``sentence(language)`` says which and why, in one sentence."""

    def __init__(self, path: Path, reason: str, values: dict | None = None, refusal: InputError | None = None):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason, self.values, self.refusal = Path(path), reason, values or {}, refusal

    def sentence(self, language) -> str:
        from desktop.error_text import error_text, shown_path
        if self.refusal is not None:
            reason = error_text(language, self.refusal)
        else:       # a value named "kind" is the text key of a kind of value, worded in the language too
            values = {name: language.text(value) if name == "kind" else value for name, value in self.values.items()}
            reason = language.text(self.reason, **values)
        return language.text("errors.scenario_file.cannot_use", path=shown_path(self.path),
                             reason=reason.rstrip("。."))


def scenario_data(scenario: Scenario) -> dict:
    """What a scenario file holds: every field of ``scenario``."""
    return asdict(scenario)


def scenario_from_data(raw: dict, path: Path) -> Scenario:
    """The scenario a file's table describes (missing fields from ``DEFAULT_SCENARIO``), each value of the
    right kind; raises ``ScenarioFileError`` for a field that is not a scenario field or a value of another kind."""
    known = {spec.name: type(getattr(DEFAULT_SCENARIO, spec.name)) for spec in fields(Scenario)}
    for name, value in raw.items():
        if name not in known:
            raise ScenarioFileError(path, "errors.scenario_file.unknown_field",
                                    {"field": shown_value(name, quoted=True), "fields": ", ".join(known)})
        expected = known[name]
        accepted = type(value) is expected or (expected is float and type(value) is int)
        if not accepted:
            raise ScenarioFileError(path, "errors.scenario_file.wrong_kind",
                                    {"field": name, "got": shown_value(value, quoted=True),
                                     "kind": f"errors.scenario_file.kind.{_KINDS[expected]}"})
    return replace(DEFAULT_SCENARIO, **{name: (float(value) if known[name] is float else value)
                                        for name, value in raw.items()})


def read_scenario(path: Path, catalog=None) -> Scenario:
    """The scenario saved in ``path``, one the engine accepts with ``catalog`` (default: the app's);
    raises ``ScenarioFileError`` otherwise."""
    path = Path(path)
    raw, reason = read_json_table(path, MAX_FILE_BYTES)
    if raw is None:
        key, values = reason or ("errors.scenario_file.not_found", {})
        if key == "errors.settings.reason.not_object":
            key = "errors.scenario_file.not_table"
        raise ScenarioFileError(path, key, values)
    scenario = scenario_from_data(raw, path)
    try:
        compute_report(scenario, catalog)
    except InputError as refusal:
        raise ScenarioFileError(path, "", refusal=refusal) from None
    return scenario


def write_scenario(path: Path, scenario: Scenario) -> None:
    """Save ``scenario`` to ``path``, whole or not at all. Raises ``OSError`` naming ``path``
    (``desktop.error_text.write_problem`` words it)."""
    write_json_table(Path(path), scenario_data(scenario))
