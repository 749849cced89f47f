"""PySide's import hook told beforehand what it would find in the app's modules, so that it reads none of them.

Once PySide6 is loaded, its import hook (there for ``from __feature__ import
snake_case``) looks at each module the first time an import statement names it:
it reads the module's whole source (``inspect.getsource``) for the word
"PySide" and keeps the answer in ``pyside_feature_dict``, by module name (0: it
uses PySide, with no feature selected; -1: it does not). A start named some 120
modules after PySide had loaded, the standard library's among them, and reading
them took 12-16 ms, 4-5% of the start. The answers are known without reading:
the app's Qt layers (desktop/, widgets/) use PySide, and what was loaded before
PySide (the engine, which never imports Qt, and the standard library) does not;
and no module of the app selects a feature (tests/desktop/test_feature_checks.py),
so 0 and -1 select the same, none. PySide's own modules are left to it.
Where PySide keeps no such table (another version), nothing is done.
"""
from __future__ import annotations

import os
import sys

QT_LAYERS = ("desktop", "widgets")
PYSIDE_PACKAGES = ("PySide6", "shiboken6", "shibokensupport", "signature_bootstrap")


def answer_feature_checks() -> None:
    """Fill PySide's table of modules checked for features with the app's modules (those of ``QT_LAYERS``, found
    on disk) and every module loaded so far. Call once PySide6 is loaded; an answer already there is kept."""
    try:
        from PySide6.support import feature
        answers = feature.pyside_feature_dict
    except (ImportError, AttributeError):
        return
    if not isinstance(answers, dict):
        return
    for name in list(sys.modules):
        if name.partition(".")[0] not in PYSIDE_PACKAGES:
            answers.setdefault(name, 0 if name.partition(".")[0] in QT_LAYERS else -1)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for layer in QT_LAYERS:
        for name in _module_names(os.path.join(root, layer), layer):
            answers.setdefault(name, 0)


def _module_names(folder: str, package: str):
    """The names of the package at ``folder`` and of every module and package inside it."""
    yield package
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir() and os.path.isfile(os.path.join(entry.path, "__init__.py")):
                yield from _module_names(entry.path, f"{package}.{entry.name}")
            elif entry.name.endswith(".py") and entry.name != "__init__.py":
                yield f"{package}.{entry.name[:-3]}"
