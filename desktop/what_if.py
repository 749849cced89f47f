"""What-if reports: the engine's answer for a scenario, cached, with a refusal as a value.

Scenes show variants of the shared scenario all the time (scene 1's presets,
scene 2's "FP8 instead" and "two GPUs", scene 4's batch sweep, scene 5's
context sweep). They ask ``SceneContext.what_if(**changes)``, which lands here:
one cache of reports per catalogue, shared by every scene and the store, so
the same scenario is computed once.

A refusal comes back as the engine's ``InputError`` itself, never raised: a
scene decides how to show it (a disabled preset, an inline note), and no slot
or paint can be broken by a what-if. Qt-free, so scene models can use it.
"""
from __future__ import annotations

import dataclasses
from collections import OrderedDict

from typing import NamedTuple

import numpy as np

from engine import InputError, Report, Scenario, compute_report, sweep
from engine.compute import decode_crossover_batch
from engine.errors import refusal

WhatIf = Report | InputError


class ContextSweep(NamedTuple):
    """The engine's memory figures over a range of contexts (one sequence of each length, the scenario's batch)."""
    contexts: np.ndarray           # tokens per sequence
    kv_bytes: np.ndarray           # the whole batch's KV cache at each context
    free_bytes_per_gpu: np.ndarray  # what is left on each GPU at each context (negative: short by that much)
# Enough for every scene's presets and sweeps (a 16-step batch or context sweep each)
# across a session's scenarios; a report is a few hundred bytes.
CACHE_SIZE = 1024
# A sweep holds three arrays of the contexts a plot draws (a few hundred); a handful of scenarios is plenty.
# The crossover cache is kept to the same size (one batch sweep per scenario).
SWEEP_CACHE_SIZE = 16


def refused(result: WhatIf) -> bool:
    """Whether ``result`` is the engine's refusal rather than a report."""
    return isinstance(result, InputError)


class WhatIfs:
    """``report(scenario)`` for one catalogue, remembered (least recently used beyond ``CACHE_SIZE``)."""

    def __init__(self, catalog, cache_size: int = CACHE_SIZE):
        self.catalog = catalog
        self._cache: OrderedDict[Scenario, WhatIf] = OrderedDict()
        self._cache_size = cache_size
        self._crossovers: dict[Scenario, int | None | InputError] = {}
        self._sweeps: dict[tuple[Scenario, tuple[int, ...]], ContextSweep | InputError] = {}

    def report(self, scenario: Scenario) -> WhatIf:
        """The engine's report for ``scenario``, or its ``InputError``; never raises."""
        try:
            cached = self._cache.get(scenario)
        except TypeError:                   # an unhashable field: the engine will refuse it
            cached = None
        if cached is not None:
            self._cache.move_to_end(scenario)
            return cached
        try:
            result: WhatIf = compute_report(scenario, self.catalog)
        except InputError as engine_refusal:
            result = engine_refusal
        except (ArithmeticError, ValueError) as failure:
            # The engine promises InputError for bad input; numbers at the edge of a float that slip past
            # the catalogue's ranges are refused here rather than breaking a paint.
            result = refusal("engine.arithmetic", {"detail": str(failure)})
        try:
            self._cache[scenario] = result
        except TypeError:
            return result
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return result

    def crossover_batch(self, scenario: Scenario) -> int | None | InputError:
        """The smallest batch at which ``scenario``'s decode step is compute-bound (None: not within the allowed
        batches), or the engine's refusal. Cached per scenario apart from its batch."""
        key = dataclasses.replace(scenario, batch=1)
        if key not in self._crossovers:
            try:
                self._crossovers[key] = decode_crossover_batch(key, self.catalog)
            except InputError as engine_refusal:
                self._crossovers[key] = engine_refusal
            if len(self._crossovers) > SWEEP_CACHE_SIZE:
                self._crossovers.pop(next(iter(self._crossovers)))
        return self._crossovers[key]

    def context_sweep(self, scenario: Scenario, contexts: tuple[int, ...]) -> ContextSweep | InputError:
        """KV bytes and free bytes per GPU at ``contexts`` (tokens per sequence; the points a plot draws, not
        every token up to a million), or the engine's refusal. Cached per scenario and contexts."""
        # The prompt stays: the runtime allowance (its prefill chunk) and so the free memory depend on it.
        key = (dataclasses.replace(scenario, output_tokens=1), tuple(contexts))
        if key not in self._sweeps:
            try:
                contexts = sweep.checked_contexts(key[1])
                self._sweeps[key] = ContextSweep(contexts, sweep.kv_bytes_for_contexts(key[0], contexts, self.catalog),
                                                 sweep.free_bytes_per_gpu_for_contexts(key[0], contexts, self.catalog))
            except InputError as engine_refusal:
                self._sweeps[key] = engine_refusal
            if len(self._sweeps) > SWEEP_CACHE_SIZE:
                self._sweeps.pop(next(iter(self._sweeps)))
        return self._sweeps[key]

    def changed(self, base: Scenario, **changes) -> WhatIf:
        """The report for ``base`` with ``changes`` (fields of ``Scenario``); an unknown field is refused too."""
        try:
            scenario = dataclasses.replace(base, **changes)
        except TypeError:
            return refusal("what_if.field", {"got": ", ".join(sorted(changes))})
        return self.report(scenario)
