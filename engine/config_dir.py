"""The app's configuration folder: one answer for the catalogue file and the settings file; and its cache folder.

``$XDG_CONFIG_HOME`` (or ``~/.config``) on Linux, ``%APPDATA%`` on Windows,
``~/Library/Application Support`` on macOS, each with ``inference-physics``
under it. ``INFERENCE_PHYSICS_CONFIG_DIR`` names another folder (tests use it
so that they never read or write a person's real files). ``cache_dir`` is where
the app keeps what it can always make again from its own files
(``engine.parsed_toml``).

``read_regular_file`` is how the app reads its own small files (settings,
the user's catalogue, a text to tokenize): only a regular file, at most a
bounded number of bytes, never blocking on a FIFO, never reading /dev/zero
forever. Whatever it cannot read raises ``OSError`` (a subclass says why).
"""
from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path

from engine.units import format_count

CONFIG_DIR_VARIABLE = "INFERENCE_PHYSICS_CONFIG_DIR"
APP_FOLDER = "inference-physics"


def config_dir() -> Path:
    """The folder the app's own files live in (it need not exist yet)."""
    override = os.environ.get(CONFIG_DIR_VARIABLE)
    if override:
        return Path(override).expanduser()
    return _platform_config_base() / APP_FOLDER


def _platform_config_base() -> Path:
    if sys.platform == "win32":
        appdata = os.environ.get("APPDATA")
        return Path(appdata) if appdata else Path.home() / "AppData" / "Roaming"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support"
    xdg = os.environ.get("XDG_CONFIG_HOME")
    return Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".config"


def cache_dir() -> Path:
    """The folder for what the app can make again from its own files: ``cache`` inside
    ``INFERENCE_PHYSICS_CONFIG_DIR`` when that is set (so tests touch no real folder), else ``$XDG_CACHE_HOME``
    (or ``~/.cache``) on Linux, ``%LOCALAPPDATA%`` on Windows, ``~/Library/Caches`` on macOS, each with
    ``inference-physics`` under it. It need not exist yet."""
    override = os.environ.get(CONFIG_DIR_VARIABLE)
    if override:
        return Path(override).expanduser() / "cache"
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        base = Path(local) if local else Path.home() / "AppData" / "Local"
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / APP_FOLDER


def remove_left_behind(temporary: str | None) -> None:
    """Remove the temporary file an unfinished write left (None: there is none); one that is already gone or
    cannot be removed is no error: the write's own error, if any, is the one to report."""
    if temporary is None:
        return
    try:
        os.unlink(temporary)
    except OSError:
        pass


class NotRegularFile(OSError):
    """The path is a FIFO, a device, a socket...: nothing the app reads. ``kind`` says which, in words."""

    def __init__(self, path: object, kind: str):
        super().__init__(errno.EINVAL, f"it is {kind}, not a file", str(path))
        self.kind = kind


class FileTooBig(OSError):
    """The file holds more than the reader's limit; ``limit`` is that many bytes."""

    def __init__(self, path: object, limit: int):
        super().__init__(errno.EFBIG, f"it holds more than {format_count(limit)} bytes", str(path))
        self.limit = limit


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_regular_file(path: Path | str, limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Raises FileNotFoundError, IsADirectoryError, PermissionError (an unreadable
    file or folder), ``NotRegularFile`` (a FIFO is opened without blocking and
    refused), ``FileTooBig`` or another ``OSError``; never blocks, never reads more
    than ``limit + 1`` bytes.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    descriptor = os.open(path, flags)
    try:
        mode = os.fstat(descriptor).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(mode):
            raise NotRegularFile(path, _kind(mode))
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(descriptor, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(descriptor)
    if size > limit:
        raise FileTooBig(path, limit)
    return b"".join(chunks)
