"""``signals_blocked``: a control written by the view never reports it back, and its blocking is restored."""
from __future__ import annotations

import pytest
from PySide6.QtWidgets import QSpinBox

from desktop.kit.signals import signals_blocked


def test_nothing_is_heard_inside_and_everything_after(qtbot):
    box, other = QSpinBox(), QSpinBox()
    heard = []
    box.valueChanged.connect(heard.append)
    with signals_blocked(box, other, box):              # named twice: still unblocked afterwards
        box.setValue(5)
    assert heard == [] and not box.signalsBlocked() and not other.signalsBlocked()
    box.setValue(6)
    assert heard == [6]


def test_a_block_already_in_place_stays_and_an_exception_still_restores(qtbot):
    box, other = QSpinBox(), QSpinBox()
    other.blockSignals(True)
    with pytest.raises(RuntimeError):
        with signals_blocked(box, other):
            raise RuntimeError("a bug inside")
    assert not box.signalsBlocked() and other.signalsBlocked()
