"""What each picture of "the KV cache" (seed 1.5) shows: Qt-free, tested without Qt (``story`` uses it).

In: the shared scenario and its report (with its resolved model, precisions
and GPU), what-if reports of the same scenario on 1 to 8 GPUs, the engine's
context sweep, the build, the playback's position and a ``text(key, **values)``
callable. Out: the widgets' states and the caption and note values.

Every number is the engine's: the work curves (``engine.kv_cache.
tokens_processed_without_cache`` / ``..._with_cache``), the factors of the
bytes per token (``engine.kv_cache.kv_factors``, ``mha_factors``), the KV
bytes and free memory at the contexts the plot draws (the kit's
``desktop.kit.questions.context_sweep``), the longest context
that fits and the conversations that fit (``Report.max_context_tokens`` and
``Report.max_sequences`` of what-ifs). This module only picks, formats and
arranges them. The memory bar and the sharing table are in ``memory``.

The builds follow the seed: the naive cost (work grows as N²), the cache (as
N), its price (bytes per token, factor by factor, then across designs), how
that price grows with the context until the card runs out, and how many
conversations share a card.

Units: one token's cache in binary units, as the seed's "320 KB" is 320 KiB
(``per_token_text``); whole caches in decimal units like the memory bar beside
the plot (``format_bytes``).
"""
from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache
from typing import Callable

import numpy as np

from desktop.kit.answers import refused
from desktop.kit.questions import ContextSweep
from desktop.scenes.kv_cache.memory import sharing_state
from engine import InputError
from engine.frozen import frozen
from engine.memory import PREFILL_CHUNK_TOKENS
from engine.kv_cache import (
    KvFactors, kv_bytes, kv_factors, mha_factors, tokens_processed_with_cache, tokens_processed_without_cache,
    work_ratio_without_cache,
)
from engine.scenario import MAX_CONTEXT_TOKENS
from engine.units import format_bytes, format_count, format_number, format_ratio
from widgets.kv_factors_state import Comparison, Factor, KvFactorsState
from widgets.kv_growth_plot_state import GrowthMark, KvGrowthState
from widgets.work_counter_state import WorkCounterState

BUILDS = ("naive", "cache", "bytes", "architectures", "growth", "sharing")
WORK_BUILDS = (BUILDS.index("naive"), BUILDS.index("cache"))
FACTOR_BUILDS = (BUILDS.index("bytes"), BUILDS.index("architectures"))
GROWTH_BUILD = BUILDS.index("growth")
SHARING_BUILD = BUILDS.index("sharing")

PLAYBACK_TOKENS = 500                 # the seed's N
TOKENS_PER_SECOND = 100.0             # 500 tokens in 5 s: the counters are read, the curve is watched
FACTOR_SECONDS = 0.4                  # one factor tile after another
CONTEXT_PLAY_SECONDS = 6.0            # 1 token to the model's longest context, each decade in the same time
MARKS = (("2k", "2K", 2048), ("32k", "32K", 32768), ("128k", "128K", 131072))   # the seed's table
SHARING_CONTEXT_TOKENS = 32768        # the context the sharing build starts at (the seed's middle row)
FALLBACK_MAX_CONTEXT_TOKENS = 131072  # a model whose catalogue entry gives no longest context
SHARING_GPU_COUNTS = tuple(range(1, 9))
REFERENCE_MLA_MODEL = "deepseek-v3"   # the latent-attention row of the comparison
CURVE_POINTS = 64                     # log-spaced points of the growth curve (plus the marks)
Y_TICK_DECADES = 7                    # up to this many decades of bytes a tick each; beyond, one per 1000x

Text = Callable[..., str]


# -- work: N² against N ---------------------------------------------------------------------------
@frozen
class WorkCurves:
    naive: tuple[float, ...]          # token computations after n generated tokens, n = 0..PLAYBACK_TOKENS
    cached: tuple[float, ...]


@lru_cache(maxsize=4)
def work_curves(max_tokens: int = PLAYBACK_TOKENS) -> WorkCurves:
    n = np.arange(max_tokens + 1, dtype=np.float64)
    return WorkCurves(tuple(tokens_processed_without_cache(n).tolist()),
                      tuple(tokens_processed_with_cache(n).tolist()))


def tokens_at(seconds: float) -> int:
    """Tokens generated ``seconds`` after playback started: 1 at once, then ``TOKENS_PER_SECOND``, up to N."""
    if not math.isfinite(seconds) or seconds < 0:
        return 1
    return max(1, min(PLAYBACK_TOKENS, 1 + int(seconds * TOKENS_PER_SECOND)))


def work_state(generated_tokens: int, show_cached: bool, text: Text) -> WorkCounterState:
    curves = work_curves()
    n = max(0, min(PLAYBACK_TOKENS, int(generated_tokens)))
    naive, cached = curves.naive[n], curves.cached[n]
    labels = {
        "naive_title": text("label.naive_title"),
        "naive_count": text("label.computations", count=int(naive), value=format_count(naive)),
        "naive_step": text("label.naive_step", count=n, step=format_count(n)),
        "recomputed": text("label.recomputed"),
        "x_axis": text("label.work_x_axis"),
        "x_end": format_count(PLAYBACK_TOKENS),
        "y_axis": text("label.work_y_axis"),
        "naive_line": text("label.naive_line"),
    }
    if show_cached:
        labels.update(
            cached_title=text("label.cached_title"),
            cached_count=text("label.computations", count=int(cached), value=format_count(cached)),
            cached_step=text("label.cached_step", count=max(0, n - 1), read=format_count(max(0, n - 1))),
            read=text("label.read"),
            cached_line=text("label.cached_line"),
            ratio=text("label.ratio", ratio=format_ratio(work_ratio_without_cache(max(n, 1)))),
        )
    return WorkCounterState(curves.naive, curves.cached, n, show_cached, labels)


# -- bytes per token, factor by factor --------------------------------------------------------------
def factor_tiles(factors: KvFactors, text: Text) -> tuple[Factor, ...]:
    """The tiles of ``factors``' product, in the order the formula reads; their values multiply to its bytes."""
    value_bytes = Factor("bytes", factors.bytes_per_value, format_number(factors.bytes_per_value),
                         text("label.factor_bytes"))
    if factors.kind == "mla":
        per_layer = factors.latent_dim + factors.rope_dim
        return (
            Factor("layers", factors.layers, format_count(factors.layers), text("label.factor_layers"), ""),
            Factor("latent", per_layer, f"{format_count(factors.latent_dim)} + {format_count(factors.rope_dim)}",
                   text("label.factor_latent")),
            value_bytes,
        )
    heads_name = "label.factor_heads" if factors.kind == "mha" else "label.factor_kv_heads"
    return (
        Factor("kv", 2, "2", text("label.factor_kv"), ""),
        Factor("layers", factors.layers, format_count(factors.layers), text("label.factor_layers")),
        Factor("kv_heads", factors.kv_heads, format_count(factors.kv_heads), text(heads_name)),
        Factor("head_dim", factors.head_dim, format_number(factors.head_dim), text("label.factor_head_dim")),
        value_bytes,
    )


def tile_count(model, kv) -> int:
    """How many factor tiles the product of ``model``'s bytes per token has."""
    return 3 if kv_factors(model, kv).kind == "mla" else 5


def per_token_text(n_bytes: float) -> str:
    """Bytes of one token's cache, in binary units as the seed's "320 KB" is (320 KiB)."""
    return format_bytes(n_bytes, binary=True)


def kv_text(n_bytes: float) -> str:
    """A KV cache in the units of its bytes per token (KiB, MiB, GiB), so 320 KiB x 32,768 reads 10 GiB: the
    seed's own figures. Memory capacity and weights stay in the datasheets' decimal GB."""
    return format_bytes(n_bytes, binary=True)


@frozen
class Architectures:
    """The catalogue entries the comparison needs (looked up in the kit's catalogue)."""
    fp8: object | None           # the FP8 precision, or None when the catalogue lacks it
    reference_mla: object | None  # DeepSeek-V3's model entry, or None


def architectures(catalog) -> Architectures:
    """The FP8 precision and DeepSeek-V3's entry from ``catalog`` (None where a user's catalogue lacks one)."""
    def look_up(find, entry_id):
        try:
            return find(entry_id)
        except InputError:
            return None
    return Architectures(look_up(catalog.precision, "fp8"), look_up(catalog.model, REFERENCE_MLA_MODEL))


def comparisons(model, kv, entries: Architectures, text: Text) -> tuple[Comparison, ...]:
    """Rows: the same model with full multi-head attention, the model as it is, with an FP8 cache, and
    DeepSeek-V3's latent attention; a row equal to the model's own design or precision is left out."""
    own = kv_factors(model, kv)
    rows = []
    if own.kind != "mha":
        mha = mha_factors(model, kv).bytes_per_token
        rows.append(Comparison("mha", text("label.row_mha", model=model.name), mha, per_token_text(mha)))
    rows.append(Comparison("this", text(f"label.row_this_{own.kind}", model=model.name, precision=kv.name),
                           own.bytes_per_token, per_token_text(own.bytes_per_token), current=True))
    if entries.fp8 is not None and kv.bytes_per_value != entries.fp8.bytes_per_value:
        fp8 = kv_factors(model, entries.fp8).bytes_per_token
        rows.append(Comparison("fp8", text("label.row_fp8", model=model.name, precision=entries.fp8.name),
                               fp8, per_token_text(fp8)))
    reference = entries.reference_mla
    if reference is not None and reference.id != model.id:
        mla = kv_factors(reference, kv).bytes_per_token
        rows.append(Comparison("mla", text("label.row_mla", model=reference.name, precision=kv.name),
                               mla, per_token_text(mla)))
    return tuple(rows)


def factors_state(model, kv, entries: Architectures, revealed: float, compare_reveal: float,
                  text: Text) -> KvFactorsState:
    factors = kv_factors(model, kv)
    return KvFactorsState(
        factors=factor_tiles(factors, text),
        result_text=text("label.result", size=per_token_text(factors.bytes_per_token)),
        revealed=revealed,
        comparisons=comparisons(model, kv, entries, text) if compare_reveal > 0 else (),
        compare_reveal=compare_reveal,
        labels={"title": text(f"label.factors_title_{'mla' if factors.kind == 'mla' else 'kv'}", model=model.name,
                              precision=kv.name),
                "compare_title": text("label.compare_title"), "current_mark": text("label.current_mark")},
    )


def factors_at(full: KvFactorsState, revealed: float, compare_reveal: float) -> KvFactorsState:
    """``full`` (``factors_state`` with everything shown, built once per scenario and language) as a frame
    shows it: ``revealed`` tiles, the comparison grown to ``compare_reveal``."""
    return replace(full, revealed=revealed, compare_reveal=compare_reveal,
                   comparisons=full.comparisons if compare_reveal > 0 else ())


def factors_revealed(seconds_since_build: float, count: int, animate: bool) -> float:
    """Tiles shown ``seconds_since_build`` into the bytes build: one per ``FACTOR_SECONDS``, then the result."""
    if not animate:
        return count + 1.0
    # Whole tiles: a tile appears at once, so the picture changes a handful of times, not every frame.
    return float(max(0, min(count + 1, 1 + math.floor(seconds_since_build / FACTOR_SECONDS))))


# -- growth with context -------------------------------------------------------------------------------
def longest_context(model) -> int:
    """The model's longest context from the catalogue, or ``FALLBACK_MAX_CONTEXT_TOKENS`` where it gives none."""
    tokens = int(getattr(model, "max_context_tokens", 0) or 0)
    return tokens if tokens > 0 else FALLBACK_MAX_CONTEXT_TOKENS


def sweep_contexts(max_tokens: int) -> tuple[int, ...]:
    """The contexts the growth plot draws (its curve points, the seed's marks, 1 and the longest): all the
    engine's context sweep is asked for, once per scenario (``desktop.kit.questions.context_sweep``)."""
    return tuple(int(c) for c in curve_contexts(max_tokens))


def kv_at(context: ContextSweep, tokens: int) -> float:
    """The swept KV bytes at ``tokens``, one of the swept contexts."""
    index = int(np.searchsorted(context.contexts, tokens))
    if index >= len(context.contexts) or context.contexts[index] != tokens:
        raise KeyError(f"{tokens} tokens is not one of the swept contexts")
    return float(context.kv_bytes[index])


def context_at(seconds: float, max_tokens: int) -> int:
    """The context ``seconds`` into the growth playback: from 1 token to ``max_tokens``, evenly in log."""
    if not math.isfinite(seconds) or seconds <= 0:
        return 1
    share = min(1.0, seconds / CONTEXT_PLAY_SECONDS)
    return max(1, min(max_tokens, int(round(max_tokens ** share))))


def curve_contexts(max_tokens: int) -> np.ndarray:
    points = np.round(np.logspace(0, math.log10(max_tokens), CURVE_POINTS))
    marks = [tokens for _, _, tokens in MARKS if tokens <= max_tokens]
    return np.unique(np.concatenate([points, marks, [1, max_tokens]])).astype(np.int64)


def x_ticks(max_tokens: int) -> tuple[tuple[float, str], ...]:
    return tuple((10.0 ** k, format_count(10 ** k)) for k in range(0, int(math.log10(max_tokens)) + 1))


def y_ticks(low_bytes: float, high_bytes: float) -> tuple[tuple[float, str], ...]:
    """Binary steps of 32x (1 KiB, 32 KiB, 1 MiB, ...; every 1024x over a wide range) between ``low`` and
    ``high``: the units of the bytes per token (320 KiB), so a mark multiplies out from it."""
    if not (0 < low_bytes <= high_bytes) or not math.isfinite(high_bytes):
        return ()
    first, last = math.ceil(math.log2(low_bytes) / 5 - 1e-9), math.floor(math.log2(high_bytes) / 5 + 1e-9)
    step = 1 if last - first <= Y_TICK_DECADES else 2
    return tuple((2.0 ** (5 * power), format_bytes(2.0 ** (5 * power), binary=True))
                 for power in range(first, last + 1) if step == 1 or power % 2 == 0)


def room_bytes(report) -> float:
    """The whole KV cache the card's free room holds: at the longest context the memory alone would hold
    (``Report.memory_context_tokens``, which may pass the model's maximum), where the curve meets the room (a
    sliding window's layers holding only their window). Not at the model's maximum: a card with room to spare
    would read as full."""
    return float(kv_bytes(report.model, report.kv_precision, report.scenario.batch, report.memory_context_tokens))


def growth_base(context: ContextSweep, report, longest: int, text: Text) -> KvGrowthState:
    """What the growth plot draws the same for every position of the point (once per scenario and language):
    the curve, the marks, the limit and room, the ticks and the fixed labels. ``context``: the engine's sweep
    over ``sweep_contexts(longest)``."""
    curve = tuple((float(c), float(b)) for c, b in zip(context.contexts, context.kv_bytes))
    marks = tuple(GrowthMark(key, tokens, kv_at(context, tokens),
                             text("label.mark", tokens=name, size=kv_text(kv_at(context, tokens))))
                  for key, name, tokens in MARKS if tokens <= longest)
    room = room_bytes(report)
    scenario = report.scenario
    labels = {
        "limit": text("label.limit", tokens=format_count(report.max_context_tokens)) if report.max_context_tokens > 0
        else text("label.limit_none"),
        "overflow": text("label.overflow", count=scenario.gpus, gpu=report.gpu.name),
        "room": text("label.room", size=kv_text(room)) if room > 0 else "",
        "x_axis": text("label.growth_x_axis"),
        "y_axis": text("label.growth_y_axis", count=scenario.batch, batch=format_count(scenario.batch)),
    }
    low = min(b for _, b in curve)
    high = max([b for _, b in curve] + [room])
    return KvGrowthState(curve=curve, context_tokens=curve[0][0], context_bytes=curve[0][1], marks=marks,
                         limit_tokens=float(report.max_context_tokens), room_bytes=room,
                         x_ticks=x_ticks(longest), y_ticks=y_ticks(low, high), labels=labels)


def growth_refusal_text(refusal, longest: int, text: Text, refusal_text: Callable[[InputError], str]) -> str:
    """The inline note when the engine refuses the growth sweep: a model longer than it sweeps, or its sentence."""
    if longest > MAX_CONTEXT_TOKENS:
        return text("label.growth_refused", tokens=format_count(longest), limit=format_count(MAX_CONTEXT_TOKENS))
    return refusal_text(refusal)


def growth_at(base: KvGrowthState, tokens: int, kv_bytes: float, text: Text) -> KvGrowthState:
    """``base`` with the point at ``tokens`` of context, ``kv_bytes`` the engine's KV cache there (per frame)."""
    current = text("label.current", tokens=format_count(tokens), size=kv_text(kv_bytes))
    return replace(base, context_tokens=float(tokens), context_bytes=kv_bytes,
                   labels={**base.labels, "current": current})


# -- words the captions and notes use ------------------------------------------------------------------
def formula_text(factors: KvFactors, text: Text) -> str:
    if factors.kind == "mla":
        return text("label.formula_mla", layers=format_count(factors.layers), latent=format_count(factors.latent_dim),
                    rope=format_count(factors.rope_dim), bytes=format_number(factors.bytes_per_value))
    return text("label.formula_kv", layers=format_count(factors.layers), kv_heads=format_count(factors.kv_heads),
                head_dim=format_number(factors.head_dim), bytes=format_number(factors.bytes_per_value))


def gpus_text(report, text: Text, gpus: int | None = None) -> str:
    count = gpus if gpus is not None else report.scenario.gpus
    return text("label.gpus_on", count=count, gpus=format_count(count), gpu=report.gpu.name)
