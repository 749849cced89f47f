"""A report as readable text with units (GB, ms, TFLOPS), for the CLI.

All number formatting goes through ``engine.units``.
"""
from __future__ import annotations

from engine.catalog_types import Gpu, Model, Precision
from engine.report import Report
from engine.scenario import Scenario
from engine.units import (
    format_bandwidth, format_bytes, format_count, format_flop, format_flops, format_intensity,
    format_parameters, format_percent, format_ratio, format_seconds, format_usd,
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
    lines = [
        f"{model.name} on {sc.gpus} × {gpu.name} ({sc.mode} mode)",
        f"weights {weights.name}, KV cache {kv.name}; batch {format_count(sc.batch)}; "
        f"prompt {_plural(sc.prompt_tokens, 'token', 'tokens')}; "
        f"output {_plural(sc.output_tokens, 'token', 'tokens')}",
        "",
        f"Memory per GPU (of {format_bytes(r.hbm_bytes_per_gpu)})",
        _line("weights", f"{format_bytes(r.weights_bytes_per_gpu)}   "
                         f"({format_parameters(r.parameters)} parameters × "
                         f"{weights.bytes_per_value:g} byte{'' if weights.bytes_per_value == 1 else 's'}"
                         f"{f' / {sc.gpus} GPUs' if sc.gpus > 1 else ''})"),
        _line("KV cache", f"{format_bytes(r.kv_bytes_per_gpu)}   "
                          f"({format_bytes(r.kv_bytes_per_token, binary=True)} per token × "
                          f"{_plural(context, 'token', 'tokens')} × {_plural(sc.batch, 'sequence', 'sequences')})"),
        _line("runtime allowance", format_bytes(r.overhead_bytes_per_gpu)),
        _line("free", f"{format_bytes(r.free_bytes_per_gpu)}   " + ("fits" if r.fits else "does NOT fit")),
        _line("longest context that fits", f"{_plural(r.max_context_tokens, 'token', 'tokens')} per sequence "
                                 f"at batch {format_count(sc.batch)}"),
        _line("most sequences", f"{format_count(r.max_sequences)} of {_plural(context, 'token', 'tokens')}"),
        "",
        f"Roofline ({format_flops(r.peak_flops_per_gpu)} {r.compute_precision.upper()}, "
        f"{format_bandwidth(gpu.memory_bandwidth_bytes_per_second)} per GPU)",
    ]
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
        lines.append(_line("all-reduce", f"prefill {format_seconds(r.prefill.allreduce_seconds)}, "
                                         f"decode step {format_seconds(r.allreduce_seconds_per_step)} "
                                         f"(tensor parallel over {sc.gpus} GPUs)"))
    lines += [
        "",
        "Request",
        _line("time to first token", format_seconds(r.ttft_seconds)),
        _line("time per output token", f"{format_seconds(r.tpot_seconds)}   "
                                       f"({1 / r.tpot_seconds:.3g} tokens/s per sequence)"),
        _line("total", f"{format_seconds(r.total_seconds)}   "
                       f"({format_percent(r.decode_share)} of it decoding)"),
        "",
        f"Cost at {format_usd(sc.usd_per_gpu_hour)} per GPU-hour",
        _line("input", f"{format_usd(r.usd_per_million_input_tokens)} per million tokens"),
        _line("output", f"{format_usd(r.usd_per_million_output_tokens)} per million tokens   "
                        f"({format_ratio(r.output_to_input_price_ratio)} input)"),
    ]
    return "\n".join(lines)
