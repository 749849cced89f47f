"""The catalogue: GPUs, models and precisions, read from TOML with their sources.

The listing (``catalog_as_json``, ``catalog_as_text``) lives in
``engine.catalog_text`` and the entries and ``Catalog`` in
``engine.catalog_types``; both are re-exported here (neither imports this
module, so there is no import circle).

The built-in files live in ``resources/catalog/`` (gpus.toml, models.toml,
precisions.toml). A person may add GPUs and models in their own file,
``catalog.toml`` in the app's configuration folder (``engine.config_dir``:
``~/.config/inference-physics`` on Linux; the environment variable
``INFERENCE_PHYSICS_CATALOG`` names another path). It holds ``[gpus.<id>]`` and ``[models.<id>]`` tables
with the same fields as the built-in files; ``source`` may be left out there
and then names the file.

Rules:
- Ids are matched case-insensitively and Unicode-normalised (NFC: an accent typed
  as one code point or as two matches either); spaces and underscores count as hyphens.
- A built-in file that breaks a rule raises ``InputError``: that is our bug.
- A user's entry that breaks a rule is skipped, and ``Catalog.warnings`` gets
  one sentence naming the file, the entry and every field that is missing or
  bad, all at once (``engine.catalog_entries.FieldChecks``); everything else still
  loads. A user's file that cannot be read or parsed gives one warning, and
  the built-in catalogue loads alone. Looking up an id whose entry was skipped
  says so (code ``catalog.skipped``): "GPU 'mygpu' in <file> was skipped: <reason>."
- A user's entry with a built-in id replaces the built-in entry (its
  ``origin`` then names the user's file): a person who measured their own
  card knows better than a datasheet.
- Loading opens the user's file read-only and never writes it (``engine.import_model``
  only ever appends an entry to it, atomically). Only a regular file
  of at most ``MAX_USER_CATALOG_BYTES`` is read (never blocking on a FIFO); a
  file that cannot be used for any reason (a folder, a device, too large, not
  UTF-8, nested too deeply, not TOML) gives one warning, "this file cannot be used".
- Every number has a physical range (``catalog_types.PHYSICAL_RANGES``: a GPU's
  memory bandwidth between 1 GB/s and 1 PB/s, a model's layers between 1 and
  1,000...), so that no report overflows or takes unbounded work; an entry
  outside it is skipped, and the warning names the range.
- A model may give ``max_context_tokens`` (its config's ``max_position_embeddings``);
  every built-in model does, and ``compute`` refuses a longer prompt plus output.
"""
from __future__ import annotations

import functools
import os
from importlib import resources
from pathlib import Path
from typing import Any, Callable

from engine.catalog_text import catalog_as_json, catalog_as_text  # noqa: F401  (re-exported: the listing)
from engine.catalog_entries import (
    EntryError, FieldChecks, build_model, positive_number, problem, quoted, sources, text, whole_number,
)
from engine.catalog_types import (  # noqa: F401  (Catalog, normalise_id: re-exported)
    COMPUTE_PRECISIONS, DEFAULT_NETWORK, DEFAULT_NETWORK_BYTES_PER_SECOND, DEFAULT_NODE_GPUS,
    INTERCONNECT_TOPOLOGIES, Catalog, Gpu, Precision, normalise_id,
)
from engine.config_dir import config_dir, read_regular_file
from engine.errors import InputError, shorten
from engine.parsed_toml import parsed_toml

USER_CATALOG_ENV = "INFERENCE_PHYSICS_CATALOG"
MAX_USER_CATALOG_BYTES = 4_000_000      # a catalogue of thousands of entries; more is not a catalogue
_BUILTIN_FILES = {"gpus": "gpus.toml", "models": "models.toml", "precisions": "precisions.toml"}
_KIND = {"gpus": "GPU", "models": "model", "precisions": "precision"}
_USER_TABLES = ("gpus", "models")


# --------------------------------------------------------------------------- loading

def user_catalog_path() -> Path:
    """Where the user's own catalogue file is looked for (it need not exist)."""
    override = os.environ.get(USER_CATALOG_ENV)
    if override:
        return Path(override).expanduser()
    return config_dir() / "catalog.toml"


@functools.cache
def default_catalog() -> Catalog:
    """The built-in catalogue plus the user's file; read once per process."""
    return load_catalog(user_file=user_catalog_path())


def load_catalog(user_file: Path | str | None = None, builtin_dir: Path | str | None = None) -> Catalog:
    """Read the built-in catalogue (``builtin_dir``: tests only) and, if given and present, a user's file."""
    tables = {name: _read_builtin(name, filename, builtin_dir) for name, filename in _BUILTIN_FILES.items()}
    warnings: list[str] = []
    skipped: dict[str, dict[str, tuple[str, str]]] = {name: {} for name in _USER_TABLES}
    if user_file is not None:
        _merge_user_file(Path(user_file), tables, warnings, skipped)
    return Catalog(gpus=tables["gpus"], models=tables["models"], precisions=tables["precisions"],
                   warnings=warnings, skipped=skipped)


def _read_builtin(name: str, filename: str, builtin_dir: Path | str | None) -> dict:
    if builtin_dir is None:
        resource = resources.files("resources").joinpath("catalog", filename)
        shown = f"resources/catalog/{filename}"
    else:
        resource = Path(builtin_dir) / filename
        shown = str(resource)
    try:
        document = parsed_toml(resource.read_text(encoding="utf-8"), f"catalog.{name}")
    except (OSError, ValueError) as error:       # ValueError: not UTF-8, or not TOML (tomllib.TOMLDecodeError)
        raise InputError(f"The built-in catalogue file {shown} cannot be read: {error}.") from None
    if set(document) != {name} or not isinstance(document[name], dict):
        raise InputError(f"The built-in catalogue file {shown} must hold only [{name}.<id>] tables.")
    entries: dict = {}
    for raw_id, raw in document[name].items():
        try:
            entry_id = _checked_id(raw_id, entries)
            entries[entry_id] = _BUILDERS[name](entry_id, raw, origin="built-in", default_source=None)
        except EntryError as error:
            raise InputError(f"{shown}: {_KIND[name]} {quoted(raw_id)}: {error}.") from None
    return entries


def _merge_user_file(path: Path, tables: dict[str, dict], warnings: list[str],
                     skipped: dict[str, dict[str, tuple[str, str]]]) -> None:
    shown = display_path(path)
    try:                                         # read-only, a regular file of bounded size: never written
        raw = read_regular_file(path, MAX_USER_CATALOG_BYTES)
        import tomllib                           # a start without a file of one's own never parses TOML here
        document = tomllib.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        return
    except (OSError, ValueError, RecursionError, MemoryError) as error:   # ValueError: not UTF-8, not TOML
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error) or "nested too deeply"
        if isinstance(error, RecursionError):
            reason = "nested too deeply"
        warnings.append(f"{shown}: this file cannot be used ({shorten(reason, 120)}); it is ignored "
                        "and only the built-in catalogue is used.")
        return
    for table_name, table in document.items():
        if table_name not in _USER_TABLES or not isinstance(table, dict):
            warnings.append(f"{shown}: {quoted(table_name)} is not read; a user catalogue holds only "
                            "[gpus.<id>] and [models.<id>] tables.")
            continue
        seen: dict = {}
        for raw_id, raw in table.items():
            try:
                entry_id = _checked_id(raw_id, seen)
                entry = _BUILDERS[table_name](entry_id, raw, origin=str(path),
                                              default_source=f"your catalogue file {shown}")
            except EntryError as error:
                warnings.append(f"{shown}: {_KIND[table_name]} {quoted(raw_id)}: {error}; entry skipped.")
                key = normalise_id(raw_id)
                if key and key not in seen and key not in tables[table_name]:
                    skipped[table_name][key] = (shown, str(error))
                continue
            seen[entry_id] = entry
            skipped[table_name].pop(entry_id, None)
            tables[table_name][entry_id] = entry     # a built-in id is replaced in place


def display_path(path: Path) -> str:
    """The path as a person would type it: ~/.config/... under the home folder."""
    try:
        return "~/" + path.expanduser().resolve().relative_to(Path.home().resolve()).as_posix()
    except (ValueError, OSError, RuntimeError):
        return str(path)


def _checked_id(raw_id: str, seen: dict) -> str:
    entry_id = normalise_id(raw_id)
    if not entry_id:
        raise EntryError("its id is empty; an id is a short name such as h800")
    if entry_id in seen:
        raise EntryError(f"its id matches {quoted(entry_id)} defined above (ids ignore case)")
    return entry_id


# --------------------------------------------------------------------------- entries
# Field checks and the model builder live in engine.catalog_entries; GPUs and precisions are built here.

_GPU_NUMBERS = ("memory_bytes", "memory_bandwidth_bytes_per_second",
                "interconnect_bytes_per_second", "pcie_bytes_per_second")
_GPU_FIELDS = ("name", "vendor", *_GPU_NUMBERS, "flops", "interconnect", "interconnect_topology",
               "interconnect_links", "pcie", "node_gpus", "network", "network_bytes_per_second",
               "source", "sources", "estimated", "notes")


def _topology(raw: dict, name: str) -> tuple[str, int]:
    """``interconnect_topology`` (default switch) and, for a mesh, its ``interconnect_links``."""
    topology = raw.get(name, "switch")
    if topology not in INTERCONNECT_TOPOLOGIES:
        raise problem(name, f"must be one of {', '.join(INTERCONNECT_TOPOLOGIES)}, got {quoted(topology)}")
    links = whole_number(raw, "interconnect_links", required=topology == "mesh")
    if topology != "mesh" and links:
        raise problem("interconnect_links", f"applies only to a mesh interconnect, not to {quoted(topology)}")
    return topology, links


def _flops(raw: dict, name: str) -> dict[str, float]:
    """The ``flops`` table of dense peaks by precision; every problem in it is kept (``FieldChecks``)."""
    table = raw.get(name)
    if not isinstance(table, dict):
        raise problem(name, f"must be a table of dense peaks such as fp16 = 989.4e12, got {quoted(table)}")
    checks = FieldChecks(table, tuple(table))
    for key in table:
        if key not in COMPUTE_PRECISIONS:
            checks.fail(key, f"field {name}.{key} is not a precision; allowed: {', '.join(COMPUTE_PRECISIONS)}")
    if "fp16" not in table:
        checks.fail("fp16", f"field {name}.fp16 is missing (every GPU needs its dense FP16 peak)")
    flops = {key: checks.take(positive_number, key, range_name="flops", label=f"{name}.{key}", default=1.0)
             for key in COMPUTE_PRECISIONS if key in table}
    checks.done()
    return flops


def _estimated(raw: dict, name: str) -> tuple[str, ...]:
    estimated = raw.get(name, [])
    if not isinstance(estimated, list) or any(field not in _GPU_FIELDS for field in estimated):
        raise problem(name, f"must be a list of this entry's field names, got {quoted(estimated)}")
    return tuple(estimated)


def _gpu(entry_id: str, raw: Any, origin: str, default_source: str | None) -> Gpu:
    checks = FieldChecks(raw, _GPU_FIELDS)
    numbers = {name: checks.take(positive_number, name, default=1.0) for name in _GPU_NUMBERS}
    allowed_sources = set(_GPU_FIELDS) | {f"flops.{key}" for key in COMPUTE_PRECISIONS}
    topology, links = checks.take(_topology, "interconnect_topology", default=("switch", 0))
    gpu = dict(
        id=entry_id, name=checks.take(text, "name", default=""), vendor=checks.take(text, "vendor", default=""),
        flops_per_second=checks.take(_flops, "flops", default={}),
        interconnect=checks.take(text, "interconnect", default=""),
        source=checks.take(text, "source", True, default_source or "", default=""),
        sources=checks.take(sources, "sources", allowed_sources, default={}),
        notes=checks.take(text, "notes", required=False, default=""),
        pcie=checks.take(text, "pcie", required=False, default=""),
        estimated=checks.take(_estimated, "estimated", default=()), origin=origin,
        interconnect_topology=topology, interconnect_links=links, **_node(checks), **numbers,
    )
    checks.done()
    return Gpu(**gpu)


# A user's entry may leave the node fields out: then one GPU of an 8-GPU node with 400 Gb/s per GPU
# (catalog_types.DEFAULT_NODE_GPUS); every built-in entry states its own (tests/engine/test_catalog.py).
_NODE_FIELDS = (("node_gpus", whole_number, DEFAULT_NODE_GPUS),
                ("network_bytes_per_second", positive_number, DEFAULT_NETWORK_BYTES_PER_SECOND),
                ("network", text, DEFAULT_NETWORK))


def _node(checks: FieldChecks) -> dict:
    """``node_gpus``, ``network_bytes_per_second`` and ``network`` where the entry states them (each checked)."""
    return {name: checks.take(read, name, default=fallback)
            for name, read, fallback in _NODE_FIELDS if name in checks.raw}


_PRECISION_FIELDS = ("name", "bytes_per_value", "compute_precision", "source")


def _compute_precision(raw: dict, name: str) -> str:
    compute = text(raw, name)
    if compute not in COMPUTE_PRECISIONS:
        raise problem(name, f"must be one of {', '.join(COMPUTE_PRECISIONS)}, got {quoted(compute)}")
    return compute


def _precision(entry_id: str, raw: Any, origin: str, default_source: str | None) -> Precision:
    checks = FieldChecks(raw, _PRECISION_FIELDS)
    precision = dict(id=entry_id, name=checks.take(text, "name", default=""),
                     bytes_per_value=checks.take(positive_number, "bytes_per_value", default=1.0),
                     compute_precision=checks.take(_compute_precision, "compute_precision", default="fp16"),
                     source=checks.take(text, "source", True, default_source or "", default=""))
    checks.done()
    return Precision(**precision)


_BUILDERS: dict[str, Callable[..., Any]] = {"gpus": _gpu, "models": build_model, "precisions": _precision}
