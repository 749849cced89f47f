"""Bring a model into the user's catalogue from its Hugging Face ``config.json``, offline.

``import_model(config_path, catalog_path=None, model_id=None)`` reads the config
(``engine.hf_config``), counts the parameters from its shapes
(``engine.parameters``), checks the entry by the very rules the catalogue
loader applies (``engine.catalog_entries.build_model``) and appends it to the
user's catalogue file (``engine.catalog.user_catalog_path``: the file named by
``INFERENCE_PHYSICS_CATALOG``, else ``catalog.toml`` in the app's config folder).
The CLI (``python -m engine import-model``) and the app's File menu both call it.

The user's file is theirs:
- an entry they wrote is never rewritten: an id already in their file is
  refused (choose another with ``model_id``), and so is a built-in id, which an
  entry in their file would replace;
- the file keeps every byte it had; the new entry is appended after it (in
  its own line endings), and nothing is written unless the whole file, old and
  new together, still reads as a catalogue with the new entry in it;
- the write is atomic: the new file is written to a temporary file of its own
  beside the real one (a symbolic link is followed to it), flushed to disk,
  and renamed over it, so a crash or a full disk leaves the old file whole. If
  another program changed the file in the meantime, the import starts over
  from what is there now, a few times, and otherwise gives up without writing.

Every refusal is an ``InputError`` with one sentence (codes ``import.*`` in
``resources/text/errors.toml``).
"""
from __future__ import annotations

import json
import os
import tempfile
import tomllib
from dataclasses import field
from pathlib import Path

from engine.catalog import MAX_USER_CATALOG_BYTES, default_catalog, display_path, load_catalog, user_catalog_path
from engine.catalog_entries import MODEL_FIELDS, EntryError, build_model
from engine.catalog_types import Model, normalise_id
from engine.config_dir import read_regular_file, remove_left_behind
from engine.errors import refusal
from engine.frozen import frozen
from engine.hf_config import FAMILIES, model_fields
from engine.parameters import parameter_counts
from engine.units import format_parameters

MAX_CONFIG_BYTES = 1_000_000        # a config.json is a few kilobytes; a megabyte is not a config
WRITE_ATTEMPTS = 3                  # tries when another program keeps changing the file under us
NEW_FILE_HEADER = ("# Your own GPUs and models for Inference Physics: [gpus.<id>] and [models.<id>] tables,\n"
                   "# with the fields of resources/catalog/*.toml (see the README, \"The catalogue\").\n")


@frozen
class ImportedModel:
    """What an import added: the model as the catalogue now holds it, where, and the text appended."""
    model: Model
    catalog_path: Path
    entry_text: str
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One sentence saying what was added where."""
        active = (f", {format_parameters(self.model.published_active_parameters)} per token"
                  if self.model.published_active_parameters else "")
        return (f"Added model {self.model.id!r} ({self.model.name}, "
                f"{format_parameters(self.model.published_parameters)} parameters{active}) "
                f"to {display_path(self.catalog_path)}.")


def import_model(config_path: Path | str, catalog_path: Path | str | None = None,
                 model_id: str | None = None) -> ImportedModel:
    """Append the model that ``config_path`` describes to the user's catalogue (see the module docstring)."""
    config_path = Path(config_path)
    catalog_path = Path(catalog_path) if catalog_path is not None else user_catalog_path()
    shown = display_path(config_path)
    config = _read_config(config_path, shown)
    raw, family, notes = model_fields(config, shown)
    name = _model_name(config_path, config.get("_name_or_path"))
    entry_id = normalise_id(model_id if model_id is not None else name)
    if not entry_id:
        raise refusal("import.bad_id", {"got": model_id if model_id is not None else name})
    raw = _with_counts({"name": name, **raw}, entry_id, shown)
    raw["source"] = (f"imported by 'python -m engine import-model' from {shown} "
                     f"({FAMILIES[family]} config.json, model_type {family!r})")
    raw["sources"] = {"published_parameters": "counted by the engine from the config's shapes (engine.parameters); "
                                              "no model card was read"}
    if notes:
        raw["notes"] = " ".join(notes)
    if entry_id in load_catalog(user_file=None).models:
        raise refusal("import.id_builtin", {"got": entry_id})
    for _ in range(WRITE_ATTEMPTS):
        before = _read_catalog(catalog_path)
        text = _entry_text(entry_id, raw, crlf=b"\r\n" in before)
        model = _checked_addition(catalog_path, before, text, entry_id)
        if _replace_if_unchanged(catalog_path, before, _joined(before, text)):
            default_catalog.cache_clear()           # the next lookup in this process sees the new entry
            return ImportedModel(model=model, catalog_path=catalog_path, entry_text=text, notes=notes)
    raise refusal("import.catalog_unusable", {"catalog": display_path(catalog_path),
                                              "reason": "another program kept changing it; try again"})


def _read_config(path: Path, shown: str) -> object:
    try:
        data = read_regular_file(path, MAX_CONFIG_BYTES)
    except OSError as error:
        raise refusal("import.unreadable", {"file": shown, "reason": error.strerror or str(error)}) from None
    try:
        return json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise refusal("import.unreadable", {"file": shown, "reason": "it is not UTF-8 text"}) from None
    except json.JSONDecodeError as error:
        raise refusal("import.not_json", {"file": shown, "line": error.lineno, "column": error.colno}) from None
    except RecursionError:
        raise refusal("import.not_object", {"file": shown}) from None


def _model_name(config_path: Path, named: object) -> str:
    """The config's ``_name_or_path`` (its last part), else the file's name, else its folder's ("Qwen3-8B")."""
    for candidate in (named, config_path.stem if config_path.stem != "config" else None,
                      config_path.resolve().parent.name):
        if isinstance(candidate, str) and candidate.strip().strip("/"):
            return candidate.strip().rstrip("/").split("/")[-1]
    return ""


def _with_counts(raw: dict, entry_id: str, shown: str) -> dict:
    """``raw`` with the parameter counts of the model it describes (total; per token for MoE)."""
    try:
        counts = parameter_counts(build_model(entry_id, {**raw, "published_parameters": 1e9}, "import", "import"))
        raw = {**raw, "published_parameters": float(counts.total)}
        if raw.get("experts"):
            raw["published_active_parameters"] = float(counts.active)
        build_model(entry_id, raw, "import", "import")
    except EntryError as error:
        raise refusal("import.invalid", {"file": shown, "reason": str(error)}) from None
    return raw


def _read_catalog(path: Path) -> bytes:
    """The user's catalogue as it is now (empty if it does not exist yet)."""
    try:
        return read_regular_file(path, MAX_USER_CATALOG_BYTES)
    except FileNotFoundError:
        return b""
    except OSError as error:
        raise refusal("import.catalog_unusable", {"catalog": display_path(path),
                                                  "reason": error.strerror or str(error)}) from None


def _checked_addition(path: Path, before: bytes, text: str, entry_id: str) -> Model:
    """The new entry as the loader will read it from the joined file; a refusal if anything stands in the way."""
    shown = display_path(path)
    try:
        old = tomllib.loads(before.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as error:
        raise refusal("import.catalog_unusable", {"catalog": shown, "reason": f"it does not read as TOML ({error}); "
                                                  "fix it first"}) from None
    existing = old.get("models", {})
    if isinstance(existing, dict) and entry_id in {normalise_id(str(key)) for key in existing}:
        raise refusal("import.id_taken", {"catalog": shown, "got": entry_id})
    try:
        joined = tomllib.loads(_joined(before, text).decode("utf-8"))
        return build_model(entry_id, joined["models"][entry_id], str(path), shown)
    except (tomllib.TOMLDecodeError, KeyError, TypeError, EntryError) as error:
        raise refusal("import.catalog_unusable", {"catalog": shown, "reason": f"a [models] table cannot be added "
                                                  f"to it ({error})"}) from None


def _joined(before: bytes, text: str) -> bytes:
    """The old bytes unchanged, a blank line, the new entry (a new file starts with a short header)."""
    newline = b"\r\n" if b"\r\n" in before else b"\n"
    if not before.strip():
        head = before + NEW_FILE_HEADER.encode("utf-8").replace(b"\n", newline)
    else:
        head = before if before.endswith(b"\n") else before + newline
    return head + newline + text.encode("utf-8")


def _entry_text(entry_id: str, raw: dict, crlf: bool) -> str:
    """The entry as TOML: its fields in the catalogue's order, then its sources table."""
    lines = [f"[models.{_toml_string(entry_id)}]"]
    lines += [f"{name} = {_toml_value(raw[name])}" for name in MODEL_FIELDS if name in raw and name != "sources"]
    if raw.get("sources"):
        lines += ["", f"[models.{_toml_string(entry_id)}.sources]"]
        lines += [f"{name} = {_toml_string(text)}" for name, text in raw["sources"].items()]
    return ("\r\n" if crlf else "\n").join(lines) + ("\r\n" if crlf else "\n")


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return _toml_string(str(value))


def _toml_string(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, and DEL, which JSON leaves raw, is escaped too."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _replace_if_unchanged(path: Path, before: bytes, after: bytes) -> bool:
    """Write ``after`` in place of ``path`` atomically, unless it no longer holds ``before`` (then False)."""
    target = Path(os.path.realpath(path))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as error:
        raise refusal("import.catalog_unusable", {"catalog": display_path(path),
                                                  "reason": error.strerror or str(error)}) from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(after)
            handle.flush()
            os.fsync(handle.fileno())
        if target.exists():
            os.chmod(temporary, target.stat().st_mode & 0o7777)
        if _read_catalog(target) != before:
            return False
        os.replace(temporary, target)
        temporary = None
    except OSError as error:
        raise refusal("import.catalog_unusable", {"catalog": display_path(path),
                                                  "reason": error.strerror or str(error)}) from None
    finally:
        remove_left_behind(temporary)
    return True

