"""The engine questions of scene 7, asked through the kit (``story.ask(question, *arguments)``). Qt-free.

Each takes the catalogue first and hashable arguments, and returns the
engine's answer or raises its ``InputError`` (the kit hands that back as a
value: a refusal beside the control, never an exception).
"""
from __future__ import annotations

from dataclasses import replace

from engine import Scenario
from engine.levers import curves, lever_outcome, stacked
from engine.levers.draft import resolve_draft

WIDE_BYTES_PER_VALUE = 2.0     # FP16: what a lever's narrower precisions are narrower than


def lever(catalog, scenario: Scenario, name: str, settings: tuple) -> object:
    """``engine.levers.lever_outcome`` of one lever with ``settings`` (sorted pairs)."""
    return lever_outcome(scenario, name, dict(settings), catalog)


def stack(catalog, scenario: Scenario, levers: tuple) -> object:
    """``engine.levers.stacked`` of ``levers``: (name, settings pairs) for each lever switched on."""
    return stacked(scenario, {name: dict(settings) for name, settings in levers}, catalog)


def shares_tokenizer(catalog, scenario: Scenario, draft: str) -> bool:
    """Whether ``draft`` can draft for the scenario's model (the engine's checks: same tokenizer, splits the
    same way over its GPUs)."""
    resolve_draft(replace(scenario, draft_model=draft), catalog.model(scenario.model), catalog)
    return True


def flash_curve(catalog, scenario: Scenario) -> tuple:
    """The prefill with and without FlashAttention as the prompt grows (``engine.levers.curves``)."""
    return tuple(curves.flash_attention_curve(scenario, catalog=catalog))


def reload_curve(catalog, scenario: Scenario) -> tuple:
    """A returning conversation of each length reloaded from host memory against recomputed."""
    return tuple(curves.reload_curve(scenario, catalog=catalog))


def long_context(catalog, scenario: Scenario, kv: str) -> tuple:
    """Time per token and sequences that fit at long contexts, with FP16 KV and with ``kv``."""
    return tuple(curves.long_context_rows(scenario, kv_precisions=("fp16", kv), catalog=catalog))


def precision_name(catalog, precision: str) -> str:
    return catalog.precision(precision).name


def model_name(catalog, model: str) -> str:
    return catalog.model(model).name


def narrow_precisions(catalog) -> tuple[tuple[str, str], ...]:
    """(id, name) of every precision narrower than FP16, narrowest last: the quantisation levers' choices."""
    narrow = [p for p in catalog.precisions.values() if p.bytes_per_value < WIDE_BYTES_PER_VALUE]
    return tuple((p.id, p.name) for p in sorted(narrow, key=lambda p: (-p.bytes_per_value, p.id)))


def draft_models(catalog) -> tuple[tuple[str, str], ...]:
    """(id, name) of every model, by size: the draft choices (the engine refuses those that cannot draft)."""
    models = sorted(catalog.models.values(), key=lambda m: (m.published_parameters, m.name))
    return tuple((m.id, m.name) for m in models)
