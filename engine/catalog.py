"""The catalogue: GPUs, models and precisions, read from TOML with their sources.

The listing (``catalog_as_json``, ``catalog_as_text``) also names the tokenizers
that ship with the app (``engine.tokenizer_registry``) without reading a vocabulary.

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
  the built-in catalogue loads alone.
- A user's entry with a built-in id replaces the built-in entry (its
  ``origin`` then names the user's file): a person who measured their own
  card knows better than a datasheet.
- The user's file is opened read-only and never written.
"""
from __future__ import annotations

import difflib
import functools
import math
import os
import tomllib
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable, TypeVar

from engine.catalog_types import COMPUTE_PRECISIONS, INTERCONNECT_TOPOLOGIES, Gpu, Model, Precision
from engine.config_dir import config_dir
from engine.errors import InputError
from engine.tokens import tokenizers_as_json, tokenizers_as_text
from engine.units import format_bandwidth, format_bytes, format_count, format_flops

USER_CATALOG_ENV = "INFERENCE_PHYSICS_CATALOG"
_BUILTIN_FILES = {"gpus": "gpus.toml", "models": "models.toml", "precisions": "precisions.toml"}
_KIND = {"gpus": "GPU", "models": "model", "precisions": "precision"}
_USER_TABLES = ("gpus", "models")

Entry = TypeVar("Entry", Gpu, Model, Precision)


@dataclass(frozen=True)
class Catalog:
    gpus: dict[str, Gpu]
    models: dict[str, Model]
    precisions: dict[str, Precision]
    warnings: list[str] = field(default_factory=list)   # problems found in the user's file

    def gpu(self, gpu_id: str) -> Gpu:
        return _lookup(self.gpus, gpu_id, "GPU", "GPUs")

    def model(self, model_id: str) -> Model:
        return _lookup(self.models, model_id, "model", "models")

    def precision(self, precision_id: str) -> Precision:
        return _lookup(self.precisions, precision_id, "precision", "precisions")


def normalise_id(text: str) -> str:
    """The form ids are stored and matched in: "H100 SXM" -> "h100-sxm"."""
    return "-".join(text.strip().lower().replace("_", " ").split())


def _lookup(table: dict[str, Entry], wanted: object, kind: str, kinds: str) -> Entry:
    known = ", ".join(table)
    if not isinstance(wanted, str):
        raise InputError(f"A {kind} id must be text, got {wanted!r}. Known {kinds}: {known}.",
                         "catalog.not_text", {"kind": kind, "got": wanted, "known": list(table)})
    key = normalise_id(wanted)
    if key in table:
        return table[key]
    for entry in table.values():        # "NVIDIA H800 SXM5" finds h800 too
        if normalise_id(entry.name) == key:
            return entry
    starting = [entry_id for entry_id in table if entry_id.startswith(key)]     # "h100" -> h100-sxm, h100-pcie
    similar = difflib.get_close_matches(key, list(table), n=3, cutoff=0.6)
    close = list(dict.fromkeys(starting + similar))[:3]
    hint = f"; close matches: {', '.join(close)}" if close else ""
    raise InputError(f"Unknown {kind} {wanted!r}{hint}. Known {kinds}: {known}.",
                     "catalog.unknown", {"kind": kind, "got": wanted, "close": close, "known": list(table)})


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
    if user_file is not None:
        _merge_user_file(Path(user_file), tables, warnings)
    return Catalog(gpus=tables["gpus"], models=tables["models"], precisions=tables["precisions"],
                   warnings=warnings)


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
            raise InputError(f"{shown}: {_KIND[name]} {raw_id!r}: {error}.") from None
    return entries


def _merge_user_file(path: Path, tables: dict[str, dict], warnings: list[str]) -> None:
    shown = _display_path(path)
    try:
        with path.open("rb") as handle:          # read-only: the user's file is never written
            document = tomllib.load(handle)
    except FileNotFoundError:
        return
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        warnings.append(f"{shown}: the file cannot be read as TOML ({error}); it is ignored "
                        "and only the built-in catalogue is used.")
        return
    for table_name, table in document.items():
        if table_name not in _USER_TABLES or not isinstance(table, dict):
            warnings.append(f"{shown}: {table_name!r} is not read; a user catalogue holds only "
                            "[gpus.<id>] and [models.<id>] tables.")
            continue
        seen: dict = {}
        for raw_id, raw in table.items():
            try:
                entry_id = _checked_id(raw_id, seen)
                entry = _BUILDERS[table_name](entry_id, raw, origin=str(path),
                                              default_source=f"your catalogue file {shown}")
            except _EntryError as error:
                warnings.append(f"{shown}: {_KIND[table_name]} {raw_id!r}: {error}; entry skipped.")
                continue
            seen[entry_id] = entry
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
        raise _EntryError(f"its id matches {entry_id!r} defined above (ids ignore case)")
    return entry_id


# --------------------------------------------------------------------------- field checks

class _EntryError(Exception):
    """One broken rule in one entry; the caller adds the file and the entry."""


def _problem(name: str, problem: str) -> _EntryError:
    return _EntryError(f"field {name} {problem}")


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _positive_number(raw: dict, name: str, required: bool = True) -> float:
    if name not in raw:
        if required:
            raise _problem(name, "is missing; it must be a positive number")
        return 0.0
    value = raw[name]
    if not _is_number(value) or value <= 0:
        raise _problem(name, f"must be a positive number, got {value!r}")
    return float(value)


def _count(raw: dict, name: str, required: bool = True, minimum: int = 1) -> int:
    wanted = "a positive whole number" if minimum == 1 else "a whole number, 0 or more"
    if name not in raw:
        if required:
            raise _problem(name, f"is missing; it must be {wanted}")
        return 0
    value = raw[name]
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise _problem(name, f"must be {wanted}, got {value!r}")
    return value


def _text(raw: dict, name: str, required: bool = True, default: str = "") -> str:
    if name not in raw:
        if required and not default:
            raise _problem(name, "is missing; it must be non-empty text")
        return default
    value = raw[name]
    if not isinstance(value, str) or (required and not value.strip()):
        raise _problem(name, f"must be non-empty text, got {value!r}")
    return value


def _flag(raw: dict, name: str) -> bool:
    if name not in raw:
        raise _problem(name, "is missing; it must be true or false")
    if not isinstance(raw[name], bool):
        raise _problem(name, f"must be true or false, got {raw[name]!r}")
    return raw[name]


def _only_known_fields(raw: object, allowed: tuple[str, ...]) -> dict:
    if not isinstance(raw, dict):
        raise _EntryError(f"must be a table of fields, got {raw!r}")
    unknown = [name for name in raw if name not in allowed]
    if unknown:
        raise _problem(unknown[0], f"is not a catalogue field; allowed fields: {', '.join(allowed)}")
    return raw


def _sources(raw: dict, allowed: set[str]) -> dict[str, str]:
    table = raw.get("sources", {})
    if not isinstance(table, dict):
        raise _problem("sources", f"must be a table of field = source text, got {table!r}")
    for name, text in table.items():
        if name not in allowed:
            raise _problem(f"sources.{name}", "names no field of this entry")
        if not isinstance(text, str) or not text.strip():
            raise _problem(f"sources.{name}", f"must be non-empty text, got {text!r}")
    return dict(table)


# --------------------------------------------------------------------------- entries

_GPU_NUMBERS = ("memory_bytes", "memory_bandwidth_bytes_per_second",
                "interconnect_bytes_per_second", "pcie_bytes_per_second")
_GPU_FIELDS = ("name", "vendor", *_GPU_NUMBERS, "flops", "interconnect", "interconnect_topology",
               "interconnect_links", "pcie", "source", "sources", "estimated", "notes")


def _topology(raw: dict) -> tuple[str, int]:
    """``interconnect_topology`` (default switch) and, for a mesh, its ``interconnect_links``."""
    topology = raw.get("interconnect_topology", "switch")
    if topology not in INTERCONNECT_TOPOLOGIES:
        raise _problem("interconnect_topology",
                       f"must be one of {', '.join(INTERCONNECT_TOPOLOGIES)}, got {topology!r}")
    links = _count(raw, "interconnect_links", required=topology == "mesh")
    if topology != "mesh" and links:
        raise _problem("interconnect_links", f"applies only to a mesh interconnect, not to {topology!r}")
    return topology, links


def _gpu(entry_id: str, raw: Any, origin: str, default_source: str | None) -> Gpu:
    raw = _only_known_fields(raw, _GPU_FIELDS)
    numbers = {name: _positive_number(raw, name) for name in _GPU_NUMBERS}
    flops_table = raw.get("flops")
    if not isinstance(flops_table, dict):
        raise _problem("flops", f"must be a table of dense peaks such as fp16 = 989.4e12, got {flops_table!r}")
    for key in flops_table:
        if key not in COMPUTE_PRECISIONS:
            raise _problem(f"flops.{key}", f"is not a precision; allowed: {', '.join(COMPUTE_PRECISIONS)}")
    if "fp16" not in flops_table:
        raise _problem("flops.fp16", "is missing; every GPU needs its dense FP16 peak")
    flops = {key: _positive_number(flops_table, key) for key in COMPUTE_PRECISIONS if key in flops_table}
    estimated = raw.get("estimated", [])
    if not isinstance(estimated, list) or any(name not in _GPU_FIELDS for name in estimated):
        raise _problem("estimated", f"must be a list of this entry's field names, got {estimated!r}")
    allowed_sources = set(_GPU_FIELDS) | {f"flops.{key}" for key in COMPUTE_PRECISIONS}
    topology, links = _topology(raw)
    return Gpu(
        id=entry_id, name=_text(raw, "name"), vendor=_text(raw, "vendor"),
        flops_per_second=flops, interconnect=_text(raw, "interconnect"),
        source=_text(raw, "source", default=default_source or ""),
        sources=_sources(raw, allowed_sources), notes=_text(raw, "notes", required=False),
        pcie=_text(raw, "pcie", required=False), estimated=tuple(estimated), origin=origin,
        interconnect_topology=topology, interconnect_links=links, **numbers,
    )


_MODEL_SIZES = ("layers", "hidden_size", "attention_heads", "kv_heads", "head_dim",
                "intermediate_size", "vocab_size")
_MOE_COUNTS = ("experts", "experts_per_token", "expert_intermediate_size", "shared_experts", "dense_layers")
_MLA_COUNTS = ("q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")
_MODEL_FIELDS = ("name", *_MODEL_SIZES, "tied_embeddings", "published_parameters",
                 "published_active_parameters", *_MOE_COUNTS, *_MLA_COUNTS, "source", "sources", "notes")


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
                       f"must not exceed published_parameters ({total:g}), got {active:g}")
    return Model(
        id=entry_id, name=_text(raw, "name"), source=_text(raw, "source", default=default_source or ""),
        tied_embeddings=_flag(raw, "tied_embeddings"), published_parameters=total,
        published_active_parameters=active, notes=_text(raw, "notes", required=False),
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
        raise _problem("compute_precision", f"must be one of {', '.join(COMPUTE_PRECISIONS)}, got {compute!r}")
    return Precision(id=entry_id, name=_text(raw, "name"), bytes_per_value=_positive_number(raw, "bytes_per_value"),
                     compute_precision=compute, source=_text(raw, "source", default=default_source or ""))


_BUILDERS: dict[str, Callable[..., Any]] = {"gpus": _gpu, "models": _model, "precisions": _precision}


# --------------------------------------------------------------------------- output for `python -m engine catalog`

def catalog_as_json(catalog: Catalog) -> dict:
    """Everything in the catalogue as JSON-ready data (SI units), entries in catalogue order."""
    def plain(entry: Gpu | Model | Precision) -> dict:
        data = asdict(entry)
        return {key: list(value) if isinstance(value, tuple) else value for key, value in data.items()}
    return {
        "gpus": [plain(gpu) for gpu in catalog.gpus.values()],
        "models": [plain(model) for model in catalog.models.values()],
        "precisions": [plain(precision) for precision in catalog.precisions.values()],
        "tokenizers": tokenizers_as_json(),
        "warnings": list(catalog.warnings),
    }


def catalog_as_text(catalog: Catalog) -> str:
    """A readable listing with units and the source of every entry."""
    lines = ["GPUs (dense peaks; link figures count both directions)"]
    for gpu in catalog.gpus.values():
        peaks = ", ".join(f"{key.upper()} {_peak_text(key, value)}" for key, value in gpu.flops_per_second.items())
        lines += [
            f"  {gpu.id}: {gpu.name} ({gpu.vendor}){_origin_text(gpu.origin)}",
            f"    memory {format_bytes(gpu.memory_bytes)} at {format_bandwidth(gpu.memory_bandwidth_bytes_per_second)}",
            f"    peak {peaks}",
            f"    GPU link {format_bandwidth(gpu.interconnect_bytes_per_second)}: {gpu.interconnect}",
            f"    host link {format_bandwidth(gpu.pcie_bytes_per_second)}" + (f": {gpu.pcie}" if gpu.pcie else ""),
        ]
        if gpu.estimated:
            lines.append(f"    estimates, not published figures: {', '.join(gpu.estimated)}")
        lines += _source_lines(gpu.source, gpu.sources, gpu.notes)
    lines += ["", "Models"]
    for model in catalog.models.values():
        kv = ("latent KV" if model.uses_mla else
              f"{model.kv_heads} KV heads" if model.kv_heads != model.attention_heads else "no KV sharing")
        lines += [
            f"  {model.id}: {model.name}{_origin_text(model.origin)}",
            f"    {model.layers} layers, hidden {format_count(model.hidden_size)}, "
            f"{model.attention_heads} heads x {model.head_dim} ({kv}), MLP {format_count(model.intermediate_size)}, "
            f"vocabulary {format_count(model.vocab_size)}, embeddings {'tied' if model.tied_embeddings else 'untied'}",
            f"    published parameters {_billions(model.published_parameters)}"
            + (f", {_billions(model.published_active_parameters)} per token" if model.published_active_parameters else ""),
        ]
        if model.is_moe:
            lines.append(f"    mixture of experts: {model.experts} experts, {model.experts_per_token} per token, "
                         f"width {format_count(model.expert_intermediate_size)}"
                         + (f", {model.shared_experts} shared" if model.shared_experts else "")
                         + (f", first {model.dense_layers} layers dense" if model.dense_layers else ""))
        if model.uses_mla:
            lines.append(f"    latent attention: q rank {model.q_lora_rank}, kv rank {model.kv_lora_rank}, "
                         f"head dims {model.qk_nope_head_dim} + {model.qk_rope_head_dim} (RoPE), v {model.v_head_dim}")
        lines += _source_lines(model.source, model.sources, model.notes)
    lines += ["", "Precisions"]
    for precision in catalog.precisions.values():
        unit = "byte" if precision.bytes_per_value == 1 else "bytes"
        lines += [f"  {precision.id}: {precision.name}, {precision.bytes_per_value:g} {unit} per value, "
                  f"computes at the {precision.compute_precision.upper()} peak",
                  f"    source: {precision.source}"]
    lines += ["", "Tokenizers (vocabularies ship with the app; nothing is downloaded)", tokenizers_as_text().rstrip("\n")]
    if catalog.warnings:
        lines += ["", "Problems in your catalogue file"] + [f"  {warning}" for warning in catalog.warnings]
    return "\n".join(lines) + "\n"


def _peak_text(precision: str, flops: float) -> str:
    text = format_flops(flops)
    return text.replace("TFLOPS", "TOPS") if precision.startswith("int") else text


def _billions(count: float) -> str:
    return f"{count / 1e9:g}B"


def _origin_text(origin: str) -> str:
    return "" if origin == "built-in" else f" [from {origin}]"


def _source_lines(source: str, sources: dict[str, str], notes: str) -> list[str]:
    lines = [f"    source: {source}"]
    lines += [f"    source of {name}: {text}" for name, text in sources.items()]
    if notes:
        lines.append(f"    note: {notes}")
    return lines
