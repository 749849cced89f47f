"""The catalogue as readable text and as JSON, for ``python -m engine catalog``.

The listing also names the tokenizers that ship with the app
(``engine.tokenizer_registry``) without reading a vocabulary. Every number
becomes text through ``engine.units``. ``engine.catalog`` re-exports
``catalog_as_text`` and ``catalog_as_json``, so every user of the catalogue
imports this module: ``engine.tokens`` (with hashlib and gzip under it) is
imported only when a listing is made, not by every report and start of the app.
"""
from __future__ import annotations

from dataclasses import asdict

from engine.catalog_types import Catalog, Gpu, Model, Precision
from engine.units import (
    format_bandwidth, format_bytes, format_count, format_flops, format_ops, format_parameters, format_value_size,
)

def catalog_as_json(catalog: Catalog) -> dict:
    """Everything in the catalogue as JSON-ready data (SI units), entries in catalogue order."""
    from engine.tokens import tokenizers_as_json
    def plain(entry: Gpu | Model | Precision) -> dict:
        data = asdict(entry)
        return {key: list(value) if isinstance(value, tuple) else value for key, value in data.items()}
    return {
        "gpus": [plain(gpu) for gpu in catalog.gpus.values()],
        "models": [plain(model) for model in catalog.models.values()],
        "precisions": [plain(precision) for precision in catalog.precisions.values()],
        "tokenizers": tokenizers_as_json(),
        "warnings": list(catalog.warnings),
    }


def catalog_as_text(catalog: Catalog) -> str:
    """A readable listing with units and the source of every entry.

    The problems in the user's file (``Catalog.warnings``) are not part of it:
    the CLI prints them on stderr, one line each, before the listing.
    """
    from engine.tokens import tokenizers_as_text
    lines = ["GPUs (dense peaks; link figures count both directions)"]
    for gpu in catalog.gpus.values():
        lines += _gpu_lines(gpu)
    lines += ["", "Models"]
    for model in catalog.models.values():
        lines += _model_lines(model)
    lines += ["", "Precisions"]
    for precision in catalog.precisions.values():
        lines += [f"  {precision.id}: {precision.name}, {format_value_size(precision.bytes_per_value)} per value, "
                  f"computes at the {precision.compute_precision.upper()} peak",
                  f"    source: {precision.source}"]
    lines += ["", "Tokenizers (vocabularies ship with the app; nothing is downloaded)", tokenizers_as_text().rstrip("\n")]
    return "\n".join(lines) + "\n"


def _gpu_lines(gpu: Gpu) -> list[str]:
    peaks = ", ".join(f"{key.upper()} {_peak_text(key, value)}" for key, value in gpu.flops_per_second.items())
    lines = [
        f"  {gpu.id}: {gpu.name} ({gpu.vendor}){_origin_text(gpu.origin)}",
        f"    memory {format_bytes(gpu.memory_bytes)} at {format_bandwidth(gpu.memory_bandwidth_bytes_per_second)}",
        f"    peak {peaks}",
        f"    GPU link {format_bandwidth(gpu.interconnect_bytes_per_second)}: {gpu.interconnect}",
        f"    host link {format_bandwidth(gpu.pcie_bytes_per_second)}" + (f": {gpu.pcie}" if gpu.pcie else ""),
        f"    node of {format_count(gpu.node_gpus)} {'GPU' if gpu.node_gpus == 1 else 'GPUs'}; network "
        f"{format_bandwidth(gpu.network_bytes_per_second)} per GPU: {gpu.network}",
    ]
    if gpu.estimated:
        lines.append(f"    estimates, not published figures: {', '.join(gpu.estimated)}")
    return lines + _source_lines(gpu.source, gpu.sources, gpu.notes)


def _model_lines(model: Model) -> list[str]:
    kv = ("latent KV" if model.uses_mla else
          f"{format_count(model.kv_heads)} KV heads" if model.kv_heads != model.attention_heads else "no KV sharing")
    lines = [
        f"  {model.id}: {model.name}{_origin_text(model.origin)}",
        f"    {format_count(model.layers)} layers, hidden {format_count(model.hidden_size)}, "
        f"{format_count(model.attention_heads)} heads x {format_count(model.head_dim)} ({kv}), "
        f"MLP {format_count(model.intermediate_size)}, vocabulary {format_count(model.vocab_size)}, "
        f"embeddings {'tied' if model.tied_embeddings else 'untied'}",
        f"    published parameters {format_parameters(model.published_parameters)}"
        + (f", {format_parameters(model.published_active_parameters)} per token"
           if model.published_active_parameters else ""),
    ]
    if model.is_moe:
        lines.append(f"    mixture of experts: {format_count(model.experts)} experts, "
                     f"{format_count(model.experts_per_token)} per token, "
                     f"width {format_count(model.expert_intermediate_size)}"
                     + (f", {format_count(model.shared_experts)} shared" if model.shared_experts else "")
                     + (f", first {format_count(model.dense_layers)} layers dense" if model.dense_layers else ""))
    if model.has_sliding_window:
        lines.append(f"    sliding window: {format_count(model.sliding_window_layers)} of "
                     f"{format_count(model.layers)} layers attend to the last "
                     f"{format_count(model.sliding_window_tokens)} tokens only")
    if model.uses_mla:
        lines.append(f"    latent attention: q rank {format_count(model.q_lora_rank)}, "
                     f"kv rank {format_count(model.kv_lora_rank)}, head dims {format_count(model.qk_nope_head_dim)} + "
                     f"{format_count(model.qk_rope_head_dim)} (RoPE), v {format_count(model.v_head_dim)}")
    return lines + _source_lines(model.source, model.sources, model.notes)


def _peak_text(precision: str, ops_per_second: float) -> str:
    """Integer peaks in TOPS (operations, not floating-point), the others in TFLOPS."""
    return format_ops(ops_per_second) if precision.startswith("int") else format_flops(ops_per_second)


def _origin_text(origin: str) -> str:
    return "" if origin == "built-in" else f" [from {origin}]"


def _source_lines(source: str, sources: dict[str, str], notes: str) -> list[str]:
    lines = [f"    source: {source}"]
    lines += [f"    source of {name}: {text}" for name, text in sources.items()]
    if notes:
        lines.append(f"    note: {notes}")
    return lines
