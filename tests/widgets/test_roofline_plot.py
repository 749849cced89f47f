"""The roofline plot draws the state it is handed, and moves its items rather than rebuilding them."""
import math

import pytest

from engine import roofline
from engine.catalog import default_catalog
from widgets.roofline_plot import RooflinePlot, RooflinePoint, RooflineState
from widgets.theme import THEMES

CATALOG = default_catalog()


def state_for(gpu_id: str, precision_id: str, control: float) -> RooflineState:
    gpu, precision = CATALOG.gpu(gpu_id), CATALOG.precision(precision_id)
    ridge = roofline.ridge_point(gpu, precision)
    roof = tuple((x, roofline.attainable_flops(gpu, precision, x)) for x in (0.7, ridge, 1e4))

    def point(key, x):
        return RooflinePoint(key, f"{key} {x:g}", x, roofline.attainable_flops(gpu, precision, x))

    return RooflineState(roof=roof, ridge_flops_per_byte=ridge, ridge_label=f"ridge {ridge:.0f} FLOP/byte",
                         x_label="arithmetic intensity (FLOP/byte)", y_label="attainable (TFLOPS)",
                         points=(point("decode", 1.02), point("prefill", 992.0), point("control", control)),
                         memory_bound_label="memory-bound", compute_bound_label="compute-bound")


def test_points_and_ridge_are_where_the_state_says(qtbot):
    plot = RooflinePlot(THEMES["light"])
    qtbot.addWidget(plot)
    plot.set_state(state_for("h800", "fp16", 30.0))
    x, tflops = plot.point_position("decode")
    assert x == pytest.approx(1.02)
    assert tflops == pytest.approx(1.02 * 3.35)                 # on the bandwidth slope, in TFLOPS
    assert plot.point_position("prefill")[1] == pytest.approx(989.4)   # on the roof
    assert plot.ridge_text() == "ridge 295 FLOP/byte"
    assert plot.legend_texts() == ["decode 1.02", "prefill 992", "control 30"]


def test_a_new_state_moves_the_same_items(qtbot):
    plot = RooflinePlot(THEMES["light"])
    qtbot.addWidget(plot)
    plot.set_state(state_for("h800", "fp16", 30.0))
    marker = plot._markers["control"]
    plot.set_state(state_for("b200", "fp8", 3000.0))
    assert plot._markers["control"] is marker
    assert plot.point_position("control") == pytest.approx((3000.0, 4500.0))
    assert plot.ridge_text() == f"ridge {4500e12 / 7.7e12:.0f} FLOP/byte"
    assert plot.legend_texts()[-1] == "control 3000"


def test_a_point_left_out_is_hidden(qtbot):
    plot = RooflinePlot(THEMES["light"])
    qtbot.addWidget(plot)
    full = state_for("h800", "fp16", 30.0)
    plot.set_state(RooflineState(**{**full.__dict__, "points": full.points[:1]}))
    assert plot.point_position("prefill") is None
    assert plot.legend_texts() == ["decode 1.02"]


def test_axes_are_log_log_with_labels(qtbot):
    plot = RooflinePlot(THEMES["projector"])
    qtbot.addWidget(plot)
    plot.set_state(state_for("h800", "fp16", 30.0))
    item = plot.plot_widget.getPlotItem()
    assert item.ctrl.logXCheck.isChecked() and item.ctrl.logYCheck.isChecked()
    assert "arithmetic intensity (FLOP/byte)" in item.getAxis("bottom").labelText
    assert "attainable (TFLOPS)" in item.getAxis("left").labelText
    (x_low, x_high), _ = item.getViewBox().viewRange()
    assert x_low <= math.log10(0.7) and x_high >= 4


@pytest.mark.parametrize("size", [(320, 240), (3840, 2160)])
def test_paints_at_the_smallest_and_largest_sizes(qtbot, size):
    plot = RooflinePlot(THEMES["projector"])
    qtbot.addWidget(plot)
    plot.resize(*size)
    plot.set_state(state_for("h800", "fp8", 30.0))
    image = plot.grab().toImage()
    assert (image.width(), image.height()) == size
    plot.set_theme(THEMES["dark"])
    assert not plot.grab().toImage().isNull()


@pytest.mark.parametrize("height", [440, 700, 2000])
def test_text_grows_with_the_height_so_it_reads_on_a_projector(qtbot, height):
    plot = RooflinePlot(THEMES["projector"])
    qtbot.addWidget(plot)
    plot.set_state(state_for("h800", "fp16", 30.0))
    plot.resize(round(height * 0.9), height)
    plot.show()
    qtbot.waitUntil(lambda: plot.height() == height)
    assert plot.text_px() >= height / 30


def test_the_legend_is_outside_the_plot_so_it_covers_no_line(qtbot):
    plot = RooflinePlot(THEMES["light"])
    qtbot.addWidget(plot)
    plot.resize(400, 440)
    plot.set_state(state_for("h800", "fp16", 30.0))
    plot.show()
    qtbot.waitUntil(plot.isVisible)
    legend = plot._legend.geometry()
    assert not legend.intersects(plot.plot_widget.geometry())
    assert legend.bottom() < plot.plot_widget.geometry().top()


def test_an_equal_state_changes_nothing(qtbot):
    plot = RooflinePlot(THEMES["light"])
    qtbot.addWidget(plot)
    plot.set_state(state_for("h800", "fp16", 30.0))
    with qtbot.assertNotEmitted(plot.plot_widget.getPlotItem().getViewBox().sigStateChanged):
        plot.set_state(state_for("h800", "fp16", 30.0))
