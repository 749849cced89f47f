"""The drop-down that ends a long choice with "…": Qt draws it, handed the shortened text."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox

from desktop.eliding_combo import FUSION_FIELD_MARGIN_PX, ElidingComboBox

LONG = "NVIDIA H800 SXM5 with a long name"


@pytest.fixture
def fusion(qapp):
    before = qapp.style().name()
    qapp.setStyle("Fusion")
    yield
    qapp.setStyle(before)


def shown(qtbot, combo, text: str, width: int = 125):
    combo.addItem(text)
    combo.resize(width, 26)
    qtbot.addWidget(combo)
    combo.show()
    qtbot.waitExposed(combo)
    return combo


@pytest.mark.parametrize("width", [60, 125, 300])
def test_the_field_width_is_fusions_own(qtbot, fusion, width):
    combo = shown(qtbot, ElidingComboBox(), LONG, width)
    option = QStyleOptionComboBox()
    QComboBox.initStyleOption(combo, option)
    field = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                         QStyle.SubControl.SC_ComboBoxEditField, combo)
    assert field.width() == width - FUSION_FIELD_MARGIN_PX


def test_a_choice_too_long_is_drawn_shortened_and_named_whole_in_its_tip(qtbot, fusion):
    combo = shown(qtbot, ElidingComboBox(), LONG)
    shortened = combo.fontMetrics().elidedText(LONG, Qt.TextElideMode.ElideRight, 125 - FUSION_FIELD_MARGIN_PX)
    assert shortened.endswith("…") and len(shortened) < len(LONG)
    plain = shown(qtbot, QComboBox(), shortened)
    assert combo.grab().toImage() == plain.grab().toImage()
    assert combo.toolTip() == LONG and combo.currentText() == LONG


def test_a_choice_that_fits_is_drawn_as_any_drop_down_draws_it(qtbot, fusion):
    combo = shown(qtbot, ElidingComboBox(), "FP16")
    assert combo.grab().toImage() == shown(qtbot, QComboBox(), "FP16").grab().toImage()
    long_plain = shown(qtbot, QComboBox(), LONG)
    assert shown(qtbot, ElidingComboBox(), LONG).grab().toImage() != long_plain.grab().toImage()
