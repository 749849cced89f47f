"""The curve beside a lever's figures, for the levers drawn without the belt: its figure as something grows.

- quantised KV: time per token and sequences that fit at long contexts, FP16 against the narrower KV;
- prefix caching: the first token as more of the prompt is cached, against the uncached part alone;
- FlashAttention: the prefill with and without it as the prompt grows (the gap grows as its square);
- offloading: a returning conversation reloaded over PCIe against recomputed;
- disaggregation: the time per token of one pool against two, as the batch grows.

Every number is the engine's (``asked``); a length the model cannot read is left
out, a row the engine refuses is left out. Qt-free.
"""
from __future__ import annotations

from dataclasses import replace

from desktop.kit.answers import refused
from engine.units import format_count, glue_units
from widgets.figure_table_state import Cell, FigureTableState

from . import asked
from .tables import curve_table, ratio_cell, seconds_cell

PREFIX_SHARES = (0.0, 0.5, 0.9, 0.99)        # of the prompt, cached
DISAGGREGATION_BATCHES = (1, 8, 32, 128, 512)


def _tokens(story, n: int) -> str:
    return story.text("label.tokens_row", tokens=glue_units(format_count(n)))


def _long_context(story) -> FigureTableState | None:
    rows = story.ask(asked.long_context, story.scenario, story.choices.kv)
    if refused(rows) or not rows:
        return None
    wide, narrow = rows[0].kv, rows[-1].kv
    by = {(r.kv, r.context_tokens): r for r in rows}
    contexts = sorted({r.context_tokens for r in rows})
    names = {kv: story.ask(asked.precision_name, kv) for kv in (wide, narrow)}
    table = []
    for n in contexts:
        a, b = by.get((wide, n)), by.get((narrow, n))
        if a is None or b is None:
            continue
        table.append((_tokens(story, n), (seconds_cell(a.tpot_seconds, a.fits), seconds_cell(b.tpot_seconds, b.fits, True),
                                          Cell(story.text("label.from_to", base=format_count(a.sequences_that_fit),
                                                          new=format_count(b.sequences_that_fit)), bold=True))))
    headers = (story.text("curve.kv_precision.tpot", precision=names[wide]),
               story.text("curve.kv_precision.tpot", precision=names[narrow]),
               story.text("curve.kv_precision.fit", wide=names[wide], narrow=names[narrow]))
    return curve_table(story.text, story.text("curve.kv_precision.title"), headers, table, drop_order=(0,))


def _prefix(story) -> FigureTableState | None:
    prompt = story.scenario.prompt_tokens
    chosen = story.outcome.values["prefix_cache"]["cached_tokens"]
    cached = sorted({round(share * prompt) for share in PREFIX_SHARES} | {chosen})
    table = []
    for n in cached:
        outcome = story.ask(asked.lever, story.scenario, "prefix_cache", (("cached_prefix_tokens", n),))
        if refused(outcome):
            continue
        floor = outcome.stops_paying["prefix_cache"]["uncached_alone_ttft_seconds"]
        label = _tokens(story, n) if n else story.text("column.prefix_cache.base")
        if n == chosen:
            label = story.text("label.chosen_row", row=label)
        table.append((label, (seconds_cell(outcome.with_levers.ttft_seconds, outcome.with_levers.fits, n == chosen),
                              seconds_cell(floor))))
    return curve_table(story.text, story.text("curve.prefix_cache.title"),
                       (story.text("curve.prefix_cache.ttft"), story.text("curve.prefix_cache.alone")), table)


def _flash(story) -> FigureTableState | None:
    points = story.ask(asked.flash_curve, story.scenario)
    if refused(points) or not points:
        return None
    table = [(_tokens(story, p.prompt_tokens), (seconds_cell(p.with_flash_seconds, bold=True),
                                                seconds_cell(p.without_flash_seconds),
                                                ratio_cell(p.slowdown, "warning" if p.slowdown > 1.1 else "text")))
             for p in points]
    headers = tuple(story.text(f"curve.flash_attention.{key}") for key in ("with", "without", "slower"))
    return curve_table(story.text, story.text("curve.flash_attention.title"), headers, table)


def _reload(story) -> FigureTableState | None:
    points = story.ask(asked.reload_curve, story.scenario)
    if refused(points) or not points:
        return None
    table = [(_tokens(story, p.context_tokens), (seconds_cell(p.reload_seconds, bold=True),
                                                 seconds_cell(p.recompute_seconds),
                                                 ratio_cell(p.recompute_seconds / p.reload_seconds, "good")))
             for p in points]
    headers = tuple(story.text(f"curve.offload.{key}") for key in ("reload", "recompute", "faster"))
    return curve_table(story.text, story.text("curve.offload.title"), headers, table)


def _disaggregation(story) -> FigureTableState | None:
    settings = story.settings("disaggregation")
    table = []
    for batch in sorted({*DISAGGREGATION_BATCHES, story.scenario.batch}):
        outcome = story.ask(asked.lever, replace(story.scenario, batch=batch), "disaggregation", settings)
        if refused(outcome):
            continue
        row = story.text("label.batch_row", batch=format_count(batch))
        if batch == story.scenario.batch:
            row = story.text("label.chosen_row", row=row)
        base, new = outcome.base, outcome.with_levers
        table.append((row, (seconds_cell(base.tpot_seconds, base.fits), seconds_cell(new.tpot_seconds, new.fits, True),
                            seconds_cell(outcome.costs["disaggregation"]["kv_transfer_seconds"]))))
    headers = tuple(story.text(f"curve.disaggregation.{key}") for key in ("one_pool", "two_pools", "transfer"))
    return curve_table(story.text, story.text("curve.disaggregation.title"), headers, table, drop_order=(2,))


CURVES = {"kv_precision": _long_context, "prefix_cache": _prefix, "flash_attention": _flash, "offload": _reload,
          "disaggregation": _disaggregation}


def growth_table(story) -> FigureTableState | None:
    """The curve of the story's lever, or None (a lever drawn with the belt, or nothing to show)."""
    make = CURVES.get(story.lever)
    return None if make is None else make(story)
