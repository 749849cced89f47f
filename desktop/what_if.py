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

from engine import InputError, Report, Scenario, compute_report

WhatIf = Report | InputError
# Enough for every scene's presets and sweeps (a 16-step batch or context sweep each)
# across a session's scenarios; a report is a few hundred bytes.
CACHE_SIZE = 1024


def refused(result: WhatIf) -> bool:
    """Whether ``result`` is the engine's refusal rather than a report."""
    return isinstance(result, InputError)


class WhatIfs:
    """``report(scenario)`` for one catalogue, remembered (least recently used beyond ``CACHE_SIZE``)."""

    def __init__(self, catalog, cache_size: int = CACHE_SIZE):
        self.catalog = catalog
        self._cache: OrderedDict[Scenario, WhatIf] = OrderedDict()
        self._cache_size = cache_size

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
        except InputError as refusal:
            result = refusal
        except (ArithmeticError, ValueError) as failure:
            # The engine promises InputError for bad input; numbers at the edge of a float that slip past
            # the catalogue's ranges are refused here rather than breaking a paint.
            result = InputError(f"The engine cannot compute this scenario: {failure}.", "engine.arithmetic",
                                {"detail": str(failure)})
        try:
            self._cache[scenario] = result
        except TypeError:
            return result
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return result

    def changed(self, base: Scenario, **changes) -> WhatIf:
        """The report for ``base`` with ``changes`` (fields of ``Scenario``); an unknown field is refused too."""
        try:
            scenario = dataclasses.replace(base, **changes)
        except TypeError:
            names = ", ".join(sorted(changes))
            return InputError(f"A what-if may change only scenario fields; got {names}.", "what_if.field",
                              {"got": names})
        return self.report(scenario)
