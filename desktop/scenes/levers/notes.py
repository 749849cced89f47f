"""The numbers scene 7's texts quote: captions, speaker notes, the tables' notes, the belt's line. Qt-free.

``values(story)`` is a ``desktop.kit.story.Values``: each number is formatted
(``engine.units``) only when a text names it, and only the build's own lever
is asked for. ``costs`` and ``stops`` are whole sentences (what the lever
costs, where it stops paying), filled from the other values; the notes quote
them, and the figure table shows them under its rows.
"""
from __future__ import annotations

import math
from typing import Callable

from desktop.kit.answers import refused
from desktop.kit.story import Values
from engine.scenario import MAX_BATCH
from engine.units import (
    format_bandwidth, format_bytes, format_count, format_number, format_percent, format_ratio, format_seconds,
    format_usd, glue_units,
)

from . import asked

Entries = dict[str, Callable[[], str]]


def _figures(outcome) -> Entries:
    base, new = outcome.base, outcome.with_levers
    entries: Entries = {}
    for side, suffix in ((base, "base"), (new, "with")):
        entries.update({
            f"tpot_{suffix}": lambda s=side: format_seconds(s.tpot_seconds),
            f"ttft_{suffix}": lambda s=side: format_seconds(s.ttft_seconds),
            f"throughput_{suffix}": lambda s=side: format_number(s.tokens_per_second_per_gpu),
            f"price_{suffix}": lambda s=side: format_usd(s.usd_per_million_output_tokens),
            f"fit_{suffix}": lambda s=side: format_count(s.sequences_that_fit),
            f"batch_{suffix}": lambda s=side: format_count(s.batch),
        })
    return entries


def _batch_or_none(batch) -> str:
    """A batch the engine found, or "" where it found none (the ``_never`` sentence then names ``max_batch``)."""
    return "" if batch is None else format_count(batch)


def _weights(story, o) -> Entries:
    v, s = o.values["weights"], o.stops_paying["weights"]
    report = story.report
    return {
        "precision": lambda: story.ask(asked.precision_name, story.choices.weights),
        "share": lambda: format_percent(v["bytes_per_value"] / v["bytes_per_value_base"]),
        "weights_base": lambda: format_bytes(v["weights_bytes_per_gpu_base"]),
        "weights_with": lambda: format_bytes(v["weights_bytes_per_gpu"]),
        "crossover": lambda: _batch_or_none(s["compute_bound_batch"]),
        "weight_only": lambda: story.text("label.weight_only", gpu=report.gpu.name) if v["weight_only"] else "",
    }


def _kv_precision(story, o) -> Entries:
    v, s, model = o.values["kv_precision"], o.stops_paying["kv_precision"], story.report.model
    return {
        "precision": lambda: story.ask(asked.precision_name, story.choices.kv),
        "kv_base": lambda: format_bytes(v["kv_bytes_per_token_base"], binary=True),
        "kv_with": lambda: format_bytes(v["kv_bytes_per_token"], binary=True),
        "kv_share": lambda: format_percent(s["kv_share_of_step_bytes"]),
        "layers": lambda: format_count(model.layers), "kv_heads": lambda: format_count(model.kv_heads),
        "head_dim": lambda: format_count(model.head_dim),
        "bytes_with": lambda: format_number(v["kv_bytes_per_token"] / v["kv_bytes_per_token_base"] * 2),
    }


def _batching(story, o) -> Entries:
    return {"crossover": lambda: _batch_or_none(o.stops_paying["batching"]["compute_bound_batch"]),
            "slower": lambda: format_ratio(o.with_levers.tpot_seconds / o.base.tpot_seconds)}


def _speculative(story, o) -> Entries:
    v, c, s = o.values["speculative"], o.costs["speculative"], o.stops_paying["speculative"]
    k = int(v["draft_tokens"])
    return {
        "k": lambda: format_count(k), "k1": lambda: format_count(k + 1), "a": lambda: format_number(v["acceptance"]),
        "kept": lambda: format_number(v["tokens_per_pass"]), "speedup": lambda: format_ratio(v["speedup"]),
        "draft": lambda: (story.ask(asked.model_name, v["draft_model"]) if v["draft_model"]
                          else story.text("label.heads", cost=format_percent(v["draft_head_cost"]))),
        "draft_pass": lambda: format_seconds(c["draft_seconds_per_pass"]),
        "verify": lambda: format_seconds(c["verify_seconds_per_pass"]),
        "plain": lambda: format_seconds(v["plain_step_seconds"]),
        "wasted": lambda: format_number(c["wasted_tokens_per_pass"]),
        "loss_batch": lambda: _batch_or_none(s["loss_batch"]),
        "bound": lambda: story.text(f"label.bound_{v['verify_bound']}"),
        "draft_bytes": lambda: format_bytes(c["draft_bytes_per_gpu"]),
    }


def _allocation(story, o) -> Entries:
    v, c = o.values["kv_allocation"], o.costs["kv_allocation"]
    return {
        "reserved": lambda: format_count(v["reserved_tokens_per_sequence"]),
        "paged": lambda: format_count(v["paged_tokens_per_sequence"]),
        "context": lambda: format_count(v["context_tokens"]),
        "unused_reserved": lambda: format_count(c["unused_tokens_per_sequence_reserved"]),
        "unused_paged": lambda: format_count(c["unused_tokens_per_sequence_paged"]),
        "equal": lambda: format_count(o.stops_paying["kv_allocation"]["context_tokens_where_equal"]),
    }


def _prefix(story, o) -> Entries:
    v, c = o.values["prefix_cache"], o.costs["prefix_cache"]
    return {
        "cached": lambda: format_count(v["cached_tokens"]), "computed": lambda: format_count(v["computed_tokens"]),
        "shared": lambda: format_count(v["shared_tokens"]), "cached_bytes": lambda: format_bytes(c["cached_kv_bytes"]),
        "floor": lambda: format_seconds(o.stops_paying["prefix_cache"]["uncached_alone_ttft_seconds"]),
        "prompt": lambda: format_count(story.scenario.prompt_tokens),
    }


def _flash(story, o) -> Entries:
    v, s = o.values["flash_attention"], o.stops_paying["flash_attention"]
    matters = s["matters_from_prompt_tokens"]
    return {
        "slowdown": lambda: format_ratio(v["slowdown"]), "traffic": lambda: format_bytes(v["score_traffic_bytes_per_gpu"]),
        "scores": lambda: format_bytes(v["score_bytes_per_gpu"]),
        "matters": lambda: "" if matters is None else format_count(matters),
        "prompt": lambda: format_count(story.scenario.prompt_tokens),
    }


def _offload(story, o) -> Entries:
    v, c, s = o.values["offload"], o.costs["offload"], o.stops_paying["offload"]
    return {
        "extra": lambda: format_count(v["host_sequences"]), "reload": lambda: format_seconds(v["reload_seconds"]),
        "recompute": lambda: format_seconds(v["recompute_seconds"]),
        "host_link": lambda: format_bandwidth(v["host_link_bytes_per_second"]),
        "host": lambda: format_bytes(c["host_bytes_per_gpu"]), "reloaded": lambda: format_count(v["reloaded_tokens"]),
        "step": lambda: format_seconds(s["step_seconds"]), "step_over": lambda: format_seconds(s["step_over_host_link_seconds"]),
        "faster": lambda: format_ratio(v["recompute_seconds"] / max(v["reload_seconds"], 1e-12)),
    }


def _disaggregation(story, o) -> Entries:
    v, c, s = o.values["disaggregation"], o.costs["disaggregation"], o.stops_paying["disaggregation"]
    return {
        "link": lambda: story.text(f"label.link_{v['link']}"), "prefill": lambda: format_seconds(v["prefill_seconds"]),
        "per_step": lambda: format_number(v["prefills_per_step"]),
        "interruption": lambda: format_seconds(v["interruption_seconds_per_step"]),
        "kv_request": lambda: format_bytes(v["kv_bytes_per_request"]),
        "transfer": lambda: format_seconds(c["kv_transfer_seconds"]),
        "pays_from": lambda: format_count(max(1, math.ceil(s["stops_below_batch"]))),
        "output": lambda: format_count(story.scenario.output_tokens),
    }


def _stack(story, o) -> Entries:
    names = [story.text(f"lever.{name}") for name in o.levers]
    return {"count": lambda: format_count(len(names)), "names": lambda: story.text("label.list_joiner").join(names)}


LEVER_VALUES = {"weights": _weights, "kv_precision": _kv_precision, "batching": _batching, "speculative": _speculative,
                "kv_allocation": _allocation, "prefix_cache": _prefix, "flash_attention": _flash, "offload": _offload,
                "disaggregation": _disaggregation}
# The levers whose "stops paying" is a batch or prompt the engine may not find (None): their other sentence.
NEVER_STOPS = {"weights": "compute_bound_batch", "batching": "compute_bound_batch", "speculative": "loss_batch",
               "flash_attention": "matters_from_prompt_tokens"}


def note_key(story, kind: str) -> str:
    """The text of the build's ``kind`` ("costs" or "stops") sentence: ``stops.<lever>``, or its ``_never``
    variant where the engine finds no point at which the lever stops paying."""
    lever = story.lever or "stack"
    field = NEVER_STOPS.get(lever)
    if kind == "stops" and field and story.outcome.stops_paying[lever][field] is None:
        return f"stops.{lever}_never"
    return f"{kind}.{lever}"


def values(story) -> Values:
    """Every number the build's caption, notes and table notes may name (module docstring)."""
    report, scenario = story.report, story.scenario
    entries: Entries = {
        "gpu": lambda: report.gpu.name, "gpus": lambda: format_count(scenario.gpus),
        "model": lambda: report.model.name, "bandwidth": lambda: format_bandwidth(report.gpu.memory_bandwidth_bytes_per_second),
        "busy": lambda: format_percent(report.decode.utilisation),
        "idle": lambda: format_percent(1.0 - report.decode.utilisation),
        "step": lambda: format_seconds(report.tpot_seconds), "decode_share": lambda: format_percent(report.decode_share),
        "max_batch": lambda: format_count(MAX_BATCH),
    }
    outcome = story.outcome
    entries["lever"] = lambda: story.text(f"lever.{story.lever}" if story.lever else "label.the_stack")
    if outcome is not None and refused(outcome):
        entries["reason"] = lambda: story.inputs.refusal_text(outcome)
    elif outcome is not None:
        entries.update(_figures(outcome))
        entries.update((LEVER_VALUES.get(story.lever) or _stack)(story, outcome))
    glued = {key: (lambda value=value: glue_units(value())) for key, value in entries.items()}
    base = Values(glued)
    if outcome is None or refused(outcome):
        return base
    return base.with_values(costs=lambda: story.text(note_key(story, "costs"), **base),
                            stops=lambda: story.text(note_key(story, "stops"), **base))


def column_values(story) -> dict[str, str]:
    """What the figure table's two column headers name (the narrower precision, the batch, k, the cached part)."""
    lever, o = story.lever, story.outcome
    found: dict[str, str] = {}
    if lever in ("weights", "kv_precision"):
        found["precision"] = story.ask(asked.precision_name, story.choices.weights if lever == "weights" else story.choices.kv)
    elif lever == "batching":
        found["batch"] = format_count(o.with_levers.batch)
    elif lever == "speculative":
        found["k"] = format_count(o.values["speculative"]["draft_tokens"])
    elif lever == "prefix_cache":
        found["cached"] = format_count(o.values["prefix_cache"]["cached_tokens"])
    return {key: glue_units(value) for key, value in found.items()}


def belt_values(story, belt) -> dict[str, str]:
    """What the line over the belt names."""
    o, name = story.outcome, story.build_name
    found: dict[str, str] = {}
    if o is None:
        return found
    if name == "weights":
        found = {"precision": belt.report.weights_precision.name,
                 "share": format_percent(belt.report.weights_precision.bytes_per_value / 2.0)}
    elif name == "batching":
        found = {"batch": format_count(belt.sequences_per_box)}
    elif name == "speculative":
        found = {"k": format_count(belt.guesses_per_box), "kept": format_number(o.values["speculative"]["tokens_per_pass"])}
    elif name == "kv_allocation":
        side = o.with_levers if story.choices.shelf_paged else o.base
        found = {"fit": format_count(side.sequences_that_fit),
                 "reserved": format_count(o.values["kv_allocation"]["reserved_tokens_per_sequence"]),
                 "kind": story.text("label.shelf_paged" if story.choices.shelf_paged else "label.shelf_reserved")}
    elif name == "stack":
        found = {"count": format_count(len(o.levers))}
    return {key: glue_units(value) for key, value in found.items()}
