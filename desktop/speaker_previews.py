"""The speaker view's picture of the next build: what it is of, and a small cache of them.

A picture is known by everything that decides what it shows (``PreviewKey``):
the scene's key, the build, the scenario, the language, the theme and the size
it is rendered at. The view asks for the key of the next step now, shows a
picture only under that key, and clears the old one the moment the wanted key
changes, so a picture of another scene, build, language or scenario can never
stand for the next build (issue 25, item 13: a stale preview once showed
another scene in the other language after the view was closed and opened again).
"""
from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import QSize
from PySide6.QtGui import QImage

from engine import Scenario
from engine.frozen import frozen

CACHE_SIZE = 6        # the next step, the one after, and a step back: a clicker stepping around renders each once
MAX_RENDER_SIZE = QSize(1920, 1080)     # a preview larger than this is scaled from a picture of this size


@frozen
class PreviewKey:
    """What a preview is a picture of."""
    scene: str            # the scene's key
    build: int
    scenario: Scenario
    language: str         # "en" or "zh"
    theme: str            # the theme's id
    width: int            # the size it is rendered at (the audience stage's, at most MAX_RENDER_SIZE)
    height: int


def render_size(stage: QSize) -> QSize:
    """The size a preview of a stage of ``stage`` pixels is rendered at: the stage's own, so it is laid out as
    the room will see it, scaled down to ``MAX_RENDER_SIZE`` where larger (a 4K stage)."""
    width, height = max(640, stage.width()), max(360, stage.height())
    scale = min(1.0, MAX_RENDER_SIZE.width() / width, MAX_RENDER_SIZE.height() / height)
    return QSize(round(width * scale), round(height * scale))


class PreviewCache:
    """The last ``CACHE_SIZE`` pictures by their key; ``render(key)`` makes one that is missing."""

    def __init__(self, render):
        self._render = render             # PreviewKey -> QImage
        self._pictures: OrderedDict[PreviewKey, QImage] = OrderedDict()

    def picture(self, key: PreviewKey) -> QImage:
        if key in self._pictures:
            self._pictures.move_to_end(key)
        else:
            self._pictures[key] = self._render(key)
            while len(self._pictures) > CACHE_SIZE:
                self._pictures.popitem(last=False)
        return self._pictures[key]

    def has(self, key: PreviewKey) -> bool:
        return key in self._pictures
