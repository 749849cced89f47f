"""The offline bundle, built once per test session, and a way to run it as a bare laptop would.

The tests marked ``bundle`` build the bundle with PyInstaller (minutes of CPU), so
they run only when asked for: ``python -m pytest -m bundle tests/bundle`` (``.ci/run``
does so where PyInstaller is installed). ``INFERENCE_PHYSICS_BUNDLE=DIR`` tests an
already built folder instead of building one.

``run_bundled`` starts a bundled executable with no Python on PATH, no PYTHONPATH or
PYTHONHOME, an empty home and settings folder, and, where the machine allows it
(Linux, root, ``unshare``), in its own network namespace with no network and with
this Python installation hidden under an empty tmpfs, so that nothing outside the
bundle can be used.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
BUNDLE_ENV = "INFERENCE_PHYSICS_BUNDLE"
RUN_SECONDS = 180


def pytest_collection_modifyitems(config, items):
    """Bundle tests are skipped unless the marker expression asks for them (``-m bundle``)."""
    if "bundle" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="builds the offline bundle (minutes): run with -m bundle")
    for item in items:
        if item.get_closest_marker("bundle") is not None:
            item.add_marker(skip)


@dataclass(frozen=True)
class Bundle:
    folder: Path
    sandbox: tuple[str, ...]    # the command that runs a program without network, this Python hidden; () for none

    def executable(self, name: str) -> Path:
        from tools.bundle import executable_name
        return self.folder / executable_name(name)


def _hidden_folders(bundle_folder: Path) -> list[str]:
    """This Python installation (and the source tree, when the bundle is not inside it)."""
    folders = {sys.base_prefix, sys.prefix}
    if ROOT not in bundle_folder.parents:
        folders.add(str(ROOT))
    return sorted(folder for folder in folders if Path(folder).is_dir())


def _sandbox_command(bundle_folder: Path) -> list[str] | None:
    """``unshare`` in a new mount and network namespace that hides the folders; None where unavailable."""
    unshare, mount, shell = shutil.which("unshare"), shutil.which("mount"), shutil.which("sh")
    if not (sys.platform.startswith("linux") and unshare and mount and shell and os.geteuid() == 0):
        return None
    mounts = " && ".join(f"{shlex.quote(mount)} -t tmpfs none {shlex.quote(folder)}"
                         for folder in _hidden_folders(bundle_folder))
    command = [unshare, "--mount", "--net", shell, "-c", f'{mounts} && exec "$@"', "sh"]
    probe = subprocess.run([*command, shell, "-c", "true"], capture_output=True, timeout=30)
    return command if probe.returncode == 0 else None


def bare_environment(home: Path) -> dict[str, str]:
    """What a laptop with nothing installed gives a program: no Python anywhere on its paths."""
    empty_bin = home / "bin"
    empty_bin.mkdir(parents=True, exist_ok=True)
    env = {"PATH": str(empty_bin), "HOME": str(home), "LANG": "C.UTF-8", "QT_QPA_PLATFORM": "offscreen",
           "INFERENCE_PHYSICS_CONFIG_DIR": str(home / "config"), "TMPDIR": str(home)}
    if sys.platform.startswith("win"):
        system_root = os.environ.get("SystemRoot", r"C:\Windows")
        env.update(SystemRoot=system_root, PATH=str(Path(system_root) / "System32"), USERPROFILE=str(home),
                   APPDATA=str(home), LOCALAPPDATA=str(home), TEMP=str(home), TMP=str(home))
    return env


@pytest.fixture(scope="session")
def bundle(tmp_path_factory) -> Bundle:
    given = os.environ.get(BUNDLE_ENV)
    if given:
        folder = Path(given).resolve()
        assert folder.is_dir(), f"{BUNDLE_ENV}={given} is not a folder"
    else:
        from tools.bundle import build, cjk_font
        where = tmp_path_factory.mktemp("bundle")
        folder = build(where / "dist", where / "work", cjk_font(None))
    return Bundle(folder, tuple(_sandbox_command(folder) or ()))


@pytest.fixture
def run_bundled(bundle, tmp_path):
    """``run_bundled(name, *args, env=...)`` -> CompletedProcess (text), run as described above."""
    home = tmp_path / "home"

    def run(name: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        environment = bare_environment(home)
        environment.update(env or {})
        return subprocess.run([*bundle.sandbox, str(bundle.executable(name)), *args], env=environment, cwd=home,
                              capture_output=True, text=True, encoding="utf-8", timeout=RUN_SECONDS)
    return run
