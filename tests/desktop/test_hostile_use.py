"""Hostile use of the scenes past the tutorial: presentation keys pressed at random, the window resized from 1x1 to
7000x5000, the scenario switched to very different deployments, all without waiting. Nothing may raise (pytest-qt
fails a test on an exception in any slot or paint) and each scene must still draw its build afterwards.

Run by hand for two minutes a scene, this storm found the roofline's axes spanning thousands of decades; here it
is short and seeded, so a failure can be replayed."""
from __future__ import annotations

import random

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

K = Qt.Key
KEYS = (K.Key_Right, K.Key_Left, K.Key_Space, K.Key_PageDown, K.Key_PageUp, K.Key_L, K.Key_B, K.Key_Home,
        K.Key_End, K.Key_I, K.Key_Escape, K.Key_T)
SIZES = ((1, 1), (320, 200), (1024, 768), (7000, 5000), (1920, 1080), (640, 4000), (5000, 300))
CHANGES = (dict(gpu="rtx-4090", model="llama-3.1-8b", gpus=1), dict(gpu="h800", model="deepseek-v3", weights="fp8", gpus=16),
           dict(model="qwen3-0.6b", gpus=1, batch=4096), dict(gpu="m4-max", model="llama-3.2-1b", gpus=1,
                                                                  prompt_tokens=1, output_tokens=1),
           dict(gpu="h800", model="llama-3.1-70b", gpus=2, batch=1, prompt_tokens=1000, output_tokens=500, weights="fp16"),
           dict(mode="ideal"), dict(mode="realistic"))
ACTIONS = 150


@pytest.mark.parametrize("key", ["levers", "serving", "your_machine"])
def test_a_storm_of_keys_sizes_and_scenarios_leaves_the_scene_drawing(make_window, key):
    window = make_window("en")
    position = window.deck.position_of(key)
    window.deck.show(position)
    rng = random.Random(f"storm-{key}")
    for _ in range(ACTIONS):
        if window.deck.position != position:
            window.deck.show(position)
        roll = rng.random()
        if roll < 0.6:
            QtBot.keyClick(window.slide, rng.choice(KEYS))
        elif roll < 0.8:
            window.resize(*rng.choice(SIZES))
        else:
            window.store.update(**rng.choice(CHANGES))
        QApplication.processEvents()
    if window.presentation.active:
        window.presentation.stop()
    window.resize(1366, 768)
    window.deck.show(position)
    scene = window.deck.current
    scene.ensure_ready()
    for build in range(scene.build_count):
        scene.go_to_build(build, animate=False)
        assert not scene.grab().isNull() and scene.caption()
