"""Any scene may ask the frame to show another one through the base class's ``jump_requested``."""
from __future__ import annotations

from desktop.kit.scene import Scene


def test_every_scene_has_jump_requested_and_the_deck_follows_it(window):
    first = window.deck.current
    assert isinstance(first, Scene)
    last = window.deck.entries[-1].key
    first.jump_requested.emit(last)
    assert window.deck.current_key == last
    window.deck.current.jump_requested.emit("no_such_scene")      # no such scene: nothing moves
    assert window.deck.current_key == last


def test_the_summary_uses_the_base_class_signal():
    from desktop.scenes.summary.view import SummaryScene
    assert "scene_requested" not in vars(SummaryScene)
    assert SummaryScene.jump_requested is Scene.jump_requested
