"""The scene's own control values (one frozen ``LeversChoices``) and the engine settings each lever gets.

A value of None follows the scenario (the engine's default for that lever:
half the prompt cached, the batch that fits, the model's maximum reserved);
a number the person typed is handed to the engine as it is, so a setting the
engine cannot use (a cached prefix longer than the prompt, an acceptance rate
of 1) comes back as its refusal, shown beside the control. Qt-free.
"""
from __future__ import annotations

from dataclasses import replace
from engine import Scenario
from engine.frozen import frozen
from engine.levers.settings import DEFAULT_HEAD_COST, GROUPS

# The builds: a first look at the idle worker, one per lever in the tutorial's three groups, then the stack.
LEVER_BUILDS = tuple(name for names in GROUPS.values() for name in names)
BUILDS = ("kinds", *LEVER_BUILDS, "stack")
GROUP_OF = {name: group for group, names in GROUPS.items() for name in names}

HEADS = "heads"                      # the draft choice that means self-drafting heads (EAGLE, Medusa)
SMALL_DRAFT = "llama-3.2-1b"         # the draft tried first: Llama 3.2 shares Llama 3's tokenizer
# What the last build stacks until the presenter says otherwise: the levers every serving stack runs for a
# chat service (KV allocation is left out: its "off" is a reservation that no stack makes by default).
DEFAULT_STACK = frozenset({"weights", "batching", "speculative", "prefix_cache", "flash_attention"})


@frozen
class LeversChoices:
    """Each lever's setting, and which levers the last build stacks."""
    weights: str = "fp8"                      # the narrower weight precision
    kv: str = "fp8"                           # the narrower KV precision
    batch: int | None = None                  # batching: None, all that fit
    draft: str | None = None                  # None: Llama 3.2 1B where the target shares its tokenizer, else heads
    draft_tokens: int = 4                     # k
    acceptance: float = 0.8                   # a
    speculative_batch: int | None = None      # the batch speculative decoding is shown at (None: the scenario's)
    reserve_tokens: int = 0                   # what a reservation sets aside (0: the model's maximum)
    shelf_paged: bool = True                  # the picture's shelf: pages, or reservations
    cached_prefix_tokens: int | None = None   # None: half the prompt
    reloaded_tokens: int | None = None        # offloading: a returning conversation's earlier tokens (None: half)
    host_gb: float = 256.0                    # host memory per GPU for offloaded KV
    link: str | None = None                   # disaggregation: "nvlink" or "network" (None: the engine's pick)
    stack: frozenset[str] = DEFAULT_STACK

    def with_stacked(self, lever: str, on: bool) -> "LeversChoices":
        return replace(self, stack=self.stack | {lever} if on else self.stack - {lever})


Settings = tuple[tuple[str, object], ...]     # hashable: a lever's settings for ``engine.levers``


def draft_settings(choices: LeversChoices, draft: str) -> dict:
    """Speculative decoding's settings with the drafter ``draft`` (a model id, or ``HEADS``)."""
    drafter = {"draft_head_cost": DEFAULT_HEAD_COST} if draft == HEADS else {"draft_model": draft}
    return {**drafter, "draft_tokens": choices.draft_tokens, "acceptance": choices.acceptance}


def lever_settings(choices: LeversChoices, lever: str, scenario: Scenario, draft: str) -> Settings:
    """What ``lever`` is handed (``engine.levers.settings.SETTINGS``), as sorted pairs; ``draft``: the drafter
    the story chose when ``choices.draft`` is None."""
    settings: dict = {
        "weights": lambda: {"weights": choices.weights},
        "kv_precision": lambda: {"kv": choices.kv},
        "batching": lambda: {} if choices.batch is None else {"batch": choices.batch},
        "speculative": lambda: draft_settings(choices, draft),
        "prefix_cache": lambda: ({} if choices.cached_prefix_tokens is None
                                 else {"cached_prefix_tokens": choices.cached_prefix_tokens}),
        "kv_allocation": lambda: {"reserve_tokens": choices.reserve_tokens},
        "flash_attention": lambda: {},
        "offload": lambda: {"host_bytes_per_gpu": choices.host_gb * 1e9,
                            **({} if choices.reloaded_tokens is None else {"reloaded_tokens": choices.reloaded_tokens})},
        "disaggregation": lambda: {} if choices.link is None else {"link": choices.link},
    }[lever]()
    return tuple(sorted(settings.items()))


def shown_scenario(choices: LeversChoices, lever: str, scenario: Scenario) -> Scenario:
    """The scenario a lever is shown on: the shared one, at the chosen batch for speculative decoding."""
    if lever == "speculative" and choices.speculative_batch is not None:
        return replace(scenario, batch=choices.speculative_batch)
    return scenario
