"""The README's install and test commands are the ones CI runs, and none of them installs into the system's Python
(Debian 12 and Ubuntu 24.04 refuse ``pip install`` outside a virtual environment: PEP 668)."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _command_under(heading: str) -> str:
    """The first indented (code) line after the README line that contains ``heading``."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = next(n for n, line in enumerate(lines) if heading in line)
    return next(line.strip() for line in lines[start + 1:] if line.startswith("    ") and line.strip())


def test_ci_runs_the_readme_test_command_as_written():
    command = _command_under("**Install and run the tests**")
    assert command.startswith("python3 -m venv .venv && ") and command.endswith("-m pytest")
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert command in ci_lines


def test_every_pip_install_in_the_readme_goes_into_a_virtual_environment():
    installs = [line for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
                if "pip install" in line and line.startswith("    ")]
    assert len(installs) >= 5          # the app and the tests on Linux/macOS and on Windows, the bundle
    for line in installs:
        assert "-m venv .venv && " in line and ("-m pip install" in line), line
        assert ".venv/bin/python -m pip" in line or r".venv\Scripts\python -m pip" in line, line
