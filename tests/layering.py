"""One check for the layer rules: import every module of a package with some other packages made unimportable.

Runs in a fresh interpreter so that nothing an earlier test imported hides a
forbidden import. ``import_every_module(package, blocked, also=...)`` returns
the finished process; its stdout is the number of modules imported, and a
forbidden import makes it fail with "<package> must not import <name>".
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_PROGRAM = textwrap.dedent("""
    import importlib, pkgutil, sys

    PACKAGE, BLOCKED, SKIPPED, ALLOWED = {package!r}, {blocked!r}, {skipped!r}, {allowed!r}

    class Refuse:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED and name not in ALLOWED:
                raise ImportError(f"{{PACKAGE}} must not import {{name}}")
            return None

    sys.meta_path.insert(0, Refuse())
    package = importlib.import_module(PACKAGE)
    {also}
    names = sorted(m.name for m in pkgutil.walk_packages(package.__path__, PACKAGE + ".") if m.name not in SKIPPED)
    for name in names:
        importlib.import_module(name)
    leaked = [m for m in sys.modules if m.split(".")[0] in BLOCKED and m not in ALLOWED]
    assert not leaked, leaked
    print(len(names))
""")


def import_every_module(package: str, blocked: tuple[str, ...], skipped: tuple[str, ...] = (),
                        also: str = "", allowed: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """Import ``package`` and all its modules (but ``skipped``) with ``blocked`` packages refused, but for the
    modules named in ``allowed`` (whole names: "engine" allows the package alone, not its modules);
    ``also`` is one more statement run after the package import (to prove the guard refuses)."""
    source = _PROGRAM.format(package=package, blocked=blocked, skipped=skipped, also=also or "pass",
                             allowed=allowed)
    return subprocess.run([sys.executable, "-c", source], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
