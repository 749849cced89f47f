"""A long name from the user catalogue never widens the window past the screen.

A 250-character model name gave a 2,129 px window on a 1920 screen (in presentation
the stage was cut off), a 3,000-character one a 36,898 px window, and that geometry
was saved. Every place that shows a catalogue name ends it with "…" instead.
"""
from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtGui import QGuiApplication

from desktop.scenario_store import ScenarioStore
from desktop.settings import Settings
from engine.catalog import default_catalog


@pytest.mark.parametrize("length", [250, 3000])
def test_a_long_model_name_is_elided_and_the_window_stays_on_the_screen(make_window, qtbot, length):
    catalog = default_catalog()
    name = "Llama " + "x" * length
    model = replace(catalog.model("llama-3.1-70b"), name=name)
    long_catalog = replace(catalog, models={**catalog.models, "llama-3.1-70b": model})
    store = ScenarioStore(Settings().scenario, catalog=long_catalog)
    window = make_window("en", store=store)
    screen = QGuiApplication.primaryScreen().geometry()
    window.resize(1024, 768)
    qtbot.waitUntil(lambda: window.width() == 1024)                  # not wider than asked for
    assert window.minimumSizeHint().width() <= 1024
    corner = window.slide.subject_label
    assert corner.full_text().startswith(name) or name in corner.full_text()
    assert corner.text() != corner.full_text() and "…" in corner.text()
    assert corner.width() < 1024
    window.presentation.start(from_start=True)                       # fullscreen on the screen it is on
    qtbot.waitUntil(lambda: window.presentation.active and window.width() == screen.width())
    window.slide.layout().activate()
    assert window.slide.stage.geometry().right() <= window.slide.width() <= screen.width()
    window.presentation.leave()


@pytest.mark.parametrize("size", [(1024, 768), (1920, 1080), (3840, 2160)])
@pytest.mark.parametrize("code", ["en", "zh"])
def test_a_subject_of_ordinary_length_is_never_cut(presenting, size, code):
    """The cap on long names must not cut the default scenario's corner at any projector size."""
    from PySide6.QtCore import QSize
    from desktop.scenes.registry import scene_entries
    from desktop.stage_subject import subject_texts
    frame, scene, language = presenting(scene_entries()[0].load(), code, QSize(*size))
    frame.set_subject(*subject_texts(language, scene))
    frame.layout().activate()
    corner = frame.subject_label
    assert corner.text() == corner.full_text() and "…" not in corner.text()


@pytest.mark.parametrize("text", ["Qwen3 0.6B · FP16 · 1 × NVIDIA H800 SXM5", "Llama 3.1 70B · FP16 · 2 × NVIDIA H800 SXM5",
                                  "DeepSeek V3 · FP8 · 16 × NVIDIA H800 SXM5", "Qwen3 0.6B · FP16 · 1 × NVIDIA GeForce RTX 4090"])
@pytest.mark.parametrize("points", [9, 11, 13, 17])
def test_a_subject_given_the_room_it_asks_for_is_shown_whole(qapp, text, points):
    """Scene 9's corner once read "Qwen3 0.6B · FP16 …× NVIDIA H800 SXM5": its whole-pixel width was a fraction
    of a pixel short of the text's, so the label it asked for elided it."""
    from PySide6.QtGui import QFont
    from desktop.slide import ElidedLabel
    label = ElidedLabel()
    font = QFont(label.font())
    font.setPointSize(points)
    label.setFont(font)
    label.set_full_text(text)
    label.resize(label.sizeHint())
    label.show()
    qapp.processEvents()
    assert label.width() == label.sizeHint().width() and label.text() == text
