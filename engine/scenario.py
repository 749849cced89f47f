"""The question the user asks: one immutable ``Scenario``, and the ranges it must stay in.

A control in the desktop changes a field with ``dataclasses.replace``; the
engine turns the scenario into a ``Report`` (``engine.compute.compute_report``).
``validate_scenario`` checks every field here, and ``compute_report`` checks the
ids against the catalogue, so every entry point (library, CLI, desktop) gives
the same one-sentence ``InputError``, written by ``engine.errors.refusal`` from the
English text of ``resources/text/errors.toml`` (the one source of its wording).

Allowed ranges (chosen to cover every real deployment with room to explore,
and to refuse what is physically meaningless):

- ``gpus``: 1 to 1,024 GPUs (128 eight-GPU nodes, fourteen NVL72 racks: past the
  largest published inference deployments, DeepSeek's 320-GPU decoding units);
- ``tp``, ``pp``, ``ep``: the tensor, pipeline and expert degrees, 0 to 1,024, where
  0 (the default) lets ``engine.layout`` choose; the layout checks how they fit together;
- ``batch``: 1 to 4,096 sequences decoded together;
- ``prompt_tokens`` and ``output_tokens``: at least 1, and prompt plus output at
  most 10,000,000 tokens (ten times the longest context of today's models), and
  at most the model's own ``max_context_tokens`` (``check_model_context``, once
  the model is looked up: 131,072 for Llama 3.1);
- ``usd_per_gpu_hour``: a finite price from 0 to 10,000 US dollars;
- ``mode``: ``"ideal"`` or ``"realistic"`` (any case; stored in lower case);
- the lever fields (speculative decoding, prefix caching, KV allocation): see
  ``engine.levers.fields``; all off by default.
"""
from __future__ import annotations

import math
from dataclasses import replace
from numbers import Integral, Real

from engine.errors import refusal
from engine.frozen import frozen
from engine.levers.fields import LEVER_WHOLE_NUMBER_FIELDS, validate_lever_fields
from engine.units import format_count

MODES = ("ideal", "realistic")
MAX_GPUS = 1024
MAX_BATCH = 4096
MAX_CONTEXT_TOKENS = 10_000_000
MAX_USD_PER_GPU_HOUR = 10_000.0

# Whole-number fields: (how a sentence names it, smallest, largest, unit after the range).
WHOLE_NUMBER_FIELDS = {
    "gpus": ("The number of GPUs", 1, MAX_GPUS, ""),
    "tp": ("The tensor-parallel degree", 0, MAX_GPUS, " (0: the default layout)"),
    "pp": ("The number of pipeline stages", 0, MAX_GPUS, " (0: the default layout)"),
    "ep": ("The expert-parallel degree", 0, MAX_GPUS, " (0: the default layout)"),
    "batch": ("The batch", 1, MAX_BATCH, " sequences"),
    "prompt_tokens": ("The prompt length", 1, MAX_CONTEXT_TOKENS, " tokens"),
    "output_tokens": ("The output length", 1, MAX_CONTEXT_TOKENS, " tokens"),
    **{name: (text, low, MAX_CONTEXT_TOKENS if high is None else high, unit)
       for name, (text, low, high, unit) in LEVER_WHOLE_NUMBER_FIELDS.items()},
}
PRICE_ALLOWED = f"a number from 0 to {format_count(MAX_USD_PER_GPU_HOUR)} US dollars"


def allowed_whole_number(field: str) -> str:
    """What ``field`` may be, as the end of a sentence: "a whole number from 1 to 1,024"."""
    _, low, high, unit = WHOLE_NUMBER_FIELDS[field]
    return f"a whole number from {format_count(low)} to {format_count(high)}{unit}"


@frozen
class Scenario:
    gpu: str = "h800"
    model: str = "llama-3.1-70b"
    weights: str = "fp16"            # precision id of the weights
    kv: str = "fp16"                 # precision id of the KV cache
    gpus: int = 1                    # all GPUs of the deployment
    batch: int = 1                   # sequences decoded together
    prompt_tokens: int = 1000
    output_tokens: int = 500
    usd_per_gpu_hour: float = 2.0
    mode: str = "realistic"          # "ideal": pure roofline at 100% of peak; "realistic": documented efficiencies
    tp: int = 0                      # tensor-parallel degree (0: the default layout, engine.layout)
    pp: int = 0                      # pipeline stages (0: the default layout)
    ep: int = 0                      # expert-parallel degree, MoE models (0: the default layout)
    # Levers (engine.levers.fields says what each may be); all off by default.
    draft_model: str = ""            # speculative decoding: the draft model's catalogue id ("" = none)
    draft_head_cost: float = 0.0     # or self-drafting heads: one drafted token's cost, as a share of a target step
    draft_tokens: int = 4            # k: tokens proposed per verify pass
    acceptance: float = 0.7          # a: the chance that each proposed token is accepted, 0 <= a < 1
    cached_prefix_tokens: int = 0    # prefix caching: the first N prompt tokens' KV is reused
    kv_allocation: str = "paged"     # "paged" (blocks of 16 tokens) or "reserved" (a fixed length per sequence)
    reserve_tokens: int = 0          # "reserved": tokens set aside per sequence (0 = the model's maximum context)


def _whole_number(value, field: str) -> int:
    _, low, high, _ = WHOLE_NUMBER_FIELDS[field]
    values = {"field": field, "low": low, "high": high, "got": value}
    if isinstance(value, bool):
        raise refusal("scenario.whole_number", values)
    if isinstance(value, Integral):
        number = int(value)
    elif isinstance(value, Real) and math.isfinite(value) and float(value).is_integer():
        number = int(value)
    else:
        raise refusal("scenario.whole_number", values)
    if not low <= number <= high:
        raise refusal("scenario.whole_number", {**values, "got": number})
    return number


def _identifier(value, field: str, what: str, example: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise refusal("scenario.identifier", {"field": field, "example": example, "got": value})
    return value.strip()


def _price(value) -> float:
    values = {"low": 0, "high": MAX_USD_PER_GPU_HOUR, "got": value}
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise refusal("scenario.price", values)
    if not 0 <= value <= MAX_USD_PER_GPU_HOUR:
        raise refusal("scenario.price", values)
    return float(value)


def validate_scenario(scenario: Scenario) -> Scenario:
    """Check every field's type and range; return the scenario with numbers as plain int/float.

    Raises ``InputError`` naming the first bad value and what is allowed. Ids
    are only checked to be text here; ``compute_report`` looks them up.
    """
    if not isinstance(scenario, Scenario):
        raise refusal("scenario.type", {"got": type(scenario).__name__})
    gpu = _identifier(scenario.gpu, "gpu", "The GPU", "h800")
    model = _identifier(scenario.model, "model", "The model", "llama-3.1-70b")
    weights = _identifier(scenario.weights, "weights", "The weight precision", "fp16")
    kv = _identifier(scenario.kv, "kv", "The KV cache precision", "fp16")
    gpus = _whole_number(scenario.gpus, "gpus")
    batch = _whole_number(scenario.batch, "batch")
    prompt = _whole_number(scenario.prompt_tokens, "prompt_tokens")
    output = _whole_number(scenario.output_tokens, "output_tokens")
    if prompt + output > MAX_CONTEXT_TOKENS:
        raise refusal("scenario.context", {"high": MAX_CONTEXT_TOKENS, "prompt": prompt, "output": output,
                                           "got": prompt + output})
    price = _price(scenario.usd_per_gpu_hour)
    mode = scenario.mode.strip().lower() if isinstance(scenario.mode, str) else None
    if mode not in MODES:
        raise refusal("scenario.mode", {"allowed": MODES, "got": scenario.mode})
    tp, pp, ep = (_whole_number(getattr(scenario, name), name) for name in ("tp", "pp", "ep"))
    checked = (gpu, model, weights, kv, gpus, batch, prompt, output, price, mode, tp, pp, ep)
    current = (scenario.gpu, scenario.model, scenario.weights, scenario.kv, scenario.gpus,
               scenario.batch, scenario.prompt_tokens, scenario.output_tokens, scenario.usd_per_gpu_hour,
               scenario.mode, scenario.tp, scenario.pp, scenario.ep)
    if not all(a is b or (type(a) is type(b) and a == b) for a, b in zip(checked, current)):
        scenario = replace(scenario, gpu=gpu, model=model, weights=weights, kv=kv, gpus=gpus, batch=batch,
                           prompt_tokens=prompt, output_tokens=output, usd_per_gpu_hour=price, mode=mode,
                           tp=tp, pp=pp, ep=ep)
    return validate_lever_fields(scenario, _whole_number)


def check_model_context(scenario: Scenario, model) -> None:
    """Refuse a prompt plus output longer than ``model`` was built to read (its ``max_context_tokens``)."""
    longest = getattr(model, "max_context_tokens", 0)
    total = scenario.prompt_tokens + scenario.output_tokens
    if longest and total > longest:
        raise refusal("model.context", {"model": model.name, "high": longest, "prompt": scenario.prompt_tokens,
                                        "output": scenario.output_tokens, "got": total})
