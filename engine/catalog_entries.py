"""How one catalogue entry's fields are read and checked, and how a model entry is built.

``engine.catalog`` reads the files and merges them; this module judges one
entry at a time. A ``FieldChecks`` goes through every field of an entry and
gathers every problem it finds before giving up, so that a person fixing
their own file learns of all of them at once: "field memory_bytes is
missing (a positive number); field vendor is missing (non-empty text)". A rule between two fields (kv_heads must divide
attention_heads) is checked only when both fields are themselves good, so a
bad field never drags a second, invented problem behind it.

``build_model`` turns a table of model fields into a ``Model``; the
catalogue loader uses it for models.toml and the user's file, and
``engine.import_model`` uses it for what it reads from a ``config.json``, so
an imported entry obeys exactly the rules the loader will apply to it.
"""
from __future__ import annotations

import math
from typing import Any, Callable

from engine.catalog_types import PHYSICAL_RANGES, Model, physical_range_text
from engine.errors import shorten, shown_value
from engine.units import format_count


class EntryError(Exception):
    """What is wrong with one entry, as one sentence without the file and entry (the caller adds them).

    ``field`` names the field at fault, where one is.
    """

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def problem(name: str, text: str) -> EntryError:
    return EntryError(f"field {shorten(name)} {text}", name)


def quoted(value: object) -> str:
    """A value from the file as a warning quotes it: its repr, at most a line's worth."""
    return shorten(repr(value))


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _in_range(name: str, value: float, range_name: str | None = None) -> None:
    low, high, _ = PHYSICAL_RANGES[range_name or name]
    if not low <= value <= high:
        raise problem(name, f"must be {physical_range_text(range_name or name)}, got {shown_value(value, quoted=True)}")


def positive_number(raw: dict, name: str, required: bool = True, range_name: str | None = None,
                    label: str | None = None) -> float:
    """``raw[name]`` as a positive number in its physical range (0.0 when optional and absent)."""
    if label is not None:           # a field of a sub-table: "flops.fp16"
        try:
            return positive_number(raw, name, required, range_name)
        except EntryError as error:
            raise EntryError(str(error).replace(f"field {name} ", f"field {label} ", 1)) from None
    if name not in raw:
        if required:
            raise problem(name, "is missing (a positive number)")
        return 0.0
    value = raw[name]
    if not _is_number(value) or value <= 0:
        raise problem(name, f"must be a positive number, got {shown_value(value, quoted=True)}")
    _in_range(name, value, range_name)
    return float(value)


def whole_number(raw: dict, name: str, required: bool = True, minimum: int = 1) -> int:
    """``raw[name]`` as a whole number of at least ``minimum`` (1 or 0), in its range (0 when optional and absent)."""
    wanted = "a positive whole number" if minimum == 1 else "a whole number, 0 or more"
    if name not in raw:
        if required:
            raise problem(name, f"is missing ({wanted})")
        return 0
    value = raw[name]
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise problem(name, f"must be {wanted}, got {shown_value(value, quoted=True)}")
    if value or minimum:
        _in_range(name, value)
    return value


def text(raw: dict, name: str, required: bool = True, default: str = "") -> str:
    """``raw[name]`` as non-empty text (``default`` when absent and a default is given)."""
    if name not in raw:
        if required and not default:
            raise problem(name, "is missing (non-empty text)")
        return default
    value = raw[name]
    if not isinstance(value, str) or (required and not value.strip()):
        raise problem(name, f"must be non-empty text, got {quoted(value)}")
    return value


def flag(raw: dict, name: str) -> bool:
    """``raw[name]`` as true or false (required)."""
    if name not in raw:
        raise problem(name, "is missing (true or false)")
    if not isinstance(raw[name], bool):
        raise problem(name, f"must be true or false, got {quoted(raw[name])}")
    return raw[name]


def sources(raw: dict, name: str, allowed: set[str]) -> dict[str, str]:
    """The ``sources`` sub-table: field name -> source text, every name one of ``allowed``."""
    table = raw.get(name, {})
    if not isinstance(table, dict):
        raise problem(name, f"must be a table of field = source text, got {quoted(table)}")
    for field_name, source in table.items():
        if field_name not in allowed:
            raise problem(f"{name}.{field_name}", "names no field of this entry")
        if not isinstance(source, str) or not source.strip():
            raise problem(f"{name}.{field_name}", f"must be non-empty text, got {quoted(source)}")
    return dict(table)


class FieldChecks:
    """Every check of one entry, each problem kept instead of stopping at the first.

    ``take(check, name, ...)`` runs ``check(raw, name, ...)`` and returns its value, or
    ``default`` after noting the problem; ``rule(names, fn)`` runs a rule between fields
    only when all of ``names`` passed; ``done()`` raises one ``EntryError`` naming every
    problem, in the order found.
    """

    def __init__(self, raw: object, allowed: tuple[str, ...]):
        if not isinstance(raw, dict):
            raise EntryError(f"must be a table of fields, got {quoted(raw)}")
        self.raw = raw
        self.problems: list[str] = []
        self.failed: set[str] = set()
        for name in [name for name in raw if name not in allowed]:
            import difflib              # only for a field a user's file misspells: not on every start
            close = difflib.get_close_matches(str(name), allowed, n=1, cutoff=0.75)
            hint = f"did you mean {close[0]}?" if close else f"allowed fields: {', '.join(allowed)}"
            self.problems.append(f"field {shorten(str(name))} is not a catalogue field ({hint})")

    def take(self, check: Callable[..., Any], name: str, *args, default: Any = None, **kwargs) -> Any:
        try:
            return check(self.raw, name, *args, **kwargs)
        except EntryError as error:
            self.fail(name, error)
            return default

    def rule(self, names: tuple[str, ...], fn: Callable[[], Any], default: Any = None) -> Any:
        """``fn()`` when every field in ``names`` passed its own checks; a broken rule marks the field it names."""
        if not self.ok(*names):
            return default
        try:
            return fn()
        except EntryError as error:
            self.fail(error.field or names[0], error)
            return default

    def ok(self, *names: str) -> bool:
        return not self.failed.intersection(names)

    def fail(self, name: str, error: EntryError | str) -> None:
        self.failed.add(name)
        self.problems.append(str(error))

    def done(self) -> None:
        if self.problems:
            raise EntryError("; ".join(self.problems))


# --------------------------------------------------------------------------- models

MODEL_SIZES = ("layers", "hidden_size", "attention_heads", "kv_heads", "head_dim", "intermediate_size", "vocab_size")
MOE_COUNTS = ("experts", "experts_per_token", "expert_intermediate_size", "shared_experts", "dense_layers")
MLA_COUNTS = ("q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")
WINDOW_COUNTS = ("sliding_window_tokens", "sliding_window_layers")
MODEL_FIELDS = ("name", *MODEL_SIZES, "tied_embeddings", "published_parameters", "published_active_parameters",
                "max_context_tokens", *MOE_COUNTS, *MLA_COUNTS, *WINDOW_COUNTS, "source", "sources", "notes")


def build_model(entry_id: str, raw: Any, origin: str, default_source: str | None) -> Model:
    """The ``Model`` the fields of ``raw`` describe; ``EntryError`` naming every problem otherwise."""
    checks = FieldChecks(raw, MODEL_FIELDS)
    sizes = {name: checks.take(whole_number, name, default=1) for name in MODEL_SIZES}
    optional = {name: checks.take(whole_number, name, required=False, minimum=0, default=0)
                for name in (*MOE_COUNTS, *MLA_COUNTS, *WINDOW_COUNTS)}
    checks.rule(("kv_heads", "attention_heads"), lambda: _check_heads(sizes))
    checks.rule(("layers", *MOE_COUNTS), lambda: _check_moe(optional, sizes["layers"]))
    checks.rule(MLA_COUNTS, lambda: _check_mla(optional))
    checks.rule(("layers", *WINDOW_COUNTS), lambda: _check_window(optional, sizes["layers"]))
    total = checks.take(positive_number, "published_parameters", default=1.0)
    active = checks.take(positive_number, "published_active_parameters", required=False, default=0.0)
    checks.rule(("published_active_parameters", "published_parameters", "experts"),
                lambda: _check_active(active, total, optional["experts"]))
    model = dict(
        id=entry_id, name=checks.take(text, "name", default=""),
        source=checks.take(text, "source", True, default_source or "", default=""),
        tied_embeddings=checks.take(flag, "tied_embeddings", default=False), published_parameters=total,
        published_active_parameters=active, notes=checks.take(text, "notes", required=False, default=""),
        max_context_tokens=checks.take(whole_number, "max_context_tokens", required=False, default=0),
        sources=checks.take(sources, "sources", set(MODEL_FIELDS), default={}), origin=origin, **sizes, **optional,
    )
    checks.done()
    return Model(**model)


def _check_heads(sizes: dict[str, int]) -> None:
    if sizes["attention_heads"] % sizes["kv_heads"]:
        raise problem("kv_heads", f"must divide attention_heads ({sizes['attention_heads']}) evenly, "
                                  f"got {sizes['kv_heads']}")


def _check_moe(moe: dict[str, int], layers: int) -> None:
    if moe["experts"] == 0:
        for name in MOE_COUNTS[1:]:
            if moe[name]:
                raise problem(name, f"must be 0 when experts is 0 (a dense model), got {moe[name]}")
        return
    if not 1 <= moe["experts_per_token"] <= moe["experts"]:
        raise problem("experts_per_token",
                      f"must be between 1 and experts ({moe['experts']}), got {moe['experts_per_token']}")
    if moe["expert_intermediate_size"] == 0:
        raise problem("expert_intermediate_size", "must be a positive whole number when experts > 0, got 0")
    if moe["dense_layers"] >= layers:
        raise problem("dense_layers", f"must be fewer than layers ({layers}), got {moe['dense_layers']}")


def _check_mla(mla: dict[str, int]) -> None:
    if mla["kv_lora_rank"] == 0:
        for name in MLA_COUNTS:
            if mla[name]:
                raise problem(name, f"must be 0 when kv_lora_rank is 0 (no latent attention), got {mla[name]}")
        return
    for name in ("qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"):
        if mla[name] == 0:
            raise problem(name, "must be a positive whole number when kv_lora_rank > 0, got 0")


def _check_window(window: dict[str, int], layers: int) -> None:
    tokens, windowed = window["sliding_window_tokens"], window["sliding_window_layers"]
    if tokens and not windowed:
        raise problem("sliding_window_layers", "must be a positive whole number when sliding_window_tokens > 0, got 0")
    if windowed and not tokens:
        raise problem("sliding_window_tokens", "must be a positive whole number when sliding_window_layers > 0, got 0")
    if windowed > layers:
        raise problem("sliding_window_layers", f"must be at most layers ({layers}), got {windowed}")


def _check_active(active: float, total: float, experts: int) -> None:
    if active and not experts:
        raise problem("published_active_parameters", "is only for mixture-of-experts models (experts > 0)")
    if active > total:
        raise problem("published_active_parameters",
                      f"must not exceed published_parameters ({format_count(total)}), got {format_count(active)}")
