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


def test_linux_without_any_display_is_a_problem():
    assert window_problem({}, "linux", ALL_THERE) == ("app.startup.no_display", {})
    assert window_problem({"QT_QPA_PLATFORM": "xcb"}, "linux", ALL_THERE)[0] == "app.startup.no_display"


def test_offscreen_wayland_and_other_systems_are_left_to_qt():
    assert window_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux", NONE_THERE) is None
    assert window_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux", NONE_THERE) is None
    assert window_problem({}, "win32", NONE_THERE) is None
    assert window_problem({}, "darwin", NONE_THERE) is None


def test_x11_with_every_library_is_fine():
    assert window_problem({"DISPLAY": ":0"}, "linux", ALL_THERE) is None


def test_x11_with_missing_libraries_names_the_debian_packages():
    missing = {"libxcb-cursor.so.0", "libxkbcommon-x11.so.0"}
    key, values = window_problem({"DISPLAY": ":0"}, "linux", lambda library: library not in missing)
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
