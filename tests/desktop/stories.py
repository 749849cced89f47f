"""Stories without Qt: the kit's answers, the scenes' texts and a story made as its view would make it."""
from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

from desktop.kit import questions
from desktop.kit.answers import Answers
from desktop.kit.story import Inputs
from engine.catalog import default_catalog

ROOT = Path(__file__).resolve().parents[2]
CATALOG = default_catalog()
ANSWERS = Answers(CATALOG)


def texts(key: str) -> dict:
    """The tables of ``resources/text/<key>.toml``."""
    return tomllib.loads((ROOT / "resources" / "text" / f"{key}.toml").read_text(encoding="utf-8"))


def scene_text(key: str, language: str = "en"):
    """The scene's ``text(key, count=None, **values)`` as the app's Language gives it, without Qt."""
    tables = texts(key)

    def text(name: str, count: int | None = None, **values) -> str:
        entry = tables
        for part in name.split("."):
            entry = entry[part]
        form = entry[language]
        if isinstance(form, dict):
            form = form["one"] if count == 1 and "one" in form else form["other"]
        if count is not None:
            values["count"] = count
        return form.format_map(values)
    return text


def what_if(base, **changes):
    """The kit's cached report for ``base`` with ``changes`` (or its refusal)."""
    return ANSWERS.ask(questions.report, dataclasses.replace(base, **changes))


def context_sweep(scenario, contexts):
    return ANSWERS.ask(questions.context_sweep, scenario, tuple(contexts))


def story(cls, scenario, build: int = 0, controls=None, language: str = "en", key: str | None = None, text=None):
    """``cls``'s story of ``scenario`` at ``build``, its texts those of scene ``key`` in ``language``."""
    report = ANSWERS.ask(questions.report, scenario)
    text = text or scene_text(key, language)
    return cls(Inputs(scenario, report, build, ANSWERS.ask, text, controls=controls))
