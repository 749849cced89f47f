"""A scenario in a file: what File ▸ Save scenario writes, File ▸ Open scenario and ``--scenario FILE`` read.

The file is a JSON object of the scenario's values, by the names of
``engine.Scenario``'s fields (as the settings keep it)::

    {"gpu": "h800", "model": "llama-3.1-70b", "weights": "fp16", "kv": "fp16", "gpus": 2,
     "batch": 1, "prompt_tokens": 1000, "output_tokens": 500, "usd_per_gpu_hour": 2.0, "mode": "realistic"}

``write_scenario`` writes every field; a file written by hand may leave some
out, and those take the app's default (``desktop.default_scenario``). A file
that cannot be used is refused with one sentence (an ``InputError``): not
readable, not JSON, not an object, a name that is no scenario value (codes
``scenario_file.*`` in ``resources/text/errors.toml``), or a value the engine
refuses (its own sentence, naming the value). Whether the catalogue knows the
GPU and model is for the engine to say when the scenario is used. Qt-free, so
the command line reads a file before Qt starts.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, fields, replace
from pathlib import Path

from desktop.default_scenario import DEFAULT_SCENARIO
from engine import InputError, Scenario
from engine.catalog import display_path
from engine.config_dir import read_regular_file
from engine.errors import refusal
from engine.scenario import validate_scenario

MAX_FILE_BYTES = 100_000           # a scenario is a few hundred bytes
FIELD_NAMES = tuple(spec.name for spec in fields(Scenario))
SUFFIX = ".json"


def read_scenario(path: Path | str) -> Scenario:
    """The scenario in the file at ``path``; ``InputError`` (one sentence) when the file cannot be used."""
    path = Path(path)
    shown = display_path(path)
    try:
        data = read_regular_file(path, MAX_FILE_BYTES)
    except OSError as error:
        raise refusal("scenario_file.unreadable", {"file": shown, "reason": error.strerror or str(error)}) from None
    try:
        raw = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise refusal("scenario_file.unreadable", {"file": shown, "reason": "it is not UTF-8 text"}) from None
    except json.JSONDecodeError as error:
        raise refusal("scenario_file.not_json", {"file": shown, "line": error.lineno, "column": error.colno}) from None
    except RecursionError:
        raise refusal("scenario_file.not_object", {"file": shown}) from None
    return scenario_from(raw, shown)


def scenario_from(raw: object, shown: str = "the scenario") -> Scenario:
    """The scenario that the JSON value ``raw`` describes (``shown``: how a sentence names where it came from)."""
    if not isinstance(raw, dict):
        raise refusal("scenario_file.not_object", {"file": shown})
    unknown = sorted(str(name) for name in raw if name not in FIELD_NAMES)
    if unknown:
        raise refusal("scenario_file.unknown_field", {"file": shown, "got": unknown[0], "allowed": FIELD_NAMES})
    try:
        return validate_scenario(replace(DEFAULT_SCENARIO, **raw))
    except InputError:
        raise
    except (TypeError, AttributeError) as error:        # a value of a kind no field takes (a list for a GPU)
        raise refusal("scenario_file.unreadable", {"file": shown, "reason": str(error)}) from None


def scenario_json(scenario: Scenario) -> str:
    """The file's text for ``scenario``: every field, one a line."""
    return json.dumps(asdict(scenario), ensure_ascii=False, indent=2) + "\n"


def write_scenario(path: Path | str, scenario: Scenario) -> None:
    """Write ``scenario`` to ``path`` whole or not at all (a temporary file beside it, renamed over it).
    Raises ``OSError`` (with the path the person chose as its file name) when it cannot be written."""
    path = Path(path)
    temporary: str | None = None
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(scenario_json(scenario))
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except OSError as failure:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
        failure.filename = str(path)
        raise
