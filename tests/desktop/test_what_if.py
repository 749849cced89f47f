"""What-ifs: the engine's report for a changed scenario, cached, and a refusal as a value, never raised."""
from __future__ import annotations

import dataclasses

from desktop.i18n import Language
from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.scenario_store import ScenarioStore
from desktop.scene import SceneContext
from desktop.what_if import refused
from engine import InputError, compute_report
from widgets.theme import THEMES


def _context() -> SceneContext:
    return SceneContext(Language("en"), ScenarioStore(), THEMES["light"])


def test_a_what_if_is_the_engines_report_for_the_changed_scenario():
    context = _context()
    fp8 = context.what_if(weights="fp8", gpus=1)
    assert fp8 == compute_report(dataclasses.replace(DEFAULT_SCENARIO, weights="fp8", gpus=1))
    assert context.what_if(weights="fp8", gpus=1) is fp8          # cached: the same object


def test_a_refusal_comes_back_as_a_value_with_its_sentence():
    context = _context()
    three = context.what_if(gpus=3)                                # 70B's heads do not divide by 3
    assert refused(three) and isinstance(three, InputError)
    assert "3" in context.refusal_text(three)
    assert refused(context.what_if(no_such_field=1))
    assert refused(context.what_if(batch=0))


def test_the_store_starts_on_the_default_when_a_saved_scenario_is_refused():
    store = ScenarioStore(dataclasses.replace(DEFAULT_SCENARIO, gpu="no-such-gpu"))
    assert store.scenario == DEFAULT_SCENARIO and store.report.fits
    assert store.last_error is not None and "no-such-gpu" in str(store.last_error)


def test_the_default_scenario_fits_and_runs():
    report = ScenarioStore().report
    assert DEFAULT_SCENARIO.gpus == 2 and DEFAULT_SCENARIO.model == "llama-3.1-70b" and report.fits


def test_the_crossover_and_context_sweeps_are_the_engines_and_refusals_come_back_as_values():
    from engine import sweep
    from engine.compute import decode_crossover_batch

    context = _context()
    assert context.crossover_batch() == decode_crossover_batch(DEFAULT_SCENARIO)
    marks = (2048, 32768, 131072)
    swept = context.context_sweep(marks)
    assert list(swept.kv_bytes) == list(sweep.kv_bytes_for_contexts(
        dataclasses.replace(DEFAULT_SCENARIO, prompt_tokens=1, output_tokens=1), marks))
    assert swept.kv_bytes[1] == 10 * 2**30                       # the seed's 10 GB at 32K for the 70B
    assert context.context_sweep(marks) is swept                  # cached
    assert refused(context.context_sweep((0, -5)))
    assert refused(context.context_sweep(marks, no_such_field=1))


def test_arithmetic_the_engine_did_not_foresee_comes_back_as_a_refusal(monkeypatch):
    import desktop.what_if as what_if

    def overflowing(scenario, catalog=None):
        raise OverflowError("math range error")

    monkeypatch.setattr(what_if, "compute_report", overflowing)
    result = _context().what_if(batch=7)
    assert refused(result) and result.code == "engine.arithmetic" and "math range error" in str(result)
