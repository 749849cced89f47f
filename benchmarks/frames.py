"""Frame-time budget: every animated scene at 1920x1080, 95th-percentile frame at most 8 ms.

    python benchmarks/frames.py [--frames 240] [--scene KEY ...]

Each scene in ``ANIMATED_SCENES`` is built as the projector shows it (in the
slide frame, 1920x1080, offscreen raster, light theme) and stepped through
every build; at each build its clock is advanced by 1/60 s per frame
(``scene.clock.set_seconds``) and the whole slide is rendered into a QImage.
A frame's time is that step plus that render: the worst case, since a real
window repaints only what changed. Exit 1 when any scene is over budget.

Registering an animated scene is one line: add its key (``Scene.key``, the
name of its text file) to ``ANIMATED_SCENES``. The scene must be listed in
``desktop/scenes/registry.py``; nothing else is needed.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ANIMATED_SCENES = (
    "gpu_waits",
    "summary",
)
SIZE = (1920, 1080)
BUDGET_MS = 8.0
FRAME_SECONDS = 1 / 60


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def measure(cls, frames: int) -> dict[str, list[float]]:
    """Build name -> milliseconds per frame, ``frames`` frames spread across every build of ``cls``."""
    from PySide6.QtCore import QSize, Qt
    from PySide6.QtGui import QImage
    from desktop.i18n import Language
    from desktop.scenario_store import ScenarioStore
    from desktop.scene import SceneContext
    from desktop.slide import SlideFrame
    from widgets.theme import THEMES

    theme, store, language = THEMES["light"], ScenarioStore(), Language("en")
    frame = SlideFrame(theme)
    frame.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    scene = cls(SceneContext(language, store, theme))
    frame.stage.addWidget(scene)
    scene.set_theme(theme)
    scene.on_report(store.scenario, store.report)
    frame.set_presenting_height(SIZE[1])
    frame.resize(*SIZE)
    frame.show()
    scene.clock.stop()                      # the benchmark drives the time, not the wall clock
    image = QImage(QSize(*SIZE), QImage.Format.Format_RGB32)
    times: dict[str, list[float]] = {}
    seconds = 0.0
    per_build = max(1, frames // scene.build_count)
    for build, name in enumerate(scene.build_names):
        scene.go_to_build(build, animate=True)
        frame.set_texts(scene.title(), scene.caption())
        times[name] = []
        for _ in range(per_build):
            seconds += FRAME_SECONDS
            started = time.perf_counter()
            scene.clock.set_seconds(seconds)
            frame.render(image)
            times[name].append((time.perf_counter() - started) * 1000)
    frame.close()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=240, help="frames per scene (default 240)")
    parser.add_argument("--scene", nargs="*", default=list(ANIMATED_SCENES), metavar="KEY")
    args = parser.parse_args()

    from desktop.app import create_application
    from desktop.fonts import install_cjk_fallback
    from desktop.scenes.registry import scene_classes

    app = create_application()           # the app's style and fonts: the same painting work
    install_cjk_fallback(app)
    registered = {cls.key: cls for cls in scene_classes()}
    over = False
    for key in args.scene:
        if key not in registered:
            print(f"{key}: not registered in desktop/scenes/registry.py, skipped")
            continue
        by_build = measure(registered[key], args.frames)
        times = [t for build_times in by_build.values() for t in build_times]
        p95 = percentile(times, 0.95)
        verdict = "OK" if p95 <= BUDGET_MS else "OVER BUDGET"
        over |= p95 > BUDGET_MS
        print(f"{key:12s} frames {len(times):4d}  median {statistics.median(times):5.2f} ms  "
              f"p95 {p95:5.2f} ms  max {max(times):6.2f} ms  (budget {BUDGET_MS} ms)  {verdict}")
        if p95 > BUDGET_MS:
            for name, build_times in by_build.items():
                print(f"    build {name:16s} median {statistics.median(build_times):5.2f} ms  "
                      f"p95 {percentile(build_times, 0.95):5.2f} ms")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
