"""A broken user catalogue is explained: warnings on stderr before the result, and a skipped id says why."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import InputError
from engine.catalog import catalog_as_text, load_catalog
from engine.cli import main
from tests.engine.test_catalog_user_file import GOOD_GPU, GOOD_MODEL, home_elsewhere, write  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
BROKEN_GPU = GOOD_GPU.replace("memory_bytes = 32e9", "memory_bytes = -5")
REASON = "field memory_bytes must be a positive number, got -5"


def broken_catalog(tmp_path):
    path = write(tmp_path, BROKEN_GPU + GOOD_MODEL)
    return path, load_catalog(user_file=path)


def test_an_id_the_user_file_tried_to_define_says_it_was_skipped_and_why(tmp_path):
    path, catalog = broken_catalog(tmp_path)
    with pytest.raises(InputError) as caught:
        catalog.gpu("MyGPU")
    error = caught.value
    assert str(error) == f"GPU 'MyGPU' in {path} was skipped: {REASON}."
    assert error.code == "catalog.skipped"
    assert (error.values["kind"], error.values["got"], error.values["file"], error.values["reason"]) == (
        "GPU", "MyGPU", str(path), REASON)
    with pytest.raises(InputError, match="Unknown GPU 'othergpu'"):   # an id the file never named: as before
        catalog.gpu("othergpu")


def test_a_broken_override_of_a_builtin_id_leaves_the_builtin_entry(tmp_path):
    catalog = load_catalog(user_file=write(tmp_path, BROKEN_GPU.replace("gpus.mygpu", "gpus.h800")))
    assert catalog.gpu("h800").memory_bytes == 80e9 and len(catalog.warnings) == 1


def test_a_broken_entry_followed_by_a_good_one_of_the_same_id_is_found(tmp_path):
    text = BROKEN_GPU.replace("gpus.mygpu", "gpus.MyGPU") + GOOD_GPU
    catalog = load_catalog(user_file=write(tmp_path, text))
    assert catalog.gpu("mygpu").memory_bytes == 32e9


def test_report_prints_the_warnings_then_the_reason_the_gpu_is_missing(tmp_path, capsys):
    path, catalog = broken_catalog(tmp_path)
    assert main(["report", "--gpu", "mygpu"], catalog=catalog) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [catalog.warnings[0], f"GPU 'mygpu' in {path} was skipped: {REASON}."]


@pytest.mark.parametrize("args", [["report", "--json"], ["report"], ["catalog"], ["catalog", "--json"],
                                  ["tokens", "--tokenizer", "qwen2.5", "hello"], ["tokens", "--list"]])
def test_every_command_prints_the_warnings_on_stderr_one_line_each_before_its_result(tmp_path, capsys, args):
    text = BROKEN_GPU + GOOD_MODEL.replace("layers = 2", "layers = 0") + "[oddities]\nx = 1\n"
    catalog = load_catalog(user_file=write(tmp_path, text))
    assert len(catalog.warnings) == 3
    assert main(args, catalog=catalog) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == catalog.warnings
    if args == ["catalog", "--json"]:
        assert json.loads(captured.out)["warnings"] == catalog.warnings     # the data keeps them too
    else:
        assert captured.out and "entry skipped" not in captured.out


def test_a_good_catalogue_prints_nothing_on_stderr(capsys):
    assert main(["report"], catalog=load_catalog()) == 0
    assert capsys.readouterr().err == ""


def test_the_text_listing_leaves_the_warnings_to_stderr(tmp_path):
    _, catalog = broken_catalog(tmp_path)
    assert "entry skipped" not in catalog_as_text(catalog)


def test_a_real_process_reads_the_users_file_and_explains_the_unknown_gpu(tmp_path):
    path = write(tmp_path, BROKEN_GPU)
    env = {**os.environ, "INFERENCE_PHYSICS_CATALOG": str(path), "HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-m", "engine", "report", "--gpu", "mygpu"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [f"{path}: GPU 'mygpu': {REASON}; entry skipped.",
                                        f"GPU 'mygpu' in {path} was skipped: {REASON}."]


def test_the_warnings_come_before_the_listing_in_one_stream(tmp_path):
    path = write(tmp_path, BROKEN_GPU)
    env = {**os.environ, "INFERENCE_PHYSICS_CATALOG": str(path), "HOME": str(tmp_path / "home"),
           "PYTHONUNBUFFERED": "1"}
    done = subprocess.run([sys.executable, "-m", "engine", "tokens", "--tokenizer", "qwen2.5", "hello"], cwd=ROOT,
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
    assert done.returncode == 0
    assert done.stdout.splitlines()[0] == f"{path}: GPU 'mygpu': {REASON}; entry skipped."
    assert done.stdout.splitlines()[1].startswith("1 token")
