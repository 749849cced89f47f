"""From a ``Scenario`` to a ``Report``: the one entry point that ties the physics together.

``compute_report(scenario)`` validates the scenario, looks its ids up in the
catalogue (unknown ids raise ``InputError`` naming close matches) and
computes every number of the report. Bad input raises ``InputError`` and
nothing else. Parameter counts are cached per model, so one report costs
a few tens of microseconds (``benchmarks/engine_speed.py``).
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.batch_search import smallest_batch
from engine.catalog import default_catalog
from engine.catalog_types import Gpu, Model, Precision
from engine.cost import token_prices
from engine.deployment import Deployment, deploy
from engine.efficiency import EFFICIENCIES
from engine.levers.draft import resolve_draft
from engine.levers.fields import check_reservation
from engine.levers.kv_allocation import kv_tokens_held
from engine.levers.on_report import max_batch_of, with_speculative_decoding
from engine.memory import MemoryPlan, plan_memory
from engine.parallel import check_gpu_count
from engine.parameters import ParameterCounts, parameter_counts
from engine.passes import DecodeStepWork, decode_step_work, prefill_work
from engine.report import DecodeReport, PrefillReport, Report
from engine.request import Machine, mean_decode_context, request_timeline, time_pass
from engine.roofline import compute_precision_used, peak_flops, ridge_point
from engine.scenario import Scenario, validate_scenario

_COUNTS: dict[int, tuple[Model, ParameterCounts]] = {}


def counts_for(model: Model) -> ParameterCounts:
    """``parameter_counts(model)``, remembered for as long as the model object lives."""
    entry = _COUNTS.get(id(model))
    if entry is None or entry[0] is not model:
        entry = (model, parameter_counts(model))
        _COUNTS[id(model)] = entry
    return entry[1]


@dataclass(frozen=True)
class Setup:
    """A validated scenario with its catalogue entries and everything derived from them alone."""
    scenario: Scenario
    gpu: Gpu
    model: Model
    weights: Precision
    kv: Precision
    deployment: Deployment     # the model on its GPUs: what passes and memory are computed from
    machine: Machine           # the GPUs' rates at the mode's efficiencies
    compute_precision: str
    draft: Deployment | None = None   # speculative decoding's draft model on the same GPUs (engine.levers)

    @property
    def counts(self) -> ParameterCounts:
        return self.deployment.counts

    @property
    def kv_bytes_per_token(self) -> float:
        return self.deployment.kv_bytes_per_token

    @property
    def kv_share_per_gpu(self) -> float:
        return self.deployment.kv_share_per_gpu


def resolve(scenario: Scenario, catalog=None) -> tuple[Scenario, Gpu, Model, Precision, Precision]:
    """Validate ``scenario`` and look its ids up in ``catalog`` (default: the built-in catalogue)."""
    scenario = validate_scenario(scenario)
    if catalog is None:
        catalog = default_catalog()
    from engine.scenario import check_model_context     # the model's own longest context
    model = catalog.model(scenario.model)
    check_model_context(scenario, model)
    check_reservation(scenario, model)
    return (scenario, catalog.gpu(scenario.gpu), model,
            catalog.precision(scenario.weights), catalog.precision(scenario.kv))


def setup(scenario: Scenario, gpu: Gpu, model: Model, weights: Precision, kv: Precision,
          draft: Model | None = None) -> Setup:
    """Derive the machine and the model's per-token sizes for a validated scenario.

    ``draft``: the draft model of ``scenario.draft_model`` as ``resolve_draft`` found it; looked up
    in the built-in catalogue when not given.
    """
    check_gpu_count(model, scenario.gpus)
    if draft is None and scenario.draft_model:
        draft = resolve_draft(scenario, model, default_catalog())
    compute_precision = compute_precision_used(gpu, weights)
    machine = Machine(peak_flops_per_gpu=peak_flops(gpu, weights),
                      bandwidth_bytes_per_second_per_gpu=gpu.memory_bandwidth_bytes_per_second,
                      gpus=scenario.gpus, efficiency=EFFICIENCIES[scenario.mode],
                      compute_precision=compute_precision, gpu_id=gpu.id)
    return Setup(scenario=scenario, gpu=gpu, model=model, weights=weights, kv=kv,
                 deployment=deploy(model, gpu, scenario.gpus, weights, kv, counts_for(model)),
                 machine=machine, compute_precision=compute_precision,
                 draft=None if draft is None else deploy(draft, gpu, scenario.gpus, weights, kv, counts_for(draft)))


def decode_step_of(s: Setup, batch: int | None = None) -> DecodeStepWork:
    """The decode step of ``s``'s batch (or of ``batch`` sequences), linear in the context."""
    return decode_step_work(s.deployment, batch=s.scenario.batch if batch is None else batch)


def memory_of(s: Setup) -> MemoryPlan:
    """How each GPU's HBM is shared out for ``s``'s batch and context."""
    sc = s.scenario
    return plan_memory(s.deployment, batch=sc.batch, prompt_tokens=sc.prompt_tokens, output_tokens=sc.output_tokens,
                       kv_tokens=kv_tokens_held(sc, s.model))


def report_for(scenario: Scenario, gpu: Gpu, model: Model, weights: Precision, kv: Precision) -> Report:
    """The full report for what ``resolve`` returned: a validated scenario and its catalogue entries."""
    return _report(setup(scenario, gpu, model, weights, kv))


def compute_report(scenario: Scenario, catalog=None) -> Report:
    """Everything the engine knows about ``scenario``; raises only ``InputError`` for bad input."""
    return _report(setup_of(scenario, catalog))


def setup_of(scenario: Scenario, catalog=None) -> Setup:
    """``setup(*resolve(scenario, catalog))``, with the draft model (if any) from the same catalogue."""
    resolved = resolve(scenario, catalog)
    draft = resolve_draft(resolved[0], resolved[2], default_catalog() if catalog is None else catalog)
    return setup(*resolved, draft=draft)


def decode_crossover_batch(scenario: Scenario, catalog=None) -> int | None:
    """The smallest batch at which ``scenario``'s decode step is compute-bound, or None up to ``MAX_BATCH``.

    The step is taken at the request's mean context, in the scenario's mode, exactly as the
    report's ``decode.bound``: ``compute_report(replace(scenario, batch=b)).decode.bound`` is
    ``"compute"`` exactly when ``b >= decode_crossover_batch(scenario)``. Compute time minus
    memory time grows with the batch (each sequence adds its FLOPs and its KV; only MoE's
    weight reads grow too, ever more slowly), so one search finds the crossing. Whether that
    many sequences fit in memory is a separate question (``Report.max_sequences``).
    """
    s = setup_of(scenario, catalog)
    context = mean_decode_context(s.scenario.prompt_tokens, s.scenario.output_tokens)

    def compute_bound(batch: int) -> bool:
        step = decode_step_of(s, batch).at(context)
        return time_pass(step, s.machine).bound == "compute"

    return smallest_batch(compute_bound)


def _report(s: Setup) -> Report:
    sc, machine, g = s.scenario, s.machine, s.scenario.gpus
    memory = memory_of(s)

    prefill = prefill_work(s.deployment, batch=sc.batch, prompt_tokens=sc.prompt_tokens,
                           cached_tokens=sc.cached_prefix_tokens)
    prefill_timing = time_pass(prefill, machine)
    step = decode_step_of(s)
    timeline = request_timeline(prefill_timing, step, machine, sc.prompt_tokens, sc.output_tokens)
    mean_step = step.at(timeline.mean_context_tokens)
    mean_timing = time_pass(mean_step, machine)
    prices = token_prices(prefill_timing.seconds, timeline.tpot_seconds, g, sc.batch,
                          sc.prompt_tokens, sc.usd_per_gpu_hour)
    return with_speculative_decoding(s, Report(
        weights_bytes=memory.weights_bytes,
        weights_bytes_per_gpu=memory.weights_bytes_per_gpu,
        kv_bytes_per_token=s.kv_bytes_per_token,
        kv_bytes=memory.kv_bytes,
        hbm_bytes_per_gpu=memory.capacity_bytes_per_gpu,
        free_bytes_per_gpu=memory.free_bytes_per_gpu,
        fits=memory.fits,
        ridge_flops_per_byte=ridge_point(s.gpu, s.weights),
        prefill=PrefillReport(
            flops=prefill.flops, bytes=prefill.bytes_per_gpu * g, seconds=prefill_timing.seconds,
            bound=prefill_timing.bound, utilisation=prefill_timing.utilisation,
            compute_seconds=prefill_timing.compute_seconds, memory_seconds=prefill_timing.memory_seconds,
            allreduce_seconds=prefill_timing.allreduce_seconds),
        decode=DecodeReport(
            flops_per_token=mean_step.flops / sc.batch, bytes_per_token=mean_step.bytes_per_gpu * g / sc.batch,
            seconds_per_token=mean_timing.seconds, bound=mean_timing.bound,
            utilisation=mean_timing.utilisation, compute_seconds=mean_timing.compute_seconds,
            memory_seconds=mean_timing.memory_seconds, context_tokens=timeline.mean_context_tokens),
        ttft_seconds=timeline.ttft_seconds,
        tpot_seconds=timeline.tpot_seconds,
        total_seconds=timeline.total_seconds,
        decode_share=timeline.decode_share,
        usd_per_million_input_tokens=prices.usd_per_million_input_tokens,
        usd_per_million_output_tokens=prices.usd_per_million_output_tokens,
        overhead_bytes_per_gpu=memory.allowance_bytes_per_gpu,
        max_context_tokens=memory.max_context_tokens,
        max_sequences=memory.max_sequences,
        allreduce_seconds_per_step=mean_timing.allreduce_seconds,
        kv_bytes_per_gpu=memory.kv_bytes_per_gpu,
        used_bytes_per_gpu=memory.used_bytes_per_gpu,
        parameters=float(s.counts.total),
        active_parameters=float(s.counts.active),
        peak_flops_per_gpu=machine.peak_flops_per_gpu,
        compute_precision=s.compute_precision,
        weight_only=s.compute_precision != s.weights.compute_precision,
        decode_seconds=timeline.decode_seconds,
        output_to_input_price_ratio=prices.output_to_input_ratio,
        max_batch=max_batch_of(s, memory.capacity_bytes_per_gpu - memory.weights_bytes_per_gpu
                               - memory.allowance_bytes_per_gpu),
        scenario=sc, gpu=s.gpu, model=s.model, weights_precision=s.weights, kv_precision=s.kv,
    ))
