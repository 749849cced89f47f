"""``@frozen`` answers as ``@dataclass(frozen=True)`` does: equality, hashing, printing, refusal of changes."""
from __future__ import annotations

import copy
import inspect
import dataclasses
import pickle

import pytest

from engine.frozen import frozen


def both(body):
    """The same class made by ``frozen`` and by ``dataclass(frozen=True)``."""
    return frozen(body()), dataclasses.dataclass(frozen=True)(body())


def point():
    class Point:
        x: int
        y: float = 0.0
        note: str = dataclasses.field(default="", compare=False, repr=False)
        tags: tuple = dataclasses.field(default=(), hash=False)
    return Point


@frozen
class Kept:                 # at module level, so that pickle finds it
    x: int
    tags: tuple = ()


@pytest.fixture(params=["frozen", "dataclass"])
def Point(request):
    made, reference = both(point)
    return made if request.param == "frozen" else reference


def test_equal_compared_fields_make_equal_values_and_the_uncompared_field_does_not_count(Point):
    assert Point(1, 2.0, note="a") == Point(1, 2.0, note="b")
    assert Point(1, 2.0) != Point(1, 3.0) and Point(1, 2.0, tags=(1,)) != Point(1, 2.0)
    assert Point(1) != (1, 0.0, ()) and (Point(1) == object()) is False


def test_another_class_with_the_same_fields_is_never_equal():
    made, reference = both(point)
    assert made(1) != reference(1) and made(1).__eq__(made.__mro__[0](1)) is True
    assert made(1).__eq__(reference(1)) is NotImplemented


def test_hash_and_repr_are_the_dataclasses_own():
    made, reference = both(point)
    for args in [(1,), (2, 3.5), (0, -1.0)]:
        a, b = made(*args, note="n", tags=(4,)), reference(*args, note="n", tags=(4,))
        assert hash(a) == hash(b) and repr(a) == repr(b)
    assert hash(made(1, tags=(1,))) == hash(made(1, tags=(2,)))     # tags: compared, not hashed
    assert {made(1), made(1, note="x")} == {made(1)}


def test_a_value_refuses_a_change_and_copies_pickles_and_replaces():
    made, _ = both(point)
    value = made(1, 2.0, tags=(3,))
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.x = 5
    with pytest.raises(dataclasses.FrozenInstanceError):
        del value.y
    assert dataclasses.replace(value, x=9) == made(9, 2.0, tags=(3,))
    assert copy.deepcopy(value) == value and copy.copy(value) is not value
    kept = Kept(1, (2,))
    assert pickle.loads(pickle.dumps(kept)) == kept
    assert dataclasses.asdict(value) == {"x": 1, "y": 2.0, "note": "", "tags": (3,)}
    assert [f.name for f in dataclasses.fields(made)] == ["x", "y", "note", "tags"]


def test_methods_the_class_writes_itself_are_kept():
    @frozen
    class Own:
        a: int

        def __eq__(self, other):
            return True

        def __repr__(self):
            return "own"

    @frozen
    class OwnHash:
        a: int

        def __hash__(self):
            return 7

    assert Own(1) == Own(2) and repr(Own(1)) == "own" and hash(Own(1)) == hash((1,))
    assert hash(OwnHash(1)) == 7 and OwnHash(1) == OwnHash(1) != OwnHash(2)


def test_a_single_field_and_no_fields_compare_and_hash_as_tuples():
    @frozen
    class One:
        a: object

    @frozen
    class Empty:
        pass

    assert One(1) == One(1) != One(2) and hash(One(1)) == hash((1,))
    assert Empty() == Empty() and hash(Empty()) == hash(()) and repr(Empty()).endswith("<locals>.Empty()")


def test_a_value_that_holds_itself_prints_without_recursing():
    @frozen
    class Box:
        items: list

    box = Box([])
    box.items.append(box)
    assert repr(box).endswith("<locals>.Box(items=[...])")


def test_init_takes_what_the_dataclasses_init_takes():
    made, reference = both(point)
    for args, kwargs in [((1,), {}), ((1, 2.0), {"tags": (3,)}), ((), {"x": 4, "note": "n"})]:
        assert made(*args, **kwargs) == made(*args, **kwargs)
        assert repr(made(*args, **kwargs)) == repr(reference(*args, **kwargs))
    for args, kwargs in [((), {}), ((1, 2, 3, 4, 5), {}), ((1,), {"z": 2}), ((1,), {"x": 1})]:
        with pytest.raises(TypeError):
            made(*args, **kwargs)
        with pytest.raises(TypeError):
            reference(*args, **kwargs)
    assert list(inspect.signature(made).parameters) == list(inspect.signature(reference).parameters)
    assert made.__init__.__qualname__.endswith("Point.__init__")


def test_factories_init_false_fields_and_post_init_run_as_the_dataclasses_do():
    def body():
        class Worked:
            base: float
            shelf: list = dataclasses.field(default_factory=list)
            scale: float = dataclasses.field(default=2.0, init=False)
            scaled: float = dataclasses.field(init=False)

            def __post_init__(self):
                object.__setattr__(self, "scaled", self.base * self.scale)
        return Worked

    made, reference = both(body)
    one, two = made(3.0), made(3.0)
    assert one.shelf == [] and one.shelf is not two.shelf and made(1.0, [5]).shelf == [5]
    assert (one.scale, one.scaled) == (2.0, 6.0) and repr(one) == repr(reference(3.0))
    with pytest.raises(TypeError):
        made(1.0, [], 3.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.scaled = 1.0


def test_a_plain_subclass_may_keep_attributes_of_its_own_but_not_change_a_field():
    made, _ = both(point)

    class Plain(made):
        pass

    value = Plain(1)
    value.extra = 5
    assert value.extra == 5
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.x = 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        made(1).extra = 5


def test_keyword_only_and_init_var_fields_are_refused():
    class Keyed:
        a: int = dataclasses.field(kw_only=True)

    class Passed:
        a: dataclasses.InitVar[int]

    for cls in (Keyed, Passed):
        with pytest.raises(TypeError, match="keyword-only or InitVar"):
            frozen(cls)
