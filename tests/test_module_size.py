"""Modules stay small, one idea each (STYLE.md): the same limit for engine/, widgets/ and desktop/."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 400      # "a few hundred lines"; past this, split the module by idea


@pytest.mark.parametrize("layer", ["engine", "widgets", "desktop"])
def test_every_module_stays_under_the_size_limit(layer):
    long = {str(path.relative_to(ROOT)): n for path in sorted((ROOT / layer).rglob("*.py"))
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}
