"""`realistic` against widely used serving stacks (tests/engine/serving_cases.py holds the measurements).

Every calibrating case must land within 25% of its published figure; the ideal mode must be at least as
fast as every measurement, the left-out ones too (engine.efficiency says why four calibrate nothing).
"""
from dataclasses import replace

import pytest

from engine.catalog_types import Catalog
from engine.compute import compute_report
from engine.scenario import Scenario
from tests.engine.fixtures import CATALOG
from tests.engine.serving_cases import CALIBRATING, LLAMA_CPP, SERVING_CASES, SGLANG, TRT, VLLM, Measured

TOLERANCE = 0.25


def _catalog(case: Measured) -> Catalog:
    """The catalogue, with the case's model read as far as its checkpoint reads (a rope-extended one)."""
    if not case.max_context:
        return CATALOG
    models = dict(CATALOG.models)
    models[case.model] = replace(models[case.model], max_context_tokens=case.max_context)
    return Catalog(gpus=CATALOG.gpus, models=models, precisions=CATALOG.precisions)


def engine_figure(case: Measured, mode: str) -> float:
    """What the engine says for the case's metric, in the same units."""
    r = compute_report(Scenario(gpu=case.gpu, model=case.model, weights=case.weights, kv=case.kv, gpus=case.gpus,
                                tp=case.tp, batch=case.batch, prompt_tokens=case.prompt, output_tokens=case.output,
                                mode=mode), _catalog(case))
    return {"tpot": r.tpot_seconds, "ttft": r.ttft_seconds, "batch": r.total_seconds,
            "throughput": case.batch * case.output / r.total_seconds / case.gpus}[case.metric]


def test_the_cases_span_stacks_and_gpus():
    assert len(CALIBRATING) >= 30
    assert {VLLM, SGLANG, TRT, LLAMA_CPP} <= {case.stack for case in CALIBRATING}
    assert len({case.gpu for case in CALIBRATING}) >= 6
    assert all(case.source for case in SERVING_CASES) and len(set(SERVING_CASES)) == len(SERVING_CASES)


@pytest.mark.parametrize("case", CALIBRATING, ids=lambda c: c.name)
def test_realistic_within_25_percent_of_a_serving_stack(case):
    assert engine_figure(case, "realistic") == pytest.approx(case.value, rel=TOLERANCE)


@pytest.mark.parametrize("case", SERVING_CASES, ids=lambda c: c.name)
def test_ideal_is_never_slower_than_a_serving_stack(case):
    ideal = engine_figure(case, "ideal")
    assert ideal >= case.value if case.metric == "throughput" else ideal <= case.value
