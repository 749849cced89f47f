"""The project's layers exist where DESIGN.md puts them."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_layers_are_packages():
    for name in ("engine", "widgets", "desktop", "resources"):
        assert (ROOT / name / "__init__.py").is_file(), name
