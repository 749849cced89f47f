"""Files that are not what they seem: the user's catalogue (and ``read_regular_file``) never hang or crash."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.catalog import MAX_USER_CATALOG_BYTES, load_catalog
from engine.config_dir import FileTooBig, NotRegularFile, read_regular_file

BUILT_IN = load_catalog(user_file=None)
posix_only = pytest.mark.skipif(os.name == "nt", reason="FIFOs and /dev/zero are POSIX")


def _folder(path: Path) -> None:
    path.mkdir()


def _fifo(path: Path) -> None:
    os.mkfifo(path)                       # nobody writes to it: a plain open() would wait forever


def _dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")          # endless bytes


def _nested(path: Path) -> None:
    path.write_text("a = " + "[" * 1000 + "]" * 1000 + "\n", encoding="utf-8")


def _too_big(path: Path) -> None:
    path.write_bytes(b"# padding\n" * (MAX_USER_CATALOG_BYTES // 10 + 1))


def _not_utf8(path: Path) -> None:
    path.write_bytes(b"[gpus.x]\nname = \"\xff\"\n")


@posix_only
@pytest.mark.parametrize("make", [_folder, _fifo, _dev_zero, _nested, _too_big, _not_utf8])
def test_a_catalogue_that_is_no_usable_file_gives_one_line_and_the_built_ins_load(tmp_path, make):
    path = tmp_path / "catalog.toml"
    make(path)
    catalog = load_catalog(user_file=path)
    [warning] = catalog.warnings
    assert "this file cannot be used" in warning and "\n" not in warning and len(warning) < 300
    assert catalog.gpus.keys() == BUILT_IN.gpus.keys() and catalog.models.keys() == BUILT_IN.models.keys()


@posix_only
def test_an_unreadable_catalogue_folder_gives_one_line(tmp_path, monkeypatch):
    def refuse(path, limit):
        raise PermissionError(13, "Permission denied", str(path))
    monkeypatch.setattr("engine.catalog.read_regular_file", refuse)
    [warning] = load_catalog(user_file=tmp_path / "locked" / "catalog.toml").warnings
    assert "this file cannot be used (Permission denied)" in warning


@posix_only
def test_read_regular_file_reads_only_regular_files_of_bounded_size(tmp_path):
    good = tmp_path / "good.txt"
    good.write_bytes(b"12345")
    assert read_regular_file(good, 5) == b"12345"
    with pytest.raises(FileTooBig):
        read_regular_file(good, 4)
    with pytest.raises(NotRegularFile) as caught:
        read_regular_file("/dev/zero", 1000)
    assert caught.value.kind == "a device"
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(NotRegularFile) as caught:
        read_regular_file(tmp_path / "pipe", 1000)
    assert "pipe" in caught.value.kind
    with pytest.raises(IsADirectoryError):
        read_regular_file(tmp_path, 1000)
    with pytest.raises(FileNotFoundError):
        read_regular_file(tmp_path / "absent", 1000)
