"""What the app shows before anyone changes it (DESIGN.md, presenter standard).

Llama 3.1 70B at FP16 on two H800s: a configuration that fits and runs, so no
scene quotes times for a model that cannot be loaded. That the same model does
not fit on one card is scene 2's what-if. Qt-free: settings read it before Qt starts.
"""
from __future__ import annotations

from engine import Scenario

DEFAULT_SCENARIO = Scenario(gpus=2)


# How many scenarios ``accepted_scenario`` tries at most: a report is tens of microseconds, and a catalogue of
# thousands of user entries must not delay the start.
MAX_TRIES = 400


def accepted_scenario(wanted: Scenario | None, report, catalog) -> Scenario | None:
    """The first scenario the engine accepts (``report(scenario)`` is its report or its refusal): ``wanted``, the
    default, then the default's precisions, batch, lengths and price on the catalogue's models and GPUs (the
    default's own first), each with the lengths the model can hold and a GPU count it can be split over.
    None when none is accepted (a user catalogue that breaks every model or GPU)."""
    from engine.errors import InputError
    from engine.layout import default_layout_gpu_counts

    def accepted(scenario: Scenario) -> bool:
        return not isinstance(report(scenario), InputError)

    tried = 0
    for scenario in (wanted, DEFAULT_SCENARIO):
        if scenario is not None:
            tried += 1
            if accepted(scenario):
                return scenario
    models = sorted(catalog.models, key=lambda key: (key != DEFAULT_SCENARIO.model, key))
    gpus = sorted(catalog.gpus, key=lambda key: (key != DEFAULT_SCENARIO.gpu, key))
    for model_id in models:
        model = catalog.models[model_id]
        longest = int(getattr(model, "max_context_tokens", 0) or 0) or DEFAULT_SCENARIO.prompt_tokens * 2
        output = max(1, min(DEFAULT_SCENARIO.output_tokens, longest // 2))
        prompt = max(1, min(DEFAULT_SCENARIO.prompt_tokens, longest - output))
        for gpu_id in gpus:
            if tried >= MAX_TRIES:
                return None
            tried += 1
            counts = default_layout_gpu_counts(model, catalog.gpus[gpu_id], limit=64) or (1,)
            count = min(counts, key=lambda n: (abs(n - DEFAULT_SCENARIO.gpus), n))
            scenario = Scenario(gpu=gpu_id, model=model_id, gpus=count, prompt_tokens=prompt, output_tokens=output)
            if accepted(scenario):
                return scenario
    return None
