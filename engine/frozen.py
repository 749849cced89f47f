"""``@frozen``: an immutable value type. A frozen dataclass that compiles one method, not six.

    @frozen
    class Scenario:
        gpu: str = "h800"
        ...

Python 3.11's ``dataclass`` writes each method it makes as source text and
compiles it, one ``exec`` apiece: six for a frozen class (``__init__``,
``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``). Some
thirty value types are made before the app's first frame, and compiling their
methods was the largest cost of the start that the app itself owns. ``frozen``
has ``dataclass`` read the fields and make no method, compiles the
``__init__`` (which has to name them) itself, in one ``exec``, assigning each
field as a frozen dataclass's does (``object.__setattr__``), and gives the
class the other five written once below, which read its fields through one
``operator.attrgetter`` made per class. They answer as ``dataclass``'s own:
equal when of the same class with equal compared fields (``NotImplemented``
otherwise), the hash of the hashed fields, ``Name(field=value, ...)`` over the
fields shown, ``FrozenInstanceError`` for any assignment or deletion; a method
the class writes itself is kept. ``dataclasses.fields``, ``replace`` and
``asdict`` work unchanged. What ``__init__`` does: the fields in order as
parameters, a default or a ``default_factory`` where given, ``init=False``
fields set from their default (or left to ``__post_init__``), then
``__post_init__`` when the class has one; ``kw_only`` and ``InitVar`` fields
are refused (none of the app's value types has one). A class without a
docstring has its name as one (``dataclass`` would work out its signature).

Every layer's value types are made with it: widgets/, which imports nothing else of
the engine, imports this module alone (the ``engine`` package loads its names
only when asked for). A start made with dataclass's own, then with ``frozen``
(callgrind): 1,535.8M instructions; engine and desktop 1,420.1M; widgets too
1,334.5M (with two other changes between).
"""
from __future__ import annotations

import reprlib
from dataclasses import MISSING, FrozenInstanceError, dataclass, fields
from operator import attrgetter

_NO_VALUE = object()       # a default_factory field's default: the factory is called


def frozen(cls: type) -> type:
    """``cls`` as a frozen dataclass (``@dataclass(frozen=True)``): see the module's docstring."""
    own = dict(cls.__dict__)
    if not own.get("__doc__"):
        cls.__doc__ = cls.__name__
    cls = dataclass(cls, init=False, repr=False, eq=False)
    made = fields(cls)
    for f in cls.__dataclass_fields__.values():            # fields() leaves InitVar (and ClassVar) ones out
        if f.kw_only is True or "InitVar" in str(f.type):
            raise TypeError(f"{cls.__qualname__}.{f.name}: frozen makes no keyword-only or InitVar fields")
    cls.__init__ = _init(cls, made)
    cls._frozen_fields = frozenset(f.name for f in made)
    cls._frozen_compared = staticmethod(_reader([f.name for f in made if f.compare]))
    cls._frozen_hashed = staticmethod(_reader([f.name for f in made if (f.compare if f.hash is None else f.hash)]))
    cls._frozen_shown = tuple(f.name for f in made if f.repr)
    cls.__setattr__, cls.__delattr__ = _refuse_assignment, _refuse_deletion
    if "__eq__" not in own:
        cls.__eq__ = _eq
    # A hash the class writes is kept; Python's None for a class that writes only __eq__ is not one of those.
    if "__hash__" not in own or (own["__hash__"] is None and "__eq__" in own):
        cls.__hash__ = _hash
    if "__repr__" not in own:
        cls.__repr__ = _repr
    return cls


def _init(cls: type, made) -> object:
    """The class's ``__init__``, compiled from one text."""
    names = {"_set": object.__setattr__, "_NO_VALUE": _NO_VALUE}
    parameters, lines = [], []
    for f in made:
        default = f"_default_{f.name}"
        names[default] = f.default if f.default is not MISSING else f.default_factory
        value = f.name
        if f.init and f.default is not MISSING:
            parameters.append(f"{f.name}={default}")
        elif f.init and f.default_factory is not MISSING:
            parameters.append(f"{f.name}=_NO_VALUE")
            value = f"{default}() if {f.name} is _NO_VALUE else {f.name}"
        elif f.init:
            parameters.append(f.name)
        elif f.default is not MISSING:
            value = default
        elif f.default_factory is not MISSING:
            value = f"{default}()"
        else:
            continue                       # set by __post_init__
        lines.append(f"    _set(self, {f.name!r}, {value})")
    if hasattr(cls, "__post_init__"):
        lines.append("    self.__post_init__()")
    text = f"def __init__(self, {', '.join(parameters)}):\n" + "\n".join(lines or ["    pass"]) + "\n"
    exec(text, names)
    init = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = {**{f.name: f.type for f in made if f.init}, "return": None}
    return init


def _reader(names: list[str]):
    """A function of an instance: the tuple of those fields' values."""
    if not names:
        return lambda _value: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda value: (one(value),)
    return attrgetter(*names)


def _refuse_assignment(self, name, value):
    kind = type(self)
    if "_frozen_fields" in kind.__dict__ or name in kind._frozen_fields:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)        # a plain subclass's own attribute


def _refuse_deletion(self, name):
    kind = type(self)
    if "_frozen_fields" in kind.__dict__ or name in kind._frozen_fields:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


def _eq(self, other):
    if other is self:               # what comparing the fields would say (each compares equal to itself there too)
        return True
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
