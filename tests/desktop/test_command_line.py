"""``python -m desktop`` refuses a bad command line in one sentence, in the user's language, with exit 2.

Refusals are checked in-process through ``main`` (nothing starts: the command
line is judged before Qt does) and, for what only a real process shows (the
exit status, no usage block, files written or not), as a user runs it.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

import desktop.__main__ as cli
from desktop import i18n
from desktop.i18n import Language
from desktop.scenes.registry import scene_entries

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u4e00-\u9fff]")
ENTRIES = scene_entries()
SCENES = [entry.number for entry in ENTRIES]
MISSING_SCENE = len(SCENES) + 1                # the number after the last scene

# arguments -> (the bad value the sentence names, a word of what is allowed)
REFUSED = {
    ("--lang", "fr"): ("fr", "zh"),
    ("--scene", "x"): ("x", str(SCENES[-1])),
    ("--scene", "0"): ("0", str(SCENES[0])),
    ("--scene", str(MISSING_SCENE)): (str(MISSING_SCENE), str(SCENES[-1])),
    ("--scene", "99"): ("99", str(SCENES[0])),
    ("--scene", "kv-cache"): ("kv-cache", "kv_cache"),
    ("--theme", "neon"): ("neon", "projector"),
    ("--bogus",): ("--bogus", "--present"),
    ("stray",): ("stray", "--export"),
    ("--theme",): ("--theme", "projector"),
    ("--export",): ("--export", "--export"),
    ("--export", "out", "--size", "10x10"): ("10x10", "640"),
    ("--export", "out", "--size", "320x240"): ("320x240", "480"),
    ("--export", "out", "--size", "big"): ("big", "1920x1080"),
    ("--export", "out", "--present"): ("--present", "--export"),
    ("--export", "out", "--quit-after-first-frame"): ("--quit-after-first-frame", "--export"),
    ("--size", "800x600"): ("800x600", "--export"),
}


def refusal(capsys, argv: list[str]) -> str:
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err


def assert_one_sentence(message: str) -> None:
    assert message.endswith("\n") and message.count("\n") == 1, repr(message)    # exactly one line
    assert not re.search(r"usage:|error:|Traceback", message), message


@pytest.mark.parametrize("code", ["en", "zh"])
@pytest.mark.parametrize("arguments", list(REFUSED), ids=" ".join)
def test_a_bad_command_line_is_one_sentence_in_the_chosen_language(capsys, arguments, code):
    bad, allowed = REFUSED[arguments]
    message = refusal(capsys, ["--lang", code, *arguments])
    assert_one_sentence(message)
    assert bad in message and allowed in message, message
    assert bool(CJK.search(message)) == (code == "zh"), message


@pytest.mark.parametrize("system", ["en", "zh"])
def test_without_a_readable_lang_the_sentence_is_in_the_system_language(capsys, monkeypatch, system):
    monkeypatch.setattr(i18n, "system_language", lambda: system)
    message = refusal(capsys, ["--lang", "fr"])
    assert_one_sentence(message)
    assert "fr" in message and "zh" in message and "en" in message
    assert bool(CJK.search(message)) == (system == "zh")


def test_the_sentence_names_every_scene_that_exists_by_number_and_key(capsys):
    message = refusal(capsys, ["--lang", "en", "--scene", "99"])
    allowed = message.split(";", 1)[1]
    assert re.findall(r"\d+", allowed) == [str(n) for n in SCENES]
    assert all(entry.key in allowed for entry in ENTRIES)


def test_sizes_from_640x480_up_are_accepted_and_smaller_ones_refused():
    language = Language("en")
    assert cli.parse_command_line(["--export", "out", "--size", "640x480"], language).size == (640, 480)
    assert cli.parse_command_line(["--export", "out", "--size", "7680X4320"], language).size == (7680, 4320)
    for small in ("639x480", "640x479"):
        with pytest.raises(cli.BadCommandLine, match=small):
            cli.parse_command_line(["--export", "out", "--size", small], language)


def test_good_command_lines_parse_to_what_the_app_needs():
    language = Language("en")
    args = cli.parse_command_line(["--lang", "zh", "--theme", "dark", "--scene", str(SCENES[-1]), "--present"],
                                  language)
    assert (args.lang, args.theme, args.scene, args.present, args.export, args.size) == \
        ("zh", "dark", ENTRIES[-1].key, True, None, None)
    args = cli.parse_command_line(["--export", "out", "--scene", str(SCENES[0])], language)
    assert args.export == Path("out") and args.scene == ENTRIES[0].key
    args = cli.parse_command_line(["--scene", ENTRIES[1].key], language)       # a scene by its key
    assert args.scene == ENTRIES[1].key


def run_desktop(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "desktop", *arguments], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_as_a_user_runs_it_a_missing_scene_exits_2_before_any_window(tmp_path):
    result = run_desktop("--lang", "zh", "--scene", str(MISSING_SCENE))
    assert result.returncode == 2 and result.stdout == ""
    assert_one_sentence(result.stderr)
    assert CJK.search(result.stderr)


@pytest.mark.parametrize("code", ["en", "zh"])
def test_exporting_onto_a_file_is_one_sentence_naming_it_and_exit_2(tmp_path, code):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine")
    for target, named in ((blocker, blocker), (blocker / "pictures", blocker)):
        result = run_desktop("--export", str(target), "--lang", code)
        assert result.returncode == 2, result.stderr
        assert_one_sentence(result.stderr)
        assert str(named) in result.stderr and "Errno" not in result.stderr
        assert bool(CJK.search(result.stderr)) == (code == "zh")
    assert blocker.read_text() == "mine"


@pytest.mark.parametrize("named", ["number", "key"])
def test_export_with_scene_writes_only_that_scene_at_the_smallest_size(tmp_path, named):
    entry = ENTRIES[-1]
    scene = str(entry.number) if named == "number" else entry.key
    result = run_desktop("--export", str(tmp_path / "out"), "--scene", scene, "--size", "640x480")
    assert result.returncode == 0, result.stderr
    written = sorted(path.name for path in (tmp_path / "out").iterdir())
    assert written == sorted([f"{entry.export_name}.png", "handout.pdf"])
    assert QImage(str(tmp_path / "out" / f"{entry.export_name}.png")).width() == 640
    pdf = (tmp_path / "out" / "handout.pdf").read_bytes()
    assert len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf)) == 1


def test_the_command_line_knows_the_same_languages_and_themes_as_the_app():
    """desktop/__main__ names them before Qt is loaded, so it keeps its own copies: they must agree."""
    from desktop import __main__ as command_line
    from desktop.i18n import LANGUAGES
    from widgets.theme import THEMES
    assert set(command_line.LANGUAGE_CODES) == set(LANGUAGES)
    assert set(command_line.THEME_IDS) == set(THEMES)
