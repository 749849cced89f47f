"""The one settings store: a small JSON file in the user's configuration folder.

What is remembered: language, theme, last scene, whether the talk's elapsed
time shows on the stage (``stage_clock_visible``, off by default: the speaker
view shows it; the first versions' ``clock_visible``, on by default, is not
read), the size of the speaker notes, whether the scene list and the side panel show, the window geometry and the scenario.
Starting never fails because of this file, and nothing in it is lost:

- A file that cannot be used (unreadable, not a regular file, larger than
  ``MAX_FILE_BYTES``, not JSON, nested too deeply, no table of settings) is
  set aside as ``settings.json.bad`` and the app starts with its defaults;
  where it cannot be moved it is left untouched, and ``save`` then refuses to
  write over it. ``Loaded.notes`` says which, in one line.
- A value that makes no sense (wrong type, out of range) is replaced by its
  default, and only that value: a scenario whose GPU is no longer in the
  catalogue keeps its model, batch and lengths, and the note names the field
  and the engine's reason.

The file lives in ``engine.config_dir.config_dir()``, beside the user's catalogue.
Tests point both at a temporary folder with ``INFERENCE_PHYSICS_CONFIG_DIR``
(``tests/conftest.py`` does it for every test) so they never touch real files.
"""
from __future__ import annotations

import base64
import binascii
import os
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from engine import InputError, Scenario, compute_report
from engine.config_dir import config_dir
from engine.errors import shown_value
from engine.frozen import frozen
from widgets.theme import DEFAULT_THEME, THEMES
from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.json_file import read_json_table, write_json_table
from desktop.scenes.registry import FIRST_VERSION_NUMBERS, SCENES
from desktop.i18n import LANGUAGES, Language

FILE_NAME = "settings.json"
SET_ASIDE_SUFFIX = ".bad"
MAX_SET_ASIDE = 5                   # set-aside files kept; the oldest goes when another one comes
SPEAKER_NOTES_PT_RANGE = (10, 40)   # the speaker notes' sizes, smallest to largest (A− / A+)
MAX_FILE_BYTES = 1_000_000          # a settings file is a few hundred bytes; a geometry a few hundred more
_KEPT: set[Path] = set()            # files that could not be read nor set aside: never written over


@dataclass
class Settings:
    language: str | None = None      # None: follow the system locale
    theme: str = DEFAULT_THEME
    last_scene: str = SCENES[0]      # the key of the scene shown last
    stage_clock_visible: bool = False    # T: the talk's elapsed time on the audience's stage too
    speaker_notes_pt: int = 18          # the speaker view's notes (A+ / A−)
    speaker_next_shown: bool = True     # False: the next build's picture folded away, the notes take its room
    scene_list_visible: bool = True  # False: the compact scene picker even in a wide window
    side_panel_visible: bool = True
    geometry: str = ""               # QMainWindow.saveGeometry(), base64
    scenario: Scenario = DEFAULT_SCENARIO
    # Not a setting of its own: the saved scenario as it was, when this start could not honour a choice in it
    # (a GPU or model of a user catalogue that is missing or half-written just now). It is written back
    # unchanged unless the person chose another scenario, so the choice survives to the next start.
    kept_scenario: dict | None = field(default=None, compare=False, repr=False)
    started_with: Scenario | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict:
        """What the file holds: every setting; the kept scenario in place of the one used, if nothing changed."""
        data = asdict(self)
        kept, started = data.pop("kept_scenario"), data.pop("started_with")
        if kept is not None and started is not None and self.scenario == self.started_with:
            data["scenario"] = kept
        return data


@dataclass
class Loaded:
    settings: Settings
    path: Path
    unreadable: bool = False                              # the whole file could not be used
    reason: tuple[str, dict] | None = None                # why: (text key, values)
    set_aside: Path | None = None                         # where the unusable file was moved, if it was
    reset_fields: list[str] = field(default_factory=list)  # single values replaced by defaults
    reasons: dict[str, InputError] = field(default_factory=dict)      # field -> the engine's refusal
    saved_values: dict[str, str] = field(default_factory=dict)       # field -> its nonsense, as shown

    @property
    def clean(self) -> bool:
        return not self.unreadable and not self.reset_fields

    def notes(self, language: Language) -> list[str]:
        """At most one line saying what happened to the file, in ``language``."""
        text = language.text
        if self.unreadable:
            key, values = self.reason or ("errors.settings.reason.not_json", {})
            reason = text(key, **values)
            from desktop.error_text import shown_path
            if self.set_aside is not None:
                return [text("errors.settings.set_aside", path=shown_path(self.path), reason=reason,
                             kept=shown_path(self.set_aside))]
            return [text("errors.settings.kept", path=shown_path(self.path), reason=reason)]
        if not self.reset_fields:
            return []
        from desktop.error_text import error_text
        groups: dict[str, list[str]] = {}          # reason -> the fields it reset, in order (lengths share one)
        for name in self.reset_fields:
            error = self.reasons.get(name)
            reason = error_text(language, error) if error is not None else text(
                "errors.settings.not_allowed", value=self.saved_values.get(name, "?"))
            groups.setdefault(reason.rstrip("。."), []).append(name)
        parts = [text("errors.settings.field", name=", ".join(names), reason=reason) for reason, names in groups.items()]
        return [text("errors.settings.reset", fields=text("errors.settings.separator").join(parts))]


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
    "stage_clock_visible": lambda v: isinstance(v, bool),
    "speaker_notes_pt": lambda v: _is_int(v) and SPEAKER_NOTES_PT_RANGE[0] <= v <= SPEAKER_NOTES_PT_RANGE[1],
    "speaker_next_shown": lambda v: isinstance(v, bool),
    "scene_list_visible": lambda v: isinstance(v, bool),
    "side_panel_visible": lambda v: isinstance(v, bool),
    "geometry": _valid_geometry,
}


def _scene_key(value) -> str | None:
    """The key of the last scene: a key as saved (kept even when this version does not have that scene, so a
    later one still finds it), or a number saved by the first version, read as the key it meant then."""
    if isinstance(value, str) and value.isidentifier() and len(value) <= 100:
        return value
    if _is_int(value):
        return FIRST_VERSION_NUMBERS.get(value)
    return None


# Refusals that depend on what the catalogue holds now, not on the saved value itself: a choice refused for
# one of these is kept in the file for a later start whose catalogue has it again.
CATALOGUE_REFUSALS = ("catalog.",)


def _scenario_from(raw, loaded: Loaded) -> Scenario:
    """The saved scenario, each field that is nonsense or that the engine refuses replaced by its default."""
    scenario = _checked_scenario(raw, loaded)
    if any(str(getattr(error, "code", "")).startswith(CATALOGUE_REFUSALS) for error in loaded.reasons.values()):
        loaded.settings.kept_scenario = dict(raw)
        loaded.settings.started_with = scenario
    return scenario


def _checked_scenario(raw, loaded: Loaded) -> Scenario:
    default = DEFAULT_SCENARIO
    if not isinstance(raw, dict):
        _reset(loaded, "scenario", raw)
        return default
    values = {}
    for spec in fields(Scenario):
        value = raw.get(spec.name, getattr(default, spec.name))
        expected = type(getattr(default, spec.name))
        if expected is float and _is_int(value):
            value = float(value)
        if type(value) is not expected:
            _reset(loaded, f"scenario.{spec.name}", value)
            value = getattr(default, spec.name)
        values[spec.name] = value
    scenario = Scenario(**values)
    for _ in range(len(values) + 1):         # each round resets at least one field, or ends
        try:
            compute_report(scenario)
            return scenario
        except InputError as error:
            names = _fields_of(error, scenario)
            if not names or all(getattr(scenario, name) == getattr(default, name) for name in names):
                break
            for name in names:
                loaded.reset_fields.append(f"scenario.{name}")
                loaded.reasons[f"scenario.{name}"] = error
            scenario = replace(scenario, **{name: getattr(default, name) for name in names})
    _reset(loaded, "scenario", raw)
    return default


def _fields_of(error: InputError, scenario: Scenario) -> tuple[str, ...]:
    """The scenario fields an engine refusal is about."""
    code, values = error.code or "", error.values
    if "field" in values and hasattr(scenario, str(values["field"])):
        return (str(values["field"]),)
    if code.startswith("catalog."):
        kind = str(values.get("kind", "")).lower()
        if kind == "precision":
            return ("weights",) if values.get("got") == scenario.weights else ("kv",)
        return (kind,) if kind in ("gpu", "model") else ()
    if code.startswith("layout."):         # GPUs the layout cannot share the model over: the count and its degrees
        return ("gpus",) + tuple(name for name in ("tp", "pp", "ep") if getattr(scenario, name))
    return {"scenario.context": ("prompt_tokens", "output_tokens"), "model.context": ("prompt_tokens", "output_tokens"),
            "scenario.price": ("usd_per_gpu_hour",), "scenario.mode": ("mode",)}.get(
        code, ("gpus",) if code.startswith("parallel.") else ())


def _reset(loaded: Loaded, name: str, value) -> None:
    loaded.reset_fields.append(name)
    loaded.saved_values[name] = shown_value(value, quoted=True)


def _read(path: Path) -> tuple[dict | None, tuple[str, dict] | None]:
    """The file's table of settings, or None and why it cannot be used; (None, None): no file."""
    return read_json_table(path, MAX_FILE_BYTES)




def _set_aside(path: Path) -> Path | None:
    """Move the unusable file to settings.json.bad (settings.json.bad-2... where that is taken: an older
    set-aside file is kept too); None where it cannot be moved."""
    names = [path.name + SET_ASIDE_SUFFIX] + [f"{path.name}{SET_ASIDE_SUFFIX}-{n}"
                                              for n in range(2, MAX_SET_ASIDE + 2)]
    present = [path.with_name(name) for name in names if os.path.lexists(path.with_name(name))]
    present.sort(key=_modified)
    while len(present) >= MAX_SET_ASIDE:             # bounded: the oldest set-aside file makes room
        try:
            present.pop(0).unlink()
        except OSError:
            break
    target = next((path.with_name(name) for name in names if not os.path.lexists(path.with_name(name))), None)
    if target is None:
        return None
    try:
        os.replace(path, target)
    except OSError:
        return None
    return target


def _modified(path: Path) -> float:
    try:
        return path.lstat().st_mtime
    except OSError:
        return 0.0


def load(path: Path | None = None) -> Loaded:
    """The saved settings, every unusable value replaced by its default; never raises."""
    path = path or settings_path()
    loaded = Loaded(Settings(), path)
    raw, reason = _read(path)
    if reason is not None:
        loaded.unreadable, loaded.reason = True, reason
        loaded.set_aside = _set_aside(path)
        if loaded.set_aside is None:
            _KEPT.add(path)
        return loaded
    if raw is None:
        return loaded
    for name, check in _CHECKS.items():
        if name in raw:
            if check(raw[name]):
                setattr(loaded.settings, name, raw[name])
            else:
                _reset(loaded, name, raw[name])
    if "last_scene" in raw:
        key = _scene_key(raw["last_scene"])
        if key is None:
            _reset(loaded, "last_scene", raw["last_scene"])
        else:
            loaded.settings.last_scene = key
    if "scenario" in raw:
        loaded.settings.scenario = _scenario_from(raw["scenario"], loaded)
    return loaded


@frozen
class KeptFile:
    """The settings were not saved because the file could not be read at start-up and is left as it was."""

    def sentence(self, language: Language) -> str:
        return language.text("errors.settings.not_saved")


def save(settings: Settings, path: Path | None = None):
    """Write ``settings``; returns why not (``.sentence(language)``) instead of raising when it cannot.

    Each writer writes its own temporary file beside the settings and renames it over them when complete,
    so two instances quitting together leave one whole file (the last one's), never a mixture or an error.
    A file that could not be read at start-up and could not be set aside is never written over.
    """
    from desktop.error_text import write_problem
    path = path or settings_path()
    if path in _KEPT:
        return KeptFile()
    try:
        write_json_table(path, settings.to_json())
    except OSError as problem:
        return write_problem(problem, path)
    return None
