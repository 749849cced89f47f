"""The README's catalogue examples are complete entries that load without a warning."""
import re
from pathlib import Path

from engine.catalog import load_catalog

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_toml_example_in_the_readme_loads_as_a_users_catalogue(tmp_path):
    blocks = re.findall(r"```toml\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert blocks
    for number, block in enumerate(blocks):
        path = tmp_path / f"example-{number}.toml"
        path.write_text(block, encoding="utf-8")
        catalog = load_catalog(user_file=path)
        assert catalog.warnings == [], catalog.warnings
        assert any(entry.origin == str(path) for entry in [*catalog.gpus.values(), *catalog.models.values()])
