"""An exception raised inside a Qt slot fails the test that caused it (pytest-qt's capture stays on)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FAILING_TEST = '''
from PySide6.QtCore import QObject, Signal

class Emitter(QObject):
    fired = Signal()

def test_a_slot_raises(qtbot):
    emitter = Emitter()
    emitter.fired.connect(lambda: 1 / 0)
    emitter.fired.emit()
'''


def test_an_exception_in_a_slot_fails_the_test(tmp_path):
    test_file = tmp_path / "test_slot_raises.py"
    test_file.write_text(FAILING_TEST, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
         "-c", str(ROOT / "pyproject.toml"), "--confcutdir", str(ROOT / "tests"), str(test_file)],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stdout
    assert "ZeroDivisionError" in result.stdout
    assert "1 failed" in result.stdout
