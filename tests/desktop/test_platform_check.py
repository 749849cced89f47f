"""Where no window can be opened the app says why in one sentence, instead of Qt's abort."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.platform_check import XCB_LIBRARIES, missing_xcb_packages, window_problem

ROOT = Path(__file__).resolve().parents[2]
ALL_THERE = lambda _library: True       # noqa: E731
NONE_THERE = lambda _library: False     # noqa: E731
REACHABLE = {"x_reachable": lambda _display: True, "wayland_reachable": lambda _environ: True}


def test_linux_without_any_display_is_a_problem():
    assert window_problem({}, "linux", ALL_THERE) == ("app.startup.no_display", {})
    assert window_problem({"QT_QPA_PLATFORM": "xcb"}, "linux", ALL_THERE)[0] == "app.startup.no_display"


def test_offscreen_wayland_and_other_systems_are_left_to_qt():
    assert window_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux", NONE_THERE) is None
    assert window_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux", NONE_THERE, **REACHABLE) is None
    assert window_problem({}, "win32", NONE_THERE) is None
    assert window_problem({}, "darwin", NONE_THERE) is None


def test_x11_with_every_library_is_fine():
    assert window_problem({"DISPLAY": ":0"}, "linux", ALL_THERE, **REACHABLE) is None


def test_x11_with_missing_libraries_names_the_debian_packages():
    missing = {"libxcb-cursor.so.0", "libxkbcommon-x11.so.0"}
    key, values = window_problem({"DISPLAY": ":0"}, "linux", lambda library: library not in missing, **REACHABLE)
    assert key == "app.startup.missing_xcb"
    assert values["packages"] == "libxcb-cursor0 libxkbcommon-x11-0"


def test_every_needed_library_has_its_package():
    assert missing_xcb_packages(NONE_THERE) == list(XCB_LIBRARIES.values())
    assert missing_xcb_packages(ALL_THERE) == []


def test_starting_without_a_display_prints_one_sentence_and_points_at_export():
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    result = subprocess.run([sys.executable, "-m", "desktop", "--lang", "en"], cwd=ROOT, env=environment,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    message = result.stderr.strip()
    assert "\n" not in message and "Traceback" not in message
    assert "--export" in message and "display" in message.lower()


@pytest.mark.parametrize("code", ["en", "zh"])
def test_a_bad_size_is_one_sentence_and_exit_2(code):
    result = subprocess.run([sys.executable, "-m", "desktop", "--export", "unused", "--size", "big", "--lang", code],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr             # no usage block, no "error:" line: one sentence
    assert "big" in lines[0] and "640" in lines[0] and "usage" not in lines[0]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in lines[0]) == (code == "zh")
    assert not (ROOT / "unused").exists()


def test_a_display_that_is_named_but_does_not_answer_is_a_problem():
    dead = {"x_reachable": lambda _display: False, "wayland_reachable": lambda _environ: False}
    assert window_problem({"DISPLAY": ":999"}, "linux", ALL_THERE, **dead) == \
        ("app.startup.display_unreachable", {"display": "DISPLAY=:999"})
    assert window_problem({"WAYLAND_DISPLAY": "wayland-9"}, "linux", ALL_THERE, **dead)[0] == \
        "app.startup.display_unreachable"
    environ = {"WAYLAND_DISPLAY": "wayland-9", "DISPLAY": ":0"}         # a dead Wayland beside a live X server
    assert window_problem(environ, "linux", ALL_THERE, x_reachable=lambda _d: True,
                          wayland_reachable=lambda _e: False) is None
    assert environ["QT_QPA_PLATFORM"] == "xcb"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 and Wayland are Linux's")
@pytest.mark.parametrize("variables", [{"DISPLAY": ":999"}, {"WAYLAND_DISPLAY": "wayland-no-such"},
                                       {"DISPLAY": ":998", "WAYLAND_DISPLAY": "wayland-no-such"}])
def test_starting_on_an_unreachable_display_is_one_sentence_and_exit_2(tmp_path, variables):
    """It used to abort with exit 134 and six lines from Qt, one a misleading libxcb-cursor0 hint."""
    environment = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    environment.update(variables, XDG_RUNTIME_DIR=str(tmp_path), INFERENCE_PHYSICS_CONFIG_DIR=str(tmp_path))
    result = subprocess.run([sys.executable, "-m", "desktop", "--lang", "en"], cwd=ROOT, env=environment,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stderr
    message = result.stderr.strip()
    assert "\n" not in message and "answers" in message and "--export" in message and "cursor" not in message


@pytest.mark.parametrize("value", ["0", "-1", "nan", "abc", "1e9"])
def test_a_scale_factor_qt_cannot_draw_with_is_left_out_with_one_sentence(tmp_path, value):
    """``QT_SCALE_FACTOR=0`` hung before the first frame (a division by zero inside pyqtgraph); -1 flooded the log
    with "Paint device returned engine == 0"."""
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "QT_SCALE_FACTOR": value,
                   "INFERENCE_PHYSICS_CONFIG_DIR": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "desktop", "--quit-after-first-frame", "--lang", "en"], cwd=ROOT,
                            env=environment, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "QT_SCALE_FACTOR" in lines[0] and "ignored" in lines[0], result.stderr
    assert result.stdout.strip().isdigit()                  # the first frame was painted


def test_a_usable_scale_factor_is_kept():
    from desktop.platform_check import unusable_scale_factors
    assert unusable_scale_factors({"QT_SCALE_FACTOR": "1.5", "QT_SCREEN_SCALE_FACTORS": "1;2"}) == []
    assert unusable_scale_factors({"QT_SCREEN_SCALE_FACTORS": "DP-1=0;HDMI-1=1"}) == \
        [("QT_SCREEN_SCALE_FACTORS", "DP-1=0;HDMI-1=1")]
