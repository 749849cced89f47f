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
    ("--paper", "a4"): ("a4", "--export"),
    ("--export", "out", "--paper", "a5"): ("a5", "letter"),
    ("--scenario",): ("--scenario", "--scenario"),
    ("--batch",): ("--batch", "4,096"),
    ("--export", "out", "--gpu"): ("--gpu", "h800"),
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


# -- the scenario: saved, from a file, changed by the engine's own flags -----------------------------------
from dataclasses import replace  # noqa: E402

from desktop.scenario_file import read_scenario, write_scenario  # noqa: E402
from desktop.scenario_options import field_of, scenario_options  # noqa: E402
from engine import Scenario  # noqa: E402


def handout_text(folder: Path) -> str:
    import shutil
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed; .ci/run installs it")
    return subprocess.run(["pdftotext", str(folder / "handout.pdf"), "-"], capture_output=True, text=True,
                          timeout=60, check=True).stdout


def test_every_option_of_engine_report_is_a_scenario_flag_of_the_app():
    from engine.cli import build_parser
    report = build_parser()[1].parsers["report"]
    names = {spec.name for spec in __import__("dataclasses").fields(Scenario)}
    assert set(scenario_options()) == set(report.value_options) - {"--json"}
    for option in scenario_options():
        assert field_of(option) in names, option                # each sets the Scenario field of its name
    assert {"--gpu", "--model", "--weights", "--kv", "--gpus", "--batch", "--prompt", "--output",
            "--usd-per-gpu-hour", "--mode", "--draft-model", "--cached-prefix", "--kv-allocation"} <= \
        set(scenario_options())


def test_a_command_line_of_the_apps_own_options_parses_without_building_the_engines_parser(monkeypatch):
    from desktop import scenario_options as options_module
    assert not set(scenario_options()) & (set(cli.VALUE_OPTIONS) | set(cli.FLAG_OPTIONS))   # no name is both
    built = []
    monkeypatch.setattr(options_module, "_report_parser", lambda: built.append(1))
    options_module.scenario_options.cache_clear()
    args = cli.parse_command_line(["--lang", "zh", "--scene", "3", "--quit-after-first-frame"], Language("en"))
    assert (args.lang, args.scene, args.quit_after_first_frame, args.scenario_given) == ("zh", "one_token", True, [])
    assert built == []                  # start-up skips building the engine's argparse tree (a few ms)
    options_module.scenario_options.cache_clear()


def test_the_flags_change_only_the_fields_they_name():
    language = Language("en")
    args = cli.parse_command_line(["--export", "out", "--gpu", "h20", "--batch=16", "--prompt", "4000",
                                   "--usd-per-gpu-hour", "1.5", "--mode", "ideal", "--scene", "kv_cache"], language)
    choice = cli.scenario_choice(args, language)
    saved = Scenario(model="llama-3.1-8b", output_tokens=300)
    assert choice.scenario(saved) == replace(saved, gpu="h20", batch=16, prompt_tokens=4000, usd_per_gpu_hour=1.5,
                                             mode="ideal")
    assert args.scene == "kv_cache" and args.export == Path("out")


def test_export_draws_the_scenario_the_flags_give(tmp_path):
    out = tmp_path / "out"
    result = run_desktop("--export", str(out), "--scene", "kv_cache", "--size", "640x480", "--gpu", "h20",
                         "--model", "llama-3.1-8b", "--gpus", "1", "--batch", "8", "--cached-prefix", "500")
    assert result.returncode == 0, result.stderr
    text = handout_text(out)
    assert "Scenario: NVIDIA H20" in text and "Llama 3.1 8B" in text and "batch 8" in text
    assert "cached prefix 500 tokens" in text and "H800" not in text


def test_export_draws_the_scenario_of_a_file_and_the_flags_change_it(tmp_path):
    saved = tmp_path / "h20-class.json"
    write_scenario(saved, Scenario(gpu="h20", model="llama-3.1-8b", gpus=1, batch=4, prompt_tokens=2000))
    assert read_scenario(saved) == Scenario(gpu="h20", model="llama-3.1-8b", gpus=1, batch=4, prompt_tokens=2000)
    out = tmp_path / "out"
    result = run_desktop("--export", str(out), "--scene", "model_memory", "--size", "640x480",
                         "--scenario", str(saved), "--batch", "12")
    assert result.returncode == 0, result.stderr
    text = handout_text(out)
    assert "NVIDIA H20" in text and "batch 12" in text and "2,000 + 500 tokens" in text


def test_export_without_a_scenario_draws_the_saved_one(tmp_path):
    from desktop import settings as settings_store
    config = tmp_path / "config"
    config.mkdir()
    settings_store.save(settings_store.Settings(scenario=Scenario(gpu="h200", gpus=1, batch=3)),
                        config / settings_store.FILE_NAME)
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-m", "desktop", "--export", str(out), "--scene", "summary",
                             "--size", "640x480"], cwd=ROOT, capture_output=True, text=True, timeout=300,
                            env={**__import__("os").environ, "INFERENCE_PHYSICS_CONFIG_DIR": str(config)})
    assert result.returncode == 0, result.stderr
    assert "NVIDIA H200" in handout_text(out) and "batch 3" in handout_text(out)


def test_the_window_starts_with_the_scenario_the_flags_give(tmp_path):
    """As a user runs it: the window opens on that scenario (and, closing, saves it as any change)."""
    import json
    import os
    config = tmp_path / "config"
    config.mkdir()
    saved = tmp_path / "class.json"
    write_scenario(saved, Scenario(model="llama-3.1-8b", gpus=1))
    result = subprocess.run([sys.executable, "-m", "desktop", "--quit-after-first-frame", "--lang", "en",
                             "--scenario", str(saved), "--gpu", "rtx-4090", "--batch", "2"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300,
                            env={**os.environ, "INFERENCE_PHYSICS_CONFIG_DIR": str(config),
                                 "QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 0, result.stderr
    scenario = json.loads((config / "settings.json").read_text())["scenario"]
    assert (scenario["gpu"], scenario["model"], scenario["gpus"], scenario["batch"]) == \
        ("rtx-4090", "llama-3.1-8b", 1, 2)


BAD_FILES = {
    "missing.json": None,
    "not-json.json": "{gpu: h800",
    "a-list.json": "[1, 2]",
    "typo.json": '{"bacth": 8}',
    "wrong-kind.json": '{"batch": "8"}',
    "unknown-gpu.json": '{"gpu": "h900"}',
    "too-long.json": '{"prompt_tokens": 200000}',
}


@pytest.mark.parametrize("code", ["en", "zh"])
@pytest.mark.parametrize("name", list(BAD_FILES))
def test_a_scenario_file_that_cannot_be_used_is_refused_in_one_sentence(capsys, tmp_path, name, code):
    path = tmp_path / name
    if BAD_FILES[name] is not None:
        path.write_text(BAD_FILES[name], encoding="utf-8")
    for mode in (["--export", str(tmp_path / "out")], []):       # the export and the window alike
        message = refusal(capsys, ["--lang", code, *mode, "--scenario", str(path)])
        assert_one_sentence(message)
        assert str(path) in message and bool(CJK.search(message)) == (code == "zh"), message
    assert not (tmp_path / "out").exists()                          # nothing was started


@pytest.mark.parametrize("code", ["en", "zh"])
@pytest.mark.parametrize("arguments, named", [
    (["--batch", "lots"], "lots"), (["--batch", "0"], "0"), (["--gpu", "h900"], "h900"),
    (["--mode", "fast"], "fast"), (["--gpus", "3"], "3"), (["--acceptance", "2"], "2"),
    (["--usd-per-gpu-hour", "-1"], "-1"),
])
def test_a_scenario_flag_the_engine_refuses_is_one_sentence_in_the_chosen_language(tmp_path, arguments, named, code):
    result = run_desktop("--lang", code, "--export", str(tmp_path / "out"), *arguments)
    assert result.returncode == 2 and result.stdout == ""
    assert_one_sentence(result.stderr)
    assert named in result.stderr and bool(CJK.search(result.stderr)) == (code == "zh"), result.stderr
    assert not (tmp_path / "out").exists()


def test_the_paper_follows_the_locale_unless_chosen():
    from desktop.paper import default_paper
    assert default_paper({"LANG": "en_US.UTF-8"}) == "letter"
    assert default_paper({"LANG": "fr_CA.UTF-8"}) == default_paper({"LC_PAPER": "en_CA"}) == "letter"
    for other in ({"LANG": "en_GB.UTF-8"}, {"LANG": "zh_CN.UTF-8"}, {"LANG": "de_DE@euro"}, {"LANG": "C"}, {}):
        assert default_paper(other) == "a4", other
    assert default_paper({"LC_ALL": "de_DE.UTF-8", "LC_PAPER": "en_US.UTF-8"}) == "a4"      # LC_ALL comes first
    args = cli.parse_command_line(["--export", "out", "--paper", "letter"], Language("en"))
    assert args.paper == "letter"


@pytest.mark.parametrize("argv", [[], ["--present"], ["--quit-after-first-frame"],
                                  ["--present", "--quit-after-first-frame", "--present"]])
def test_a_start_with_only_plain_flags_reads_as_the_parser_reads_it(argv):
    """Such a start (the ordinary one has no arguments at all) is read without building the parser; the answer
    is the parser's."""
    assert cli.parse_command_line(argv, Language("en")) == cli._parsed_command_line(argv, Language("en"))
