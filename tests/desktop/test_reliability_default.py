"""A user catalogue entry that makes the default scenario refused: the app finds one the engine accepts.

The store, the export and the window used to fall back to the default scenario
without asking the engine whether it accepts it; an entry that overrides the
default model with a short longest context, or with heads that do not divide
over the default GPUs, then crashed the export (``'InputError' object has no
attribute 'gpu'``) and broke four scenes in the window.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from desktop.default_scenario import DEFAULT_SCENARIO, accepted_scenario
from desktop.kit import questions
from desktop.kit.answers import Answers, refused
from desktop.scenario_store import NoScenario, ScenarioStore
from engine.catalog import load_catalog

ROOT = Path(__file__).resolve().parents[2]


def _model_entry(**changes) -> str:
    """The default model's entry, as a user would copy it into their file, with ``changes``."""
    fields = {"name": '"Llama 3.1 70B (mine)"', "layers": 80, "hidden_size": 8192, "attention_heads": 64,
              "kv_heads": 8, "head_dim": 128, "intermediate_size": 28672, "vocab_size": 128256,
              "tied_embeddings": "false", "max_context_tokens": 131072, "published_parameters": "70.6e9",
              "source": '"my notes"'}
    fields.update(changes)
    return '[models."llama-3.1-70b"]\n' + "".join(f"{k} = {v}\n" for k, v in fields.items())


BREAKERS = {
    "short-context": _model_entry(max_context_tokens=100),
    "heads-over-two": _model_entry(attention_heads=63, kv_heads=7, hidden_size=8064, intermediate_size=28665),
}


@pytest.mark.parametrize("name", list(BREAKERS))
def test_the_store_finds_a_scenario_the_engine_accepts(tmp_path, name):
    user = tmp_path / "catalog.toml"
    user.write_text(BREAKERS[name], encoding="utf-8")
    catalog = load_catalog(user)
    answers = Answers(catalog)
    assert refused(answers.ask(questions.report, DEFAULT_SCENARIO))       # the default itself is refused
    store = ScenarioStore(DEFAULT_SCENARIO, catalog=catalog)
    assert not refused(store.report) and store.report.scenario == store.scenario
    assert store.last_error is not None                                   # and it says what was refused
    assert store.scenario.model == DEFAULT_SCENARIO.model                 # the model kept: only what it needs changes


def test_a_catalogue_with_nothing_the_engine_accepts_says_what_to_change():
    from dataclasses import replace
    from desktop.i18n import Language
    from engine.catalog import default_catalog
    nothing = replace(default_catalog(), models={})          # every model broken: no scenario at all
    answers = Answers(nothing)
    assert accepted_scenario(None, lambda s: answers.ask(questions.report, s), nothing) is None
    with pytest.raises(NoScenario) as raised:
        ScenarioStore(DEFAULT_SCENARIO, catalog=nothing)
    for code in ("en", "zh"):
        sentence = raised.value.sentence(Language(code))
        assert "\n" not in sentence and ("catalog" in sentence.lower() if code == "en" else "目录" in sentence)


@pytest.mark.parametrize("name", list(BREAKERS))
def test_export_with_such_an_entry_writes_every_scene(tmp_path, name):
    user = tmp_path / "catalog.toml"
    user.write_text(BREAKERS[name], encoding="utf-8")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "INFERENCE_PHYSICS_CATALOG": str(user),
           "INFERENCE_PHYSICS_CONFIG_DIR": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "desktop", "--export", str(tmp_path / "out"), "--size", "640x480"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    pictures = sorted((tmp_path / "out").glob("*.png"))
    assert pictures and all(QImage(str(path)).width() == 640 for path in pictures)
