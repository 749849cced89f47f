"""The values the serving scene's captions, notes, tables and bars fill in (Qt-free), every number by ``engine.units``.

``values(story)`` is a ``Values`` mapping: each entry is worked out only when a
text names it, so a caption asks only for the answers its build shows. The
entries that need a slow answer (a plan, the curve, the prices) are named
only by texts of the phases in which that answer is in; "computing" and
"refused" texts name only the presenter's own inputs.
"""
from __future__ import annotations

from desktop.kit.story import Values
from engine.plan_search import LATENCY_BOUND_SHARE
from engine.units import format_bandwidth, format_count, format_number, format_percent, format_seconds, format_usd

SAME_COST = 1e-9          # a relative difference below this is the same cost (floating-point leftovers)


def language_prices(story) -> dict:
    return story.answer(story.prices_request)


def case_plans(story, case: str):
    """(colocated, separate pools) plans of the disaggregation build's ``case``."""
    return story.answer(story.fleet_request(case)), story.answer(story.fleet_request(case, separate=True))


def pool_saving(story, case: str) -> int:
    """GPUs the separate pools save in ``case`` (negative: they need more)."""
    colocated, separate = case_plans(story, case)
    return colocated.gpus - separate.gpus


def request_cost(price) -> float:
    """The GPU cost of one request's content in this language (its input and output tokens at the plan's prices)."""
    plan = price.plan
    return (price.prompt_tokens * plan.usd_per_million_input_tokens
            + price.output_tokens * plan.usd_per_million_output_tokens) / 1e6


def values(story):
    """Every value a text of the scene may name (module docstring)."""
    text, c, sc = story.text, story.choices, story.scenario
    plan = lambda: story.plan                                             # noqa: E731 (read when named)
    curve = lambda: story.answer(story.curve_request)                     # noqa: E731
    rates = lambda: story.answer(story.rates_request)                     # noqa: E731
    prices = lambda: language_prices(story)                               # noqa: E731
    links = lambda: story.links                                           # noqa: E731
    rate, small = format_number(c.requests_per_second), format_number(c.small_traffic.requests_per_second)
    ttft, tpot = format_seconds(c.ttft_target_seconds), format_seconds(c.tpot_target_seconds)
    model, gpu = _names(story)
    entries = {
        "rate": rate, "small_rate": small,
        "rate_text": per_second(text, c.requests_per_second),
        "small_rate_text": per_second(text, c.small_traffic.requests_per_second), "ttft_target": ttft, "tpot_target": tpot, "model": model, "gpu": gpu,
        "gpus_per_replica": format_count(sc.gpus), "prompt": format_count(sc.prompt_tokens),
        "output": format_count(sc.output_tokens), "usd_per_hour": format_usd(sc.usd_per_gpu_hour),
        "list_in": format_usd(c.list_usd_per_million_input_tokens),
        "list_out": format_usd(c.list_usd_per_million_output_tokens),
        "traffic": text("value.traffic", rate=rate),
        "request": text("value.request", prompt=format_count(sc.prompt_tokens), output=format_count(sc.output_tokens)),
        "targets": text("value.targets", ttft=ttft, tpot=tpot),
        "replica": text("value.replica", gpus=format_count(sc.gpus), gpu=gpu, model=model),
        "rent": text("value.rent", usd=format_usd(sc.usd_per_gpu_hour)),
        "latency_share": format_percent(LATENCY_BOUND_SHARE, 2),
        # the plan for this traffic
        "gpus": lambda: format_count(plan().gpus), "replicas": lambda: format_count(plan().replicas),
        "nodes": lambda: format_count(plan().nodes), "node_gpus": lambda: format_count(plan().gpus_per_node),
        "batch": lambda: format_count(plan().batch), "mean_batch": lambda: format_number(plan().mean_batch),
        "most": lambda: format_count(plan().most_sequences),
        "per_gpu": lambda: format_number(plan().requests_per_second_per_gpu),
        "ttft_p90": lambda: format_seconds(plan().ttft_p90_seconds),
        "tpot_p90": lambda: format_seconds(plan().tpot_p90_seconds),
        "utilisation": lambda: format_percent(plan().utilisation, 2),
        "replica_capacity": lambda: format_number(plan().replica_capacity_requests_per_second),
        "price_in": lambda: format_usd(plan().usd_per_million_input_tokens),
        "price_out": lambda: format_usd(plan().usd_per_million_output_tokens),
        "binding_short": lambda: text(f"binding.{plan().binding}"),
        "binding_text": lambda: text(f"binding_text.{plan().binding}", most=format_count(plan().most_sequences),
                                     use=format_percent(plan().utilisation, 2),
                                     share=format_percent(LATENCY_BOUND_SHARE, 2)),
        "binding_note": lambda: text(f"binding_note.{plan().binding}", most=format_count(plan().most_sequences),
                                     share=format_percent(LATENCY_BOUND_SHARE, 2)),
        "use_text": lambda: text("value.use", use=format_percent(plan().utilisation, 2)),
        "replicas_text": lambda: text("value.replicas", replicas=format_count(plan().replicas),
                                      gpus=format_count(plan().gpus_per_replica)),
        "gpus_text": lambda: text("value.gpus", gpus=format_count(plan().gpus), nodes=format_count(plan().nodes),
                                  count=plan().nodes),
        "batch_text": lambda: text("value.batch", batch=format_count(plan().batch),
                                   most=format_count(plan().most_sequences)),
        "fleet_text": lambda: text("value.fleet", gpus=format_count(plan().gpus), nodes=format_count(plan().nodes),
                                   count=plan().nodes),
        "per_gpu_text": lambda: text("value.per_gpu", rate=format_number(plan().requests_per_second_per_gpu)),
        "reached": lambda: text("value.reached", ttft=format_seconds(plan().ttft_p90_seconds),
                                tpot=format_seconds(plan().tpot_p90_seconds)),
        "prices": lambda: text("value.prices", price_in=format_usd(plan().usd_per_million_input_tokens),
                               price_out=format_usd(plan().usd_per_million_output_tokens)),
        "link": lambda: links().link, "link_bandwidth": lambda: format_bandwidth(links().link_bytes_per_second),
        "network": lambda: links().network,
        "network_bandwidth": lambda: format_bandwidth(links().network_bytes_per_second),
        # the latency curve
        "knee": lambda: _knee(curve()),
        "knee_text": lambda: text("value.knee", rate=_knee(curve())) if has_knee(curve()) else text("value.no_knee"),
        "capacity": lambda: format_number(curve().capacity_requests_per_second),
        "flat_ttft": lambda: format_seconds(float(curve().ttft_p90_seconds[0])),
        "lightest_rate": lambda: format_number(float(curve().requests_per_second[0])),
        "top_ttft": lambda: format_seconds(float(curve().ttft_p90_seconds[-1])),
        "heaviest_rate": lambda: format_number(float(curve().requests_per_second[-1])),
    }
    entries.update(_language_entries(story, text, rates, prices))
    entries.update(_pool_entries(story, text))
    return Values(entries)


def per_second(text, rate) -> str:
    """"10 requests/s" in the scene's words (one request, one form)."""
    return text("value.per_second", rate=format_number(rate), count=1 if rate == 1 else 2)


def _names(story) -> tuple[str, str]:
    subject = story.ask(_model_and_gpu_names, story.scenario.model, story.scenario.gpu)
    return subject if isinstance(subject, tuple) else (story.scenario.model, story.scenario.gpu)


def _model_and_gpu_names(catalog, model: str, gpu: str) -> tuple[str, str]:
    return catalog.model(model).name, catalog.gpu(gpu).name


def has_knee(curve) -> bool:
    return curve.knee_requests_per_second == curve.knee_requests_per_second     # not NaN


def _knee(curve) -> str:
    return format_number(curve.knee_requests_per_second) if has_knee(curve) else "—"


def _language_entries(story, text, rates, prices) -> dict:
    def short(tokenizer: str) -> str:
        from desktop.scenes.tokens.cuts import short_name
        return short_name(tokenizer)

    def cut_by() -> str:
        tokenizer, own = story.tokenizer
        r = rates()
        key = "value.cut_own" if own else "value.cut_stand_in"
        return text(key, tokenizer=short(tokenizer).replace(" ", "\u00a0"), pairs=format_count(r.pairs), model=_names(story)[0])

    def more() -> float:
        p = prices()
        english = request_cost(p["en"])
        return request_cost(p["zh"]) / english - 1 if english > 0 else 0.0     # free GPUs: nothing costs more

    def more_text() -> str:
        share = more()
        if abs(share) < SAME_COST:                  # one fleet for both: the same GPU-seconds, but for rounding
            return text("value.same")
        return text("value.more" if share > 0 else "value.less", share=format_percent(abs(share), 2))

    entries = {
        "tokenizer": lambda: short(story.tokenizer[0]), "cut_by": cut_by,
        "pairs": lambda: format_count(rates().pairs),
        "en_corpus_characters": lambda: format_count(rates().en_characters),
        "zh_corpus_characters": lambda: format_count(rates().zh_characters),
        "en_corpus_tokens": lambda: format_count(rates().en_tokens),
        "zh_corpus_tokens": lambda: format_count(rates().zh_tokens),
        "zh_per_thousand": lambda: format_count(rates().zh_characters_per_thousand),
        "token_ratio": lambda: format_number(rates().ratio),
        "en_characters": lambda: text("value.en_characters"),
        "zh_characters": lambda: text("value.zh_characters", count=format_count(rates().zh_characters_per_thousand)),
        "character": lambda: text("value.character", count=format_count(rates().zh_characters_per_thousand)),
        "more": lambda: format_percent(abs(more()), 2), "more_text": more_text,
        "more_footer": lambda: text("bars.footer", more_text=more_text()),
        "margins": lambda: text("value.margins", en=format_percent(prices()["en"].margin, 2),
                                zh=format_percent(prices()["zh"].margin, 2)),
    }
    for language in ("en", "zh"):
        p = lambda language=language: prices()[language]                  # noqa: E731
        entries.update({
            f"{language}_rate": lambda p=p: format_number(p().tokens_per_thousand_characters),
            f"{language}_prompt": lambda p=p: format_count(p().prompt_tokens),
            f"{language}_output": lambda p=p: format_count(p().output_tokens),
            f"{language}_gpus": lambda p=p: format_count(p().plan.gpus),
            f"{language}_price_in": lambda p=p: format_usd(p().plan.usd_per_million_input_tokens),
            f"{language}_price_out": lambda p=p: format_usd(p().plan.usd_per_million_output_tokens),
            f"{language}_cost_in": lambda p=p: format_usd(p().usd_per_thousand_input_characters),
            f"{language}_cost_out": lambda p=p: format_usd(p().usd_per_thousand_output_characters),
            f"{language}_list_in": lambda p=p: format_usd(p().list_usd_per_thousand_input_characters),
            f"{language}_list_out": lambda p=p: format_usd(p().list_usd_per_thousand_output_characters),
            f"{language}_margin": lambda p=p: format_percent(p().margin, 2),
            f"{language}_output_margin": lambda p=p: format_percent(p().output_margin, 2),
            f"{language}_request_cost": lambda p=p: format_usd(request_cost(p())),
        })
    return entries


def _pool_entries(story, text) -> dict:
    c = story.choices

    def verdict(case: str) -> str:
        saving = pool_saving(story, case)
        key = "value.pools_save" if saving > 0 else "value.pools_cost" if saving < 0 else "value.pools_even"
        return text(key, gpus=format_count(abs(saving)), count=abs(saving))

    def separate_text(case: str) -> str:
        _, separate = case_plans(story, case)
        g = separate.gpus_per_replica
        return text("value.separate", gpus=format_count(separate.gpus), prefill=format_count(separate.prefill_replicas * g),
                    decode=format_count(separate.decode_replicas * g))

    entries = {
        "busy_label": per_second(text, c.requests_per_second),
        "small_label": per_second(text, c.small_traffic.requests_per_second),
        "pools_verdict": lambda: text("value.pools_verdict", busy=verdict("busy"), small=verdict("small"),
                                      busy_rate=per_second(text, c.requests_per_second),
                                      small_rate=per_second(text, c.small_traffic.requests_per_second)),
    }
    entries["goodput"] = lambda: text(
        "bars.goodput", busy_rate=entries["busy_label"], small_rate=entries["small_label"],
        **{f"{case}_{kind}": format_number(plan.requests_per_second_per_gpu)
           for case in ("busy", "small") for kind, plan in zip(("colocated", "separate"), case_plans(story, case))})
    for case in ("busy", "small"):
        entries.update({
            f"{case}_verdict": lambda case=case: verdict(case),
            f"{case}_colocated": lambda case=case: format_count(case_plans(story, case)[0].gpus),
            f"{case}_separate": lambda case=case: format_count(case_plans(story, case)[1].gpus),
            f"{case}_colocated_text": lambda case=case: text("value.colocated",
                                                             gpus=format_count(case_plans(story, case)[0].gpus)),
            f"{case}_separate_text": lambda case=case: separate_text(case),
            f"{case}_prefill": lambda case=case: format_count(case_plans(story, case)[1].prefill_replicas),
            f"{case}_decode": lambda case=case: format_count(case_plans(story, case)[1].decode_replicas),
            f"{case}_colocated_replicas": lambda case=case: format_count(case_plans(story, case)[0].replicas),
            f"{case}_colocated_batch": lambda case=case: format_count(case_plans(story, case)[0].batch),
            f"{case}_separate_batch": lambda case=case: format_count(case_plans(story, case)[1].batch),
            f"{case}_colocated_tpot": lambda case=case: format_seconds(case_plans(story, case)[0].tpot_p90_seconds),
            f"{case}_separate_ttft": lambda case=case: format_seconds(case_plans(story, case)[1].ttft_p90_seconds),
            f"{case}_separate_tpot": lambda case=case: format_seconds(case_plans(story, case)[1].tpot_p90_seconds),
            f"{case}_colocated_per_gpu": lambda case=case: format_number(
                case_plans(story, case)[0].requests_per_second_per_gpu),
            f"{case}_separate_per_gpu": lambda case=case: format_number(
                case_plans(story, case)[1].requests_per_second_per_gpu),
        })
    return entries
