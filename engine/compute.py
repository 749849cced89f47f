"""From a ``Scenario`` to a ``Report``: the one entry point that ties the physics together.

``compute_report(scenario)`` validates the scenario, looks its ids up in the
catalogue (unknown ids raise ``InputError`` naming close matches) and
computes every number of the report. Bad input raises ``InputError`` and
nothing else. Parameter counts are cached per model, so one report costs
a few tens of microseconds (``benchmarks/engine_speed.py``).
"""
from __future__ import annotations

from dataclasses import replace

from engine.batch_search import smallest_batch
from engine.catalog import default_catalog
from engine.catalog_types import Gpu, Model, Precision
from engine.cost import token_prices
from engine.deployment import Deployment, deploy
from engine.efficiency import EFFICIENCIES
from engine.frozen import frozen
from engine.layout import Layout, plan_layout
from engine.levers.draft import draft_layout, resolve_draft
from engine.levers.fields import check_reservation
from engine.levers.kv_allocation import kv_tokens_held_by
from engine.levers.on_report import sequence_fit_of, with_speculative_decoding
from engine.memory import MemoryPlan, plan_memory
from engine.parameters import ParameterCounts, parameter_counts
from engine.passes import DecodeStepWork, PassWork, decode_step_work, micro_batches, prefill_work
from engine.report import DecodeReport, PrefillReport, Report
from engine.request import Machine, PassTiming, mean_decode_context, request_timeline, time_pass
from engine.roofline import compute_precision_used, is_dequantised, peak_flops, ridge_point, wide_precision
from engine.scenario import Scenario, check_model_context, validate_scenario

_COUNTS: dict[int, tuple[Model, ParameterCounts]] = {}


def counts_for(model: Model) -> ParameterCounts:
    """``parameter_counts(model)``, remembered for as long as the model object lives."""
    entry = _COUNTS.get(id(model))
    if entry is None or entry[0] is not model:
        entry = (model, parameter_counts(model))
        _COUNTS[id(model)] = entry
    return entry[1]


@frozen
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
    def layout(self) -> Layout:
        return self.deployment.layout

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
    model = catalog.model(scenario.model)
    check_model_context(scenario, model)
    check_reservation(scenario, model)
    return (scenario, catalog.gpu(scenario.gpu), model,
            catalog.precision(scenario.weights), catalog.precision(scenario.kv))


_DEPLOYED: dict[tuple, tuple] = {}
_DEPLOYED_LIMIT = 512          # distinct deployments remembered (a session explores a few dozen)


def deployed(scenario: Scenario, gpu: Gpu, model: Model, weights: Precision,
             kv: Precision) -> tuple[Deployment, Machine, str]:
    """The deployment, the machine and the compute precision of a validated scenario's GPUs and model.

    They depend on neither the batch nor the lengths, so they are remembered per catalogue entry,
    GPU count, layout and mode, and a control that changes the batch or the prompt pays for none of it.
    """
    efficiency = EFFICIENCIES[scenario.mode]
    parts = (gpu, model, weights, kv, efficiency)
    key = (*map(id, parts), scenario.gpus, scenario.tp, scenario.pp, scenario.ep)
    entry = _DEPLOYED.get(key)
    if entry is not None and all(a is b for a, b in zip(entry[0], parts)):
        return entry[1]
    layout = plan_layout(model, gpu, scenario.gpus, scenario.tp, scenario.pp, scenario.ep)
    compute_precision = compute_precision_used(gpu, weights)
    machine = Machine(peak_flops_per_gpu=peak_flops(gpu, weights),
                      bandwidth_bytes_per_second_per_gpu=gpu.memory_bandwidth_bytes_per_second,
                      gpus=scenario.gpus, efficiency=efficiency, compute_precision=compute_precision, gpu_id=gpu.id,
                      wide_peak_flops_per_gpu=gpu.peak_flops_for(wide_precision(weights)),
                      dequantised=is_dequantised(gpu, weights),
                      vector_flops_per_gpu=gpu.flops_per_second.get("fp32", 0.0))
    value = (deploy(model, gpu, layout, weights, kv, counts_for(model)), machine, compute_precision)
    if len(_DEPLOYED) >= _DEPLOYED_LIMIT:
        _DEPLOYED.clear()
    _DEPLOYED[key] = (parts, value)
    return value


def setup(scenario: Scenario, gpu: Gpu, model: Model, weights: Precision, kv: Precision,
          draft: Model | None = None) -> Setup:
    """Derive the layout, the machine and the model's per-token sizes for a validated scenario.

    ``draft``: the draft model of ``scenario.draft_model`` as ``resolve_draft`` found it; looked up
    in the built-in catalogue when not given. It runs on the target's layout (``draft_layout``).
    """
    deployment, machine, compute_precision = deployed(scenario, gpu, model, weights, kv)
    if draft is None and scenario.draft_model:
        draft = resolve_draft(scenario, model, default_catalog())
    drafted = None if draft is None else deploy(draft, gpu, draft_layout(draft, deployment.layout), weights, kv,
                                                counts_for(draft))
    return Setup(scenario=scenario, gpu=gpu, model=model, weights=weights, kv=kv, deployment=deployment,
                 machine=machine, compute_precision=compute_precision, draft=drafted)


def decode_step_of(s: Setup, batch: int | None = None) -> DecodeStepWork:
    """The decode step of ``s``'s batch (or of ``batch`` sequences), linear in the context: that of its
    largest pipeline micro-batch, which is also the time between two tokens of each sequence."""
    return decode_step_work(s.deployment, batch=s.scenario.batch if batch is None else batch)


def prefill_of(s: Setup) -> tuple[PassWork, PassTiming]:
    """The prefill of ``s``'s batch: the work of the whole batch and the time to its first tokens.

    A pipeline prefills ``m`` micro-batches in ``(m + P - 1) / P`` passes of one (``engine.passes``).
    """
    sc, d = s.scenario, s.deployment
    cached = sc.cached_prefix_tokens
    whole = prefill_work(d, batch=sc.batch, prompt_tokens=sc.prompt_tokens, cached_tokens=cached)
    m = micro_batches(d, sc.batch)
    if m == 1:
        return whole, time_pass(whole, s.machine)
    one = time_pass(prefill_work(d, batch=-(-sc.batch // m), prompt_tokens=sc.prompt_tokens, cached_tokens=cached),
                    s.machine)
    seconds = one.seconds * (m + d.layout.pipeline - 1) / d.layout.pipeline
    utilisation = min(1.0, whole.flops / (seconds * s.machine.peak_flops_per_gpu * s.machine.gpus))
    return whole, replace(one, seconds=seconds, utilisation=utilisation)


def memory_of(s: Setup) -> MemoryPlan:
    """How each GPU's HBM is shared out for ``s``'s batch and context."""
    sc = s.scenario
    return plan_memory(s.deployment, batch=sc.batch, prompt_tokens=sc.prompt_tokens, output_tokens=sc.output_tokens,
                       held_tokens=lambda sequences: kv_tokens_held_by(sc, s.model, sequences))


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
    sc, machine, g, layout = s.scenario, s.machine, s.scenario.gpus, s.layout
    memory = memory_of(s)

    prefill, prefill_timing = prefill_of(s)
    step = decode_step_of(s)
    timeline = request_timeline(prefill_timing, step, machine, sc.prompt_tokens, sc.output_tokens)
    mean_step = step.at(timeline.mean_context_tokens)
    mean_timing = time_pass(mean_step, machine)
    prices = token_prices(prefill_timing.seconds, timeline.tpot_seconds, g, sc.batch,
                          sc.prompt_tokens, sc.usd_per_gpu_hour)
    eff = machine.efficiency
    fit = sequence_fit_of(s, memory.capacity_bytes_per_gpu - memory.weights_bytes_per_gpu
                          - memory.allowance_bytes_per_gpu)
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
            flops=prefill.flops, bytes=prefill.bytes, seconds=prefill_timing.seconds,
            bound=prefill_timing.bound, utilisation=prefill_timing.utilisation,
            compute_seconds=prefill_timing.compute_seconds, memory_seconds=prefill_timing.memory_seconds,
            communication_seconds=prefill_timing.communication_seconds,
            communication_levels=_levels(eff, prefill.transfers)),
        decode=DecodeReport(
            flops_per_token=mean_step.flops / step.sequences, bytes_per_token=mean_step.bytes / step.sequences,
            seconds_per_token=mean_timing.seconds, bound=mean_timing.bound,
            utilisation=mean_timing.utilisation, compute_seconds=mean_timing.compute_seconds,
            memory_seconds=mean_timing.memory_seconds, context_tokens=timeline.mean_context_tokens,
            communication_seconds=mean_timing.communication_seconds,
            communication_levels=_levels(eff, mean_step.transfers), sequences_per_step=step.sequences),
        ttft_seconds=timeline.ttft_seconds,
        tpot_seconds=timeline.tpot_seconds,
        total_seconds=timeline.total_seconds,
        decode_share=timeline.decode_share,
        usd_per_million_input_tokens=prices.usd_per_million_input_tokens,
        usd_per_million_output_tokens=prices.usd_per_million_output_tokens,
        nodes=layout.nodes,
        layout=layout,
        longest_context_tokens=memory.max_context_tokens,
        longest_context_capped=memory.context_capped_by_model,
        memory_context_tokens=memory.memory_context_tokens,
        overhead_bytes_per_gpu=memory.allowance_bytes_per_gpu,
        max_context_tokens=memory.max_context_tokens,
        max_sequences=memory.max_sequences,
        kv_bytes_per_gpu=memory.kv_bytes_per_gpu,
        used_bytes_per_gpu=memory.used_bytes_per_gpu,
        parameters=float(s.counts.total),
        active_parameters=float(s.counts.active),
        peak_flops_per_gpu=machine.peak_flops_per_gpu,
        compute_precision=s.compute_precision,
        weight_only=s.compute_precision != s.weights.compute_precision,
        decode_seconds=timeline.decode_seconds,
        output_to_input_price_ratio=prices.output_to_input_ratio,
        sequence_fit=fit,
        max_batch=fit.sequences,
        scenario=sc, gpu=s.gpu, model=s.model, weights_precision=s.weights, kv_precision=s.kv,
    ))


def _levels(eff, transfers) -> tuple[tuple[str, str, float], ...]:
    """(level, link, seconds) of each level of a pass's communication, for scenes that show where it goes."""
    return tuple((t.level, t.link, eff.transfer_seconds(t)) for t in transfers)
