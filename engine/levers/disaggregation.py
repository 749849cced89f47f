"""Prefill/decode disaggregation: prompts on one pool of GPUs, decoding on another, the KV sent between.

On one pool (continuous batching, as vLLM and SGLang run by default) every
decode step also carries the prefills of the requests that replace finished
ones: with ``batch`` sequences of ``output`` tokens each, ``batch / output``
requests finish per step, so on average each step is held up by
``batch / output * prefill_seconds`` (DistServe, Zhong et al., OSDI 2024,
arXiv:2401.09670, calls this prefill-decode interference; Splitwise, Patel et
al., ISCA 2024, arXiv:2311.18677). Separate pools remove it: a decode step is
only a decode step. The price is the KV of every prompt crossing the link
once::

    kv_transfer_seconds = prompt's KV * kv share per GPU / (link one way * link share) + one message

each GPU of the prefill group sending its own share to its peer, all at once,
over the node's GPU link (NVLink, or PCIe for cards without it) or the network
between nodes (``link``; ``engine.communication``), at the mode's share and
message latency of that link (``engine.efficiency``). It adds to the first token's time
(systems that stream the KV layer by layer while prefilling hide most of it;
this is the figure without that overlap).

Disaggregation buys steady time per token, not throughput: the same prefills
and decode steps are done, only on different GPUs, so tokens per second per GPU
over both pools equal one pool's. It stops paying below the batch at which the
interruptions it removes (``batch * prefill_seconds`` per request over its whole
output) are worth less than the transfer it adds (``stops_below_batch``). How
many GPUs each pool needs for a target is the serving planner's question
(``engine.plan``, which uses ``kv_transfer_seconds``).
"""
from __future__ import annotations


from engine.communication import Transfer, network_bytes_per_second_one_direction, node_link
from engine.frozen import frozen
from engine.memory import kv_bytes_per_sequence
from engine.parallel import link_bytes_per_second_one_direction
from engine.passes import prefill_work
from engine.request import time_pass

LINKS = ("nvlink", "network")


def link_rate(gpu, link: str) -> float:
    """Bytes per second one GPU sends one way over ``link`` ("nvlink": its GPU-to-GPU link; "network")."""
    if link == "nvlink":
        return link_bytes_per_second_one_direction(gpu, 2)
    return network_bytes_per_second_one_direction(gpu)


def kv_transfer_seconds_of(d, efficiency, *, prompt_tokens, batch: int = 1, link: str = "nvlink"):
    """Seconds to send ``batch`` prompts' KV from the prefill pool to the decode pool (module docstring).

    ``prompt_tokens`` may be a numpy array (the planner's many requests at once).
    """
    bytes_per_gpu = d.sequences_per_gpu(batch) * kv_bytes_per_sequence(d, prompt_tokens) * d.kv_share_per_gpu
    # one hand-over between GPUs, priced as the layout's own (engine.communication): the node's link or the network
    wire = "network" if link == "network" else node_link(d.gpu, 2)
    return efficiency.transfer_seconds(Transfer("pipeline", wire, bytes_per_gpu / link_rate(d.gpu, link), 1))


def kv_transfer_seconds(scenario, catalog=None, link: str = "nvlink") -> float:
    """The KV transfer of one request of ``scenario`` (its prompt), for the serving planner."""
    from engine.compute import setup_of
    s = setup_of(scenario, catalog)
    return kv_transfer_seconds_of(s.deployment, s.machine.efficiency, prompt_tokens=s.scenario.prompt_tokens,
                                  link=link)


@frozen
class DisaggregationFigures:
    link: str
    kv_transfer_seconds: float          # one request's KV, prefill pool -> decode pool
    prefill_seconds: float              # one request's prefill alone
    prefills_per_step: float            # batch / output: requests replaced per decode step
    interruption_seconds_per_step: float
    stops_below_batch: float            # below this batch the transfer costs more than the interruptions saved


def disaggregation_figures(d, machine, *, batch: int, prompt_tokens: int, output_tokens: int,
                           link: str) -> DisaggregationFigures:
    """The module's figures for one deployment and request shape."""
    prefill = time_pass(prefill_work(d, batch=1, prompt_tokens=prompt_tokens), machine).seconds
    transfer = kv_transfer_seconds_of(d, machine.efficiency, prompt_tokens=prompt_tokens, link=link)
    per_step = batch / output_tokens
    return DisaggregationFigures(link=link, kv_transfer_seconds=transfer, prefill_seconds=prefill,
                                 prefills_per_step=per_step, interruption_seconds_per_step=per_step * prefill,
                                 stops_below_batch=transfer / prefill)
