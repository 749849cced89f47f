"""The settings file is never lost: unusable files are set aside or kept, only a failing field is reset."""
from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop import settings as store
from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.i18n import Language
from desktop.json_file import MAX_NESTING
from desktop.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
posix_only = pytest.mark.skipif(os.name == "nt", reason="FIFOs and /dev/zero are POSIX")


@pytest.fixture
def path(tmp_path, monkeypatch):
    monkeypatch.setattr(store, "_KEPT", set())
    return tmp_path / "settings.json"


def notes(loaded) -> list[str]:
    return [*loaded.notes(Language("en")), *loaded.notes(Language("zh"))]


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b"\xff\xfe", b"[" * 100_000,
                                     b"{" + b'"a": {' * 5000 + b"}" * 5001])
def test_a_file_that_cannot_be_used_is_set_aside_and_named(path, content):
    path.write_bytes(content)
    loaded = store.load(path)
    assert loaded.unreadable and loaded.settings == Settings()
    aside = path.with_name("settings.json.bad")
    assert loaded.set_aside == aside and aside.read_bytes() == content
    assert all(str(aside) in note and "\n" not in note for note in notes(loaded))
    assert store.save(Settings(theme="dark"), path) is None          # a new file; the old one kept beside it
    assert aside.read_bytes() == content and store.load(path).settings.theme == "dark"


@posix_only
@pytest.mark.parametrize("make", [lambda p: os.mkfifo(p), lambda p: p.symlink_to("/dev/zero"), lambda p: p.mkdir(),
                                  lambda p: p.write_bytes(b" " * (store.MAX_FILE_BYTES + 1))])
def test_special_files_never_hang_and_never_crash(path, make):
    make(path)
    loaded = store.load(path)                 # a FIFO nobody writes to, endless zeros, a folder, a huge file
    assert loaded.unreadable and loaded.settings == Settings() and len(notes(loaded)) == 2


def test_a_file_that_can_be_neither_read_nor_moved_is_never_written_over(path, monkeypatch):
    path.write_text('{"theme": "dark"}', encoding="utf-8")

    def locked(*_args, **_kwargs):
        raise PermissionError(13, "Permission denied", str(path))
    from desktop import json_file          # the one reader of the settings (and of scenario files)
    monkeypatch.setattr(json_file, "read_regular_file", locked)
    monkeypatch.setattr(store.os, "replace", locked)
    loaded = store.load(path)
    assert loaded.unreadable and loaded.set_aside is None
    assert "left untouched" in loaded.notes(Language("en"))[0] and "Permission denied" in loaded.notes(Language("en"))[0]
    monkeypatch.undo()
    monkeypatch.setattr(store, "_KEPT", {path})
    assert store.save(Settings(), path)                                # refused, with a reason
    assert path.read_text(encoding="utf-8") == '{"theme": "dark"}'


def test_a_gpu_from_a_missing_user_catalogue_resets_only_the_gpu_and_says_why(path):
    saved = {"gpu": "my-own-gpu", "model": "llama-3.1-8b", "batch": 8, "prompt_tokens": 2000,
             "output_tokens": 300, "gpus": 1}
    path.write_text(json.dumps({"scenario": saved, "theme": "dark"}), encoding="utf-8")
    loaded = store.load(path)
    scenario = loaded.settings.scenario
    assert loaded.reset_fields == ["scenario.gpu"] and scenario.gpu == DEFAULT_SCENARIO.gpu
    assert (scenario.model, scenario.batch, scenario.prompt_tokens, scenario.output_tokens) == \
        ("llama-3.1-8b", 8, 2000, 300)
    [english] = loaded.notes(Language("en"))
    assert "scenario.gpu" in english and "my-own-gpu" in english and "made no sense" not in english


def test_a_saved_context_the_model_cannot_hold_resets_only_the_lengths(path):
    path.write_text(json.dumps({"scenario": {"prompt_tokens": 1, "output_tokens": 9_999_999, "batch": 4}}),
                    encoding="utf-8")
    loaded = store.load(path)
    assert loaded.reset_fields == ["scenario.prompt_tokens", "scenario.output_tokens"]
    assert loaded.settings.scenario.batch == 4
    assert "131,072" in loaded.notes(Language("en"))[0]


@posix_only
def test_the_app_starts_with_a_fifo_for_settings_and_keeps_nothing_broken(tmp_path):
    os.mkfifo(tmp_path / store.FILE_NAME)
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "INFERENCE_PHYSICS_CONFIG_DIR": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "desktop", "--quit-after-first-frame", "--lang", "en"], cwd=ROOT,
                            env=environment, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    mentioned = [line for line in result.stderr.splitlines() if "settings" in line.lower()]
    assert len(mentioned) == 1 and "settings.json.bad" in mentioned[0], result.stderr
    assert (tmp_path / "settings.json.bad").exists() and store.load(tmp_path / store.FILE_NAME).clean


def test_an_older_set_aside_file_is_kept_too(path):
    older = path.with_name("settings.json.bad")
    older.write_text("first", encoding="utf-8")
    path.write_text("second", encoding="utf-8")
    loaded = store.load(path)
    assert loaded.set_aside == path.with_name("settings.json.bad-2")
    assert older.read_text(encoding="utf-8") == "first" and loaded.set_aside.read_text(encoding="utf-8") == "second"


def test_two_instances_saving_at_once_leave_one_whole_file_and_no_error(path):
    """Each writer has its own temporary file: the last rename wins, nothing is corrupt, nothing is refused."""
    import threading
    problems, barrier = [], threading.Barrier(8)

    def writer(n: int) -> None:
        barrier.wait()
        for _ in range(20):
            problem = store.save(Settings(theme="dark", last_scene=("summary", "kv_cache")[n % 2]), path)
            if problem is not None:
                problems.append(problem.sentence(Language("en")))

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert problems == []
    loaded = store.load(path)
    assert loaded.clean and loaded.settings.last_scene in ("summary", "kv_cache")
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_set_aside_files_stay_bounded_and_settings_are_still_saved(path):
    for n in range(3 * store.MAX_SET_ASIDE):
        path.write_text("{not json", encoding="utf-8")
        os.utime(path, (1_000_000 + n, 1_000_000 + n))
        assert store.load(path).set_aside is not None
        assert store.save(Settings(theme="dark"), path) is None
    kept = [p for p in path.parent.iterdir() if p.name.startswith(path.name + store.SET_ASIDE_SUFFIX)]
    assert len(kept) == store.MAX_SET_ASIDE
    assert store.load(path).settings.theme == "dark"


def test_a_save_that_fails_says_why_in_the_persons_language_without_the_raw_error(path, monkeypatch):
    def read_only(*_args, **_kwargs):
        raise OSError(30, "Read-only file system", str(path.parent / ".settings.json.tmp"))
    from desktop import json_file          # the one writer of the settings (and of scenario files)
    monkeypatch.setattr(json_file.tempfile, "mkstemp", read_only)
    problem = store.save(Settings(), path)
    zh = problem.sentence(Language("zh"))
    assert "Errno" not in zh and "Read-only" not in zh and "只读" in zh, zh
    assert ".tmp" not in zh


def test_a_gpu_a_user_catalogue_lacks_at_one_start_comes_back_at_the_next(path):
    """The catalogue is missing or half-written at one start: the saved GPU cannot be used then, but it is
    written back as it was (the person changed nothing), so the next start, with the catalogue whole again,
    shows it."""
    saved = {"gpu": "my-own-gpu", "model": "llama-3.1-8b", "batch": 8, "gpus": 1}
    path.write_text(json.dumps({"scenario": saved}), encoding="utf-8")
    loaded = store.load(path)
    assert loaded.settings.scenario.gpu == DEFAULT_SCENARIO.gpu
    assert store.save(loaded.settings, path) is None
    assert json.loads(path.read_text(encoding="utf-8"))["scenario"]["gpu"] == "my-own-gpu"
    changed = store.load(path).settings
    changed.scenario = dataclasses.replace(changed.scenario, batch=4)     # the person chose something else
    store.save(changed, path)
    assert json.loads(path.read_text(encoding="utf-8"))["scenario"]["gpu"] == DEFAULT_SCENARIO.gpu


@pytest.mark.parametrize("levels, too_deep", [(MAX_NESTING, False), (MAX_NESTING + 1, True)])
def test_how_deep_a_file_may_nest_does_not_depend_on_the_python(path, levels, too_deep):
    """Python 3.11's json.loads gives up at about 1,000 levels, 3.13's reads 5,000: the limit is the app's own."""
    path.write_text('{"theme": "dark", "x": ' + "[" * (levels - 1) + "]" * (levels - 1) + "}", encoding="utf-8")
    loaded = store.load(path)
    assert loaded.unreadable == too_deep
    assert loaded.reason == (("errors.settings.reason.too_deep", {}) if too_deep else None)
    assert loaded.settings.theme == (Settings().theme if too_deep else "dark")
