"""Reliability of the scenes themselves: extreme but valid catalogue entries render, and a scene that cannot be
built shows why while the rest of the app goes on."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QSize

from desktop.i18n import Language
from desktop.scenario_store import ScenarioStore
from desktop.kit.scene import SceneKit, create_scene
from desktop.scene_failure import FailedScene
from desktop.scenes import registry
from desktop.scenes.registry import scene_classes
from desktop.kit import questions
from desktop.kit.answers import refused
from engine import Scenario
from engine.catalog import load_catalog
from widgets.theme import THEMES, for_screen

# The two ends of every range the catalogue accepts (engine.catalog_types.PHYSICAL_RANGES): a GPU a thousand
# times slower than any real one, and one far beyond any, with a tiny and a huge model.
EXTREMES = """
[gpus.slowest]
name = "Slowest"
vendor = "Test"
memory_bytes = 1e14
memory_bandwidth_bytes_per_second = 1e9
interconnect = "PCIe"
interconnect_bytes_per_second = 1e8
pcie_bytes_per_second = 1e8
[gpus.slowest.flops]
fp16 = 1e11
fp8 = 1e11

[gpus.fastest]
name = "Fastest"
vendor = "Test"
memory_bytes = 1e14
memory_bandwidth_bytes_per_second = 1e15
interconnect = "NVLink"
interconnect_bytes_per_second = 1e15
pcie_bytes_per_second = 1e15
[gpus.fastest.flops]
fp16 = 1e18
fp8 = 1e18

[models.tiny]
name = "Tiny"
layers = 1
hidden_size = 8
attention_heads = 1
kv_heads = 1
head_dim = 8
intermediate_size = 8
vocab_size = 16
tied_embeddings = true
published_parameters = 1e3
max_context_tokens = 1000000000
source = "the smallest the catalogue accepts"

[models.short]
name = "Short"
layers = 2
hidden_size = 64
attention_heads = 2
kv_heads = 1
head_dim = 32
intermediate_size = 128
vocab_size = 1000
tied_embeddings = true
published_parameters = 1e5
max_context_tokens = 12
source = "a longest context shorter than scene 3's question and answer (about 25 tokens)"
"""


@pytest.fixture(scope="module")
def extreme_catalog(tmp_path_factory):
    path = tmp_path_factory.mktemp("catalog") / "catalog.toml"
    path.write_text(EXTREMES, encoding="utf-8")
    catalog = load_catalog(user_file=path)
    assert catalog.warnings == []
    return catalog


@pytest.mark.parametrize("scenario", [
    Scenario(gpu="slowest", model="llama-3.1-8b", gpus=1),
    Scenario(gpu="fastest", model="llama-3.1-8b", gpus=1, batch=4096),
    Scenario(gpu="fastest", model="tiny", gpus=1, prompt_tokens=1, output_tokens=1),
    Scenario(gpu="slowest", model="tiny", gpus=1, prompt_tokens=5_000_000, output_tokens=5_000_000),
    Scenario(gpu="fastest", model="short", gpus=1, prompt_tokens=4, output_tokens=4),
], ids=["slowest-8b", "fastest-8b-4096", "fastest-tiny-1-token", "slowest-tiny-10M", "short-context-12"])
def test_extreme_but_valid_entries_render_in_every_build_of_every_scene(qtbot, extreme_catalog, scenario):
    store = ScenarioStore(scenario, catalog=extreme_catalog)
    assert not refused(store.answers.ask(questions.report, scenario)) and store.scenario == scenario
    theme = for_screen(THEMES["light"], 768)
    for cls in scene_classes():
        scene = create_scene(cls, SceneKit(Language("zh"), store, theme))
        qtbot.addWidget(scene)
        scene.resize(QSize(960, 540))
        scene.ensure_ready()
        for index in range(scene.build_count):
            scene.go_to_build(index)
            scene.clock.set_seconds(scene.clock.seconds() + 0.3)
            assert scene.caption() and scene.notes()
            assert not scene.grab().isNull()           # one painted frame: finite, bounded work
            assert "loading" not in scene.phase()      # a short model never leaves a scene loading for ever
        scene.close()


def test_a_scene_that_cannot_be_built_shows_why_and_the_talk_goes_on(make_window, monkeypatch):
    real_load = registry._load

    keys = registry.SCENES
    broken_key, before, after = keys[2], keys[1], keys[3]

    def broken(module, key):
        if key == broken_key:
            raise RuntimeError("a bug in this scene")
        return real_load(module, key)

    monkeypatch.setattr(registry, "_load", broken)
    window = make_window("en")
    window.deck.show(window.deck.position_of(before))
    for _ in range(window.deck.current.build_count):
        window.run_command("next")
    assert isinstance(window.deck.current, FailedScene) and window.deck.current_key == broken_key
    assert "a bug in this scene" in window.slide.caption_label.text()
    assert window.slide.title_label.text() == window.language.text(f"{broken_key}.title")
    window.run_command("next")                                       # and on to the next scene
    assert window.deck.current_key == after and not isinstance(window.deck.current, FailedScene)
