"""The catalogue listing keeps its old import path (module sizes: tests/test_module_size.py)."""
from __future__ import annotations

import engine.catalog
import engine.catalog_text


def test_the_listing_lives_in_catalog_text_and_is_still_importable_from_catalog():
    assert engine.catalog.catalog_as_text is engine.catalog_text.catalog_as_text
    assert engine.catalog.catalog_as_json is engine.catalog_text.catalog_as_json
    assert not hasattr(engine.catalog, "_source_lines") and not hasattr(engine.catalog, "_peak_text")
