"""engine/ never imports Qt: every engine module imports with Qt made unimportable."""
from tests.layering import import_every_module

QT = ("PySide6", "PySide2", "PyQt5", "PyQt6", "shiboken6", "shiboken2", "pyqtgraph", "qtpy")
# engine.__main__ runs the CLI when imported; it imports only engine.cli, which is checked.
SKIPPED = ("engine.__main__",)


def test_every_engine_module_imports_without_qt():
    done = import_every_module("engine", QT, SKIPPED)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) >= 15          # every module was really imported


def test_the_guard_does_refuse_qt():
    done = import_every_module("engine", QT, SKIPPED, also="import PySide6")
    assert done.returncode != 0 and "engine must not import PySide6" in done.stderr
