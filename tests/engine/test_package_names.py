"""``from engine import compute_report, Scenario, Report, InputError`` works; ``import engine`` alone loads no physics."""
import subprocess
import sys

from tests.layering import ROOT


def test_the_packages_names_are_its_modules_own():
    import engine
    from engine.compute import compute_report
    from engine.errors import InputError
    from engine.report import Report
    from engine.scenario import Scenario

    assert (engine.compute_report, engine.InputError, engine.Report, engine.Scenario) == (
        compute_report, InputError, Report, Scenario)
    assert set(engine.__all__) <= set(dir(engine))
    try:
        engine.no_such_name
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:
        raise AssertionError("engine.no_such_name did not raise")


def test_importing_the_value_decorator_loads_the_package_alone():
    program = ("import sys, engine.frozen; print(sorted(m for m in sys.modules if m.split('.')[0] == 'engine'));"
               "from engine import Scenario; print('engine.compute' in sys.modules, Scenario().gpu)")
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["['engine', 'engine.frozen']", "False h800"]
