"""Scene 2 past one node, without Qt: node frames follow the report's layout, the links carry the catalogue's
figures, the nodes build's costs are the report's communication, capped contexts say so, and the notes'
weight formulas add up to the engine's weights."""
from __future__ import annotations

import dataclasses
import re

import pytest

from desktop.kit import questions
from desktop.scenes.model_memory import bars, figures, story as mm
from desktop.scenes.model_memory.story import ModelMemoryStory
from engine import InputError, Scenario
from engine.catalog import default_catalog
from engine.units import format_bandwidth, format_bytes, format_count, format_seconds
from tests.desktop.stories import ANSWERS, scene_text, story, texts

CATALOG = default_catalog()
BASE = Scenario(gpus=2)
TEXTS = texts("model_memory")
ASK = ANSWERS.ask

# Deployments past one node: two full nodes, a partial second node, many nodes (one frame stands for the rest),
# racks of 72 (one bar for each GPU of a node), workstations of 4, and a tensor group wider than a node.
MULTI_NODE = [
    dict(model="deepseek-v3", weights="fp8", gpus=16),
    dict(model="llama-3.1-405b", weights="fp16", gpus=16),
    dict(model="llama-3.1-70b", weights="fp16", gpus=12),
    dict(model="kimi-k2", weights="fp8", gpus=32),
    dict(model="llama-3.1-405b", weights="fp16", gpus=1024),
    dict(model="deepseek-v3", weights="fp8", gpus=144, gpu="gb200"),
    dict(model="llama-3.1-70b", weights="int4", gpus=8, gpu="rtx-4090"),
    dict(model="llama-3.1-405b", weights="fp16", gpus=16, tp=16, pp=1),
]


def report(**changes):
    result = ASK(questions.report, dataclasses.replace(BASE, **changes))
    assert not isinstance(result, InputError), result
    return result


def numbers(text: str) -> list[str]:
    return re.findall(r"\d[\d,.]*", text)


@pytest.mark.parametrize("code", ("en", "zh"))
@pytest.mark.parametrize("changes", MULTI_NODE, ids=lambda c: "-".join(str(v) for v in c.values()))
def test_node_frames_follow_the_reports_layout(changes, code):
    r = report(**changes)
    text = scene_text("model_memory", code)
    lay, gpus = r.layout, r.scenario.gpus
    assert r.nodes == lay.nodes >= 2
    state = bars.bars_state(r, text, str, 1.0)
    first, second = state.nodes
    assert len(state.bars) == first.bars + second.bars <= 16
    # node 1 is a full node of the GPU's node size: one bar per GPU, or one bar for each of them
    per_node = lay.node_gpus
    assert first.bars == (per_node if per_node <= bars.MAX_BARS_PER_NODE else 1)
    assert format_count(per_node) in numbers(first.label) and not first.repeated
    rest = gpus - per_node
    if lay.nodes == 2:          # node 2 as it is, full or not
        assert second.bars == (rest if rest <= bars.MAX_BARS_PER_NODE else 1) and not second.repeated
        assert format_count(rest) in numbers(second.label)
    else:                       # one frame for nodes 2 .. N, saying how many GPUs it stands for
        assert second.repeated and second.bars == first.bars
        assert {format_count(lay.nodes), format_count(rest)} <= set(numbers(second.label))
    # a picture too small for these bars draws one, named for all of them and their nodes
    assert {format_count(gpus), format_count(lay.nodes)} <= set(numbers(state.each_label))
    for bar in state.bars:      # every GPU holds the engine's share
        assert [s.bytes for s in bar.segments] == [r.weights_bytes_per_gpu, r.kv_bytes_per_gpu,
                                                   r.overhead_bytes_per_gpu]


@pytest.mark.parametrize("code", ("en", "zh"))
@pytest.mark.parametrize("changes", MULTI_NODE[:3] + MULTI_NODE[5:7], ids=lambda c: c["model"] + str(c["gpus"]))
def test_the_network_label_carries_the_catalogues_figure(changes, code):
    r = report(**changes)
    gpu = CATALOG.gpu(r.scenario.gpu)
    state = bars.bars_state(r, scene_text("model_memory", code), str, 1.0)
    assert format_bandwidth(gpu.network_bytes_per_second) in state.network_label
    assert gpu.network.startswith(bars.network_parts(r, scene_text("model_memory", code))[0])
    link_rate = gpu.pcie_bytes_per_second if bars.link_kind(r) == "pcie" else gpu.interconnect_bytes_per_second
    assert format_bandwidth(link_rate) in state.link_label
    assert state.network_label != state.link_label


def test_within_one_node_there_are_no_frames_and_no_network():
    for changes in (dict(gpus=2), dict(gpus=8), dict(gpus=1, model="llama-3.1-8b"), dict(gpus=16, gpu="gb200")):
        state = bars.bars_state(report(**changes), scene_text("model_memory"), str, 1.0)
        assert state.nodes == () and state.network_label == "" and state.each_label == ""


def test_the_nodes_build_needs_more_than_a_node_and_says_what_crossing_it_costs():
    told = story(ModelMemoryStory, BASE, mm.BUILDS.index("nodes"), "", "en", "model_memory")
    r = told.results["nodes"]
    gpu = r.gpu
    # the what-if is honest: its weights do not fit in one node's memory, and it fills two nodes
    assert r.weights_bytes > gpu.node_gpus * gpu.memory_bytes and r.nodes == 2 and r.fits
    levels = r.decode.communication_levels
    inside = sum(seconds for _level, link, seconds in levels if link != "network")
    between = sum(seconds for _level, link, seconds in levels if link == "network")
    assert inside > 0 and between > 0
    assert inside + between == pytest.approx(r.decode.communication_seconds)
    values = told.caption_values()
    assert values["inside"] == format_seconds(inside) and values["between"] == format_seconds(between)
    caption = TEXTS["caption"]["nodes"]["en"].format_map(values)
    assert format_seconds(inside) in caption and format_seconds(between) in caption
    notes = TEXTS["notes"]["nodes"]["en"].format_map(told.note_values())
    for level, link, seconds in levels:     # each level of the report, with the link it crosses
        assert format_seconds(seconds) in notes
    assert bars.network_parts(r, scene_text("model_memory"))[0] in notes
    wide = ASK(questions.report, dataclasses.replace(r.scenario, tp=r.scenario.gpus, pp=1))
    assert format_seconds(wide.decode.communication_seconds) in notes     # tensor parallel over both nodes
    assert wide.decode.communication_seconds > r.decode.communication_seconds


def test_the_split_build_gives_its_communication_per_step():
    told = story(ModelMemoryStory, BASE, mm.BUILDS.index("split"), "", "en", "model_memory")
    r = told.results["split"]
    notes = TEXTS["notes"]["split"]["en"].format_map(told.note_values())
    (level, link, seconds), = r.decode.communication_levels
    assert (level, link) == ("tensor", "link") and format_seconds(seconds) in notes
    assert format_seconds(r.decode.seconds_per_token) in notes


@pytest.mark.parametrize("code", ("en", "zh"))
def test_a_capped_context_stops_at_the_models_maximum_and_says_so(code):
    r = report(model="llama-3.1-8b", gpus=1)
    assert r.longest_context_capped and r.memory_context_tokens > r.longest_context_tokens
    text = scene_text("model_memory", code)
    line, role = bars.verdict(r, text, str)
    maximum = CATALOG.model("llama-3.1-8b").max_context_tokens
    assert r.longest_context_tokens == maximum and role == "good"
    context = r.scenario.prompt_tokens + r.scenario.output_tokens
    assert format_count(maximum) in line
    assert format_count(maximum - context) in line          # the more tokens, up to the maximum
    assert format_count(r.memory_context_tokens - context) not in line
    saying = {"en": "maximum", "zh": "上限"}[code]
    assert saying in line
    longest = figures.figures(r, text, ASK)["longest"]
    assert format_count(maximum) in longest and saying in longest
    # the smaller build of the story is this very case: its caption values and notes say so too
    told = story(ModelMemoryStory, BASE, mm.BUILDS.index("smaller"), "", code, "model_memory")
    notes = TEXTS["notes"]["smaller"][code].format_map(told.note_values())
    assert saying in notes and format_count(r.memory_context_tokens - context) not in notes
    uncapped = report(model="llama-3.1-70b", gpus=2)
    assert not uncapped.longest_context_capped and saying not in bars.verdict(uncapped, text, str)[0]


@pytest.mark.parametrize("weights", ("fp8", "int4", "fp16"))
@pytest.mark.parametrize("model", ("llama-3.1-70b", "deepseek-v3", "llama-3.1-8b"))
def test_the_weights_formula_adds_up_to_the_engines_weights(model, weights):
    r = report(model=model, weights=weights, gpus=16 if model == "deepseek-v3" else 2)
    parts = ASK(figures.weight_parts, r.scenario)
    assert parts.narrow_parameters + parts.wide_parameters == pytest.approx(r.parameters)
    assert parts.narrow_bytes + parts.wide_bytes == pytest.approx(r.weights_bytes, rel=1e-12)
    assert parts.narrow_bytes_per_value == r.weights_precision.bytes_per_value
    formula = figures.weights_formula(r, parts, scene_text("model_memory"))
    assert formula.endswith(f"= {format_bytes(r.weights_bytes)}")
    if weights == "fp16":         # everything at 2 bytes: one product
        assert formula.startswith(figures.format_parameters(r.parameters)) and "+" not in formula
    else:                         # the layers at their width, the embeddings, LM head and norms at 16 bits
        assert f"{format_bytes(parts.narrow_bytes)} + {format_bytes(parts.wide_bytes)}" in formula
        assert parts.wide_bytes_per_value == 2.0


@pytest.mark.parametrize("code", ("en", "zh"))
def test_the_fp8_and_int4_notes_show_the_formula_the_engine_adds_up(code):
    for build in ("quantise", "int4"):
        told = story(ModelMemoryStory, BASE, mm.BUILDS.index(build), "", code, "model_memory")
        r = told.results[build]
        parts = ASK(figures.weight_parts, r.scenario)
        notes = TEXTS["notes"][build][code].format_map(told.note_values())
        assert f"{format_bytes(parts.narrow_bytes)} + {format_bytes(parts.wide_bytes)} = " \
               f"{format_bytes(r.weights_bytes)}" in notes
        caption = TEXTS["caption"][build][code].format_map(told.caption_values())
        assert format_bytes(r.weights_bytes_per_gpu) in caption
    int4 = story(ModelMemoryStory, BASE, mm.BUILDS.index("int4"), "", code, "model_memory")
    bits = CATALOG.precision("int4").bytes_per_value * 8                  # 4-bit values with their group scales
    assert f"{bits:g}" in TEXTS["caption"]["int4"][code].format_map(int4.caption_values())


def test_the_story_keeps_its_own_layout_whatever_the_panels_degrees():
    """The panel's --tp/--pp would break the story's one-card what-ifs: the story lays its GPUs out by default."""
    shared = dataclasses.replace(BASE, model="llama-3.1-405b", gpus=16, tp=16, pp=1)
    told = story(ModelMemoryStory, shared, 0, "", "en", "model_memory")
    assert all(not isinstance(told.results[phase], InputError) for phase in mm.BUILD_CHANGES)
    assert told.results["nodes"].layout.tensor == 8
    assert told.results["explore"].layout.tensor == 16
