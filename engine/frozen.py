"""``@frozen``: an immutable value type. A frozen dataclass whose comparing, hashing and printing are shared.

    @frozen
    class Scenario:
        gpu: str = "h800"
        ...

Python 3.11's ``dataclass`` writes each method it makes as source text and
compiles it, one ``exec`` apiece: six for a frozen class. Some thirty value
types are made before the app's first frame, and compiling their methods was the
largest cost of the start that the app itself owns: the engine's and the
desktop's made with ``frozen`` instead, a start runs 3.4% fewer instructions
(callgrind: 1,535.8M -> 1,483.8M). ``frozen`` has ``dataclass`` make only
what has to name the fields (``__init__``, and the ``__setattr__`` and
``__delattr__`` that refuse a change) and gives the class the ``__eq__``,
``__hash__`` and ``__repr__`` written once below, which read its fields through
one ``operator.attrgetter`` made per class. They answer as ``dataclass``'s own:
equal when of the same class with equal compared fields (``NotImplemented``
otherwise), the hash of the hashed fields, ``Name(field=value, ...)`` over the
fields shown; and a method the class writes itself is kept, as ``dataclass``
keeps it. ``dataclasses.fields``, ``replace`` and ``asdict`` work unchanged.

widgets/ stands on Qt alone (it imports nothing of the engine), so its states stay
``@dataclass(frozen=True)``.
"""
from __future__ import annotations

import reprlib
from dataclasses import dataclass, fields
from operator import attrgetter


def frozen(cls: type) -> type:
    """``cls`` as a frozen dataclass (``@dataclass(frozen=True)``), its ``__eq__``/``__hash__``/``__repr__``
    the shared ones unless it writes its own."""
    own = dict(cls.__dict__)
    cls = dataclass(cls, frozen=True, repr=False, eq=False)
    made = fields(cls)
    cls._frozen_compared = staticmethod(_reader([f.name for f in made if f.compare]))
    cls._frozen_hashed = staticmethod(_reader([f.name for f in made if (f.compare if f.hash is None else f.hash)]))
    cls._frozen_shown = tuple(f.name for f in made if f.repr)
    if "__eq__" not in own:
        cls.__eq__ = _eq
    # A hash the class writes is kept; Python's None for a class that writes only __eq__ is not one of those.
    if "__hash__" not in own or (own["__hash__"] is None and "__eq__" in own):
        cls.__hash__ = _hash
    if "__repr__" not in own:
        cls.__repr__ = _repr
    return cls


def _reader(names: list[str]):
    """A function of an instance: the tuple of those fields' values."""
    if not names:
        return lambda _value: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda value: (one(value),)
    return attrgetter(*names)


def _eq(self, other):
    if other.__class__ is self.__class__:
        compared = self._frozen_compared
        return compared(self) == compared(other)
    return NotImplemented


def _hash(self) -> int:
    return hash(self._frozen_hashed(self))


@reprlib.recursive_repr()
def _repr(self) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._frozen_shown)
    return f"{self.__class__.__qualname__}({shown})"
