"""What a scene shows for a lever: five figures without it and with it, what it costs, where it stops paying.

    from engine.levers import lever_outcome, stacked
    outcome = lever_outcome(scenario, "speculative", {"draft_tokens": 4, "acceptance": 0.8})
    outcome.base.tpot_seconds, outcome.with_levers.tpot_seconds, outcome.stops_paying["speculative"]

The five figures (``LeverFigures``): time per output token, first-token time,
output tokens per second per GPU (``batch / (tpot * gpus)``), price per million
output tokens, and the sequences of this length that fit (``Report.max_batch``).

``stacked(scenario, {lever: settings, ...})`` compares the scenario with every
named lever off against the scenario with all of them on; ``lever_outcome`` is
one lever alone. A lever left out keeps the scenario's own value. "Off" and
"on" for each lever (``engine.levers.levers``): weights and KV in FP16 against
a narrower precision (FP8 unless set); batch 1 against the scenario's batch (or
all that fit when it is 1); no speculation against the scenario's drafter (or
self-drafting heads at ``DEFAULT_HEAD_COST`` of a step); no cached prefix
against the scenario's (or half the prompt); a reserved length against pages;
attention without FlashAttention against the engine's fused attention; a
returning conversation recomputed against reloaded from host memory; one pool
(continuous batching, each step also carrying the prefills of the requests that
replace finished ones) against separate prefill and decode pools.

Where a lever changes what fits (KV allocation), each side runs the batch its
memory allows (at most 4,096, at least 1, ``fits`` false when none fits);
batching, when stacked with it, sets the batch instead. Every refusal is the
engine's ``InputError`` with a code (``resources/text/errors.toml``).
"""
from __future__ import annotations

from dataclasses import field

from engine.frozen import frozen
from engine.levers.settings import GROUPS, LEVERS, checked_levers

__all__ = ["LeverFigures", "LeverOutcome", "lever_outcome", "stacked", "LEVERS", "GROUPS"]


@frozen
class LeverFigures:
    """The five figures of one side of a comparison, and the batch and fit they were computed at."""
    tpot_seconds: float
    ttft_seconds: float
    tokens_per_second_per_gpu: float
    usd_per_million_output_tokens: float
    sequences_that_fit: int
    batch: int
    fits: bool


@frozen
class LeverOutcome:
    """A comparison of the scenario with ``levers`` off (``base``) and on (``with_levers``).

    ``values``, ``costs`` and ``stops_paying`` hold, per lever, named numbers in SI units
    (seconds, bytes, tokens, shares; None where there is no such point): the formula's
    inputs and results, what the lever costs, and where it stops paying. ``with_scenario`` is the
    scenario the "on" side's report is computed from; ``report_figures`` names the figures of
    ``with_levers`` that are that report's own (not changed after it by a what-if lever).
    """
    levers: tuple[str, ...]
    base: LeverFigures
    with_levers: LeverFigures
    values: dict[str, dict[str, float | int | str | None]] = field(default_factory=dict)
    costs: dict[str, dict[str, float | int | None]] = field(default_factory=dict)
    stops_paying: dict[str, dict[str, float | int | None]] = field(default_factory=dict)
    with_scenario: object = None
    report_figures: frozenset[str] = frozenset()

    def gain(self, figure: str) -> float:
        """``with / base`` of one figure: below 1 for times and prices is better, above 1 for the rest."""
        base = getattr(self.base, figure)
        return getattr(self.with_levers, figure) / base if base else float("inf")


FIGURES = ("tpot_seconds", "ttft_seconds", "tokens_per_second_per_gpu", "usd_per_million_output_tokens",
           "sequences_that_fit")     # the five figures of ``LeverFigures``


def figures_of(report) -> LeverFigures:
    """The five figures of a report."""
    sc = report.scenario
    return LeverFigures(tpot_seconds=report.tpot_seconds, ttft_seconds=report.ttft_seconds,
                        tokens_per_second_per_gpu=sc.batch / (report.tpot_seconds * sc.gpus),
                        usd_per_million_output_tokens=report.usd_per_million_output_tokens,
                        sequences_that_fit=report.max_batch, batch=sc.batch, fits=report.fits)


def stacked(scenario, levers, catalog=None) -> LeverOutcome:
    """The scenario with every lever in ``levers`` off against all of them on (module docstring).

    ``levers``: ``{name: settings or None}``, or a list of names for their defaults.
    """
    from engine.levers.levers import compare
    from engine.scenario import validate_scenario

    return compare(validate_scenario(scenario), checked_levers(levers), catalog)


def lever_outcome(scenario, lever: str, settings=None, catalog=None) -> LeverOutcome:
    """One lever alone: ``stacked(scenario, {lever: settings}, catalog)``."""
    return stacked(scenario, {lever: settings}, catalog)
