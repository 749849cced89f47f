"""The engine's refusals, and files that cannot be written, in the app's language.

``engine.errors.InputError`` keeps its English sentence for the CLI and also
carries a ``code`` and the raw ``values``. Here a known code becomes the text
``errors.<code>`` of ``resources/text/errors.toml`` with the values formatted
for display (numbers by ``engine.units``); an error without a known code, or
whose values do not fit its text, is shown as the engine's own sentence.

``write_problem`` turns an ``OSError`` from writing a file or folder (or a
write that failed without one, as Qt's image writer does) into one sentence
saying why: the place is a file, a folder, not permitted, read-only, missing,
or the disk is full.
"""
from __future__ import annotations

import errno
import math
import os
from dataclasses import dataclass, field
from numbers import Integral, Real
from pathlib import Path

from desktop.i18n import Language
from engine.errors import InputError
from engine.units import format_count


QUOTED = frozenset({"got", "example"})    # values that are what someone typed: shown in quotes, as given
ALTERNATIVES = frozenset({"counts"})      # lists of which any one is allowed: "1, 2 or 4"


def shown_value(value, quoted: bool = False) -> str:
    """A raw value as a sentence shows it: 4096 -> "4,096", 10000.0 -> "10,000", "x" -> 'x' (``quoted``) or x.

    Whole numbers go through ``engine.units.format_count``; any other number is one
    someone typed (a price of 2.555, a count of 2.5) and is shown exactly as given.
    """
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, Integral):
        return format_count(value)
    if isinstance(value, Real) and math.isfinite(value):
        return format_count(value) if float(value).is_integer() else repr(float(value))
    if isinstance(value, str):
        return repr(value) if quoted else value
    if isinstance(value, (list, tuple)):
        return ", ".join(shown_value(item) for item in value)
    return repr(value)


def alternatives_text(language: Language, items) -> str:
    """``items`` as a list of alternatives in ``language``: (1, 2, 4) -> "1, 2 or 4" / "1、2或 4"."""
    shown = [shown_value(item) for item in items]
    if len(shown) < 2:
        return "".join(shown)
    rest = language.text("errors.list.separator").join(shown[:-1])
    return language.text("errors.list.or", rest=rest, last=shown[-1])


def _values_for(language: Language, code: str, values: dict) -> dict[str, str]:
    text = {name: shown_value(value, name in QUOTED) for name, value in values.items()}
    for name in ALTERNATIVES & values.keys():
        text[name] = alternatives_text(language, values[name])
    if "field" in values:
        text["field"] = language.text(f"errors.field.{values['field']}")
    if code.startswith("catalog."):
        text["kind"] = language.text(f"errors.kind.{str(values.get('kind', '')).lower()}")
        close = values.get("close") or []
        text["close"] = language.text("errors.catalog.close", names=", ".join(close)) if close else ""
    return text


def error_text(language: Language, error: InputError) -> str:
    """``error`` as one sentence in ``language``; the engine's sentence where there is no translation."""
    code = getattr(error, "code", None)
    if not code:
        return str(error)
    try:
        return language.text(f"errors.{code}", **_values_for(language, code, error.values))
    except (KeyError, IndexError, ValueError):
        return str(error)


# errno -> the text in errors.toml [write] that says why, for the errors whose cause the number alone tells
_WRITE_ERRNO = {errno.EACCES: "no_permission", errno.EPERM: "no_permission", errno.EROFS: "read_only",
                errno.ENOSPC: "disk_full", errno.EISDIR: "is_folder", errno.ENOENT: "no_folder"}
if hasattr(errno, "EDQUOT"):
    _WRITE_ERRNO[errno.EDQUOT] = "disk_full"
_MACHINE_PROBLEMS = frozenset({"disk_full", "other"})    # not the path's fault: a different path may not help


@dataclass(frozen=True)
class WriteProblem:
    """Why a path could not be written: the text ``errors.write.<reason>`` and its values."""

    reason: str
    values: dict = field(default_factory=dict)

    @property
    def bad_path(self) -> bool:
        """The path named is no place to write (a file, a folder, no permission...): the caller should pick another."""
        return self.reason not in _MACHINE_PROBLEMS

    def sentence(self, language: Language) -> str:
        return language.text(f"errors.write.{self.reason}", **self.values)


def _file_in_the_way(path: Path) -> Path | None:
    """The nearest of ``path``'s parents (not ``path`` itself) that exists, if it is not a folder."""
    for parent in path.parents:
        if parent.exists():
            return None if parent.is_dir() else parent
    return None


def _disk_is_full(folder: Path) -> bool:
    try:
        return os.statvfs(folder).f_bavail == 0
    except (OSError, AttributeError):         # no such folder, or no statvfs (Windows)
        return False


def _reason_on_disk(target: Path, is_folder: bool) -> str | None:
    """Why ``target`` (a file, or with ``is_folder`` a folder to write into) cannot be written, seen from the disk."""
    if is_folder and target.exists() and not target.is_dir():
        return "is_file"
    if not is_folder and target.is_dir():
        return "is_folder"
    folder = target if is_folder and target.is_dir() else target.parent
    if not folder.is_dir():
        return "no_folder"
    if not os.access(folder, os.W_OK):
        return "no_permission"
    if _disk_is_full(folder):
        return "disk_full"
    return None


def write_problem(error: OSError | None, path: Path | str, is_folder: bool = False) -> WriteProblem:
    """Why writing ``path`` failed: a file, or with ``is_folder`` a folder to create and write into.

    ``error`` is what the write raised (its errno and file name are used where
    they tell the cause) or None where the writer gave no reason; then the
    path and its parents are looked at on the disk.
    """
    path = Path(path)
    named = Path(os.fsdecode(error.filename)) if error is not None and error.filename else None
    target = named or path
    values = {"path": str(target), "folder": str(target.parent)}
    number = getattr(error, "errno", None)
    reason = _WRITE_ERRNO.get(number)
    if reason in (None, "no_folder") and (blocker := _file_in_the_way(target)) is not None:
        return WriteProblem("file_in_the_way", {**values, "blocker": str(blocker)})
    if reason is None and number in (errno.EEXIST, errno.ENOTDIR) and target.exists() and not target.is_dir():
        reason = "is_file"               # a folder was to be made where a file is
    if reason is None:
        reason = _reason_on_disk(target, is_folder=is_folder and (named is None or named == path))
    if reason is None:
        return WriteProblem("other", {**values, "reason": os.strerror(number) if number else str(error or "?")})
    return WriteProblem(reason, values)
