"""The engine's refusals, and files that cannot be written, in the app's language.

``engine.errors.InputError`` keeps its English sentence for the CLI and also
carries a ``code`` and the raw ``values``. Here a known code becomes the text
``errors.<code>`` of ``resources/text/errors.toml`` with the values formatted
for display by ``engine.errors.display_values`` (numbers by ``engine.units``); an error without a known code, or
whose values do not fit its text, is shown as the engine's own sentence.

``write_problem`` turns an ``OSError`` from writing a file or folder (or a
write that failed without one, as Qt's image writer does) into one sentence
saying why: the place is a file, a folder, not permitted, read-only, missing,
or the disk is full.
"""
from __future__ import annotations

import errno
import os
from dataclasses import field
from pathlib import Path

from desktop.i18n import Language
from engine.errors import InputError, alternatives, display_values
from engine.frozen import frozen


def alternatives_text(language: Language, items) -> str:
    """``items`` as a list of alternatives in ``language``: (1, 2, 4) -> "1, 2 or 4" / "1、2或 4"."""
    return alternatives(language.text, items)


def error_text(language: Language, error: InputError) -> str:
    """``error`` as one sentence in ``language``; the engine's sentence where there is no translation.

    The English text of a known code is the very template the engine wrote its sentence from
    (``engine.errors.refusal``), so both say the same.
    """
    code = getattr(error, "code", None)
    if not code:
        return str(error)
    try:
        return language.text(f"errors.{code}", **display_values(code, error.values, language.text))
    except (KeyError, IndexError, ValueError):
        return str(error)


# errno -> the text in errors.toml [write] that says why, for the errors whose cause the number alone tells
_WRITE_ERRNO = {errno.EACCES: "no_permission", errno.EPERM: "no_permission", errno.EROFS: "read_only",
                errno.ENOSPC: "disk_full", errno.EISDIR: "is_folder", errno.ENOENT: "no_folder"}
if hasattr(errno, "EDQUOT"):
    _WRITE_ERRNO[errno.EDQUOT] = "disk_full"
_MACHINE_PROBLEMS = frozenset({"disk_full", "other"})    # not the path's fault: a different path may not help


@frozen
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


def shown_path(path: Path | str) -> str:
    """``path`` as a sentence shows it: bytes that are not UTF-8 (a name typed in another encoding)
    as \\xNN escapes, never as the surrogates Python keeps them in; bounded in length."""
    text = os.fsencode(path).decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


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
    values = {"path": shown_path(target), "folder": shown_path(target.parent)}
    number = getattr(error, "errno", None)
    reason = _WRITE_ERRNO.get(number)
    if reason in (None, "no_folder") and (blocker := _file_in_the_way(target)) is not None:
        return WriteProblem("file_in_the_way", {**values, "blocker": shown_path(blocker)})
    if reason is None and number in (errno.EEXIST, errno.ENOTDIR) and target.exists() and not target.is_dir():
        reason = "is_file"               # a folder was to be made where a file is
    if reason == "no_folder" and target.parent.is_dir():
        reason = "cannot_create"         # the folder is there (/proc/sys) but takes no new entry
    if reason is None:
        reason = _reason_on_disk(target, is_folder=is_folder and (named is None or named == path))
    if reason is None:
        return WriteProblem("other", {**values, "reason": os.strerror(number) if number else str(error or "?")})
    return WriteProblem(reason, values)
