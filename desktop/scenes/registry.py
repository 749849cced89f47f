"""The running order: one list of scene keys. A scene's number, label and export name follow from its place.

A scene is known by its key, the name of its package ``desktop/scenes/<key>/``
(its texts: ``resources/text/<key>.toml``). Adding a scene is a folder, a text
file and one line in ``SCENES``; no other scene, test or setting changes, and a
scene put before the summary simply moves the summary one place on. Settings,
the summary's links and the command line's ``--scene`` name scenes by key
(``--scene`` also takes a number: the place in this list). Only scenes listed
here appear in the app.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import import_module
from typing import TYPE_CHECKING

from engine.frozen import frozen

if TYPE_CHECKING:
    from desktop.kit.scene import Scene

SCENES = (
    "gpu_waits",
    "model_memory",
    "one_token",
    "prefill_decode",
    "kv_cache",
    "tokens",
    "levers",
    "serving",
    "your_machine",
    "summary",
)

# What the first version of the app saved as the last scene: a number. Read once, then saved as the key.
FIRST_VERSION_NUMBERS = {1: "gpu_waits", 2: "model_memory", 3: "one_token", 4: "prefill_decode", 5: "kv_cache",
                         6: "tokens", 7: "summary"}


def title_key(key: str) -> str:
    """The text key of a scene's title: the one place it is written."""
    return f"{key}.title"


@frozen
class SceneEntry:
    """A registered scene before its package is imported: what the scene list and the deck need to name it."""
    key: str
    number: int                      # its place in the running order, from 1

    @property
    def module(self) -> str:
        return f"desktop.scenes.{self.key}.view"

    @property
    def export_name(self) -> str:
        """The file stem of its picture: ``01-gpu_waits``."""
        return f"{self.number:02d}-{self.key}"

    @property
    def title_key(self) -> str:
        return title_key(self.key)

    def label(self, language) -> str:
        """"3  One token at a time": its number and title, as the scene list shows it."""
        return f"{self.number}  {language.text(self.title_key)}"

    def load(self) -> type["Scene"]:
        """The scene's class (its package imported once). A package whose ``SCENE`` has another key or no
        builds is a programming error and raises at once."""
        return _load(self.module, self.key)


@lru_cache(maxsize=None)
def _load(module: str, key: str) -> type["Scene"]:
    cls = import_module(module).SCENE
    if cls.key != key or not cls.Story.builds:
        raise ValueError(f"{module}.SCENE must have key {key!r} and at least one build; got {cls.key!r}")
    return cls


def entries_for(keys) -> tuple[SceneEntry, ...]:
    """Entries for ``keys`` in that order; keys must be unique."""
    keys = tuple(keys)
    if len(set(keys)) != len(keys) or not keys:
        raise ValueError(f"scene keys must be unique and at least one; got {keys}")
    return tuple(SceneEntry(key, number) for number, key in enumerate(keys, start=1))


def scene_entries() -> tuple[SceneEntry, ...]:
    """The registered scenes in running order, not yet imported."""
    return entries_for(SCENES)


def scene_classes() -> tuple[type["Scene"], ...]:
    """Every registered scene's class in running order (imports all of them: export and tests)."""
    return tuple(entry.load() for entry in scene_entries())


def find_entry(name, entries: tuple[SceneEntry, ...] | None = None) -> SceneEntry | None:
    """The entry a person or a file names: a key (``"kv_cache"``), or a number as int or text (``5``, ``"5"``)."""
    entries = scene_entries() if entries is None else entries
    if isinstance(name, str):
        name = name.strip()
        if name.isdigit():
            name = int(name)
    if isinstance(name, bool):
        return None
    for entry in entries:
        if entry.key == name or entry.number == name:
            return entry
    return None
