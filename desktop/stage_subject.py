"""The words in the stage's corner: what it shows, and whether its times are hypothetical.

"Llama 3.1 70B · weights FP16, KV FP16 · 2 × NVIDIA H800 SXM5", and, when that
does not fit its GPUs and the scene shows times or prices, "does not fit:
times are hypothetical" (DESIGN.md, presenter standard).
"""
from __future__ import annotations

from desktop.kit.answers import refused
from engine import InputError


def subject_texts(language, scene) -> tuple[str, str, str]:
    """(subject, warning, note) for the stage of ``scene``; the warning is "" when there is nothing to warn of,
    the note (the story's ``subject_note``: "The tutorial's case") "" when the stage shows the panel's scenario."""
    scenario, result = scene.stage_subject()
    catalog = scene.kit.catalog
    try:
        model, gpu = catalog.model(scenario.model).name, catalog.gpu(scenario.gpu).name
        weights, kv = catalog.precision(scenario.weights).name, catalog.precision(scenario.kv).name
    except InputError:           # an id the catalogue no longer has: the refusal says which
        return "", language.text("app.stage.refused"), ""
    precision = weights if weights == kv else language.text("app.stage.precision", weights=weights, kv=kv)
    subject = language.text("app.stage.subject", model=model, precision=precision,
                            gpus=language.text("app.stage.gpus", count=scenario.gpus, gpu=gpu))
    note = scene.story().subject_note()
    if refused(result):
        return subject, language.text("app.stage.refused"), note
    if scene.shows_times and not result.fits:
        return subject, language.text("app.stage.hypothetical"), note
    return subject, "", note
