"""Starting the app as a user does: first frame, corrupt settings, remembered choices."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop import settings as settings_store
from desktop.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def start(config_dir: Path, *arguments: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "INFERENCE_PHYSICS_CONFIG_DIR": str(config_dir)}
    return subprocess.run([sys.executable, "-m", "desktop", "--quit-after-first-frame", *arguments], cwd=ROOT,
                          env=environment, capture_output=True, text=True, timeout=120)


def test_quit_after_first_frame_prints_the_milliseconds_since_start(tmp_path):
    result = start(tmp_path)
    assert result.returncode == 0, result.stderr
    milliseconds = float(result.stdout.strip().splitlines()[-1])
    assert 0 < milliseconds < 120_000


# Modules the first frame does not wait for, and why: each loads when first used, or in idle time after the frame.
NOT_BEFORE_THE_FIRST_FRAME = {
    "numpy": "idle imports (issue 26: numpy alone took about 100 ms of the start)",
    "pyqtgraph": "idle imports",
    "desktop.speaker_view": "the speaker view is made when first opened (S) or when presenting",
    "desktop.export_actions": "the export commands are made on the first export",
    "desktop.scene_failure": "only a scene that cannot be built needs it",
    "engine.tokens": "only the catalogue's listing and the token scenes need it, not a report",
    "engine.levers.speculative": "only a report with speculative decoding on needs it",
    "engine.tokenizer_registry": "only a draft model's tokenizer check needs it, not a plain report",
    "engine.formulas": "the formula behind a figure is worked out when its card is first shown",
    "widgets.formula_card": "the card's widget is made when a card is first shown",
    "difflib": "only a refusal that suggests a close name needs it",
    "locale": "a start without arguments builds no argparse parser, whose help headings ask gettext (and locale)",
    "socket": "the quit signals wake the event loop through a pipe (a socket pair on Windows only)",
}

FIRST_FRAME_MODULES = """
import atexit, runpy, sys
atexit.register(lambda: print(sorted(name for name in {names!r} if name in sys.modules)))
sys.argv = ["desktop", "--quit-after-first-frame"]
runpy.run_module("desktop", run_name="__main__")
"""


def test_the_first_frame_waits_for_no_module_it_does_not_show(tmp_path):
    """What the first frame does not show is not imported before it (``NOT_BEFORE_THE_FIRST_FRAME`` says why)."""
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "INFERENCE_PHYSICS_CONFIG_DIR": str(tmp_path)}
    code = FIRST_FRAME_MODULES.format(names=tuple(NOT_BEFORE_THE_FIRST_FRAME))
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environment,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"


IMPORT_ORDER = """
import sys
order = []
class Note:
    def find_spec(self, name, path=None, target=None):
        order.append(name)
sys.meta_path.insert(0, Note())
import desktop.i18n
print(order.index("engine.compute") < order.index("PySide6"))
"""


def test_the_engine_is_imported_before_qt():
    """Once PySide is loaded, its import hook reads the source of every module an import names afterwards; the
    engine (Qt-free) loads first and is spared that (desktop.i18n is the start's first import of either)."""
    result = subprocess.run([sys.executable, "-c", IMPORT_ORDER], cwd=ROOT, capture_output=True, text=True,
                            timeout=60)
    assert result.stdout.strip() == "True", result.stderr


def test_one_report_needs_no_numpy():
    code = ("import sys; from engine import Scenario, compute_report; compute_report(Scenario()); "
            "print('numpy' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "False", result.stderr


@pytest.mark.parametrize("arguments", [("--present",), ("--present", "--scene", "3", "--lang", "zh"),
                                       ("--theme", "projector", "--scene", "summary")])
def test_every_way_of_starting_reaches_a_first_frame(tmp_path, arguments):
    result = start(tmp_path, *arguments)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("content", ["{]", json.dumps({"theme": 5, "scenario": {"gpu": "no-such-gpu"},
                                                       "last_scene": "seven", "geometry": [1]})])
def test_corrupt_settings_start_cleanly_with_a_one_line_note(tmp_path, content):
    (tmp_path / settings_store.FILE_NAME).write_text(content, encoding="utf-8")
    result = start(tmp_path, "--lang", "en")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    notes = [line for line in result.stderr.splitlines() if "settings" in line.lower()]
    assert len(notes) == 1
    saved = settings_store.load(tmp_path / settings_store.FILE_NAME)
    # The defaults were written back over the nonsense; a GPU the catalogue lacks at this start is kept for a
    # later start whose user catalogue has it again (the person chose nothing else).
    assert saved.reset_fields in ([], ["scenario.gpu"]) and not saved.unreadable


def test_choices_are_remembered_between_starts(tmp_path):
    assert start(tmp_path, "--lang", "zh", "--theme", "projector", "--scene", "summary").returncode == 0
    saved = settings_store.load(tmp_path / settings_store.FILE_NAME).settings
    assert (saved.language, saved.theme, saved.last_scene) == ("zh", "projector", "summary")
    assert saved.geometry


def test_the_window_restores_language_theme_scene_and_scenario(make_window):
    from dataclasses import replace
    from engine import Scenario
    settings = Settings(language="zh", theme="dark", last_scene="summary",
                        scenario=replace(Scenario(), batch=16, gpu="h100-sxm"))
    window = make_window(language="zh", settings=settings)
    assert window.deck.current_key == "summary"
    assert window.theme.id == "dark" and window.actions["theme_dark"].isChecked()
    assert window.controls.counts["batch"].value() == 16
    assert window.controls.choices["gpu"].currentData() == "h100-sxm"


def test_the_application_hands_pythons_lock_to_the_window_within_a_millisecond(qapp):
    """At Python's default 5 ms, the engine's worker threads kept the window waiting for the lock after its calls
    into Qt, and a scene's first visit stalled about 1.5x longer."""
    from desktop.app import UI_SWITCH_SECONDS, create_application

    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        create_application()
        assert sys.getswitchinterval() == pytest.approx(UI_SWITCH_SECONDS) and UI_SWITCH_SECONDS <= 0.001
    finally:
        sys.setswitchinterval(before)
