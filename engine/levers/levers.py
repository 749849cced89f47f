"""Each lever's "off" and "on", and what it costs and where it stops paying (``engine.levers.outcome``).

Scenario-field levers change the scenario and let the report follow; the three
what-if levers (FlashAttention, offloading, disaggregation) then adjust the
figures of the side they concern, from their own modules' formulas.
"""
from __future__ import annotations

from dataclasses import replace

from engine.batch_search import smallest_batch
from engine.levers import disaggregation, flash_attention, offload
from engine.levers.fields import speculative_on
from engine.levers.kv_allocation import held_tokens_per_sequence, kv_tokens_held, pages, shared_prefix_tokens
from engine.levers.kv_precision import kv_share_of_step_bytes
from engine.levers.on_report import max_batch_of, room_bytes_per_gpu
from engine.levers.outcome import FIGURES, LeverFigures, LeverOutcome, figures_of
from engine.levers.settings import DEFAULT_HEAD_COST, NARROW_PRECISION, WIDE_PRECISION, LEVERS, host_bytes, link, \
    reloaded_tokens
from engine.passes import computed_prompt_tokens, prefill_work
from engine.request import time_pass
from engine.scenario import MAX_BATCH

FLASH_MATTERS_SLOWDOWN = 1.10     # "FlashAttention matters" from the prompt at which its absence costs 10%


def _speculative_on(sc, settings: dict):
    drafter = {}
    if "draft_model" in settings or "draft_head_cost" in settings:
        drafter = {"draft_model": settings.get("draft_model", ""), "draft_head_cost": settings.get("draft_head_cost", 0.0)}
    elif not speculative_on(sc):
        drafter = {"draft_model": "", "draft_head_cost": DEFAULT_HEAD_COST}
    return replace(sc, **drafter, **{k: settings[k] for k in ("draft_tokens", "acceptance") if k in settings})


# lever -> (off, on): scenario -> scenario, for the levers that are scenario fields
_FIELD_LEVERS = {
    "weights": (lambda sc, st: replace(sc, weights=WIDE_PRECISION),
                lambda sc, st: replace(sc, weights=st.get("weights", NARROW_PRECISION))),
    "kv_precision": (lambda sc, st: replace(sc, kv=WIDE_PRECISION),
                     lambda sc, st: replace(sc, kv=st.get("kv", NARROW_PRECISION))),
    "speculative": (lambda sc, st: replace(sc, draft_model="", draft_head_cost=0.0), _speculative_on),
    "prefix_cache": (lambda sc, st: replace(sc, cached_prefix_tokens=0),
                     lambda sc, st: replace(sc, cached_prefix_tokens=st.get(
                         "cached_prefix_tokens", sc.cached_prefix_tokens or sc.prompt_tokens // 2))),
    "kv_allocation": (lambda sc, st: replace(sc, kv_allocation="reserved",
                                             reserve_tokens=st.get("reserve_tokens", sc.reserve_tokens)),
                      lambda sc, st: replace(sc, kv_allocation="paged")),
}


def _fill(sc, catalog) -> int:
    """The largest batch whose own ``max_batch`` holds it (its allowance grows with it), from 1 to ``MAX_BATCH``."""
    from engine.compute import compute_report

    first_too_many = smallest_batch(lambda batch: compute_report(replace(sc, batch=batch), catalog).max_batch < batch)
    return MAX_BATCH if first_too_many is None else max(first_too_many - 1, 1)


def compare(scenario, levers: dict[str, dict], catalog) -> LeverOutcome:
    """The outcome of ``levers`` (checked names and settings) on a validated ``scenario``."""
    from engine.compute import compute_report, setup_of

    base, on = scenario, scenario
    for name, (off_of, on_of) in _FIELD_LEVERS.items():
        if name in levers:
            base, on = off_of(base, levers[name]), on_of(on, levers[name])
    if "batching" in levers:
        batch = levers["batching"].get("batch") or (scenario.batch if scenario.batch > 1 else _fill(on, catalog))
        base, on = replace(base, batch=1), replace(on, batch=batch)
    elif "kv_allocation" in levers:
        base, on = replace(base, batch=_fill(base, catalog)), replace(on, batch=_fill(on, catalog))
    sides = {"base": (compute_report(base, catalog), setup_of(base, catalog)),
             "on": (compute_report(on, catalog), setup_of(on, catalog))}
    figures = {side: figures_of(report) for side, (report, _) in sides.items()}
    reported = figures["on"]
    values, costs, stops = {}, {}, {}
    for name in (n for n in LEVERS if n in levers):
        values[name], costs[name], stops[name] = _DESCRIBE[name](sides, figures, levers[name], catalog)
    own = frozenset(f for f in FIGURES if getattr(figures["on"], f) == getattr(reported, f))
    return LeverOutcome(levers=tuple(n for n in LEVERS if n in levers), base=figures["base"],
                        with_levers=figures["on"], values=values, costs=costs, stops_paying=stops,
                        with_scenario=sides["on"][0].scenario, report_figures=own)


def _crossover(report, catalog):
    from engine.compute import decode_crossover_batch
    return decode_crossover_batch(report.scenario, catalog)


def _describe_weights(sides, figures, settings, catalog):
    (base, _), (on, _) = sides["base"], sides["on"]
    return ({"bytes_per_value_base": base.weights_precision.bytes_per_value,
             "bytes_per_value": on.weights_precision.bytes_per_value,
             "weights_bytes_per_gpu_base": base.weights_bytes_per_gpu, "weights_bytes_per_gpu": on.weights_bytes_per_gpu,
             "weight_only": on.weight_only},
            {}, {"compute_bound_batch": _crossover(on, catalog)})


def _describe_kv_precision(sides, figures, settings, catalog):
    (base, s_base), (on, s_on) = sides["base"], sides["on"]
    share = kv_share_of_step_bytes(s_base.deployment, batch=base.scenario.batch, context_tokens=base.decode.context_tokens)
    return ({"kv_bytes_per_token_base": base.kv_bytes_per_token, "kv_bytes_per_token": on.kv_bytes_per_token},
            {}, {"kv_share_of_step_bytes": share})


def _describe_batching(sides, figures, settings, catalog):
    (base, _), (on, _) = sides["base"], sides["on"]
    return ({"batch_base": base.scenario.batch, "batch": on.scenario.batch}, {},
            {"compute_bound_batch": _crossover(on, catalog)})


def _describe_speculative(sides, figures, settings, catalog):
    on, _ = sides["on"]
    spec, sc = on.speculative, on.scenario
    values = {"draft_model": sc.draft_model, "draft_head_cost": sc.draft_head_cost, "draft_tokens": sc.draft_tokens,
              "acceptance": sc.acceptance, "tokens_per_pass": spec.tokens_per_pass, "speedup": spec.speedup,
              "verify_bound": spec.verify_bound, "plain_step_seconds": spec.plain_step_seconds}
    costs = {"draft_seconds_per_pass": spec.draft_seconds_per_pass,
             "verify_seconds_per_pass": spec.verify_seconds_per_pass,
             "wasted_tokens_per_pass": spec.wasted_tokens_per_pass,
             "draft_prefill_seconds": spec.draft_prefill_seconds, "draft_bytes_per_gpu": spec.draft_bytes_per_gpu}
    return values, costs, {"loss_batch": spec.loss_batch}


def _describe_prefix(sides, figures, settings, catalog):
    from engine.compute import compute_report
    on, s_on = sides["on"]
    sc = on.scenario
    computed = computed_prompt_tokens(sc.prompt_tokens, sc.cached_prefix_tokens)
    cached = sc.prompt_tokens - computed
    alone = compute_report(replace(sc, prompt_tokens=computed, cached_prefix_tokens=0), catalog)
    return ({"cached_tokens": cached, "computed_tokens": computed, "shared_tokens": shared_prefix_tokens(sc)},
            {"cached_kv_bytes": cached * on.kv_bytes_per_token,
             "cached_kv_read_bytes": sc.batch * cached * on.kv_bytes_per_token},
            {"uncached_alone_ttft_seconds": alone.ttft_seconds})


def _describe_allocation(sides, figures, settings, catalog):
    (base, s_base), (on, s_on) = sides["base"], sides["on"]
    context = on.scenario.prompt_tokens + on.scenario.output_tokens
    reserved = held_tokens_per_sequence(base.scenario, s_base.model)
    return ({"reserved_tokens_per_sequence": reserved, "paged_tokens_per_sequence": pages(context) * 16,
             "context_tokens": context},
            {"unused_tokens_per_sequence_paged": pages(context) * 16 - context,
             "unused_tokens_per_sequence_reserved": reserved - context},
            {"context_tokens_where_equal": reserved})


def _describe_flash(sides, figures, settings, catalog):
    base, s = sides["base"]
    sc = base.scenario
    seen = flash_attention.compare(s.deployment, s.machine, batch=sc.batch, prompt_tokens=sc.prompt_tokens,
                                   cached_tokens=sc.cached_prefix_tokens)
    figures["base"] = replace(
        figures["base"], ttft_seconds=figures["base"].ttft_seconds + seen.without_flash_seconds - seen.with_flash_seconds,
        sequences_that_fit=max_batch_of(s, room_bytes_per_gpu(base) - seen.score_bytes_per_gpu),
        fits=figures["base"].fits and seen.score_bytes_per_gpu <= base.free_bytes_per_gpu)
    return ({"slowdown": seen.slowdown, "score_traffic_bytes_per_gpu": seen.score_traffic_bytes_per_gpu,
             "score_bytes_per_gpu": seen.score_bytes_per_gpu}, {},
            {"matters_from_prompt_tokens": _flash_matters_from(s, sc)})


def _flash_matters_from(s, sc) -> int | None:
    """The shortest prompt (up to the model's maximum) whose prefill is 10% slower without FlashAttention."""
    def matters(prompt: int) -> bool:
        return flash_attention.compare(s.deployment, s.machine, batch=sc.batch,
                                       prompt_tokens=prompt).slowdown >= FLASH_MATTERS_SLOWDOWN
    return smallest_batch(matters, s.model.max_context_tokens or 131072)


def _describe_offload(sides, figures, settings, catalog):
    on, s = sides["on"]
    sc, machine, d = on.scenario, s.machine, s.deployment
    host = host_bytes(settings.get("host_bytes_per_gpu", offload.DEFAULT_HOST_BYTES_PER_GPU))
    earlier = reloaded_tokens(settings.get("reloaded_tokens", sc.prompt_tokens // 2), sc.prompt_tokens)
    seen = offload.offload_figures(d, machine, batch=sc.batch, context_tokens=on.decode.context_tokens,
                                   reloaded_tokens=max(earlier, 1), tokens_per_sequence=held_tokens_per_sequence(sc, s.model),
                                   host_bytes_per_gpu=host)
    cached = sc.cached_prefix_tokens
    kept = max(cached, earlier)

    def prefill(cached_tokens: int) -> float:
        return time_pass(prefill_work(d, batch=sc.batch, prompt_tokens=sc.prompt_tokens, cached_tokens=cached_tokens),
                         machine).seconds
    reload = offload.reload_seconds(d, machine.efficiency, tokens=kept - cached, batch=sc.batch)
    figures["on"] = replace(figures["on"], ttft_seconds=figures["on"].ttft_seconds + prefill(kept) - prefill(cached) + reload,
                            sequences_that_fit=figures["on"].sequences_that_fit + seen.host_sequences)
    return ({"reloaded_tokens": earlier, "host_sequences": seen.host_sequences,
             "reload_seconds": seen.reload_seconds, "recompute_seconds": seen.recompute_seconds,
             "host_link_bytes_per_second": seen.host_link_bytes_per_second},
            {"host_bytes_per_gpu": host, "reload_seconds": seen.reload_seconds},
            {"step_seconds": seen.step_seconds, "step_over_host_link_seconds": seen.step_over_host_link_seconds})


def _describe_disaggregation(sides, figures, settings, catalog):
    for side in ("base", "on"):
        report, s = sides[side]
        sc = report.scenario
        node = getattr(s.gpu, "node_gpus", 0) or 8
        chosen = link(settings.get("link", "nvlink" if 2 * sc.gpus <= node else "network"))
        seen = disaggregation.disaggregation_figures(s.deployment, s.machine, batch=sc.batch,
                                                     prompt_tokens=sc.prompt_tokens, output_tokens=sc.output_tokens,
                                                     link=chosen)
        busy = figures[side].tpot_seconds + seen.interruption_seconds_per_step     # GPU time per step, both pools
        per_gpu = sc.batch / (busy * sc.gpus)
        if side == "base":
            figures[side] = replace(figures[side], tpot_seconds=busy, tokens_per_second_per_gpu=per_gpu)
        else:
            batch_transfer = disaggregation.kv_transfer_seconds_of(s.deployment, s.machine.efficiency,
                                                                   prompt_tokens=sc.prompt_tokens, batch=sc.batch,
                                                                   link=chosen)
            figures[side] = replace(figures[side], ttft_seconds=figures[side].ttft_seconds + batch_transfer,
                                    tokens_per_second_per_gpu=per_gpu)
    return ({"link": seen.link, "prefill_seconds": seen.prefill_seconds, "prefills_per_step": seen.prefills_per_step,
             "interruption_seconds_per_step": seen.interruption_seconds_per_step,
             "kv_bytes_per_request": sc.prompt_tokens * report.kv_bytes_per_token},
            {"kv_transfer_seconds": seen.kv_transfer_seconds},
            {"stops_below_batch": seen.stops_below_batch})


_DESCRIBE = {"weights": _describe_weights, "kv_precision": _describe_kv_precision, "batching": _describe_batching,
             "speculative": _describe_speculative, "prefix_cache": _describe_prefix,
             "kv_allocation": _describe_allocation, "flash_attention": _describe_flash,
             "offload": _describe_offload, "disaggregation": _describe_disaggregation}
