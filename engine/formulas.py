"""The formula behind each number a scene shows, with one scenario's values in it (a learner's "where from?").

``formula(report, key, at=None)`` returns a ``Formula``: the expression in symbols
("2 × L × h_kv × d × b"), the same expression with the report's values in
place of the symbols, the result, what each symbol stands for, and the engine
function the number comes from. The result is worked out by that very
function (or read from the report it filled in), never by a copy of it here,
so the card a learner opens cannot disagree with the stage.

Symbol names are keys (``Term.name``): the app words them in its languages
(``resources/text/formulas.toml``); numbers are formatted by ``engine.units``.
``KEYS`` lists every formula there is. Qt-free, like all of the engine.

The figures:

- ``ridge_point``: the ridge = peak FLOP/s ÷ HBM bandwidth (``engine.roofline.ridge_point``);
- ``decode_intensity``: FLOP per byte of one decode step (``engine.report.DecodeReport``);
- ``idle_share``: the worker's idle share in a decode step. Ideal mode: the roofline's,
  1 − min(I, ridge) ÷ ridge (``engine.roofline.utilisation``); realistic mode: one minus
  the achieved FLOP/s over the peak of all GPUs, as the report's utilisation. ``at``: an
  intensity of the stage's own (scene 1's control), always the roofline's form;
- ``weights_bytes``: parameters × bytes per weight (``engine.deployment.Deployment.weights_bytes``);
- ``weights_bytes_per_gpu`` and ``kv_bytes_per_gpu``: what each GPU keeps of the weights and of the batch's
  KV cache (``engine.memory.plan_memory``): the whole ÷ the GPUs it is shared out over, or × each GPU's share
  where the layout copies part of it to every GPU;
- ``overhead_bytes_per_gpu``: the runtime allowance plus one pass's activations and logits
  (``engine.memory.allowance_bytes_per_gpu``);
- ``kv_bytes_per_token``: 2 × layers × KV heads × head size × bytes per value, or for
  multi-head latent attention layers × (latent + rope) × bytes (``engine.kv_cache``);
- ``kv_bytes``: sequences × context × KV per token, less what sliding-window layers drop
  (``engine.kv_cache.kv_bytes``; the KV-allocation lever's reserved length is not in it).
  ``at``: a context of the stage's own (scene 5's plot), else prompt + output;
- ``tpot_seconds``: all decode time ÷ (output tokens − 1) (``engine.request``);
- ``tokens_per_second``: sequences ÷ time per token;
- ``usd_per_million_input_tokens`` and ``usd_per_million_output_tokens``: GPU time a token
  takes × the price of that time (``engine.cost.token_prices``);
- ``output_to_input_price_ratio``: the output price ÷ the input price;
- ``ttft_seconds``: the prefill pass's larger roofline term (its FLOP or its bytes) plus the rest the engine adds
  (communication, overlap, per-pass costs), or, with a draft model, the prefill plus the draft's prefill;
- ``tokens_per_second_per_gpu``: sequences ÷ (time per token × GPUs) (scene 7's lever tables);
- ``step_idle_share``: one minus the decode step's achieved FLOP/s over the peak of all GPUs in either mode
  (the report's utilisation, as scene 7's belt shows it);
- ``decode_step_seconds``: one decode step, the larger of its compute and memory time and the rest (scene 9);
- ``max_batch``: the sequences that fit: ⌊room for KV ÷ one sequence's KV⌋ per GPU, in each replica
  (``engine.levers.kv_allocation.sequence_fit``).
"""
from __future__ import annotations

import math
from typing import Callable

from engine import kv_cache, memory, roofline
from engine.deployment import SIXTEEN_BIT_BYTES_PER_VALUE, wide_parameter_count
from engine.frozen import frozen
from engine.memory import gpus_sharing
from engine.parameters import parameter_counts
from engine.cost import SECONDS_PER_HOUR, TOKENS_PER_MILLION, token_prices
from engine.errors import refusal
from engine.report import Report
from engine.units import (
    format_bandwidth, format_bytes, format_count, format_flop, format_flops, format_intensity, format_number,
    format_parameters, format_percent, format_ratio, format_seconds, format_tokens_per_second, format_usd, format_value_size,
)


@frozen
class Term:
    """One symbol of a formula: what it is written as, what it stands for (a text key), its value here."""
    symbol: str
    name: str
    value: str


@frozen
class Formula:
    """Where one figure comes from, for one scenario."""
    key: str                      # the figure (one of ``KEYS``)
    symbols: str                  # "KV = 2 × L × h_kv × d × b"
    values: str                   # "2 × 80 × 8 × 128 × 2 bytes": the same with this scenario's values
    result: str                   # "327,680 B (328 KB)"
    value: float                  # the result in SI units (bytes, seconds, FLOP/byte, a share, US dollars)
    terms: tuple[Term, ...]       # each symbol, what it stands for and its value
    source: str                   # the engine function the number comes from

    def lines(self) -> tuple[str, str, str]:
        """The three lines a card shows: symbols, values, result."""
        return self.symbols, f"= {self.values}", f"= {self.result}"


def _ridge_point(r: Report) -> Formula:
    peak, bandwidth = r.peak_flops_per_gpu, r.gpu.memory_bandwidth_bytes_per_second
    ridge = roofline.ridge_point(r.gpu, r.weights_precision)
    return Formula("ridge_point", "ridge = P ÷ B", f"{format_flops(peak)} ÷ {format_bandwidth(bandwidth)}",
                   format_intensity(ridge), ridge,
                   (Term("P", "peak", format_flops(peak)), Term("B", "bandwidth", format_bandwidth(bandwidth))),
                   "engine.roofline.ridge_point")


def _decode_intensity(r: Report) -> Formula:
    flop, moved = r.decode.flops_per_token, r.decode.bytes_per_token
    return Formula("decode_intensity", "I = F ÷ M", f"{format_flop(flop)} ÷ {format_bytes(moved)}",
                   format_intensity(r.decode.flops_per_byte), r.decode.flops_per_byte,
                   (Term("F", "flop_per_token", format_flop(flop)), Term("M", "bytes_per_token", format_bytes(moved))),
                   "engine.compute (decode step at the mean context)")


def _idle_share(r: Report, at: float | None = None) -> Formula:
    intensity = r.decode.flops_per_byte if at is None else float(at)
    if r.scenario.mode == "ideal" or at is not None:
        ridge = roofline.ridge_point(r.gpu, r.weights_precision)
        idle = 1.0 - float(roofline.utilisation(r.gpu, r.weights_precision, intensity))
        return Formula("idle_share", "idle = 1 − min(I, ridge) ÷ ridge",
                       f"1 − {format_number(min(intensity, ridge))} ÷ {format_number(ridge)}",
                       format_percent(idle), idle,
                       (Term("I", "intensity", format_intensity(intensity)),
                        Term("ridge", "ridge", format_intensity(ridge))),
                       "engine.roofline.utilisation")
    return _step_idle_share(r, "idle_share")


def _step_idle_share(r: Report, key: str = "step_idle_share") -> Formula:
    # n: the sequences one step carries (with pipeline stages, one micro-batch: the report's utilisation is per step)
    batch, gpus, peak = r.decode.sequences_per_step, r.scenario.gpus, r.peak_flops_per_gpu
    step = r.decode.seconds_per_token
    idle = 1.0 - r.decode.utilisation
    return Formula(key, "idle = 1 − (F × n) ÷ (t × g × P)",
                   f"1 − ({format_flop(r.decode.flops_per_token)} × {format_count(batch)}) ÷ "
                   f"({format_seconds(step)} × {format_count(gpus)} × {format_flops(peak)})",
                   format_percent(idle), idle,
                   (Term("F", "flop_per_token", format_flop(r.decode.flops_per_token)),
                    Term("n", "step_sequences" if batch != r.scenario.batch else "batch", format_count(batch)),
                    Term("t", "step_seconds", format_seconds(step)),
                    Term("g", "gpus", format_count(gpus)), Term("P", "peak", format_flops(peak))),
                   "engine.request.time_pass (utilisation)")


def _weights_bytes(r: Report) -> Formula:
    narrow_b = r.weights_precision.bytes_per_value
    wide_b = max(narrow_b, SIXTEEN_BIT_BYTES_PER_VALUE)
    if narrow_b == wide_b:
        return Formula("weights_bytes", "W = N × b",
                       f"{format_parameters(r.parameters)} × {format_value_size(narrow_b)}",
                       format_bytes(r.weights_bytes), r.weights_bytes,
                       (Term("N", "parameters", format_parameters(r.parameters)),
                        Term("b", "bytes_per_weight", format_value_size(narrow_b))),
                       "engine.deployment.Deployment.weights_bytes")
    wide = wide_parameter_count(parameter_counts(r.model))     # the embedding, LM head and norms stay 16-bit
    narrow = r.parameters - wide
    return Formula("weights_bytes", "W = N_layers × b + N_16 × 2",
                   f"{format_parameters(narrow)} × {format_value_size(narrow_b)} + "
                   f"{format_parameters(wide)} × {format_value_size(wide_b)}",
                   format_bytes(r.weights_bytes), r.weights_bytes,
                   (Term("N_layers", "layer_parameters", format_parameters(narrow)),
                    Term("b", "bytes_per_weight", format_value_size(narrow_b)),
                    Term("N_16", "wide_parameters", format_parameters(wide))),
                   "engine.deployment.Deployment.weights_bytes")


def _per_gpu(key: str, symbol: str, total: float, per_gpu: float, total_name: str, share_name: str) -> Formula:
    """What each GPU keeps of ``total`` bytes: ``total`` ÷ the GPUs it is shared out over, or (a layout that
    copies some of it to every GPU) ``total`` × each GPU's share."""
    mine = f"{symbol}_gpu"
    if per_gpu <= 0 or total <= 0:
        return Formula(key, f"{mine} = {symbol}", format_bytes(total), format_bytes(per_gpu), per_gpu,
                       (Term(symbol, total_name, format_bytes(total)),), "engine.memory.plan_memory")
    over = gpus_sharing(total, per_gpu)
    if over is not None:
        g = format_count(over)
        return Formula(key, f"{mine} = {symbol} ÷ g", f"{format_bytes(total)} ÷ {g}", format_bytes(per_gpu), per_gpu,
                       (Term(symbol, total_name, format_bytes(total)), Term("g", share_name, g)),
                       "engine.memory.plan_memory")
    share = format_percent(per_gpu / total)
    return Formula(key, f"{mine} = {symbol} × s", f"{format_bytes(total)} × {share}", format_bytes(per_gpu), per_gpu,
                   (Term(symbol, total_name, format_bytes(total)), Term("s", "gpu_share", share)),
                   "engine.memory.plan_memory")


def _weights_bytes_per_gpu(r: Report) -> Formula:
    return _per_gpu("weights_bytes_per_gpu", "W", r.weights_bytes, r.weights_bytes_per_gpu, "weights_all",
                    "weights_gpus")


def _kv_bytes_per_gpu(r: Report) -> Formula:
    return _per_gpu("kv_bytes_per_gpu", "KV", r.kv_bytes, r.kv_bytes_per_gpu, "kv_all", "kv_gpus")


def _overhead_bytes_per_gpu(r: Report) -> Formula:
    s, model = r.scenario, r.model
    tokens = memory.tokens_per_pass(s.batch, s.prompt_tokens)
    per_token = memory.activation_bytes_per_token(model, r.layout.tensor if r.layout else 1)
    logit = format_value_size(memory.LOGIT_BYTES_PER_VALUE)
    return Formula("overhead_bytes_per_gpu", f"A = R + T × a + n × V × {logit}",
                   f"{format_bytes(memory.RUNTIME_BYTES_PER_GPU)} + {format_count(tokens)} × {format_bytes(per_token)}"
                   f" + {format_count(s.batch)} × {format_count(model.vocab_size)} × {logit}",
                   format_bytes(r.overhead_bytes_per_gpu), r.overhead_bytes_per_gpu,
                   (Term("R", "runtime_allowance", format_bytes(memory.RUNTIME_BYTES_PER_GPU)),
                    Term("T", "pass_tokens", format_count(tokens)), Term("a", "activation_per_token", format_bytes(per_token)),
                    Term("n", "batch", format_count(s.batch)), Term("V", "vocabulary", format_count(model.vocab_size))),
                   "engine.memory.allowance_bytes_per_gpu")


def _kv_bytes_per_token(r: Report) -> Formula:
    f = kv_cache.kv_factors(r.model, r.kv_precision)
    total = kv_cache.kv_bytes_per_token(r.model, r.kv_precision)
    size = format_value_size(f.bytes_per_value)
    result = f"{format_count(total)} B ({format_bytes(total, binary=True)})"       # per token in KiB, as every scene
    if f.kind == "mla":
        return Formula("kv_bytes_per_token", "KV = L × (r + r_rope) × b",
                       f"{format_count(f.layers)} × ({format_count(f.latent_dim)} + {format_count(f.rope_dim)}) × {size}",
                       result, total,
                       (Term("L", "layers", format_count(f.layers)), Term("r", "latent", format_count(f.latent_dim)),
                        Term("r_rope", "rope", format_count(f.rope_dim)), Term("b", "bytes_per_value", size)),
                       "engine.kv_cache.kv_bytes_per_token")
    return Formula("kv_bytes_per_token", "KV = 2 × L × h_kv × d × b",
                   f"2 × {format_count(f.layers)} × {format_count(f.kv_heads)} × {format_count(f.head_dim)} × {size}",
                   result, total,
                   (Term("2", "k_and_v", "2"), Term("L", "layers", format_count(f.layers)),
                    Term("h_kv", "kv_heads", format_count(f.kv_heads)), Term("d", "head_dim", format_count(f.head_dim)),
                    Term("b", "bytes_per_value", size)),
                   "engine.kv_cache.kv_bytes_per_token")


def _kv_bytes(r: Report, at: float | None = None) -> Formula:
    model, kv, batch = r.model, r.kv_precision, r.scenario.batch
    context = r.scenario.prompt_tokens + r.scenario.output_tokens if at is None else int(at)
    per_token = kv_cache.kv_bytes_per_token(model, kv)
    total = float(kv_cache.kv_bytes(model, kv, batch, context))
    terms = [Term("n", "batch", format_count(batch)), Term("c", "context", format_count(context)),
             Term("k", "kv_per_token", format_bytes(per_token, binary=True))]
    symbols, values = ("KV = n × c × k",
                       f"{format_count(batch)} × {format_count(context)} × {format_bytes(per_token, binary=True)}")
    past = kv_cache.tokens_past_window(model, context)
    if past:
        dropped = kv_cache.kv_window_bytes_per_token(model, kv)
        symbols = "KV = n × (c × k − k_w × (c − w))"
        values = (f"{format_count(batch)} × ({format_count(context)} × {format_bytes(per_token, binary=True)} − "
                  f"{format_bytes(dropped, binary=True)} × {format_count(past)})")
        terms += [Term("k_w", "kv_window_per_token", format_bytes(dropped, binary=True)),
                  Term("w", "window", format_count(model.sliding_window_tokens))]
    return Formula("kv_bytes", symbols, values, format_bytes(total), total, tuple(terms), "engine.kv_cache.kv_bytes")


def _tpot(r: Report) -> Formula:
    steps = r.scenario.output_tokens - 1
    if steps < 1:        # one output token: no decode step; the time is the step that would come next
        return Formula("tpot_seconds", "t = t_step", format_seconds(r.tpot_seconds), format_seconds(r.tpot_seconds),
                       r.tpot_seconds, (Term("t_step", "step_seconds", format_seconds(r.tpot_seconds)),),
                       "engine.request")
    return Formula("tpot_seconds", "t = T_decode ÷ (o − 1)",
                   f"{format_seconds(r.decode_seconds)} ÷ {format_count(steps)}",
                   format_seconds(r.tpot_seconds), r.tpot_seconds,
                   (Term("T_decode", "decode_seconds", format_seconds(r.decode_seconds)),
                    Term("o", "output_tokens", format_count(r.scenario.output_tokens))),
                   "engine.request")


def _tokens_per_second(r: Report) -> Formula:
    batch, rate = r.scenario.batch, r.scenario.batch / r.tpot_seconds
    return Formula("tokens_per_second", "rate = n ÷ t", f"{format_count(batch)} ÷ {format_seconds(r.tpot_seconds)}",
                   format_tokens_per_second(rate), rate,
                   (Term("n", "batch", format_count(batch)), Term("t", "tpot", format_seconds(r.tpot_seconds))),
                   "engine.request (tpot_seconds)")


def _price(r: Report, direction: str) -> Formula:
    s = r.scenario
    prices = token_prices(r.ttft_seconds, r.tpot_seconds, s.gpus, s.batch, s.prompt_tokens, s.usd_per_gpu_hour)
    price_terms = (Term("g", "gpus", format_count(s.gpus)), Term("p", "usd_per_gpu_hour", format_usd(s.usd_per_gpu_hour)),
                   Term("n", "batch", format_count(s.batch)))
    rate = f"{format_count(s.gpus)} × {format_usd(s.usd_per_gpu_hour)} ÷ {format_count(SECONDS_PER_HOUR)} s"
    million = format_count(TOKENS_PER_MILLION)
    if direction == "input":
        value = prices.usd_per_million_input_tokens
        return Formula("usd_per_million_input_tokens", "$ = t_prefill ÷ (n × i) × g × p ÷ 3,600 × 1,000,000",
                       f"{format_seconds(r.ttft_seconds)} ÷ ({format_count(s.batch)} × {format_count(s.prompt_tokens)})"
                       f" × {rate} × {million}", format_usd(value), value,
                       (Term("t_prefill", "prefill_seconds", format_seconds(r.ttft_seconds)),
                        Term("i", "prompt_tokens", format_count(s.prompt_tokens)), *price_terms),
                       "engine.cost.token_prices")
    value = prices.usd_per_million_output_tokens
    return Formula("usd_per_million_output_tokens", "$ = t ÷ n × g × p ÷ 3,600 × 1,000,000",
                   f"{format_seconds(r.tpot_seconds)} ÷ {format_count(s.batch)} × {rate} × {million}",
                   format_usd(value), value,
                   (Term("t", "tpot", format_seconds(r.tpot_seconds)), *price_terms), "engine.cost.token_prices")


def _price_ratio(r: Report) -> Formula:
    usd_in, usd_out = r.usd_per_million_input_tokens, r.usd_per_million_output_tokens
    return Formula("output_to_input_price_ratio", "ratio = $_out ÷ $_in", f"{format_usd(usd_out)} ÷ {format_usd(usd_in)}",
                   format_ratio(r.output_to_input_price_ratio), r.output_to_input_price_ratio,
                   (Term("$_out", "usd_per_million_output", format_usd(usd_out)),
                    Term("$_in", "usd_per_million_input", format_usd(usd_in))), "engine.cost.token_prices")


def _ttft(r: Report) -> Formula:
    p, spec = r.prefill, r.speculative
    if spec is not None:         # the draft reads the prompt too (engine.levers.on_report)
        return Formula("ttft_seconds", "t_first = T_prefill + T_draft",
                       f"{format_seconds(p.seconds)} + {format_seconds(spec.draft_prefill_seconds)}",
                       format_seconds(r.ttft_seconds), r.ttft_seconds,
                       (Term("T_prefill", "prefill_pass_seconds", format_seconds(p.seconds)),
                        Term("T_draft", "draft_prefill_seconds", format_seconds(spec.draft_prefill_seconds))),
                       "engine.request (prefill pass) + engine.levers.speculative")
    return _pass_time("ttft_seconds", "t_first", p.compute_seconds, p.memory_seconds, r.ttft_seconds, "pass",
                      "engine.request.time_pass (prefill)")


def _tokens_per_second_per_gpu(r: Report) -> Formula:
    from engine.levers.outcome import figures_of        # the lever tables' own figure, not a copy of it

    n, g, t = r.scenario.batch, r.scenario.gpus, r.tpot_seconds
    rate = figures_of(r).tokens_per_second_per_gpu
    return Formula("tokens_per_second_per_gpu", "rate = n ÷ (t × g)",
                   f"{format_count(n)} ÷ ({format_seconds(t)} × {format_count(g)})", format_number(rate), rate,
                   (Term("n", "batch", format_count(n)), Term("t", "tpot", format_seconds(t)),
                    Term("g", "gpus", format_count(g))), "engine.levers.outcome.figures_of")


def _max_batch(r: Report) -> Formula:
    fit = r.sequence_fit
    room = format_bytes(fit.room_bytes_per_gpu).replace("-", "−")      # no room: the weights alone overflow
    one = format_bytes(fit.sequence_bytes_per_gpu)
    terms = (Term("R", "kv_room", room), Term("S", "sequence_kv", one))
    symbols, values = "n = ⌊R ÷ S⌋", f"⌊{room} ÷ {one}⌋"
    if fit.room_bytes_per_gpu <= 0:
        symbols, values = "n = max(0, ⌊R ÷ S⌋)", f"max(0, ⌊{room} ÷ {one}⌋)"
    if fit.replicas > 1:
        symbols, values = symbols + " × r", values + f" × {format_count(fit.replicas)}"
        terms += (Term("r", "replicas", format_count(fit.replicas)),)
    return Formula("max_batch", symbols, values, format_count(r.max_batch), r.max_batch, terms,
                   "engine.levers.kv_allocation.sequence_fit")


def _pass_time(key: str, symbol: str, compute: float, memory: float, total: float, kind: str,
               source: str) -> Formula:
    """A pass's time as the roofline's larger term plus the rest (``kind``: "step", a decode step, or "pass",
    the prefill): ``total`` is the engine's own, the rest what no FLOP or byte of the larger term sets
    (unhidden overlap, links, per-step costs)."""
    rest = total - max(compute, memory)
    return Formula(key, f"{symbol} = max(t_F, t_M) + t_rest",
                   f"max({format_seconds(compute)}, {format_seconds(memory)}) + {format_seconds(rest)}",
                   format_seconds(total), total,
                   (Term("t_F", f"{kind}_compute_seconds", format_seconds(compute)),
                    Term("t_M", f"{kind}_memory_seconds", format_seconds(memory)),
                    Term("t_rest", f"{kind}_rest_seconds", format_seconds(rest))), source)


def _decode_step(r: Report) -> Formula:
    d = r.decode
    return _pass_time("decode_step_seconds", "t", d.compute_seconds, d.memory_seconds, d.seconds_per_token, "step",
                      "engine.request.time_pass (decode)")


BUILDERS: dict[str, Callable[..., Formula]] = {
    "ridge_point": _ridge_point,
    "decode_intensity": _decode_intensity,
    "idle_share": _idle_share,
    "weights_bytes": _weights_bytes,
    "weights_bytes_per_gpu": _weights_bytes_per_gpu,
    "kv_bytes_per_token": _kv_bytes_per_token,
    "kv_bytes": _kv_bytes,
    "kv_bytes_per_gpu": _kv_bytes_per_gpu,
    "overhead_bytes_per_gpu": _overhead_bytes_per_gpu,
    "tpot_seconds": _tpot,
    "tokens_per_second": _tokens_per_second,
    "usd_per_million_input_tokens": lambda r: _price(r, "input"),
    "usd_per_million_output_tokens": lambda r: _price(r, "output"),
    "output_to_input_price_ratio": _price_ratio,
    "ttft_seconds": _ttft,
    "tokens_per_second_per_gpu": _tokens_per_second_per_gpu,
    "max_batch": _max_batch,
    "step_idle_share": _step_idle_share,
    "decode_step_seconds": _decode_step,
}
KEYS = tuple(BUILDERS)
TAKES_AT = frozenset({"idle_share", "kv_bytes"})     # figures a stage may show at a value of its own


def formula(report: Report, key: str, at: float | None = None) -> Formula:
    """The formula behind figure ``key`` of ``report`` (a report of ``engine.compute_report``), at the stage's own
    value ``at`` where the figure takes one (``TAKES_AT``; ignored by the others); an unknown key is refused in
    one sentence naming the known ones, and so is a value ``at`` that is not a finite number, 0 or more."""
    builder = BUILDERS.get(key)
    if builder is None:
        raise refusal("formula.unknown", {"got": key, "allowed": KEYS})
    if key not in TAKES_AT or at is None:
        return builder(report)
    if isinstance(at, bool) or not isinstance(at, (int, float)) or not math.isfinite(at) or at < 0:
        raise refusal("formula.bad_at", {"got": at})
    return builder(report, at)
