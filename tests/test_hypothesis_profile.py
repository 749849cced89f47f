"""Hypothesis draws the same examples on every CI run (tests/conftest.py), so a CI failure fails again here."""
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent


def test_the_profile_follows_the_ci_variable():
    ci = bool(os.environ.get("CI"))
    assert settings.get_current_profile_name() == ("ci" if ci else "default")
    assert settings.default.derandomize == ci


def _header(ci: bool, *arguments: str) -> str:
    """The Hypothesis line of a pytest run's header, with CI set or not."""
    env = {name: value for name, value in os.environ.items() if name != "CI"}
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-p", "no:cacheprovider", *arguments,
                           "tests/test_readme.py"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**env, "CI": "true"} if ci else env)
    assert done.returncode == 0, done.stdout + done.stderr
    [line] = [line for line in done.stdout.splitlines() if line.startswith("hypothesis: ")]
    return line


def test_a_ci_run_says_it_is_derandomised_and_a_local_run_prints_its_seed():
    assert _header(True).startswith("hypothesis: profile 'ci', derandomized")
    drawn = _header(False).split()
    assert drawn[:2] == ["hypothesis:", "seed"] and drawn[2].isdigit()
    assert _header(False, "--hypothesis-seed=1234").startswith("hypothesis: seed 1234 ")
