"""Exports never replace good files with broken ones; the command line's sentences say what really happened."""
from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QImage

from desktop import export
from desktop.__main__ import BadCommandLine, parse_command_line
from desktop.error_text import write_problem
from desktop.i18n import Language
from desktop.scenario_store import ScenarioStore
from desktop.scenes.registry import scene_entries
from widgets.theme import THEMES

SMALL = QSize(640, 480)


def run(folder: Path, classes=None) -> list[Path]:
    classes = classes or scene_entries()[:2]
    return list(export.export_scenes(classes, Language("en"), ScenarioStore(), THEMES["light"], SMALL,
                                     png_dir=folder, pdf_path=folder / export.HANDOUT_FILE))


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@pytest.mark.parametrize("failure", [KeyboardInterrupt(), OSError(errno.ENOSPC, "No space left on device")])
def test_an_interrupted_export_leaves_the_previous_good_files(qapp, tmp_path, monkeypatch, failure):
    run(tmp_path)
    before = snapshot(tmp_path)
    calls = []

    def fail_on_the_second_file(descriptor):     # the second file is half written when it fails
        calls.append(descriptor)
        if len(calls) == 2:
            raise failure
    monkeypatch.setattr(export.os, "fsync", fail_on_the_second_file)
    with pytest.raises(type(failure)):
        run(tmp_path)
    after = snapshot(tmp_path)
    assert after.keys() == before.keys()                              # no .partial file left behind
    assert after[export.HANDOUT_FILE] == before[export.HANDOUT_FILE]  # the handout untouched: never 0 bytes
    second = f"{scene_entries()[1].export_name}.png"
    assert after[second] == before[second]
    for name in after:
        if name.endswith(".png"):
            assert QImage(str(tmp_path / name)).size() == SMALL       # every picture whole


def test_stopping_the_export_between_scenes_keeps_the_previous_handout(qapp, tmp_path):
    run(tmp_path)
    before = (tmp_path / export.HANDOUT_FILE).read_bytes()
    steps = export.export_scenes(scene_entries()[:2], Language("en"), ScenarioStore(), THEMES["light"], SMALL,
                                 png_dir=tmp_path, pdf_path=tmp_path / export.HANDOUT_FILE)
    next(steps)
    steps.close()                                                     # the window's Cancel, or Ctrl+C
    assert (tmp_path / export.HANDOUT_FILE).read_bytes() == before
    assert not [path for path in tmp_path.iterdir() if path.name.startswith(".")]


def test_a_read_only_place_gives_one_sentence_and_no_qt_line(qapp, tmp_path, monkeypatch, capfd):
    from desktop.app import run_export

    def read_only(path, *_args, **_kwargs):
        raise OSError(errno.EROFS, "Read-only file system", str(path))
    monkeypatch.setattr(export, "open", read_only, raising=False)
    code = run_export(tmp_path, Language("en"), SMALL, "light", scene_entries()[0].key)
    err = capfd.readouterr().err
    assert code == 2
    assert [line for line in err.splitlines() if line.strip()] == [
        Language("en").text("errors.write.read_only", path=str(tmp_path / export.HANDOUT_FILE),
                            folder=str(tmp_path))]


def test_a_folder_name_that_is_not_utf8_is_written_as_typed(qapp, tmp_path):
    folder = Path(os.fsdecode(os.fsencode(str(tmp_path)) + b"/\xff\xfe"))
    written = run(folder, scene_entries()[:1])
    assert [path.name for path in written] == [f"{scene_entries()[0].export_name}.png", export.HANDOUT_FILE]
    assert os.path.exists(os.fsencode(str(tmp_path)) + b"/\xff\xfe/" + export.HANDOUT_FILE.encode())


@pytest.mark.skipif(not Path("/proc/sys").is_dir(), reason="needs Linux /proc")
def test_a_folder_that_takes_no_new_entries_is_not_called_missing():
    try:
        os.makedirs("/proc/sys/nope")
    except OSError as error:
        problem = write_problem(error, Path("/proc/sys/nope"), is_folder=True)
    else:
        pytest.skip("this /proc/sys takes new folders")
    sentence = problem.sentence(Language("en"))
    assert problem.reason == "cannot_create" and "does not exist" not in sentence and "/proc/sys" in sentence


@pytest.mark.parametrize("argv, expected", [
    (["--size", "-5x3"], "The size -5x3 is not WIDTHxHEIGHT"),
    (["--export", "/tmp/x", "--size", "-5x3"], "The size -5x3 is not WIDTHxHEIGHT"),
    (["--export", ""], "--export needs a value after it"), (["--export"], "--export needs a value after it"),
    (["--lang"], "--lang needs a value after it: zh or en."), (["--theme", "\udcff"], "--theme \\xff is not allowed"),
    (["--scene", "9" * 5000], "There is no scene 999"), (["--frobnicate"], "--frobnicate is not an option"),
])
def test_the_desktop_command_line_says_what_is_wrong(argv, expected):
    with pytest.raises(BadCommandLine) as caught:
        parse_command_line(argv, Language("en"))
    sentence = str(caught.value)
    assert sentence.startswith(expected) and "\n" not in sentence and len(sentence) < 400
    assert "surrogate" not in sentence and "\udcff" not in sentence


@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
def test_sigterm_during_python_m_desktop_export_keeps_the_old_handout_and_shows_no_traceback(tmp_path):
    import signal
    import subprocess
    import sys
    root = Path(__file__).resolve().parents[2]
    (tmp_path / export.HANDOUT_FILE).write_bytes(b"%PDF- the good handout of last week")
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen([sys.executable, "-m", "desktop", "--export", str(tmp_path), "--lang", "en",
                                "--size", "640x480"], cwd=root, env=environment, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        first = process.stdout.readline()          # the first picture is written: the handout is not yet
        assert first.startswith("Wrote"), first
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 130 and "Traceback" not in err
    assert err.strip() == Language("en").text("errors.write.interrupted")
    assert (tmp_path / export.HANDOUT_FILE).read_bytes() == b"%PDF- the good handout of last week"
    assert not [path for path in tmp_path.iterdir() if path.name.startswith(".")]


@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
@pytest.mark.parametrize("delay", [0.0, 0.15, 0.4, 0.8, 1.3])
def test_sigterm_at_any_moment_of_an_export_stops_it_at_a_safe_point(tmp_path, delay):
    """The handler used to raise wherever Python was, inside Qt's paint code too: once in 40 runs a segfault,
    twice a traceback. Now it is noted and the export stops between scenes or pages. The signal comes a
    moment after the first picture is written: in the middle of rendering the next scenes."""
    import signal
    import subprocess
    import sys
    import time
    root = Path(__file__).resolve().parents[2]
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    environment["PYTHONUNBUFFERED"] = "1"
    process = subprocess.Popen([sys.executable, "-m", "desktop", "--export", str(tmp_path), "--lang", "en",
                                "--size", "640x480"], cwd=root, env=environment, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert process.stdout.readline().startswith("Wrote")
        time.sleep(delay)                                    # a moment anywhere in rendering the next scenes
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode in (0, 130), (process.returncode, err[-2000:])
    assert "Traceback" not in err and "Fatal Python error" not in err and len(err.strip().splitlines()) <= 1, err
    assert not [path for path in tmp_path.iterdir() if path.name.startswith(".")]


@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
@pytest.mark.parametrize("delay", [0.4, 0.6, 0.9, 1.2, 1.5])
def test_ctrl_c_in_the_first_moments_of_start_up_ends_the_app_quietly(tmp_path, delay):
    """Ctrl+C in the first second and a half gave a KeyboardInterrupt traceback, a bogus AttributeError from a
    half-imported module, or was lost and the window opened anyway. (In the first few tens of milliseconds
    Python itself is still starting, before any of the app's code runs; what it prints then is Python's.)"""
    import signal
    import subprocess
    import sys
    import time
    root = Path(__file__).resolve().parents[2]
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "INFERENCE_PHYSICS_CONFIG_DIR": str(tmp_path)}
    process = subprocess.Popen([sys.executable, "-m", "desktop", "--lang", "en"], cwd=root, env=environment,
                               text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        time.sleep(delay)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)          # never lost: the app ends, it does not open and stay
    finally:
        process.kill()
    assert process.returncode in (0, 130), (process.returncode, err[-2000:])
    assert "Traceback" not in err and "Error" not in err, err
