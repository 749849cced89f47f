"""engine/ never imports Qt: every engine module imports with Qt made unimportable."""
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BLOCK_QT_AND_IMPORT_ENGINE = textwrap.dedent("""
    import importlib, pkgutil, sys

    BLOCKED = ("PySide6", "PySide2", "PyQt5", "PyQt6", "shiboken6", "shiboken2", "pyqtgraph", "qtpy")

    class RefuseQt:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"engine must not import Qt, but something imported {name}")
            return None

    sys.meta_path.insert(0, RefuseQt())
    import engine
    # engine.__main__ runs the CLI when imported; it imports only engine.cli, which is checked.
    names = sorted(m.name for m in pkgutil.walk_packages(engine.__path__, "engine.")
                   if m.name != "engine.__main__")
    for name in names:
        importlib.import_module(name)
    leaked = [m for m in sys.modules if m.split(".")[0] in BLOCKED]
    assert not leaked, leaked
    print(len(names))
""")


def test_every_engine_module_imports_without_qt():
    done = subprocess.run([sys.executable, "-c", BLOCK_QT_AND_IMPORT_ENGINE], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) >= 15          # every module was really imported


def test_the_guard_does_refuse_qt():
    probe = BLOCK_QT_AND_IMPORT_ENGINE.replace("import engine\n", "import engine\nimport PySide6\n", 1)
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "must not import Qt" in done.stderr
