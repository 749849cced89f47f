"""PySide's import hook is told what it would find in the app's modules and reads none of them."""
from __future__ import annotations

import re
import subprocess
import sys

from tests.layering import ROOT

PROGRAM = """
import desktop.i18n                  # the start's first import of the engine and then of Qt: it answers
from PySide6.support import feature

checked = []
real = feature._mod_uses_pyside
feature._mod_uses_pyside = lambda module: checked.append(module.__name__) or real(module)
import desktop.app, desktop.window, widgets.conveyor_belt, engine.report
print(sorted(n for n in checked if n.split(".")[0] in ("engine", "desktop", "widgets")))
answers = feature.pyside_feature_dict
print(answers["desktop.window"], answers["widgets.conveyor_belt"], answers["engine.compute"], answers["json"])
"""


def test_no_module_of_the_app_is_read_by_pysides_hook():
    done = subprocess.run([sys.executable, "-c", PROGRAM], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    checked, answers = done.stdout.splitlines()
    assert checked == "[]"
    assert answers == "0 0 -1 -1"                           # uses PySide, ditto, does not, does not


def test_no_module_of_the_app_selects_a_pyside_feature():
    """The premise of the answers: with no feature selected anywhere, 0 and -1 select the same (none)."""
    selects = re.compile(r"^\s*(from|import) __feature__", re.M)
    sources = [p for layer in ("engine", "desktop", "widgets") for p in (ROOT / layer).rglob("*.py")]
    assert len(sources) > 250
    assert [p for p in sources if selects.search(p.read_text(encoding="utf-8"))] == []
