"""The app's own TOML files (its texts, the built-in catalogue, the error sentences), parsed once per version.

Python's TOML parser needs about 30 ms for the ~280,000 characters a start
reads; the same tables load from JSON in about 1 ms. So each parse is kept in
the cache folder (``engine.config_dir.cache_dir``) as JSON, beside the text it
was parsed from, and a later start that reads the very same text (compared
whole: no digest to trust, none to import) loads the JSON instead. A changed
text (an edit, a new version of the app) is parsed again and its cache written
anew. A cache that cannot be read, trusted
(another text's, damaged) or written is passed over without a word: it only
saves time, and the TOML file stays the one source.
"""
from __future__ import annotations

import json
import os

from engine.config_dir import cache_dir, read_regular_file, remove_left_behind

FOLDER = "parsed"
FORMAT = 1                       # what a cache file holds; another number (another version's) is parsed again
MOST_CACHED_BYTES = 8 << 20      # the largest of the app's files makes ~0.2 MB of JSON, with its text


def parsed_toml(text: str, name: str) -> dict:
    """``tomllib.loads(text)``, taken from the cache when the parse cached as ``name`` is of this very text.
    ``name``: the cache's file name, one per source file ("text.gpu_waits", "catalog.gpus"). Raises what
    ``tomllib.loads`` raises for a text that is not TOML (nothing is cached then)."""
    path = None
    try:
        path = cache_dir() / FOLDER / f"{name}.json"
        cached = json.loads(read_regular_file(path, MOST_CACHED_BYTES))
        if (isinstance(cached, dict) and cached.get("format") == FORMAT and cached.get("source") == text
                and isinstance(cached.get("table"), dict)):
            return cached["table"]
    except (OSError, ValueError, RecursionError, RuntimeError):
        pass          # none yet, unreadable, not JSON, or no home folder to keep one in (path None): parse it
    import tomllib                      # ~3 ms to import: only when a text is new
    table = tomllib.loads(text)
    if path is not None:
        _keep(path, {"format": FORMAT, "source": text, "table": table})
    return table


def _keep(path, cached: dict) -> None:
    """Write ``cached`` to ``path`` whole or not at all (a temporary file renamed over it, so two starts writing
    at once leave one whole file); a table JSON cannot hold (a TOML date) or a folder that cannot be written is
    left uncached."""
    try:
        text = json.dumps(cached, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):
        return
    import tempfile                     # only when a cache is written
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
        temporary = None
    except OSError:
        pass
    finally:
        remove_left_behind(temporary)
