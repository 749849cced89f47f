"""The offline bundle (tools/bundle.py) runs on a machine with no Python and no network.

Marked ``bundle``: ``python -m pytest -m bundle tests/bundle`` builds the bundle once
(needs PyInstaller: ``pip install -e ".[bundle]"``), then runs the bundled executables
as described in conftest.py and compares what they say with the installed app.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bundle.conftest import BUNDLE_ENV, ROOT

if not os.environ.get(BUNDLE_ENV):
    pytest.importorskip("PyInstaller", reason="the bundle tests need PyInstaller: pip install -e '.[bundle]'")

from tools.bundle import (APP_NAME, ENGINE_NAME, FONT_FOLDER, QT_PLUGINS_KEPT,  # noqa: E402
                          package_vocabularies, plugin_stem)

pytestmark = pytest.mark.bundle

LINUX = sys.platform.startswith("linux")
WINDOWED = sys.platform.startswith(("win", "darwin"))        # the app's executable (tools/inference-physics.spec)
REPORT = ["report", "--gpu", "H800", "--model", "llama-3.1-70b", "--weights", "fp16", "--kv", "fp16",
          "--gpus", "1", "--batch", "1", "--prompt", "1000", "--output", "500", "--json"]
UNUSED_QT = ("Qt6Qml", "Qt6Quick", "Qt6WebEngine", "Qt6Pdf", "Qt6Wayland", "Qt63D", "Qt6Multimedia",
             "Qt6Network", "Qt6Sql", "Qt6Designer", "gtk")


def installed(*args: str) -> subprocess.CompletedProcess:
    """The same command through the installed app, for comparison."""
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, encoding="utf-8",
                          timeout=180)


def no_cjk_font_notes() -> list[str]:
    from desktop.i18n import load_texts
    return list(load_texts()["app.note.no_cjk_font"].values())


def expected_export_files() -> set[str]:
    from desktop.scenes.registry import export_name, scene_classes
    return {export_name(cls) + ".png" for cls in scene_classes()} | {"handout.pdf"}


def test_the_folder_holds_the_app_its_data_and_only_the_qt_it_uses(bundle):
    internal = bundle.folder / "_internal"
    for name in (APP_NAME, ENGINE_NAME):
        assert bundle.executable(name).is_file(), name
    for path in ("resources/catalog/gpus.toml", "resources/text/app.toml", "resources/tokenizers/SOURCES.md",
                 "resources/tokenizers/llama-3.tiktoken.gz", "resources/tokenizers/LICENSE-llama-3.txt"):
        assert (internal / path).is_file(), path
    for source, folder in package_vocabularies():
        assert (internal / folder / Path(source).name).is_file(), source

    plugins = internal / "PySide6" / "Qt" / "plugins"
    assert {folder.name for folder in plugins.iterdir()} <= set(QT_PLUGINS_KEPT)
    platforms = {plugin_stem(path.name) for path in (plugins / "platforms").iterdir()}
    assert "qoffscreen" in platforms and (not LINUX or "qxcb" in platforms), platforms
    names = [path.name for path in internal.rglob("*")]
    assert not [name for name in names if any(unused in name for unused in UNUSED_QT)]
    assert not [name for name in names if name.endswith(".qm")], "Qt's translations are not used"
    if LINUX:
        fonts = sorted(path.name for path in (internal / FONT_FOLDER).iterdir())
        assert fonts[0] == "LICENSE-NotoSansCJK.txt" and fonts[1].startswith("NotoSansCJK"), fonts


def test_the_app_paints_its_first_frame(run_bundled):
    result = run_bundled(APP_NAME, "--quit-after-first-frame")
    assert result.returncode == 0, result.stderr
    if not WINDOWED:        # a windowed executable may have no standard output to print to
        assert float(result.stdout.strip().splitlines()[-1]) > 0
    assert not any(note in result.stderr for note in no_cjk_font_notes()), result.stderr


def test_export_writes_every_scene_and_the_handout(run_bundled, tmp_path):
    out = tmp_path / "export"
    result = run_bundled(APP_NAME, "--export", str(out), "--lang", "zh", "--size", "1024x768")
    assert result.returncode == 0, result.stderr
    assert expected_export_files() <= {path.name for path in out.iterdir()}
    for path in out.iterdir():
        assert path.read_bytes()[:4] in (b"\x89PNG", b"%PDF"), path.name
    assert not any(note in result.stderr for note in no_cjk_font_notes()), result.stderr


@pytest.mark.skipif(not LINUX, reason="fontconfig decides which fonts the system has on Linux only")
def test_the_bundled_font_serves_when_the_system_has_none(run_bundled, tmp_path):
    latin_only = Path("/usr/share/fonts/truetype/dejavu")
    if not latin_only.is_dir():
        pytest.skip("needs DejaVu (fonts-dejavu-core) as the one system font")
    config = tmp_path / "fonts.conf"
    config.write_text(f'<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">'
                      f"<fontconfig><dir>{latin_only}</dir><cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>")
    env = {"FONTCONFIG_FILE": str(config)}
    args = ["--export", str(tmp_path / "out"), "--lang", "zh", "--size", "1024x768", "--scene", "1"]
    control = subprocess.run([sys.executable, "-m", "desktop", *args], cwd=ROOT, capture_output=True, text=True,
                             encoding="utf-8", timeout=180, env={**os.environ, **env})
    assert any(note in control.stderr for note in no_cjk_font_notes()), "the system's Chinese fonts were not hidden"

    result = run_bundled(APP_NAME, *args, env=env)
    assert result.returncode == 0, result.stderr
    assert not any(note in result.stderr for note in no_cjk_font_notes()), result.stderr


def test_every_tokenizer_cuts_text_as_the_installed_engine_does(run_bundled):
    from engine.tokenizer_registry import TOKENIZERS
    text = "推理加速 makes tokens cheaper."
    for info in TOKENIZERS:
        args = ["tokens", "--tokenizer", info.id, "--json", text]
        result = run_bundled(ENGINE_NAME, *args)
        assert result.returncode == 0, (info.id, result.stderr)
        expected = installed("-m", "engine", *args)
        assert json.loads(result.stdout) == json.loads(expected.stdout), info.id
    listed = run_bundled(APP_NAME, "engine", "tokens", "--list")
    assert listed.returncode == 0 and all(info.id in listed.stdout for info in TOKENIZERS), listed.stderr


def test_engine_report_gives_the_installed_engines_numbers(run_bundled):
    result = run_bundled(APP_NAME, "engine", *REPORT)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report == json.loads(installed("-m", "engine", *REPORT).stdout)
    assert {"weights_bytes", "ttft_seconds", "tpot_seconds", "decode_share", "prefill", "decode"} <= set(report)


def test_bad_input_to_the_bundled_engine_is_one_sentence(run_bundled):
    result = run_bundled(ENGINE_NAME, "report", "--gpu", "no-such-gpu", "--model", "llama-3.1-70b")
    assert result.returncode == 2
    assert "no-such-gpu" in result.stderr and "Traceback" not in result.stderr
