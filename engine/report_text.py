"""A report as readable text with units (GB, ms, TFLOPS), for the CLI.

All number formatting goes through ``engine.units``.
"""
from __future__ import annotations

from engine.catalog_types import Gpu, Model, Precision
from engine.levers.kv_allocation import reserved_tokens_per_sequence, shared_prefix_tokens
from engine.levers.text import lever_lines
from engine.kv_cache import kv_window_bytes_per_token
from engine.memory import gpus_sharing
from engine.report import Report
from engine.scenario import Scenario
from engine.units import (
    format_bandwidth, format_bytes, format_count, format_flop, format_flops, format_intensity,
    format_parameters, format_percent, format_ratio, format_seconds, format_tokens_per_second, format_usd,
    format_value_size,
)

LABEL_WIDTH = 27


def _line(label: str, text: str) -> str:
    return f"  {label:<{LABEL_WIDTH}}{text}"


def _plural(count: int, one: str, many: str) -> str:
    return f"{format_count(count)} {one if count == 1 else many}"


def report_as_text(scenario: Scenario, report: Report, gpu: Gpu, model: Model,
                   weights: Precision, kv: Precision) -> str:
    """The whole report in a few readable blocks: memory, roofline, request, cost."""
    sc, r = scenario, report
    context = sc.prompt_tokens + sc.output_tokens
    gpus = format_count(sc.gpus)
    lines = [
        f"{model.name} on {gpus} × {gpu.name} ({sc.mode} mode)",
        *_layout_lines(r),
        f"weights {weights.name}, KV cache {kv.name}; batch {format_count(sc.batch)}; "
        f"prompt {_plural(sc.prompt_tokens, 'token', 'tokens')}; "
        f"output {_plural(sc.output_tokens, 'token', 'tokens')}",
        "",
        f"Memory per GPU (of {format_bytes(r.hbm_bytes_per_gpu)})",
        _line("weights", f"{format_bytes(r.weights_bytes_per_gpu)}   "
                         f"({format_parameters(r.parameters)} parameters × "
                         f"{format_value_size(weights.bytes_per_value)}"
                         f"{', embeddings and LM head 16-bit' if weights.bytes_per_value < 2 else ''}"
                         f"{', shared out over ' + gpus + ' GPUs' if sc.gpus > 1 else ''})"),
        _line("KV cache", f"{format_bytes(r.kv_bytes_per_gpu)}   "
                          f"({format_bytes(r.kv_bytes_per_token, binary=True)} per token × {_held_text(sc, model, context)}"
                          f"{_split_text(r)}{_window_text(model, kv)})"),
        _line("runtime allowance", format_bytes(r.overhead_bytes_per_gpu)),
        *_fit_lines(sc, r, context),
        "",
    ]
    if not r.fits:
        lines.append("The timings below are hypothetical: they assume the model and its KV cache would fit.")
    lines.append(f"Roofline ({format_flops(r.peak_flops_per_gpu)} {r.compute_precision.upper()}, "
                 f"{format_bandwidth(gpu.memory_bandwidth_bytes_per_second)} per GPU)")
    if r.weight_only:
        lines.append(_line("note", f"{gpu.name} has no {weights.compute_precision.upper()} peak: "
                                   f"weight-only {weights.name}, matmuls at {r.compute_precision.upper()}"))
    lines += [
        _line("ridge point", format_intensity(r.ridge_flops_per_byte)),
        _line("prefill", f"{format_flop(r.prefill.flops)}, {format_bytes(r.prefill.bytes)} → "
                         f"{format_seconds(r.prefill.seconds)}, {r.prefill.bound}-bound, "
                         f"{format_percent(r.prefill.utilisation)} of peak"),
        _line("decode, per token", f"{format_flop(r.decode.flops_per_token)}, {format_bytes(r.decode.bytes_per_token)} → "
                                   f"step {format_seconds(r.decode.seconds_per_token)}, {r.decode.bound}-bound, "
                                   f"{format_percent(r.decode.utilisation)} of peak"),
    ]
    if sc.gpus > 1:
        lines.append(_line("communication", f"prefill {format_seconds(r.prefill.communication_seconds)}, "
                                            f"decode step {format_seconds(r.decode.communication_seconds)}"))
        for level, link, seconds in r.decode.communication_levels:
            lines.append(_line(f"  {_LEVEL_NAMES[level]}", f"{format_seconds(seconds)} per decode step over "
                                                           f"{_LINK_NAMES[link]}"))
    lines += [
        "",
        "Request",
        _line("time to first token", format_seconds(r.ttft_seconds)),
        _line("time per output token", f"{format_seconds(r.tpot_seconds)}   "
                                       f"({format_tokens_per_second(1 / r.tpot_seconds)} per sequence)"),
        _line("total", f"{format_seconds(r.total_seconds)}   "
                       f"({format_percent(r.decode_share)} of it decoding)"),
        *lever_lines(sc, r, _line),
        "",
        f"Cost at {format_usd(sc.usd_per_gpu_hour)} per GPU-hour",
        _line("input", f"{format_usd(r.usd_per_million_input_tokens)} per million tokens"),
        _line("output", f"{format_usd(r.usd_per_million_output_tokens)} per million tokens   "
                        f"({format_ratio(r.output_to_input_price_ratio)} input)"),
    ]
    return "\n".join(lines)


_LEVEL_NAMES = {"tensor": "tensor all-reduces", "pipeline": "pipeline hand-overs", "expert": "expert all-to-all"}
_LINK_NAMES = {"link": "the GPU link", "pcie": "PCIe", "network": "the network between nodes"}


def _layout_lines(r: Report) -> list[str]:
    """How the GPUs share the model, when there is more than one."""
    lay = r.layout
    if lay is None or lay.gpus == 1:
        return []
    parts = [f"tensor {format_count(lay.tensor)}"]
    if lay.pipeline > 1:
        parts.append(f"pipeline {format_count(lay.pipeline)}")
    if lay.data > 1:
        parts.append(f"{format_count(lay.data)} attention replicas per stage")
    if r.model is not None and r.model.is_moe:
        parts.append(f"experts over {format_count(lay.expert)}")
    nodes = _plural(lay.nodes, "node", "nodes")
    return [f"{nodes} of up to {_plural(lay.node_gpus, 'GPU', 'GPUs')}; {', '.join(parts)}"]


def _fit_lines(sc: Scenario, r: Report, context: int) -> list[str]:
    """Whether it fits and how much room is left; when it does not, what is too big, and no 0-token lines."""
    of = f"of {format_bytes(r.hbm_bytes_per_gpu)} per GPU"
    if r.fits:
        lines = [_line("free", f"{format_bytes(r.free_bytes_per_gpu)}   fits")]
    elif r.weights_bytes_per_gpu > r.hbm_bytes_per_gpu:
        lines = [_line("does not fit", f"the weights alone need {format_bytes(r.weights_bytes_per_gpu)} {of}")]
    else:
        lines = [_line("does not fit", f"everything together needs {format_bytes(r.used_bytes_per_gpu)} {of} "
                                       f"(short by {format_bytes(-r.free_bytes_per_gpu)})")]
    if r.longest_context_tokens > 0:
        capped = (f" (the model's maximum; memory would hold {format_count(r.memory_context_tokens)})"
                  if r.longest_context_capped else "")
        lines.append(_line("longest context that fits", f"{_plural(r.longest_context_tokens, 'token', 'tokens')} "
                                                        f"per sequence at batch {format_count(sc.batch)}{capped}"))
    if r.max_batch > 0:             # under the scenario's KV allocation, beside any draft model: the JSON's max_batch
        lines.append(_line("most sequences", f"{format_count(r.max_batch)} of {_plural(context, 'token', 'tokens')}"))
    return lines


def _held_text(sc: Scenario, model: Model, context: int) -> str:
    """The tokens the batch's KV cache holds, as the KV allocation holds them: "1,500 tokens × 8 sequences",
    "131,072 tokens reserved × 8 sequences", "(900 shared + 16 sequences × 600 tokens)"."""
    sequences = _plural(sc.batch, "sequence", "sequences")
    if sc.kv_allocation == "reserved":
        return f"{_plural(reserved_tokens_per_sequence(sc, model), 'token', 'tokens')} reserved × {sequences}"
    shared = shared_prefix_tokens(sc)
    if shared and sc.batch > 1:
        return f"({format_count(shared)} shared + {sequences} × {_plural(context - shared, 'token', 'tokens')})"
    return f"{_plural(context, 'token', 'tokens')} × {sequences}"


def _split_text(r: Report) -> str:
    """", split over 2 GPUs" when each GPU keeps a whole fraction of the cache (heads split among them)."""
    over = gpus_sharing(r.kv_bytes, r.kv_bytes_per_gpu)
    return f", split over {format_count(over)} GPUs" if over is not None and over > 1 else ""


def _window_text(model: Model, kv: Precision) -> str:
    """", 24 KiB of it kept for the last 128 only": the part a sliding window drops from older tokens."""
    if not model.has_sliding_window:
        return ""
    return (f", {format_bytes(kv_window_bytes_per_token(model, kv), binary=True)} of it kept for the last "
            f"{format_count(model.sliding_window_tokens)} only")
