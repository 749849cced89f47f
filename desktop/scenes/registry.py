"""The one place scenes are registered: their DESIGN.md numbers and keys, in order.

Each module defines ``SCENE = <Scene subclass>``. Adding a scene is one line
in ``SCENES`` plus its own module and its own ``resources/text/<key>.toml``; no
other scene and no part of the frame changes. Only scenes listed here appear in the
app, so a scene that does not exist yet is simply absent, never a placeholder.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop.scene import Scene

# The DESIGN.md numbers a scene may have: six seed sections and the summary. A scene's one identity.
SCENE_NUMBERS = range(1, 8)

# (DESIGN.md number, key) of every scene in this version; its module is ``desktop.scenes.<key>``. The list
# names the scenes without importing them: start-up imports only the scene it shows first.
SCENES = (
    (1, "gpu_waits"),
    (2, "model_memory"),
    (3, "one_token"),
    (4, "prefill_decode"),
    (5, "kv_cache"),
    (6, "tokens"),
    (7, "summary"),
)


@dataclass(frozen=True)
class SceneEntry:
    """A registered scene before its module is imported: what the scene list and the deck need to name it."""
    number: int
    key: str

    @property
    def module(self) -> str:
        return f"desktop.scenes.{self.key}"

    def load(self) -> type["Scene"]:
        """The scene's class (its module imported once). A module whose ``SCENE`` does not have this entry's
        number and key, or has no builds, is a programming error and raises at once."""
        return _load(self)


@lru_cache(maxsize=None)
def _load(entry: SceneEntry) -> type["Scene"]:
    cls = import_module(entry.module).SCENE
    if (cls.number, cls.key) != (entry.number, entry.key) or not cls.build_names:
        raise ValueError(f"{entry.module}.SCENE must have number {entry.number}, key {entry.key!r} and at least "
                         f"one build; got {cls.number}, {cls.key!r}")
    return cls


def _check(scenes) -> tuple[SceneEntry, ...]:
    numbers, keys = [n for n, _ in scenes], [k for _, k in scenes]
    if len(set(numbers)) != len(numbers) or len(set(keys)) != len(keys) or not set(numbers) <= set(SCENE_NUMBERS):
        raise ValueError(f"scene numbers must be unique and in {SCENE_NUMBERS.start}..{SCENE_NUMBERS.stop - 1}, "
                         f"keys unique; got {numbers} and {keys}")
    return tuple(SceneEntry(number, key) for number, key in sorted(scenes))


ENTRIES = _check(SCENES)


def scene_entries() -> tuple[SceneEntry, ...]:
    """The registered scenes in DESIGN.md order, not yet imported."""
    return ENTRIES


def scene_classes() -> tuple[type["Scene"], ...]:
    """Every registered scene's class in DESIGN.md order (imports all of them: export and tests)."""
    return tuple(entry.load() for entry in ENTRIES)


def scene_class(number: int) -> type["Scene"] | None:
    """The registered scene with DESIGN.md number ``number`` (imported), or None."""
    return next((entry.load() for entry in ENTRIES if entry.number == number), None)


def export_name(cls) -> str:
    """The file stem of a scene's picture: ``01-gpu_waits``."""
    return f"{cls.number:02d}-{cls.key}"
