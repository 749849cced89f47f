"""The roofline plot's second machine: a dashed roof beside the first, its own ridge point and label, and
points off the roofs (measured runs) that no label covers."""
from dataclasses import replace

import pytest
from PySide6.QtCore import QSize

from engine import roofline
from engine.catalog import default_catalog
from tests.widgets.test_roofline_plot import TICKS
from widgets.roofline_plot import RooflinePlot
from widgets.roofline_signs import HOLLOW_POINTS
from widgets.roofline_state import OtherRoof, RooflinePoint, RooflineState, extent
from widgets.theme import THEMES, for_screen

CATALOG = default_catalog()
LAPTOP_PEAK, LAPTOP_BANDWIDTH = 2.9e11, 25e9        # a laptop's float32 compute and memory bandwidth
START, END = 0.33, 1e4


def two_machines() -> RooflineState:
    gpu, precision = CATALOG.gpu("h800"), CATALOG.precision("fp16")
    ridge = roofline.ridge_point(gpu, precision)
    roof = tuple((x, float(roofline.attainable_flops(gpu, precision, x))) for x in (START, ridge, END))
    laptop_ridge = LAPTOP_PEAK / LAPTOP_BANDWIDTH
    other = OtherRoof(tuple((x, min(LAPTOP_PEAK, LAPTOP_BANDWIDTH * x)) for x in (START, laptop_ridge, END)),
                      laptop_ridge, f"ridge here\n{laptop_ridge:.1f} FLOP/byte")
    points = (
        RooflinePoint("reference", "H800 decode: 3.5", 1.05, float(roofline.attainable_flops(gpu, precision, 1.05)),
                      value="3.5"),
        # measured runs: below their roof (a measurement never reaches the roofline exactly)
        RooflinePoint("prefill", "prefill here: 0.25", 148.0, 0.88 * LAPTOP_PEAK, value="0.25"),
        RooflinePoint("decode", "decode here: 0.013", 0.5, 0.9 * LAPTOP_BANDWIDTH * 0.5, value="0.013"),
    )
    return RooflineState(roof=roof, ridge_flops_per_byte=ridge, ridge_label=f"H800 ridge\n{ridge:.0f} FLOP/byte",
                         x_label="arithmetic intensity (FLOP/byte)", y_label="attainable (TFLOPS)", **TICKS,
                         points=points, other=other)


def test_the_plot_spans_both_roofs():
    state = two_machines()
    (low_x, low_y), (high_x, high_y) = extent(state)
    assert (low_x, high_x) == (START, END)
    assert low_y == pytest.approx(LAPTOP_BANDWIDTH * START) and high_y == pytest.approx(989.4e12)
    assert extent(replace(state, other=None, points=())) == ((START, state.roof[0][1]), (END, state.roof[2][1]))


def test_a_measured_point_far_below_its_roof_stays_inside_the_plot(qtbot):
    """A run that other programs slowed down a hundred times lies far under its roof: still drawn, not cut off."""
    state = two_machines()
    slow = RooflinePoint("decode", "decode here: 0.0001", 0.5, 0.01 * LAPTOP_BANDWIDTH * 0.5 * 0.9, value="0.0001")
    state = replace(state, points=(*state.points[:2], slow))
    assert extent(state)[0][1] == pytest.approx(slow.attainable_flops_per_second)
    plot = RooflinePlot(for_screen(THEMES["light"], 768))
    qtbot.addWidget(plot)
    plot.resize(980, 520)
    plot.set_state(state)
    assert plot.plot_rect().contains(plot.marker_rects()["decode"])


@pytest.mark.parametrize("size", [QSize(980, 520), QSize(1800, 760), QSize(640, 360)])
def test_the_second_roof_is_drawn_with_its_ridge_labelled_clear_of_everything(qtbot, size):
    plot = RooflinePlot(for_screen(THEMES["light"], 768))
    qtbot.addWidget(plot)
    plot.resize(size)
    state = two_machines()
    plot.set_state(state)
    plot.grab()
    xs, ys = plot._other_roof.getOriginalDataset()
    assert list(xs) == pytest.approx([state.other.ridge_flops_per_byte, END])
    assert list(ys) == pytest.approx([LAPTOP_PEAK, LAPTOP_PEAK])
    assert plot._other_slope.opts["pen"].style() != plot._slope.opts["pen"].style()     # dashed: not by colour alone
    texts = plot.label_texts()
    assert texts["other_ridge"].split("\n")[-1] == f"{state.other.ridge_flops_per_byte:.1f} FLOP/byte"
    rects = plot.label_rects()
    markers = plot.marker_rects()
    assert "other_ridge" in markers
    inside = [name for name in ("ridge", "other_ridge") if name in rects]
    assert "other_ridge" in inside
    for name in inside:
        for other in [*(r for n, r in rects.items() if n != name and n not in ("x_ticks", "y_ticks")),
                      *(m for key, m in markers.items() if key != name)]:
            overlap = rects[name].intersected(other)
            assert overlap.width() <= 1 or overlap.height() <= 1, (name, rects[name], other)


def test_without_a_second_machine_its_items_are_empty(qtbot):
    plot = RooflinePlot(THEMES["light"])
    qtbot.addWidget(plot)
    plot.set_state(two_machines())
    plot.set_state(replace(two_machines(), other=None))
    for item in (plot._other_slope, plot._other_roof, plot._other_ridge):
        xs, _ = item.getOriginalDataset()
        assert xs is None or len(xs) == 0
    assert "other_ridge" not in plot.label_texts() and "other_ridge" not in plot.marker_rects()


def test_another_machines_point_is_hollow_like_the_control():
    assert {"reference", "control"} <= HOLLOW_POINTS
