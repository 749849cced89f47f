"""widgets/ draw what they are handed: no widget module imports the engine's physics or the app (desktop).

The one module of the engine they share is ``engine.frozen``, the decorator every layer's value types are made
with (Qt-free and physics-free); importing it loads the ``engine`` package alone, whose names are imported from
their modules only when asked for."""
from tests.layering import ROOT, import_every_module

LAYERS_ABOVE_AND_BESIDE = ("engine", "desktop")
SHARED = ("engine", "engine.frozen")


def test_every_widget_module_imports_without_engine_or_desktop():
    done = import_every_module("widgets", LAYERS_ABOVE_AND_BESIDE, allowed=SHARED)
    assert done.returncode == 0, done.stderr
    expected = len([p for p in (ROOT / "widgets").glob("*.py") if p.name != "__init__.py"])
    assert int(done.stdout.strip()) == expected          # every module was really imported


def test_the_guard_does_refuse_the_engine():
    done = import_every_module("widgets", LAYERS_ABOVE_AND_BESIDE, also="import engine.units", allowed=SHARED)
    assert done.returncode != 0 and "widgets must not import engine" in done.stderr
