"""The app's configuration folder: one answer for the catalogue file and the settings file.

``$XDG_CONFIG_HOME`` (or ``~/.config``) on Linux, ``%APPDATA%`` on Windows,
``~/Library/Application Support`` on macOS, each with ``inference-physics``
under it. ``INFERENCE_PHYSICS_CONFIG_DIR`` names another folder (tests use it
so that they never read or write a person's real files).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

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
