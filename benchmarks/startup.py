"""Start-up budget: the app's first painted frame vs a bare PySide6 window (a QLabel) started the same way.

    python benchmarks/startup.py [--runs 7]

Each is started as a fresh process (``QT_QPA_PLATFORM=offscreen``, a throwaway
settings folder) that quits after its first paint; the time is the wall clock
from just before the process is started until it has exited, the same for
both. The medians are compared against DESIGN.md's budget (2x the bare
window); exit 1 when over it.

Both run as an installed program does: with Python's bytecode cache (pip
compiles a package's modules when it installs them). ``PYTHONDONTWRITEBYTECODE``,
which some shells set, is removed for these runs, and a first run of each
writes the cache before anything is timed; otherwise every start of the app
would recompile its own modules from source while the bare window's
libraries are already compiled, and the comparison would measure that.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET_RATIO = 2.0

BARE_WINDOW = """
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QLabel

class FirstPaint(QObject):
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint:
            QTimer.singleShot(0, QApplication.instance().quit)
        return False

app = QApplication([])
label = QLabel("Inference Physics")
watcher = FirstPaint()
label.installEventFilter(watcher)
label.resize(1280, 800)
label.show()
app.exec()
"""


def time_process(command: list[str], environment: dict[str, str]) -> float:
    started = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stderr}")
    return elapsed * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as config:
        environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "INFERENCE_PHYSICS_CONFIG_DIR": config}
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
        app = [sys.executable, "-m", "desktop", "--quit-after-first-frame"]
        bare = [sys.executable, "-c", BARE_WINDOW]
        time_process(app, environment)      # warm the file cache, write the bytecode cache and the settings once
        time_process(bare, environment)
        app_ms, bare_ms = [], []
        for _ in range(args.runs):          # interleaved, so a busy moment hits both alike
            app_ms.append(time_process(app, environment))
            bare_ms.append(time_process(bare, environment))
    app_median, bare_median = statistics.median(app_ms), statistics.median(bare_ms)
    ratio = app_median / bare_median
    print(f"bare PySide6 window:   median {bare_median:.0f} ms  (runs: {', '.join(f'{t:.0f}' for t in bare_ms)})")
    print(f"inference physics:     median {app_median:.0f} ms  (runs: {', '.join(f'{t:.0f}' for t in app_ms)})")
    print(f"ratio {ratio:.2f} (budget {BUDGET_RATIO})  {'OK' if ratio <= BUDGET_RATIO else 'OVER BUDGET'}")
    return 0 if ratio <= BUDGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
