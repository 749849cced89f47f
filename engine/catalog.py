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
- Ids are matched case-insensitively; spaces and underscores count as hyphens.
- A built-in file that breaks a rule raises ``InputError``: that is our bug.
- A user's entry that breaks a rule is skipped, and ``Catalog.warnings`` gets
  one sentence naming the file, the entry and the field; everything else still
  loads. A user's file that cannot be read or parsed gives one warning, and
  the built-in catalogue loads alone. Looking up an id whose entry was skipped
  says so (code ``catalog.skipped``): "GPU 'mygpu' in <file> was skipped: <reason>."
- A user's entry with a built-in id replaces the built-in entry (its
  ``origin`` then names the user's file): a person who measured their own
  card knows better than a datasheet.
- The user's file is opened read-only and never written. Only a regular file
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
import math
import os
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any, Callable

from engine.catalog_text import catalog_as_json, catalog_as_text  # noqa: F401  (re-exported: the listing)
from engine.catalog_types import (  # noqa: F401  (Catalog, normalise_id: re-exported)
    COMPUTE_PRECISIONS, INTERCONNECT_TOPOLOGIES, PHYSICAL_RANGES, Catalog, Gpu, Model, Precision, normalise_id,
    physical_range_text,
)
from engine.config_dir import config_dir, read_regular_file
from engine.errors import InputError, shorten, shown_value
from engine.units import format_count

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
        document = tomllib.loads(resource.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise InputError(f"The built-in catalogue file {shown} cannot be read: {error}.") from None
    if set(document) != {name} or not isinstance(document[name], dict):
        raise InputError(f"The built-in catalogue file {shown} must hold only [{name}.<id>] tables.")
    entries: dict = {}
    for raw_id, raw in document[name].items():
        try:
            entry_id = _checked_id(raw_id, entries)
            entries[entry_id] = _BUILDERS[name](entry_id, raw, origin="built-in", default_source=None)
        except _EntryError as error:
            raise InputError(f"{shown}: {_KIND[name]} {_q(raw_id)}: {error}.") from None
    return entries


def _merge_user_file(path: Path, tables: dict[str, dict], warnings: list[str],
                     skipped: dict[str, dict[str, tuple[str, str]]]) -> None:
    shown = _display_path(path)
    try:                                         # read-only, a regular file of bounded size: never written
        document = tomllib.loads(read_regular_file(path, MAX_USER_CATALOG_BYTES).decode("utf-8"))
    except FileNotFoundError:
        return
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError, MemoryError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error) or "nested too deeply"
        if isinstance(error, RecursionError):
            reason = "nested too deeply"
        warnings.append(f"{shown}: this file cannot be used ({shorten(reason, 120)}); it is ignored "
                        "and only the built-in catalogue is used.")
        return
    for table_name, table in document.items():
        if table_name not in _USER_TABLES or not isinstance(table, dict):
            warnings.append(f"{shown}: {_q(table_name)} is not read; a user catalogue holds only "
                            "[gpus.<id>] and [models.<id>] tables.")
            continue
        seen: dict = {}
        for raw_id, raw in table.items():
            try:
                entry_id = _checked_id(raw_id, seen)
                entry = _BUILDERS[table_name](entry_id, raw, origin=str(path),
                                              default_source=f"your catalogue file {shown}")
            except _EntryError as error:
                warnings.append(f"{shown}: {_KIND[table_name]} {_q(raw_id)}: {error}; entry skipped.")
                key = normalise_id(raw_id)
                if key and key not in seen and key not in tables[table_name]:
                    skipped[table_name][key] = (shown, str(error))
                continue
            seen[entry_id] = entry
            skipped[table_name].pop(entry_id, None)
            tables[table_name][entry_id] = entry     # a built-in id is replaced in place


def _display_path(path: Path) -> str:
    """The path as a person would type it: ~/.config/... under the home folder."""
    try:
        return "~/" + path.expanduser().resolve().relative_to(Path.home().resolve()).as_posix()
    except (ValueError, OSError, RuntimeError):
        return str(path)


def _checked_id(raw_id: str, seen: dict) -> str:
    entry_id = normalise_id(raw_id)
    if not entry_id:
        raise _EntryError("its id is empty; an id is a short name such as h800")
    if entry_id in seen:
        raise _EntryError(f"its id matches {_q(entry_id)} defined above (ids ignore case)")
    return entry_id


# --------------------------------------------------------------------------- field checks

class _EntryError(Exception):
    """One broken rule in one entry; the caller adds the file and the entry."""


def _problem(name: str, problem: str) -> _EntryError:
    return _EntryError(f"field {shorten(name)} {problem}")


def _q(value: object) -> str:
    """A value from the file as a warning quotes it: its repr, at most a line's worth."""
    return shorten(repr(value))


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _in_range(name: str, value: float, range_name: str | None = None) -> None:
    low, high, _ = PHYSICAL_RANGES[range_name or name]
    if not low <= value <= high:
        raise _problem(name, f"must be {physical_range_text(range_name or name)}, got {shown_value(value, quoted=True)}")


def _positive_number(raw: dict, name: str, required: bool = True, range_name: str | None = None,
                     label: str | None = None) -> float:
    if label is not None:           # a field of a sub-table: "flops.fp16"
        try:
            return _positive_number(raw, name, required, range_name)
        except _EntryError as error:
            raise _EntryError(str(error).replace(f"field {name} ", f"field {label} ", 1)) from None
    if name not in raw:
        if required:
            raise _problem(name, "is missing; it must be a positive number")
        return 0.0
    value = raw[name]
    if not _is_number(value) or value <= 0:
        raise _problem(name, f"must be a positive number, got {shown_value(value, quoted=True)}")
    _in_range(name, value, range_name)
    return float(value)


def _count(raw: dict, name: str, required: bool = True, minimum: int = 1) -> int:
    wanted = "a positive whole number" if minimum == 1 else "a whole number, 0 or more"
    if name not in raw:
        if required:
            raise _problem(name, f"is missing; it must be {wanted}")
        return 0
    value = raw[name]
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise _problem(name, f"must be {wanted}, got {shown_value(value, quoted=True)}")
    if value or minimum:
        _in_range(name, value)
    return value


def _text(raw: dict, name: str, required: bool = True, default: str = "") -> str:
    if name not in raw:
        if required and not default:
            raise _problem(name, "is missing; it must be non-empty text")
        return default
    value = raw[name]
    if not isinstance(value, str) or (required and not value.strip()):
        raise _problem(name, f"must be non-empty text, got {_q(value)}")
    return value


def _flag(raw: dict, name: str) -> bool:
    if name not in raw:
        raise _problem(name, "is missing; it must be true or false")
    if not isinstance(raw[name], bool):
        raise _problem(name, f"must be true or false, got {_q(raw[name])}")
    return raw[name]


def _only_known_fields(raw: object, allowed: tuple[str, ...]) -> dict:
    if not isinstance(raw, dict):
        raise _EntryError(f"must be a table of fields, got {_q(raw)}")
    unknown = [name for name in raw if name not in allowed]
    if unknown:
        raise _problem(unknown[0], f"is not a catalogue field; allowed fields: {', '.join(allowed)}")
    return raw


def _sources(raw: dict, allowed: set[str]) -> dict[str, str]:
    table = raw.get("sources", {})
    if not isinstance(table, dict):
        raise _problem("sources", f"must be a table of field = source text, got {_q(table)}")
    for name, text in table.items():
        if name not in allowed:
            raise _problem(f"sources.{name}", "names no field of this entry")
        if not isinstance(text, str) or not text.strip():
            raise _problem(f"sources.{name}", f"must be non-empty text, got {_q(text)}")
    return dict(table)


# --------------------------------------------------------------------------- entries

_GPU_NUMBERS = ("memory_bytes", "memory_bandwidth_bytes_per_second",
                "interconnect_bytes_per_second", "pcie_bytes_per_second")
_GPU_FIELDS = ("name", "vendor", *_GPU_NUMBERS, "flops", "interconnect", "interconnect_topology",
               "interconnect_links", "pcie", "node_gpus", "network", "network_bytes_per_second",
               "source", "sources", "estimated", "notes")


def _topology(raw: dict) -> tuple[str, int]:
    """``interconnect_topology`` (default switch) and, for a mesh, its ``interconnect_links``."""
    topology = raw.get("interconnect_topology", "switch")
    if topology not in INTERCONNECT_TOPOLOGIES:
        raise _problem("interconnect_topology",
                       f"must be one of {', '.join(INTERCONNECT_TOPOLOGIES)}, got {_q(topology)}")
    links = _count(raw, "interconnect_links", required=topology == "mesh")
    if topology != "mesh" and links:
        raise _problem("interconnect_links", f"applies only to a mesh interconnect, not to {_q(topology)}")
    return topology, links


def _gpu(entry_id: str, raw: Any, origin: str, default_source: str | None) -> Gpu:
    raw = _only_known_fields(raw, _GPU_FIELDS)
    numbers = {name: _positive_number(raw, name) for name in _GPU_NUMBERS}
    flops_table = raw.get("flops")
    if not isinstance(flops_table, dict):
        raise _problem("flops", f"must be a table of dense peaks such as fp16 = 989.4e12, got {_q(flops_table)}")
    for key in flops_table:
        if key not in COMPUTE_PRECISIONS:
            raise _problem(f"flops.{key}", f"is not a precision; allowed: {', '.join(COMPUTE_PRECISIONS)}")
    if "fp16" not in flops_table:
        raise _problem("flops.fp16", "is missing; every GPU needs its dense FP16 peak")
    flops = {key: _positive_number(flops_table, key, range_name="flops", label=f"flops.{key}")
             for key in COMPUTE_PRECISIONS if key in flops_table}
    estimated = raw.get("estimated", [])
    if not isinstance(estimated, list) or any(name not in _GPU_FIELDS for name in estimated):
        raise _problem("estimated", f"must be a list of this entry's field names, got {_q(estimated)}")
    allowed_sources = set(_GPU_FIELDS) | {f"flops.{key}" for key in COMPUTE_PRECISIONS}
    topology, links = _topology(raw)
    node = _node(raw)
    return Gpu(
        id=entry_id, name=_text(raw, "name"), vendor=_text(raw, "vendor"),
        flops_per_second=flops, interconnect=_text(raw, "interconnect"),
        source=_text(raw, "source", default=default_source or ""),
        sources=_sources(raw, allowed_sources), notes=_text(raw, "notes", required=False),
        pcie=_text(raw, "pcie", required=False), estimated=tuple(estimated), origin=origin,
        interconnect_topology=topology, interconnect_links=links, **node, **numbers,
    )


def _node(raw: dict) -> dict:
    """``node_gpus``, ``network`` and ``network_bytes_per_second``: optional in a user's entry
    (then an 8-GPU node with 400 Gb/s per GPU, ``catalog_types.DEFAULT_NODE_GPUS``), stated by every built-in one."""
    readers = (("node_gpus", _count), ("network_bytes_per_second", _positive_number), ("network", _text))
    return {name: read(raw, name) for name, read in readers if name in raw}


_MODEL_SIZES = ("layers", "hidden_size", "attention_heads", "kv_heads", "head_dim",
                "intermediate_size", "vocab_size")
_MOE_COUNTS = ("experts", "experts_per_token", "expert_intermediate_size", "shared_experts", "dense_layers")
_MLA_COUNTS = ("q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")
_MODEL_FIELDS = ("name", *_MODEL_SIZES, "tied_embeddings", "published_parameters",
                 "published_active_parameters", "max_context_tokens", *_MOE_COUNTS, *_MLA_COUNTS,
                 "source", "sources", "notes")


def _model(entry_id: str, raw: Any, origin: str, default_source: str | None) -> Model:
    raw = _only_known_fields(raw, _MODEL_FIELDS)
    sizes = {name: _count(raw, name) for name in _MODEL_SIZES}
    moe = {name: _count(raw, name, required=False, minimum=0) for name in _MOE_COUNTS}
    mla = {name: _count(raw, name, required=False, minimum=0) for name in _MLA_COUNTS}
    if sizes["attention_heads"] % sizes["kv_heads"]:
        raise _problem("kv_heads", f"must divide attention_heads ({sizes['attention_heads']}) evenly, "
                                   f"got {sizes['kv_heads']}")
    _check_moe(moe, sizes["layers"])
    _check_mla(mla)
    total = _positive_number(raw, "published_parameters")
    active = _positive_number(raw, "published_active_parameters", required=False)
    if active and not moe["experts"]:
        raise _problem("published_active_parameters", "is only for mixture-of-experts models (experts > 0)")
    if active > total:
        raise _problem("published_active_parameters",
                       f"must not exceed published_parameters ({format_count(total)}), got {format_count(active)}")
    return Model(
        id=entry_id, name=_text(raw, "name"), source=_text(raw, "source", default=default_source or ""),
        tied_embeddings=_flag(raw, "tied_embeddings"), published_parameters=total,
        published_active_parameters=active, notes=_text(raw, "notes", required=False),
        max_context_tokens=_count(raw, "max_context_tokens", required=False),
        sources=_sources(raw, set(_MODEL_FIELDS)), origin=origin, **sizes, **moe, **mla,
    )


def _check_moe(moe: dict[str, int], layers: int) -> None:
    if moe["experts"] == 0:
        for name in _MOE_COUNTS[1:]:
            if moe[name]:
                raise _problem(name, f"must be 0 when experts is 0 (a dense model), got {moe[name]}")
        return
    if not 1 <= moe["experts_per_token"] <= moe["experts"]:
        raise _problem("experts_per_token",
                       f"must be between 1 and experts ({moe['experts']}), got {moe['experts_per_token']}")
    if moe["expert_intermediate_size"] == 0:
        raise _problem("expert_intermediate_size", "must be a positive whole number when experts > 0, got 0")
    if moe["dense_layers"] >= layers:
        raise _problem("dense_layers", f"must be fewer than layers ({layers}), got {moe['dense_layers']}")


def _check_mla(mla: dict[str, int]) -> None:
    if mla["kv_lora_rank"] == 0:
        for name in _MLA_COUNTS:
            if mla[name]:
                raise _problem(name, f"must be 0 when kv_lora_rank is 0 (no latent attention), got {mla[name]}")
        return
    for name in ("qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"):
        if mla[name] == 0:
            raise _problem(name, "must be a positive whole number when kv_lora_rank > 0, got 0")


_PRECISION_FIELDS = ("name", "bytes_per_value", "compute_precision", "source")


def _precision(entry_id: str, raw: Any, origin: str, default_source: str | None) -> Precision:
    raw = _only_known_fields(raw, _PRECISION_FIELDS)
    compute = _text(raw, "compute_precision")
    if compute not in COMPUTE_PRECISIONS:
        raise _problem("compute_precision", f"must be one of {', '.join(COMPUTE_PRECISIONS)}, got {_q(compute)}")
    return Precision(id=entry_id, name=_text(raw, "name"), bytes_per_value=_positive_number(raw, "bytes_per_value"),
                     compute_precision=compute, source=_text(raw, "source", default=default_source or ""))


_BUILDERS: dict[str, Callable[..., Any]] = {"gpus": _gpu, "models": _model, "precisions": _precision}

