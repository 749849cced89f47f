"""The physics of LLM inference: pure Python and numpy, no Qt. A library and a CLI.

    from engine import compute_report, Scenario, Report, InputError
    report = compute_report(Scenario(gpu="h800", model="llama-3.1-70b", weights="fp8"))

Where each formula lives: ``parameters`` (counting a model's weights),
``kv_cache`` (bytes per token, GQA, MLA and sliding windows), ``memory`` (what fits in HBM),
``roofline`` (peak, bandwidth, ridge point), ``passes`` (FLOPs and bytes of
prefill and a decode step), ``parallel`` (tensor parallelism and all-reduce),
``layout`` (nodes; tensor, pipeline and expert degrees), ``communication`` (what
each level costs: node link, PCIe, network), ``deployment`` (a model on its GPUs),
``efficiency`` (ideal vs realistic, with sources), ``request`` (TTFT, TPOT,
decode share), ``cost`` (prices per million tokens), ``sweep`` (vectorised
curves over context length), ``compute`` (the report), ``import_model`` (a model
from its config.json into the user's catalogue), ``levers`` (speculative decoding,
prefix caching, KV allocation, FlashAttention, offloading, disaggregation, KV
precision at long context: ``levers.lever_outcome``), ``plan`` (a fleet for a
request rate within latency targets: ``plan_costs``, ``plan_simulation``,
``plan_search``, ``plan_curve``, ``plan_language``), ``cli`` (``python -m engine``).
"""
from importlib import import_module

# Each name from the module that defines it, when first asked for: importing one module of the engine (the
# widgets' ``engine.frozen``) does not load the physics.
_HOMES = {"compute_report": "engine.compute", "InputError": "engine.errors", "Report": "engine.report",
          "Scenario": "engine.scenario"}
__all__ = list(_HOMES)


def __getattr__(name: str):
    if name in _HOMES:
        value = globals()[name] = getattr(import_module(_HOMES[name]), name)
        return value
    raise AttributeError(f"module 'engine' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
