"""Memory budget: resident memory after visiting every scene, and its drift under autoplay.

    python benchmarks/memory.py [--seconds 600] [--step-seconds 0.5]

The real main window is built offscreen at 1920x1080 (a settings folder of its
own, so no user setting is read or written), every build of every scene is
visited once, and the resident set size (RSS, from /proc, of the app and every
process it started, the engine process included) is read once the work that visit queued is done (the
tokenizer process has cut what the scenes asked and, with no scene on screen
holding it, ended; at most a minute): budget 350 MB. The reading at once is
printed too. Then the app "autoplays" for ``--seconds`` (default 600, the 10
minutes of DESIGN.md): the event loop runs for real, every scene's clock ticks
while it is shown, and every ``--step-seconds`` a timer steps to the next
build, wrapping from the last scene to the first; the scenario is also
changed every lap so that every widget gets new states. The RSS is read at
the same point of every lap (its end, once the tokenizer process has finished
and ended, as after the visit); drift is the last lap's reading minus
the reading once every lap scenario has been shown once (when caches, fonts
and lazily created plots exist): budget 5 MB; and no reading, at any build after the
warm-up laps, may pass the 350 MB either (every tokenizer a scene needs is loaded by then). Exit 1 when a
budget is exceeded.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

RESIDENT_BUDGET_BYTES = 350e6
DRIFT_BUDGET_BYTES = 5e6
# Scenarios the autoplay cycles through, one per lap: every widget gets new numbers. Each names every field
# any of them sets: a lap changes only the fields it names, so the 8B model the last one sets stayed for the
# three after it, the cycle showed 7 scenarios, not 4, and laps 5-7 filled caches after the warm-up (the
# answers cache: 287 answers at lap 4, 480 from lap 7).
LAP_SCENARIOS = (
    {"gpu": "h800", "model": "llama-3.1-70b", "weights": "fp16"},
    {"gpu": "a100-80gb", "model": "llama-3.1-70b", "weights": "bf16"},
    {"gpu": "h200", "model": "llama-3.1-70b", "weights": "fp8"},
    {"gpu": "rtx-4090", "model": "llama-3.1-8b", "weights": "int4"},
)


def _resident(pid: int | str) -> float:
    with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _children(pid: int) -> list[int]:
    kids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(name))
            except (OSError, ValueError, IndexError):
                pass
    return kids


def resident_bytes() -> float:
    """The resident set size of this process and of every process it started (the tokenizer process, its
    resource tracker), from /proc/<pid>/statm: what the app holds, wherever it holds it."""
    total, todo = 0.0, [os.getpid()]
    while todo:
        pid = todo.pop()
        try:
            total += _resident(pid)
        except OSError:
            continue
        todo.extend(_children(pid))
    return total


def build_window():
    import gc
    gc.disable()        # as the app's entry does (desktop.__main__.run): its collector takes over from here
    from desktop import settings as settings_store
    from desktop.app import create_application
    from desktop.i18n import Language
    from desktop.scenario_store import ScenarioStore
    from desktop.scenes.registry import scene_entries
    from desktop.window import MainWindow

    app = create_application()
    language = Language("zh")
    settings = settings_store.load().settings
    store = ScenarioStore(settings.scenario, language=language)
    window = MainWindow(language, store, settings, store.catalog, scene_entries())
    window.resize(1920, 1080)
    window.show()
    return app, window, store


def visit_every_build(app, window) -> None:
    deck = window.deck
    deck.first()
    app.processEvents()
    for _ in range(sum(deck.scene(p).build_count for p in range(len(deck.entries)))):
        deck.next()
        app.processEvents()


SETTLE_SECONDS = 60.0


def _workers() -> list[int]:
    """The processes this one started to run jobs that end when done (the tokenizer process): not the engine
    process, which stays for the whole run, nor multiprocessing's resource tracker."""
    from desktop.kit import engine_process

    found, staying = [], engine_process.process_ids()
    for pid in _children(os.getpid()):
        if pid in staying:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if b"spawn_main" in cmdline.read():
                    found.append(pid)
        except OSError:
            pass
    return found


def settle(app) -> float:
    """Run the event loop until the tokenizer process has finished the jobs the visit queued and exited (no scene
    on screen holds it), at most ``SETTLE_SECONDS``; the seconds it took. The visit steps through every build in a
    second or two, far faster than a person, so what it leaves queued is a burst no talk makes."""
    from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer

    clock = QElapsedTimer()
    clock.start()
    loop = QEventLoop()
    poll = QTimer()
    poll.timeout.connect(lambda: (not _workers() or clock.elapsed() > SETTLE_SECONDS * 1000) and loop.quit())
    poll.start(100)
    loop.exec()
    poll.stop()
    return clock.elapsed() / 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="autoplay duration (default 600)")
    parser.add_argument("--step-seconds", type=float, default=0.5, help="time between builds (default 0.5)")
    parser.add_argument("--verbose", action="store_true", help="print the resident size after every lap")
    args = parser.parse_args()

    os.environ["INFERENCE_PHYSICS_CONFIG_DIR"] = tempfile.mkdtemp(prefix="ip-memory-")
    from PySide6.QtCore import QElapsedTimer, QTimer

    app, window, store = build_window()
    visit_every_build(app, window)
    at_once = resident_bytes()
    settled = settle(app)
    after_visit = resident_bytes()
    print(f"at once after the visit     {at_once / 1e6:7.1f} MB   (the tokenizer process still cutting what it asked)")
    print(f"visit's work done in        {settled:7.1f} s")
    print(f"after visiting every scene  {after_visit / 1e6:7.1f} MB   budget {RESIDENT_BUDGET_BYTES / 1e6:.0f} MB")

    deck = window.deck
    lap_bytes: list[float] = []     # RSS at the end of each lap

    every_step: list[float] = []    # RSS at every build of every lap after the warm-up ones: the largest counts

    def step() -> None:
        at_end = deck.position == len(deck.entries) - 1 and deck.current.build_index == deck.current.build_count - 1
        if len(lap_bytes) >= len(LAP_SCENARIOS):
            every_step.append(resident_bytes())
        if at_end:
            timer.stop()
            settle(app)             # the lap's reading without a tokenizer process that happens to be cutting
            timer.start()
            lap_bytes.append(resident_bytes())
            if args.verbose:
                print(f"lap {len(lap_bytes):3d}  {lap_bytes[-1] / 1e6:7.1f} MB")
            store.update(**LAP_SCENARIOS[len(lap_bytes) % len(LAP_SCENARIOS)])
            deck.first()
        else:
            deck.next()

    timer = QTimer()
    timer.setInterval(round(args.step_seconds * 1000))
    timer.timeout.connect(step)
    timer.start()
    clock = QElapsedTimer()
    clock.start()
    QTimer.singleShot(round(args.seconds * 1000), app.quit)
    app.exec()
    timer.stop()

    warm = len(LAP_SCENARIOS)
    if len(lap_bytes) <= warm:
        print(f"autoplay too short: {len(lap_bytes)} laps, need more than {warm}; give more --seconds")
        return 2
    drift = lap_bytes[-1] - lap_bytes[warm - 1]
    print(f"autoplay {clock.elapsed() / 1000:.0f} s, {len(lap_bytes)} laps")
    print(f"drift after warm-up laps    {drift / 1e6:+7.1f} MB   budget {DRIFT_BUDGET_BYTES / 1e6:.0f} MB")
    most = max(lap_bytes + every_step)
    print(f"largest during autoplay     {most / 1e6:7.1f} MB   budget {RESIDENT_BUDGET_BYTES / 1e6:.0f} MB")
    over = after_visit > RESIDENT_BUDGET_BYTES or drift > DRIFT_BUDGET_BYTES or most > RESIDENT_BUDGET_BYTES
    window.close()
    print("OVER BUDGET" if over else "OK")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
