"""Scene 1's factory picture, with what each lever changes in it (``widgets.conveyor_state``). Qt-free.

No new metaphor: the warehouse is HBM, the belt its bandwidth, the worker the
compute units, and a box one slice of the weights (``BOX_BYTES`` in FP16),
slowed down as scene 1 slows it. The belt's speed and the worker's busy share
are the engine's, for the scenario the picture shows:

- quantised weights: the same slice in fewer bytes, a smaller box that comes sooner;
- batching: one box yields a token for every sequence of the batch (the tray);
- speculative decoding: the worker drafts k guesses while he waits and checks them
  with the next box, keeping those up to the first wrong one (the tray), his work
  per box that of k + 1 tokens per sequence;
- KV allocation: the lower shelf holds the KV cache, as long reservations or packed pages.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable

from engine import roofline
from engine.frozen import frozen
from engine.scenario import MAX_BATCH
from engine.units import format_bandwidth, format_bytes, format_flops, format_percent, glue_units
from widgets.conveyor_state import ConveyorState, KvShelf

BOX_BYTES = 2e6                       # one slice of the weights in FP16 (scene 1's box)
GPU_SECONDS_PER_SCREEN_SECOND = 1e-6  # scene 1's slow motion: an H800 belt then brings a box every 0.6 s
FP16_BYTES_PER_VALUE = 2.0

Text = Callable[..., str]


@frozen
class Belt:
    """What the picture shows, from the engine: the report whose decode it draws, and the levers' parts."""
    report: object                          # the engine's report of the scenario drawn
    sequences_per_box: int = 0              # batching's tray (0: none)
    guesses_per_box: int = 0                # speculative decoding's k (0: none)
    acceptance: float = 0.0
    work_report: object | None = None       # whose decode gives the worker's work per box (speculative: k+1 tokens)
    shelf: KvShelf | None = None


def kv_shelf(held_tokens_per_sequence: int, context_tokens: int, room_tokens: float, paged: bool) -> KvShelf:
    """The shelf for sequences holding ``held_tokens_per_sequence`` of KV each, using ``context_tokens`` of it,
    in a KV room of ``room_tokens``."""
    return KvShelf(held_share=held_tokens_per_sequence / max(room_tokens, 1.0),
                   used_share=min(1.0, context_tokens / max(held_tokens_per_sequence, 1)), paged=paged)


def _speculating(story, scenario, values: dict) -> dict:
    """The belt's parts for speculative decoding on ``scenario``: k guesses per box, each kept with the chance
    a, and the worker's work per box that of k + 1 tokens per sequence (the verify pass)."""
    k = int(values["draft_tokens"])
    verify = replace(scenario, batch=min(MAX_BATCH, scenario.batch * (k + 1)))
    return {"guesses_per_box": k, "acceptance": float(values["acceptance"]),
            "work_report": story.what_if_report(verify)}


def _allocating(side, values: dict, room_tokens: float, paged: bool) -> dict:
    held = values["paged_tokens_per_sequence" if paged else "reserved_tokens_per_sequence"]
    return {"shelf": kv_shelf(held, values["context_tokens"], room_tokens, paged),
            "sequences_per_box": side.sequences_that_fit if side.sequences_that_fit > 1 else 0}


def belt_of(story) -> Belt:
    """The belt a build shows: the scenario at decode, with what its lever (or the stack) changes."""
    name, sc, outcome, choices = story.build_name, story.scenario, story.outcome, story.choices
    if name == "kinds" or outcome is None:         # the first build, or a stack with nothing in it
        return Belt(story.report)
    if name == "weights":
        return Belt(story.what_if_report(replace(sc, weights=choices.weights)))
    if name == "batching":
        batch = outcome.with_levers.batch
        return Belt(story.what_if_report(replace(sc, batch=batch)), sequences_per_box=batch)
    if name == "speculative":
        shown = story.shown("speculative")
        return Belt(story.what_if_report(shown), **_speculating(story, shown, outcome.values["speculative"]))
    values = outcome.values.get("kv_allocation")
    room = max(outcome.with_levers.sequences_that_fit, 1) * values["paged_tokens_per_sequence"] if values else 0.0
    if name == "kv_allocation":
        side = outcome.with_levers if choices.shelf_paged else outcome.base
        return Belt(story.what_if_report(replace(sc, batch=side.batch)),
                    **_allocating(side, values, room, choices.shelf_paged))
    # the stack: the scenario with the levers that change its fields, at the batch the stack runs
    on = set(outcome.levers)
    changes = {"batch": outcome.with_levers.batch}
    if "weights" in on:
        changes["weights"] = choices.weights
    if "kv_precision" in on:
        changes["kv"] = choices.kv
    shown = replace(sc, **changes)
    parts = {} if "batching" not in on else {"sequences_per_box": outcome.with_levers.batch}
    if "speculative" in on:
        parts.update(_speculating(story, shown, outcome.values["speculative"]))
    if values:
        parts.update(_allocating(outcome.with_levers, values, room, True))
    return Belt(story.what_if_report(shown), **parts)


def belt_state(belt: Belt, labels: dict[str, str]) -> ConveyorState:
    """The conveyor state of ``belt``, with ``labels`` (already translated)."""
    report = belt.report
    work = belt.work_report or report
    gpu, precision = report.gpu, report.weights_precision
    share = precision.bytes_per_value / FP16_BYTES_PER_VALUE
    return ConveyorState(
        bandwidth_bytes_per_second=gpu.memory_bandwidth_bytes_per_second,
        peak_flops_per_second=roofline.peak_flops(gpu, precision),
        flops_per_byte=work.decode.flops_per_byte, utilisation=work.decode.utilisation,
        box_bytes=BOX_BYTES * share, gpu_seconds_per_screen_second=GPU_SECONDS_PER_SCREEN_SECOND,
        labels=labels, compact=True, box_size_share=math.sqrt(share),
        sequences_per_box=belt.sequences_per_box, guesses_per_box=belt.guesses_per_box,
        acceptance=belt.acceptance, shelf=belt.shelf)


def belt_labels(text: Text, report, work_report, step: str) -> dict[str, str]:
    """The picture's labels: the three parts and their numbers, the lever's line over the belt, idle and busy."""
    busy = (work_report or report).decode.utilisation
    gpu, precision = report.gpu, report.weights_precision
    labels = {
        "warehouse": text("label.warehouse"), "belt": text("label.belt"), "worker": text("label.worker"),
        "capacity": format_bytes(gpu.memory_bytes), "bandwidth": format_bandwidth(gpu.memory_bandwidth_bytes_per_second),
        "peak": text("label.peak", peak=format_flops(roofline.peak_flops(gpu, precision)), precision=precision.name),
        "idle": text("label.idle", idle=format_percent(1.0 - busy)),
        "busy": text("label.busy", busy=format_percent(busy)),
        "waiting": text("label.waiting"), "backed_up": text("label.backed_up"),
    }
    if step:
        labels["step"] = glue_units(step)
    return labels
