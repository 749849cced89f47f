"""Property tests over the whole API: any in-range input gives a finite report; bad input only InputError."""
import math
from dataclasses import fields, is_dataclass, replace

import numpy as np
from hypothesis import given, settings, strategies as st

from engine import InputError, Report, Scenario, compute_report, sweep
from engine.catalog import default_catalog
from engine.parallel import allowed_gpu_counts
from engine.scenario import MAX_BATCH, MAX_CONTEXT_TOKENS, MAX_GPUS, MODES

CATALOG = default_catalog()
GPU_IDS = sorted(CATALOG.gpus)
MODEL_IDS = sorted(CATALOG.models)
PRECISION_IDS = sorted(CATALOG.precisions)


def _all_finite(value) -> bool:
    if is_dataclass(value):
        return all(_all_finite(getattr(value, f.name)) for f in fields(value))
    if isinstance(value, float):
        return math.isfinite(value)
    return True


@st.composite
def scenarios(draw):
    model = draw(st.sampled_from(MODEL_IDS))
    longest = min(MAX_CONTEXT_TOKENS, CATALOG.model(model).max_context_tokens or MAX_CONTEXT_TOKENS)
    prompt = draw(st.integers(1, longest - 1))
    return Scenario(
        gpu=draw(st.sampled_from(GPU_IDS)), model=model,
        weights=draw(st.sampled_from(PRECISION_IDS)), kv=draw(st.sampled_from(PRECISION_IDS)),
        gpus=draw(st.sampled_from(allowed_gpu_counts(CATALOG.model(model)))), batch=draw(st.integers(1, MAX_BATCH)),
        prompt_tokens=prompt, output_tokens=draw(st.integers(1, longest - prompt)),
        usd_per_gpu_hour=draw(st.floats(0, 10_000)), mode=draw(st.sampled_from(MODES)))


@settings(max_examples=400, deadline=None)
@given(scenarios())
def test_every_in_range_scenario_gives_a_finite_consistent_report(scenario):
    try:
        report = compute_report(scenario)
    except InputError as error:
        # The only refusal allowed for in-range numbers: a GPU without any peak for the precision.
        assert "no published" in str(error)
        return
    assert isinstance(report, Report)
    assert _all_finite(report)
    assert report.prefill.bound in ("compute", "memory") and report.decode.bound in ("compute", "memory")
    assert 0 <= report.decode_share < 1
    assert 0 < report.prefill.utilisation <= 1 and 0 < report.decode.utilisation <= 1
    assert report.ttft_seconds > 0 and report.tpot_seconds > 0
    assert report.total_seconds >= report.ttft_seconds
    assert report.usd_per_million_output_tokens >= 0 and report.output_to_input_price_ratio > 0
    assert report.fits == (report.free_bytes_per_gpu >= 0)


@settings(max_examples=300, deadline=None)
@given(scenarios(), st.integers(1, MAX_GPUS))
def test_a_tensor_group_is_either_allowed_or_refused_with_the_allowed_counts(scenario, gpus):
    allowed = allowed_gpu_counts(CATALOG.model(scenario.model))
    try:
        compute_report(replace(scenario, gpus=gpus, tp=gpus))
    except InputError as error:
        if "no published" in str(error):
            return
        assert gpus not in allowed
        assert error.code.startswith("parallel.uneven_") and error.values["counts"] == allowed
        return
    assert gpus in allowed


@settings(max_examples=300, deadline=None)
@given(scenarios(), st.integers(1, MAX_GPUS))
def test_any_gpu_count_gets_the_default_layout_or_a_sentence_about_it(scenario, gpus):
    try:
        report = compute_report(replace(scenario, gpus=gpus))
    except InputError as error:
        if "no published" in str(error):
            return
        assert error.code.startswith(("parallel.uneven_", "layout.")), error
        return
    layout = report.layout
    assert layout.tensor * layout.pipeline * layout.data == gpus
    assert report.nodes == -(-gpus // report.gpu.node_gpus)


anything = st.one_of(st.none(), st.booleans(), st.integers(-10 ** 15, 10 ** 15),
                     st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
                     st.lists(st.integers(), max_size=2))


@settings(max_examples=400, deadline=None)
@given(st.fixed_dictionaries({}, optional={name: anything for name in (
    "gpu", "model", "weights", "kv", "gpus", "batch", "prompt_tokens", "output_tokens",
    "usd_per_gpu_hour", "mode")}))
def test_any_input_gives_a_report_or_an_input_error(changes):
    try:
        report = compute_report(Scenario(**changes))
    except InputError as error:
        assert str(error).strip() and "\n" not in str(error)
        return
    assert _all_finite(report)


@settings(max_examples=30, deadline=None)
@given(scenarios())
def test_sweeps_are_finite(scenario):
    contexts = sweep.context_tokens(4096)
    try:
        seconds = sweep.decode_step_seconds_for_contexts(scenario, contexts)
    except InputError:
        return
    assert np.all(np.isfinite(seconds)) and np.all(seconds > 0)
    assert np.all(np.diff(seconds) >= 0)               # longer context never makes a step faster
    assert np.all(np.isfinite(sweep.kv_bytes_for_contexts(scenario, contexts)))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(GPU_IDS), st.sampled_from(PRECISION_IDS),
       st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10, 10 ** 6), st.none(), st.text(max_size=3)))
def test_roofline_helpers_give_a_share_or_an_input_error(gpu_id, precision_id, intensity):
    from engine import roofline
    gpu, precision = CATALOG.gpu(gpu_id), CATALOG.precision(precision_id)
    try:
        share = roofline.utilisation(gpu, precision, intensity)
        ridge = roofline.ridge_point(gpu, precision)
    except InputError:
        return
    assert 0 <= share <= 1 and math.isfinite(ridge) and ridge > 0


OPTION_WORDS = ["report", "catalog", "--json", "--gpu", "--model", "--weights", "--kv", "--gpus", "--batch",
                "--prompt", "--output", "--mode", "--usd-per-gpu-hour", "h800", "fp8", "0", "-1", "1e99", "nan",
                "2", "ideal", "llama-3.1-8b", "x"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(OPTION_WORDS), st.text(max_size=6)), max_size=8))
def test_cli_answers_any_command_line_with_0_or_2(argv):
    import contextlib
    import io

    from engine.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as done:      # only --help / -h may exit directly, with 0
            assert done.code == 0 and any(a in ("-h", "--help") or "-h" in a for a in argv), argv
            return
    assert status in (0, 2)
    if status == 2:
        assert len(err.getvalue().strip().splitlines()) == 1, err.getvalue()
        assert "Traceback" not in err.getvalue()
