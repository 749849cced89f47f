"""The story of "the model in GPU memory" (Qt-free): which what-if each build shows, and its memory bars.

The story (seed 1.2): Llama 3.1 70B at FP16 needs 70.6 billion parameters x 2
bytes = 141 GB of weights, and one H800 holds 80 GB. Three ways out: compress
the weights (FP8, INT4), split them over two GPUs, or take a smaller model.
Each build is a what-if of the shared scenario (``STORY`` plus the build's
changes; batch, prompt, output, KV precision and mode stay the shared ones), so
stepping builds never changes the shared scenario. The last build, "explore",
shows the shared scenario itself, changed through the shared controls.

Every number comes from the engine's report (``weights_bytes_per_gpu``,
``kv_bytes_per_gpu``, ``overhead_bytes_per_gpu``, ``hbm_bytes_per_gpu``,
``free_bytes_per_gpu``, ``fits``, ``max_context_tokens``); this module only
formats them (``engine.units``) and arranges them into
``widgets.memory_bars_state`` states. ``text(key, **values)`` gives the
scene's texts (``resources/text/model_memory.toml``) in the current language.
"""
from __future__ import annotations

import dataclasses
from dataclasses import replace
import re
from collections.abc import Callable, Mapping

from functools import cached_property

from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.kit.answers import refused
from desktop.kit.story import Story
from desktop.scenes.memory_bar_model import BarName, Label, memory_bars_state
from engine import InputError, Report, Scenario
from engine.parallel import uses_pcie
from engine.units import (
    format_bandwidth, format_bytes, format_count, format_number, format_parameters,
)
from widgets.memory_bars_state import MAX_BARS, GpuBar, MemoryBarsState

Text = Callable[..., str]

BUILDS = ("problem", "quantise", "int4", "split", "smaller", "compare", "explore")
# The seed's problem: the fields every build fixes (the rest follow the shared scenario).
STORY = {"model": "llama-3.1-70b", "gpu": "h800", "weights": "fp16", "gpus": 1}
SMALLER_MODEL = "llama-3.1-8b"
# Each build's what-if: STORY with these changes. "compare" shows the three ways; "explore" the shared scenario.
BUILD_CHANGES: dict[str, dict] = {
    "problem": {},
    "quantise": {"weights": "fp8"},
    "int4": {"weights": "int4"},
    "split": {"gpus": 2},
    "smaller": {"model": SMALLER_MODEL},
    "compare": {},
}
WAYS = ("quantise", "split", "smaller")          # the comparison, left to right
# The full height of every story build's bars: the tallest stack or capacity among them, times this, so a
# change reads as growth against one fixed scale.
SCALE_HEADROOM = 1.05


def story_scenario(base: Scenario, phase: str) -> Scenario:
    """The what-if ``phase`` shows: ``base`` (the shared scenario) with ``STORY`` and the build's changes."""
    return dataclasses.replace(base, **{**STORY, **BUILD_CHANGES.get(phase, {})})


def link_parts(report: Report) -> tuple[str, str]:
    """("NVLink 4", "400 GB/s"): the card's own GPU link as the catalogue names it, or its PCIe where it has
    none (or where its bridge joins only pairs and the group is larger); both figures count both directions."""
    gpu = report.gpu
    if uses_pcie(gpu) or (gpu.interconnect_topology == "pairs" and report.scenario.gpus > 2):
        return _short(gpu.pcie or "PCIe"), format_bandwidth(gpu.pcie_bytes_per_second)
    return _short(gpu.interconnect), format_bandwidth(gpu.interconnect_bytes_per_second)


def _short(link: str) -> str:
    """A catalogue link's name without its explanation: "NVLink 4 (400 GB/s total, ...)" -> "NVLink 4"."""
    return re.split(r" \(|, ", link, maxsplit=1)[0].strip()


def link_label(report: Report, text: Text) -> str:
    """"NVLink 4 · 400 GB/s" in the current language; empty for one GPU (nothing to link)."""
    name, speed = link_parts(report)
    if not name or report.scenario.gpus < 2:
        return ""
    return text("label.link", link=name, bandwidth=speed)


def scale_for(reports) -> float:
    """One scale for all ``reports``' bars: the tallest stack or capacity, with a little headroom."""
    tallest = [max(r.used_bytes_per_gpu, r.hbm_bytes_per_gpu) for r in reports if not refused(r)]
    return max(tallest, default=1.0) * SCALE_HEADROOM


def context_tokens(report: Report) -> int:
    return report.scenario.prompt_tokens + report.scenario.output_tokens


def more_context_tokens(report: Report) -> int:
    """Tokens of context each sequence could still add in the free memory: the engine's longest context
    minus this scenario's (``engine.memory.plan_memory``: the two differ by exactly the free bytes' worth)."""
    return max(0, report.max_context_tokens - context_tokens(report))


def verdict(result: Report | InputError, text: Text, refusal_text: Callable[[InputError], str]) -> tuple[str, str]:
    """The verdict line and its colour role: fits with what is free (and what that buys), by how much it
    does not, or the engine's refusal."""
    if refused(result):
        return refusal_text(result), "warning"
    if result.fits:
        return text("label.verdict_fits", free=format_bytes(result.free_bytes_per_gpu),
                    tokens=format_count(more_context_tokens(result)),
                    batch=format_count(result.scenario.batch)), "good"
    return text("label.verdict_over", over=format_bytes(-result.free_bytes_per_gpu)), "warning"


def gpu_bars(report: Report, text: Text) -> tuple[GpuBar, ...]:
    """One bar per GPU (tensor parallelism: each holds its share); past ``MAX_BARS`` one bar for each of them."""
    return memory_bars_state(report, bar_label(text), bar_names(report, text)).bars


def bar_label(text: Text) -> Label:
    """The texts of one bar: "Weights 141 GB", "8.1 GB free", "61 GB over" (``label.<kind>``)."""
    return lambda kind, n_bytes: text(f"label.{kind}", bytes=format_bytes(n_bytes))


def bar_names(report: Report, text: Text) -> tuple[BarName, ...]:
    """"GPU 1", "GPU 2" ... under the bars; past ``MAX_BARS`` one bar named for each of them."""
    gpus = report.scenario.gpus
    if gpus > MAX_BARS:
        return (BarName(text("label.each_gpu", count=format_count(gpus))),)
    name_key = "label.gpu" if gpus <= 4 else "label.gpu_short"
    return tuple(BarName(text(name_key, number=format_count(n + 1)), format_count(n + 1)) for n in range(gpus))


def bars_state(result: Report | InputError, text: Text, refusal_text: Callable[[InputError], str], scale_bytes: float,
               title: str = "", footer: str | None = None, footer_role: str | None = None) -> MemoryBarsState:
    """The bars for one what-if; the footer is its verdict unless given. A refusal: no bars, the refusal below."""
    line, role = verdict(result, text, refusal_text)
    footer = line if footer is None else footer
    role = role if footer_role is None else footer_role
    if refused(result):
        return MemoryBarsState((), scale_bytes, title=title, footer=footer, footer_role=role)
    return memory_bars_state(result, bar_label(text), bar_names(result, text), scale_bytes=scale_bytes,
                             link_label=link_label(result, text), title=title, footer=footer, footer_role=role)


def figures(result: Report | InputError, text: Text) -> dict[str, str]:
    """The formatted numbers of one what-if, for captions and notes."""
    if refused(result):
        return {}
    r, s = result, result.scenario
    precision = r.weights_precision
    kv_precision = r.kv_precision
    return {
        "model": r.model.name,
        "gpu": r.gpu.name,
        "gpus": format_count(s.gpus),
        "capacity": format_bytes(r.hbm_bytes_per_gpu),
        "precision": precision.name,
        "value_bytes": format_number(precision.bytes_per_value),
        "kv_precision": kv_precision.name,
        "kv_value_bytes": format_number(kv_precision.bytes_per_value),
        "parameters": format_parameters(r.parameters),
        "weights_total": format_bytes(r.weights_bytes),
        "weights": format_bytes(r.weights_bytes_per_gpu),
        "kv_per_token": format_bytes(r.kv_bytes_per_token, binary=True),
        "context": format_count(context_tokens(r)),
        "batch": format_count(s.batch),
        "kv_total": format_bytes(r.kv_bytes),
        "kv": format_bytes(r.kv_bytes_per_gpu),
        "runtime": format_bytes(r.overhead_bytes_per_gpu),
        "used": format_bytes(r.used_bytes_per_gpu),
        # Boundary: nothing is free below 0; a shortfall is "over" (test_model_memory_model.py).
        "free": format_bytes(max(0.0, r.free_bytes_per_gpu)),
        "over": format_bytes(max(0.0, -r.free_bytes_per_gpu)),
        # what is left, or by how much it does not fit: never "0 B free" for an option that is over
        "room": text("label.room_free", free=format_bytes(r.free_bytes_per_gpu)) if r.free_bytes_per_gpu >= 0
        else text("label.room_over", over=format_bytes(-r.free_bytes_per_gpu)),
        "weights_over": format_bytes(max(0.0, r.weights_bytes_per_gpu - r.hbm_bytes_per_gpu)),
        "max_context": format_count(r.max_context_tokens),
        "more_context": format_count(more_context_tokens(r)),
        "max_sequences": format_count(r.max_sequences),
        "link": link_parts(r)[0],
        "link_bandwidth": link_parts(r)[1],
        "verdict": verdict(r, text, str)[0],
    }


def values_for(results: Mapping[str, Report | InputError], text: Text) -> dict[str, str]:
    """Caption and note values: each build's figures under ``<build>_<name>`` and the shown one's bare."""
    values: dict[str, str] = {}
    for phase, result in results.items():
        values.update({f"{phase}_{name}": value for name, value in figures(result, text).items()})
    return values


def shown_values(results: Mapping[str, Report | InputError], phase: str, text: Text) -> dict[str, str]:
    """``values_for`` plus the figures of what ``phase`` shows, unprefixed (compare: the problem's)."""
    values = values_for(results, text)
    shown = results.get("explore" if phase == "explore" else ("problem" if phase == "compare" else phase))
    if shown is not None:
        values.update(figures(shown, text))
    return values


def stage_states(results: Mapping[str, Report | InputError], phase: str, text: Text,
                 refusal_text: Callable[[InputError], str]) -> tuple[MemoryBarsState, ...]:
    """The bars on the stage in ``phase``: one state, or (compare) one per way out, on one scale.

    ``results`` holds the what-if of every story build (``BUILD_CHANGES``) and ``"explore"`` (the shared
    scenario's report).
    """
    story_scale = scale_for([results[p] for p in BUILD_CHANGES if p in results])
    if phase == "compare":              # the three ways on their own scale: the stage is for them alone
        ways_scale = scale_for([results[way] for way in WAYS])
        return tuple(replace(bars_state(results[way], text, refusal_text, ways_scale,
                                        title=text(f"label.title_{way}"), footer=text(f"label.cost_{way}"),
                                        footer_role="text"), aligned_rows=True) for way in WAYS)
    if phase == "explore":
        shown = results["explore"]
        return (bars_state(shown, text, refusal_text, scale_for([shown]), title=text("label.title_explore")),)
    return (bars_state(results[phase], text, refusal_text, story_scale, title=text(f"label.title_{phase}")),)


class ModelMemoryStory(Story):
    """The seed's story of one model on one card, and the shared scenario at the end; ``controls``: the shared
    controls' latest refused change (shown under the bars while exploring), or ""."""
    builds = BUILDS

    @cached_property
    def results(self) -> dict[str, Report | InputError]:
        """The what-if (``Report`` or refusal) behind every build, by build name."""
        results = {phase: self._story_result(phase) for phase in BUILD_CHANGES}
        results["explore"] = self.report
        return results

    def _story_result(self, phase: str):
        """The story's what-if at the shared batch and lengths; where the story's model cannot take those (a
        context past its longest), at the default scenario's, so the seed's story is always told."""
        result = self.report_for(story_scenario(self.scenario, phase))
        if refused(result):
            lengths = {name: getattr(DEFAULT_SCENARIO, name) for name in ("batch", "prompt_tokens", "output_tokens")}
            fallback = self.report_for(story_scenario(replace(self.scenario, **lengths), phase))
            if not refused(fallback):
                return fallback
        return result

    def phase(self) -> str:
        """The build's name; "refused" when the engine refuses what this build shows (a user entry breaking
        the tutorial's model or GPU)."""
        name = self.build_name
        shown = self.results.get("explore" if name == "explore" else "problem" if name == "compare" else name)
        if refused(shown) or (name == "compare" and any(refused(self.results[way]) for way in WAYS)):
            return "refused"
        return name

    @cached_property
    def _values(self) -> dict[str, str]:
        values = shown_values(self.results, self.build_name, self.text)
        refusals = [result for result in self.results.values() if refused(result)]
        if refusals:
            values["reason"] = self.inputs.refusal_text(refusals[0])
        return values

    def caption_values(self) -> dict[str, str]:
        return self._values

    def subject(self):
        phase = self.build_name
        if phase == "explore":
            return self.scenario, self.report
        shown = "problem" if phase == "compare" else phase
        return story_scenario(self.scenario, shown), self.results[shown]

    def subject_note(self) -> str:
        """Every build but the last shows the tutorial's own case, whatever the side panel says: the corner says so."""
        return "" if self.build_name == "explore" else self.text("label.tutorial_case")

    def stage_states(self) -> tuple[MemoryBarsState, ...]:
        """What each set of bars shows in this build (one state, or three for the comparison)."""
        states = stage_states(self.results, self.build_name, self.text, self.inputs.refusal_text)
        if self.build_name == "explore" and self.controls:
            states = (replace(states[0], footer=self.controls, footer_role="warning"),)
        return states
