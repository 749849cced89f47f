"""One line naming a scenario in words, for the handout's pages: which case every number on the page is for.

"NVIDIA H800 SXM5 · Llama 3.1 70B · weights FP16 · KV FP16 · 2 GPUs · batch 1 ·
1,000 + 500 tokens · $2 per GPU-hour · realistic", then each lever that is on
(speculative decoding, a cached prefix, reserved KV) and any other field that
differs from the engine's default, so two handouts of different scenarios never
read the same.
"""
from __future__ import annotations

from dataclasses import fields

from engine import InputError, Scenario
from engine.units import format_count, format_number, format_percent, format_usd

# Fields the first part of the line names; the levers' own phrases follow; anything else is named as it is.
_NAMED = {"gpu", "model", "weights", "kv", "gpus", "batch", "prompt_tokens", "output_tokens", "usd_per_gpu_hour",
          "mode", "draft_model", "draft_head_cost", "draft_tokens", "acceptance", "cached_prefix_tokens",
          "kv_allocation", "reserve_tokens"}


def _name(lookup, key: str) -> str:
    try:
        return lookup(key).name
    except InputError:          # an id this catalogue does not have: the id itself names it
        return key


def describe_scenario(language, scenario: Scenario, catalog) -> str:
    """``scenario`` in one line of ``language`` (``Language.text`` texts ``app.export.*``)."""
    text = language.text
    parts = [text("app.export.scenario", gpu=_name(catalog.gpu, scenario.gpu),
                  model=_name(catalog.model, scenario.model), weights=_name(catalog.precision, scenario.weights),
                  kv=_name(catalog.precision, scenario.kv), count=scenario.gpus, batch=format_count(scenario.batch),
                  prompt=format_count(scenario.prompt_tokens), output=format_count(scenario.output_tokens),
                  price=format_usd(scenario.usd_per_gpu_hour)),
             text(f"app.export.mode.{scenario.mode}")]
    if scenario.draft_model:
        parts.append(text("app.export.draft_model", draft=_name(catalog.model, scenario.draft_model),
                          tokens=scenario.draft_tokens, acceptance=format_percent(scenario.acceptance)))
    elif scenario.draft_head_cost > 0:
        parts.append(text("app.export.draft_heads", cost=format_percent(scenario.draft_head_cost),
                          tokens=scenario.draft_tokens, acceptance=format_percent(scenario.acceptance)))
    if scenario.cached_prefix_tokens:
        parts.append(text("app.export.cached_prefix", tokens=format_count(scenario.cached_prefix_tokens)))
    if scenario.kv_allocation == "reserved":
        parts.append(text("app.export.reserved", tokens=format_count(scenario.reserve_tokens))
                     if scenario.reserve_tokens else text("app.export.reserved_maximum"))
    default = Scenario()
    for spec in fields(Scenario):            # a field added later (tensor, pipeline degrees) is still named
        value = getattr(scenario, spec.name)
        if spec.name not in _NAMED and value != getattr(default, spec.name):
            shown = format_number(value) if isinstance(value, float) else str(value)
            parts.append(text("app.export.other_field", field=spec.name, value=shown))
    return text("app.export.separator").join(parts)
