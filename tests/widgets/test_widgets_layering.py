"""widgets/ draw what they are handed: no widget module imports the engine (physics) or the app (desktop)."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BLOCK_ENGINE_AND_DESKTOP_AND_IMPORT_WIDGETS = textwrap.dedent("""
    import importlib, pkgutil, sys

    BLOCKED = ("engine", "desktop")

    class RefuseLayers:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"widgets must not import {name}: a widget draws the state it is handed")
            return None

    sys.meta_path.insert(0, RefuseLayers())
    import widgets
    names = sorted(m.name for m in pkgutil.walk_packages(widgets.__path__, "widgets."))
    for name in names:
        importlib.import_module(name)
    leaked = [m for m in sys.modules if m.split(".")[0] in BLOCKED]
    assert not leaked, leaked
    print(len(names))
""")


def run(source: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", source], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})


def test_every_widget_module_imports_without_engine_or_desktop():
    done = run(BLOCK_ENGINE_AND_DESKTOP_AND_IMPORT_WIDGETS)
    assert done.returncode == 0, done.stderr
    expected = len([p for p in (ROOT / "widgets").glob("*.py") if p.name != "__init__.py"])
    assert int(done.stdout.strip()) == expected          # every module was really imported


def test_the_guard_does_refuse_the_engine():
    probe = BLOCK_ENGINE_AND_DESKTOP_AND_IMPORT_WIDGETS.replace(
        "import widgets\n", "import widgets\nimport engine.units\n", 1)
    done = run(probe)
    assert done.returncode != 0 and "widgets must not import engine" in done.stderr
