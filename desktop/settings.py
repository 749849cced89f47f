"""The one settings store: a small JSON file in the user's configuration folder.

What is remembered: language, theme, last scene, whether the presenter clock,
the scene list and the side panel show, the window geometry and the scenario. A file that cannot be read, or a
value that makes no sense (wrong type, out of range, a GPU the catalogue does
not know), is replaced by its default and reported in one line; starting never
fails because of this file.

The file lives in ``engine.config_dir.config_dir()``, beside the user's catalogue.
Tests point both at a temporary folder with ``INFERENCE_PHYSICS_CONFIG_DIR``
(``tests/conftest.py`` does it for every test) so they never touch real files.
"""
from __future__ import annotations

import base64
import binascii
import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from engine import InputError, Scenario, compute_report
from engine.config_dir import config_dir
from widgets.theme import DEFAULT_THEME, THEMES
from desktop.i18n import LANGUAGES

FILE_NAME = "settings.json"
SCENE_NUMBERS = range(1, 8)


@dataclass
class Settings:
    language: str | None = None      # None: follow the system locale
    theme: str = DEFAULT_THEME
    last_scene: int = 1              # DESIGN.md number of the scene shown last
    clock_visible: bool = True
    scene_list_visible: bool = True  # False: the compact scene picker even in a wide window
    side_panel_visible: bool = True
    geometry: str = ""               # QMainWindow.saveGeometry(), base64
    scenario: Scenario = field(default_factory=Scenario)


@dataclass
class Loaded:
    settings: Settings
    path: Path
    unreadable: bool = False                              # the whole file was replaced by defaults
    reset_fields: list[str] = field(default_factory=list)  # single values replaced by defaults

    @property
    def clean(self) -> bool:
        return not self.unreadable and not self.reset_fields


def settings_path() -> Path:
    return config_dir() / FILE_NAME


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _valid_geometry(value) -> bool:
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, TypeError, ValueError):
        return False
    return isinstance(value, str)


_CHECKS = {
    "language": lambda v: v is None or v in LANGUAGES,
    "theme": lambda v: isinstance(v, str) and v in THEMES,
    "last_scene": lambda v: _is_int(v) and v in SCENE_NUMBERS,
    "clock_visible": lambda v: isinstance(v, bool),
    "scene_list_visible": lambda v: isinstance(v, bool),
    "side_panel_visible": lambda v: isinstance(v, bool),
    "geometry": _valid_geometry,
}


def _scenario_from(raw) -> Scenario | None:
    """A valid Scenario from the file's dict, or None when anything in it is nonsense."""
    if not isinstance(raw, dict):
        return None
    default = Scenario()
    values = {}
    for spec in fields(Scenario):
        value = raw.get(spec.name, getattr(default, spec.name))
        expected = type(getattr(default, spec.name))
        if expected is float and _is_int(value):
            value = float(value)
        if type(value) is not expected:
            return None
        values[spec.name] = value
    scenario = Scenario(**values)
    try:
        compute_report(scenario)
    except InputError:
        return None
    return scenario


def load(path: Path | None = None) -> Loaded:
    """The saved settings, every unusable value replaced by its default."""
    path = path or settings_path()
    loaded = Loaded(Settings(), path)
    if not path.exists():
        return loaded
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        loaded.unreadable = True
        return loaded
    if not isinstance(raw, dict):
        loaded.unreadable = True
        return loaded
    for name, check in _CHECKS.items():
        if name in raw:
            if check(raw[name]):
                setattr(loaded.settings, name, raw[name])
            else:
                loaded.reset_fields.append(name)
    if "scenario" in raw:
        scenario = _scenario_from(raw["scenario"])
        if scenario is None:
            loaded.reset_fields.append("scenario")
        else:
            loaded.settings.scenario = scenario
    return loaded


def save(settings: Settings, path: Path | None = None) -> str | None:
    """Write ``settings``; returns the OS's complaint instead of raising when it cannot."""
    path = path or settings_path()
    data = asdict(settings)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
        os.replace(temporary, path)   # never leave a half-written file behind
    except OSError as problem:
        return str(problem)
    return None
