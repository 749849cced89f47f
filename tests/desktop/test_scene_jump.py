"""Any scene may ask the frame to show another one through the base class's ``jump_requested``."""
from __future__ import annotations

from desktop.scene import Scene


def test_every_scene_has_jump_requested_and_the_deck_follows_it(window):
    first = window.deck.current
    assert isinstance(first, Scene)
    last_number = window.deck.entries[-1].number
    first.jump_requested.emit(last_number)
    assert window.deck.entries[window.deck.position].number == last_number
    window.deck.current.jump_requested.emit(99)            # no such scene: nothing moves
    assert window.deck.entries[window.deck.position].number == last_number


def test_the_summary_uses_the_base_class_signal():
    from desktop.scenes.summary import SummaryScene
    assert "scene_requested" not in vars(SummaryScene)
    assert SummaryScene.jump_requested is Scene.jump_requested
