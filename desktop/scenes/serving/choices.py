"""The serving scene's own inputs (Qt-free): what the presenter set, and the engine's answers that have arrived.

``ServingControls`` is what the side panel sets: the request rate, the two P90
targets and the per-token list price of input and of output tokens. A fleet
plan is a simulation (~100 ms), so the story never asks for one itself: it
names the questions its builds show (``Request``), the view has the kit's
worker ask them through the kit's cache, and ``ServingInputs.answers`` holds
the answers that have arrived (a request not there yet reads ``NOT_KNOWN``).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field, replace
from types import MappingProxyType
from typing import Any, Callable

from desktop.kit.answers import NOT_KNOWN
from engine.frozen import frozen
from engine.plan_traffic import Targets, Traffic

# A busy chat service on the default deployment: ten requests a second, the first token within a second and a
# token every 50 ms (20 tokens/s, faster than people read), as DistServe's chatbot targets are set.
DEFAULT_REQUESTS_PER_SECOND = 10.0
DEFAULT_TTFT_TARGET_SECONDS = 1.0
DEFAULT_TPOT_TARGET_SECONDS = 0.05
# A list price a platform might copy from its English costs on the default plan ($0.15 and $1.70 per million):
# about a sixth above them.
DEFAULT_LIST_INPUT_USD = 0.20
DEFAULT_LIST_OUTPUT_USD = 2.00
# The second case of the disaggregation build: the same service at this share of the traffic.
SMALL_SERVICE_SHARE = 0.1


@frozen
class ServingControls:
    requests_per_second: float = DEFAULT_REQUESTS_PER_SECOND
    ttft_target_seconds: float = DEFAULT_TTFT_TARGET_SECONDS
    tpot_target_seconds: float = DEFAULT_TPOT_TARGET_SECONDS
    list_usd_per_million_input_tokens: float = DEFAULT_LIST_INPUT_USD
    list_usd_per_million_output_tokens: float = DEFAULT_LIST_OUTPUT_USD

    @property
    def traffic(self) -> Traffic:
        return Traffic(self.requests_per_second)

    @property
    def small_traffic(self) -> Traffic:
        """The disaggregation build's second case: a service with ``SMALL_SERVICE_SHARE`` of this traffic."""
        return Traffic(self.requests_per_second * SMALL_SERVICE_SHARE)

    @property
    def targets(self) -> Targets:
        return Targets(self.ttft_target_seconds, self.tpot_target_seconds)


@frozen
class Request:
    """One slow engine question a build shows: ``question(catalog, *arguments)``, asked through the kit."""
    question: Callable[..., Any]
    arguments: tuple


@frozen
class ServingInputs:
    """The scene's control values as the story reads them: the controls and the answers so far."""
    controls: ServingControls = ServingControls()
    answers: Mapping[Request, Any] = field(default_factory=lambda: MappingProxyType({}))

    def answer(self, request: Request) -> Any:
        """The engine's answer (or refusal) to ``request``, or ``NOT_KNOWN`` while it is being worked out."""
        return self.answers.get(request, NOT_KNOWN)

    def with_answers(self, more: Mapping[Request, Any]) -> "ServingInputs":
        return replace(self, answers=MappingProxyType({**self.answers, **more}))

    def with_controls(self, controls: ServingControls) -> "ServingInputs":
        return replace(self, controls=controls)
