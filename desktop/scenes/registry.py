"""The one place scenes are registered: an ordered list of module paths.

Each module defines ``SCENE = <Scene subclass>``. Adding a scene is one line
here plus its own module and its own ``resources/text/<key>.toml``; no other
scene and no part of the frame changes. Only scenes listed here appear in the
app, so a scene that does not exist yet is simply absent, never a placeholder.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop.scene import Scene

# The DESIGN.md numbers a scene may have: six seed sections and the summary. A scene's one identity.
SCENE_NUMBERS = range(1, 8)

SCENE_MODULES = [
    "desktop.scenes.gpu_waits",
    "desktop.scenes.model_memory",
    "desktop.scenes.one_token",
    "desktop.scenes.prefill_decode",
    "desktop.scenes.kv_cache",
    "desktop.scenes.tokens",
    "desktop.scenes.summary",
]


@lru_cache(maxsize=None)
def scene_classes() -> tuple[type["Scene"], ...]:
    """The registered scene classes in DESIGN.md order (by ``number``).

    Imports each module once. A module without ``SCENE``, or two scenes with
    the same number or key, is a programming error and raises at once.
    """
    classes = [import_module(path).SCENE for path in SCENE_MODULES]
    numbers = [cls.number for cls in classes]
    keys = [cls.key for cls in classes]
    if len(set(numbers)) != len(numbers) or len(set(keys)) != len(keys):
        raise ValueError(f"scene numbers and keys must be unique, got {numbers} and {keys}")
    for cls in classes:
        if cls.number not in SCENE_NUMBERS or not cls.build_names:
            raise ValueError(f"{cls.__name__} needs a number in {SCENE_NUMBERS.start}..{SCENE_NUMBERS.stop - 1} "
                             "and at least one build")
    return tuple(sorted(classes, key=lambda cls: cls.number))


def scene_class(number: int) -> type["Scene"] | None:
    """The registered scene with DESIGN.md number ``number``, or None."""
    return next((cls for cls in scene_classes() if cls.number == number), None)


def export_name(cls: type["Scene"]) -> str:
    """The file stem of a scene's picture: ``01-gpu_waits``."""
    return f"{cls.number:02d}-{cls.key}"
