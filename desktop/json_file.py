"""A small JSON file that holds one table (the settings, a saved scenario): read, with the reason it cannot be
used when it cannot (one place that knows every way such a file goes wrong), and written whole. Qt-free."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from engine.config_dir import FileTooBig, NotRegularFile, read_regular_file, remove_left_behind
from engine.units import format_bytes

# Settings and scenarios nest two levels. A deeper file is "nested too deeply" on every Python: json.loads itself
# stops at the interpreter's recursion limit, which differs between versions (3.11 raises at about 1,000
# levels, 3.13 parses 5,000).
MAX_NESTING = 32


def read_json_table(path: Path, max_bytes: int) -> tuple[dict | None, tuple[str, dict] | None]:
    """The file's table, or None and why it cannot be used: (text key, values), the keys
    ``errors.settings.reason.*`` (their words fit any such file); (None, None): there is no file."""
    try:
        raw = json.loads(read_regular_file(path, max_bytes).decode("utf-8"))
    except FileNotFoundError:
        return None, None
    except (NotRegularFile, IsADirectoryError):
        return None, ("errors.settings.reason.not_file", {})
    except FileTooBig:
        return None, ("errors.settings.reason.too_big", {"size": format_bytes(max_bytes)})
    except OSError as error:
        return None, ("errors.settings.reason.no_access", {"error": error.strerror or str(error)})
    except UnicodeDecodeError:
        return None, ("errors.settings.reason.not_utf8", {})
    except RecursionError:
        return None, ("errors.settings.reason.too_deep", {})
    except (ValueError, MemoryError):
        return None, ("errors.settings.reason.not_json", {})
    if _nesting_beyond(raw, MAX_NESTING):
        return None, ("errors.settings.reason.too_deep", {})
    if not isinstance(raw, dict):
        return None, ("errors.settings.reason.not_object", {})
    return raw, None


def _nesting_beyond(value, most: int) -> bool:
    """Whether ``value`` (parsed JSON) nests lists and objects more than ``most`` deep; without recursion."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > most:
                return True
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


def write_json_table(path: Path, table: dict) -> None:
    """Write ``table`` to ``path`` as JSON, whole or not at all: each writer writes its own temporary file
    beside ``path`` and renames it over ``path`` when complete, so two instances saving together leave one
    whole file (the last one's), never a mixture. Raises ``OSError`` naming ``path`` (not the temporary file)."""
    text = json.dumps(table, ensure_ascii=False, indent=2) + "\n"
    temporary: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)   # never leave a half-written file behind
    except OSError as problem:
        remove_left_behind(temporary)
        problem.filename = str(path)
        raise
