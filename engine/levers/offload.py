"""KV offloading to host memory: room for many more conversations, at PCIe speed.

A server can park the KV cache of idle conversations in the host's DRAM
(vLLM's CPU swap space and KV offloading connectors, LMCache, SGLang's
hierarchical cache, TensorRT-LLM's host offloading) and copy it back when the
conversation returns. Three figures, per GPU (each GPU moves its own share of
the KV over its own host link, all at once):

- capacity: ``host_bytes_per_gpu / (tokens per sequence * kv per token)`` more
  sequences parked, beside the ``max_batch`` that fit in HBM;
- reload against recompute: bringing back a conversation of N tokens costs
  ``N * kv / host link``; recomputing it is a prefill of N tokens. For every
  model here the copy is many times faster (one token's KV is hundreds of KB;
  recomputing it costs 2 x parameters FLOPs);
- where it stops paying: a decode step whose sequences' KV stays in host memory
  reads it over PCIe every step (``step_over_host_link``), 25 to 50 times slower
  per byte than HBM, so offloaded KV is for idle conversations, never for the
  active batch.

The host link is PCIe in one direction, half the catalogue's both-ways figure
(H800: 128 GB/s -> 64 GB/s), at the mode's link share (``engine.efficiency``:
0.8 realistic; pinned host-to-device copies reach about 80% of a PCIe x16 link).
``DEFAULT_HOST_BYTES_PER_GPU`` is an estimate: an 8-GPU HGX server with 2 TB of
DRAM (NVIDIA DGX H100/H800 datasheets: 2 TB system memory) gives 256 GB per GPU.
"""
from __future__ import annotations

import math
from dataclasses import replace

from engine.frozen import frozen
from engine.memory import kv_bytes_per_sequence
from engine.passes import decode_step_work, prefill_work
from engine.request import time_pass

DEFAULT_HOST_BYTES_PER_GPU = 256e9      # estimated: 2 TB of DRAM shared by 8 GPUs (DGX H100 datasheet)


def host_link_bytes_per_second(gpu, efficiency) -> float:
    """What one GPU moves to or from host memory per second: PCIe one way, at the mode's link share."""
    return gpu.pcie_bytes_per_second / 2 * efficiency.link_share


def reload_seconds(d, efficiency, *, tokens: float, batch: int = 1) -> float:
    """Copying ``batch`` conversations' KV of ``tokens`` tokens each back from host memory (each GPU its own)."""
    held = kv_bytes_per_sequence(d, tokens) * d.kv_share_per_gpu
    return d.sequences_per_gpu(batch) * held / host_link_bytes_per_second(d.gpu, efficiency)


def recompute_seconds(d, machine, *, tokens: int, batch: int = 1) -> float:
    """Recomputing the same KV: a prefill of ``tokens`` tokens per conversation."""
    return time_pass(prefill_work(d, batch=batch, prompt_tokens=max(int(tokens), 1)), machine).seconds


def step_over_host_link(d, machine, *, batch: int, context_tokens: float) -> float:
    """One decode step whose cached KV is read from host memory over PCIe instead of HBM.

    The weights still come from HBM; the KV read is a third stream, combined with the other
    two as the mode combines compute and memory (the larger in ideal, the sum in realistic).
    """
    eff = machine.efficiency
    step = decode_step_work(d, batch=batch)
    work = step.at(context_tokens)
    kv_read = work.kv_bytes_per_gpu - step.kv_bytes_per_gpu_fixed          # all but the new token's own K and V
    on_gpu = time_pass(replace(work, kv_bytes_per_gpu=work.kv_bytes_per_gpu - kv_read), machine)
    over_link = kv_read / host_link_bytes_per_second(d.gpu, eff)
    return (eff.roofline_seconds(eff.roofline_seconds(on_gpu.compute_seconds, on_gpu.memory_seconds), over_link)
            + eff.fixed_seconds(work.transfers, work.layers))


@frozen
class OffloadFigures:
    host_bytes_per_gpu: float
    host_link_bytes_per_second: float    # per GPU, one way
    host_sequences: int                  # conversations parked in host memory, beside those in HBM
    reload_seconds: float                # bringing one conversation's KV back
    recompute_seconds: float             # recomputing it instead (a prefill)
    step_seconds: float                  # a decode step with the KV in HBM
    step_over_host_link_seconds: float   # the same step reading its KV over PCIe


def offload_figures(d, machine, *, batch: int, context_tokens: float, reloaded_tokens: int,
                    tokens_per_sequence: int, host_bytes_per_gpu: float) -> OffloadFigures:
    """The module's figures for one deployment (``tokens_per_sequence``: what a parked conversation holds)."""
    per_sequence = kv_bytes_per_sequence(d, tokens_per_sequence) * d.kv_share_per_gpu
    eff = machine.efficiency
    return OffloadFigures(
        host_bytes_per_gpu=host_bytes_per_gpu, host_link_bytes_per_second=host_link_bytes_per_second(d.gpu, eff),
        host_sequences=math.floor(host_bytes_per_gpu / per_sequence),
        reload_seconds=reload_seconds(d, eff, tokens=reloaded_tokens),
        recompute_seconds=recompute_seconds(d, machine, tokens=reloaded_tokens),
        step_seconds=time_pass(decode_step_work(d, batch=batch).at(context_tokens), machine).seconds,
        step_over_host_link_seconds=step_over_host_link(d, machine, batch=batch, context_tokens=context_tokens))
