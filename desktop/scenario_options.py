"""The scenario flags of ``python -m desktop`` (``--gpu --model ... --kv-allocation``): the engine's own. Qt-free.

The options are those of ``python -m engine report`` as its parser declares
them (``engine.cli.build_parser``), so a flag the engine gains (a lever, a
parallel layout) is a flag of the app too, with the engine's names, defaults
and number reading. Each option's value becomes the ``Scenario`` field of its
name (``--prompt`` -> ``prompt_tokens``: a field named with its unit). Only the
fields the command line names change; the rest come from the base scenario
(a ``--scenario FILE``, else the saved one).

Values are judged where every value of the app is judged, by the engine's
``Scenario`` checks, so the sentence is in the user's language: text the
engine's number reading refuses ("--batch lots") is handed on as typed, and
the scenario's check refuses it ("The batch must be a whole number from 1 to
4,096 sequences; got 'lots'.").
"""
from __future__ import annotations

from dataclasses import field, fields, replace
from functools import lru_cache

from engine import Scenario
from engine.frozen import frozen

NOT_SCENARIO_OPTIONS = ("--json",)       # report's options that say how to print, not what to compute


def _report_parser():
    from engine.cli import build_parser        # a fresh parser each time: it remembers what it refused
    return build_parser()[1].parsers["report"]


def field_of(option: str) -> str:
    """The Scenario field an option sets: its name ("--usd-per-gpu-hour" -> "usd_per_gpu_hour"), or that name
    with its unit ("--prompt" -> "prompt_tokens", "--cached-prefix" -> "cached_prefix_tokens")."""
    name = option.lstrip("-").replace("-", "_")
    names = {spec.name for spec in fields(Scenario)}
    return name if name in names else f"{name}_tokens"


@lru_cache(maxsize=1)
def scenario_options() -> dict[str, str]:
    """Option -> what it takes (the engine's words, for a missing value), in the engine's order."""
    return {option: allowed for option, allowed in _report_parser().value_options.items()
            if option not in NOT_SCENARIO_OPTIONS}


def split_arguments(argv: list[str], own_options: set[str]) -> tuple[list[str], list[tuple[str, str | None]]]:
    """(the app's own arguments, [(scenario option, its value or None when it has none)]).

    A value may start with "-" ("--batch -5" reaches the check, which names it); one that is an option itself
    (ours or the engine's) is none.
    """
    if all(argument.partition("=")[0] in own_options or not argument.startswith("--") for argument in argv):
        return list(argv), []     # no "--name" but ours: no scenario option, and the engine's parser is not built
    options = scenario_options()
    known = set(options) | set(own_options)
    own: list[str] = []
    given: list[tuple[str, str | None]] = []
    index = 0
    while index < len(argv):
        argument = argv[index]
        name, equals, attached = argument.partition("=")
        if name in options:
            if equals:
                given.append((name, attached))
            elif index + 1 < len(argv) and argv[index + 1].split("=")[0] not in known:
                given.append((name, argv[index + 1]))
                index += 1
            else:
                given.append((name, None))
        else:
            own.append(argument)
        index += 1
    return own, given


def scenario_changes(given: list[tuple[str, str]]) -> dict[str, object]:
    """Scenario field -> value for each (option, text): read as the engine reads it, or kept as typed where it
    cannot be read (the scenario's check then refuses it in words)."""
    changes: dict[str, object] = {}
    for option, text in given:
        try:
            parsed = vars(_report_parser().parse_command([f"{option}={text}"]))
            value = parsed[option.lstrip("-").replace("-", "_")]    # argparse's name for the option's value
        except Exception:   # the engine's parser refuses the text in its own English sentence: let the check word it
            value = text
        changes[field_of(option)] = value
    return changes


@frozen
class ScenarioChoice:
    """What the command line asks for: a scenario read from a file (None: none given) and the fields the
    flags change (Scenario field -> value)."""
    from_file: Scenario | None = None
    changes: dict = field(default_factory=dict)

    def scenario(self, saved: Scenario) -> Scenario:
        """The scenario to use: the file's, else ``saved``, with the flags' fields changed (not yet checked)."""
        return replace(self.from_file or saved, **self.changes)

    @property
    def asked(self) -> bool:
        """Whether the command line names a scenario at all (else the saved one is used as it is)."""
        return self.from_file is not None or bool(self.changes)
