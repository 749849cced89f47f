"""What the probe tests share: a catalogue with a small real model's shapes, and a quick probe.

``QWEN3_SHAPES`` has Qwen3-0.6B's decoder shapes, so the tests run real
transformer matrices while staying small (a layer is 63 MB in float32; the
tests give the probe 32 MB, so it runs part of one layer). Its id is the
tests' own, so that it cannot clash with a catalogue entry of the same model.
"""
from __future__ import annotations

from dataclasses import replace

from engine.catalog_types import Model
from tests.engine.fixtures import CATALOG

QWEN3_SHAPES = Model(
    id="test-qwen3-0.6b-shapes", name="Qwen3-0.6B",
    source="https://huggingface.co/Qwen/Qwen3-0.6B/blob/main/config.json (num_hidden_layers 28, hidden_size 1024, "
           "num_attention_heads 16, num_key_value_heads 8, head_dim 128, intermediate_size 3072, "
           "vocab_size 151936, tie_word_embeddings true); model card (0.6B parameters)",
    layers=28, hidden_size=1024, attention_heads=16, kv_heads=8, head_dim=128, intermediate_size=3072,
    vocab_size=151936, tied_embeddings=True, published_parameters=0.6e9, max_context_tokens=40960)
PROBE_CATALOG = replace(CATALOG, models={**CATALOG.models, QWEN3_SHAPES.id: QWEN3_SHAPES})
SMALL_BUDGET_BYTES = 32_000_000       # quick on any machine, and still several times a laptop's L2 cache


def quick_probe(**options):
    """The probe of this machine at the tests' small size, the CPU only unless told otherwise."""
    from engine.probe import probe_machine
    options.setdefault("accelerators", False)
    return probe_machine(QWEN3_SHAPES.id, catalog=PROBE_CATALOG, memory_budget_bytes=SMALL_BUDGET_BYTES, **options)
