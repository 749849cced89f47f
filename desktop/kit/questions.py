"""The engine questions scenes ask through the kit (``kit.ask(question, *arguments)``; stories: ``ask``).

Each is a function of the catalogue first, then hashable arguments, and
returns the engine's answer or raises its ``InputError`` (the kit returns that
as a value). A new kind of question is a new function here or in the engine;
nothing in the kit changes. Qt-free.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, NamedTuple

from engine import Report, Scenario, compute_report
from engine.compute import decode_crossover_batch
from engine.errors import refusal

if TYPE_CHECKING:
    import numpy as np

    from engine.formulas import Formula


def report(catalog, scenario: Scenario) -> Report:
    """The engine's report for ``scenario``."""
    return compute_report(scenario, catalog)


def formula(catalog, scenario: Scenario, key: str, at: float | None = None) -> Formula:
    """The formula behind figure ``key`` of ``scenario``'s report (``engine.formulas``), at the stage's own value
    ``at`` (an intensity, a context) where the figure is shown at one."""
    from engine.formulas import formula as formula_of     # the formulas load with the first card, not at start
    return formula_of(compute_report(scenario, catalog), key, at)


def changed(scenario: Scenario, **changes) -> Scenario:
    """``scenario`` with ``changes`` (fields of ``Scenario``); an unknown field is refused in one sentence."""
    try:
        return dataclasses.replace(scenario, **changes)
    except TypeError:
        raise refusal("what_if.field", {"got": ", ".join(sorted(changes))}) from None


def crossover_batch(catalog, scenario: Scenario) -> int | None:
    """The smallest batch at which ``scenario``'s decode step is compute-bound (None: not within the allowed
    batches). Its own batch plays no part: ask with ``batch=1`` so one answer serves every batch."""
    return decode_crossover_batch(scenario, catalog)


class ContextSweep(NamedTuple):
    """The engine's memory figures over a range of contexts (one sequence of each length, the scenario's batch)."""
    contexts: np.ndarray           # tokens per sequence
    kv_bytes: np.ndarray           # the whole batch's KV cache at each context
    free_bytes_per_gpu: np.ndarray  # what is left on each GPU at each context (negative: short by that much)


def context_sweep(catalog, scenario: Scenario, contexts: tuple[int, ...]) -> ContextSweep:
    """KV bytes and free bytes per GPU at ``contexts`` (tokens per sequence: the points a plot draws, never every
    token up to a million). The prompt stays in ``scenario``: the runtime allowance (its prefill chunk), and so the
    free memory, depend on it; ask with ``output_tokens=1`` so one answer serves every output length."""
    from engine import sweep           # numpy: loaded by the first plot that needs it, not before the first frame
    checked = sweep.checked_contexts(contexts)
    return ContextSweep(checked, sweep.kv_bytes_for_contexts(scenario, checked, catalog),
                        sweep.free_bytes_per_gpu_for_contexts(scenario, checked, catalog))


def cache_work_formula(catalog, key: str, generated_tokens: int) -> Formula:
    """The formula behind a figure of the work of generating ``generated_tokens`` tokens with and without a KV
    cache (``engine.cache_work_formulas``); the catalogue plays no part."""
    from engine.cache_work_formulas import formula as cache_work_formula_of
    return cache_work_formula_of(key, generated_tokens)


def token_formula(catalog, key: str, *values: float) -> Formula:
    """The formula behind a figure scene 6 works out from counts it already has (``engine.token_formulas``:
    nothing is tokenized again); the catalogue plays no part."""
    from engine.token_formulas import formula as token_formula_of
    return token_formula_of(key, *values)


def plan_formula(catalog, plan, key: str) -> Formula:
    """The formula behind figure ``key`` of a fleet ``plan`` (``engine.plan_formulas``)."""
    from engine.plan_formulas import formula as of_plan
    return of_plan(plan, key)


def knee_formula(catalog, rates: tuple[float, ...], ttft_p90_seconds: tuple[float, ...]) -> Formula:
    """The knee of a latency curve given as its rates and P90 first-token times (``engine.plan_formulas``)."""
    from engine.plan_formulas import knee_formula as of_curve
    return of_curve(rates, ttft_p90_seconds)


def probe_formula(catalog, device, key: str, pass_name: str = "decode") -> Formula:
    """The formula behind figure ``key`` of a ``device`` the probe measured, or of its ``pass_name`` pass
    (``engine.probe_formulas``)."""
    from engine.probe_formulas import formula as of_probe
    return of_probe(device, key, pass_name)
