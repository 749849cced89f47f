"""Test configuration shared by all tests.

GUI tests run offscreen: no display is needed, and nothing pops up on a
developer's screen. Set before any Qt import so that the platform plugin
is chosen correctly.

An exception raised inside a Qt slot or virtual method fails the test that
caused it: pytest-qt captures them by default (``qt_no_exception_capture`` is
left off; tests/desktop/test_slot_exceptions.py checks that it stays so).
"""
import os
import random

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402  (after the platform is chosen)
from hypothesis import settings as hypothesis_settings  # noqa: E402

# Hypothesis in CI (the environment variable CI set, as GitHub Actions and this project's CI do): the same
# examples on every run of the same code, so a failure there fails again here. Each test's seed is a hash
# of the test's code (derandomize), no example database is read or kept, a failure prints the
# @reproduce_failure blob, and no example is timed (machines are shared). Loaded before any test module is
# imported, so every @settings(...) of a test inherits it. Elsewhere each run draws a seed, and
# ``pytest_report_header`` prints it: ``--hypothesis-seed=N`` repeats that run.
hypothesis_settings.register_profile("ci", derandomize=True, database=None, print_blob=True, deadline=None)
HYPOTHESIS_PROFILE = "ci" if os.environ.get("CI") else "default"
hypothesis_settings.load_profile(HYPOTHESIS_PROFILE)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    """Outside CI, a run without ``--hypothesis-seed`` gets one drawn here, before Hypothesis's plugin reads
    the option, so that the header can print it."""
    if HYPOTHESIS_PROFILE != "ci" and getattr(config.option, "hypothesis_seed", "no plugin") is None:
        config.option.hypothesis_seed = str(random.SystemRandom().randrange(2 ** 32))


def pytest_report_header(config):
    """The line that says how to draw Hypothesis's examples again."""
    if HYPOTHESIS_PROFILE == "ci":
        return ("hypothesis: profile 'ci', derandomized: each test's seed is a hash of its code, the same on "
                "every run (repeat with CI=true)")
    seed = getattr(config.option, "hypothesis_seed", None)
    return None if seed is None else f"hypothesis: seed {seed} (repeat with --hypothesis-seed=that number)"


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory, monkeypatch):
    """Every test gets an empty settings folder and no user catalogue: nothing of the developer's reaches a test.

    ``INFERENCE_PHYSICS_CATALOG`` (a developer's own catalogue file) is unset, so
    the catalogue is the built-in one plus the (empty) test folder's file;
    tests that want a user catalogue set it themselves.
    """
    monkeypatch.setenv("INFERENCE_PHYSICS_CONFIG_DIR", str(tmp_path_factory.mktemp("config")))
    monkeypatch.delenv("INFERENCE_PHYSICS_CATALOG", raising=False)


@pytest.fixture(scope="session")
def qapp_args():
    """A program name for the QApplication pytest-qt creates (Qt reads argv[0])."""
    return ["inference-physics-tests"]


_APP_SET_UP = []


@pytest.fixture(autouse=True)
def _qt_set_up_as_the_app_does(request):
    """GUI tests see the application as users do: Fusion style and the CJK font the app installs.

    Text measurements (what fits, what wraps) depend on the font; without this a
    widget test would measure with whatever font an earlier test happened to set.
    Done once, before the first test that uses Qt.
    """
    if not _APP_SET_UP and {"qapp", "qtbot"} & set(request.fixturenames):
        from desktop import garbage
        garbage.FREEZES = False        # the app freezes what start-up made; a test's objects must go with the test
        from desktop.app import create_application
        from desktop.fonts import install_cjk_fallback
        request.getfixturevalue("qapp")
        install_cjk_fallback(create_application())
        _APP_SET_UP.append(True)


@pytest.fixture(autouse=True)
def _collect_between_tests():
    """Once the app's collector has turned Python's automatic one off (desktop.garbage), a test that spins no
    event loop would let garbage pile up: collect what is due after each test, between events, as the app's
    timer would."""
    yield
    if _APP_SET_UP:
        from desktop.garbage import UiThreadCollector
        UiThreadCollector.check()
