"""The roofline plot draws the state it is handed, and moves its items rather than rebuilding them."""
import math
from dataclasses import replace

import pytest
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor

from desktop.i18n import Language
from desktop.scenes.gpu_waits.pictures import compute_tick_number
from engine.units import format_number
from engine import roofline
from engine.catalog import default_catalog
from widgets.roofline_layout import TEXT_PX_MIN
from widgets.roofline_plot import RooflinePlot
from widgets.roofline_state import RooflinePoint, RooflineState
from widgets.theme import THEMES, for_screen

CATALOG = default_catalog()
TICKS = {"x_tick_text": format_number, "y_tick_text": compute_tick_number}   # the scene's, from engine.units


def state_for(gpu_id: str, precision_id: str, control: float) -> RooflineState:
    gpu, precision = CATALOG.gpu(gpu_id), CATALOG.precision(precision_id)
    ridge = roofline.ridge_point(gpu, precision)
    roof = tuple((x, roofline.attainable_flops(gpu, precision, x)) for x in (0.7, ridge, 1e4))

    def point(key, x):
        return RooflinePoint(key, f"{key} {x:g}", x, roofline.attainable_flops(gpu, precision, x), value=f"{x:g}")

    return RooflineState(roof=roof, ridge_flops_per_byte=ridge, ridge_label=f"ridge {ridge:.0f} FLOP/byte",
                         x_label="arithmetic intensity (FLOP/byte)", y_label="attainable (TFLOPS)", **TICKS,
                         points=(point("decode", 1.02), point("prefill", 992.0), point("control", control)),
                         memory_bound_label="memory-bound", compute_bound_label="compute-bound")


def test_points_and_ridge_are_where_the_state_says(qtbot):
    plot = RooflinePlot(THEMES["light"])
    qtbot.addWidget(plot)
    plot.set_state(state_for("h800", "fp16", 30.0))
    x, flops = plot.point_position("decode")
    assert x == pytest.approx(1.02)
    assert flops == pytest.approx(1.02 * 3.35e12)               # on the bandwidth slope, in FLOP/s as handed over
    assert plot.point_position("prefill")[1] == pytest.approx(989.4e12)   # on the roof
    assert plot.ridge_text() == "ridge 295 FLOP/byte"
    assert plot.legend_texts() == ["decode 1.02", "prefill 992", "control 30"]


def test_a_new_state_moves_the_same_items(qtbot):
    plot = RooflinePlot(THEMES["light"])
    qtbot.addWidget(plot)
    plot.set_state(state_for("h800", "fp16", 30.0))
    marker = plot._markers["control"]
    plot.set_state(state_for("b200", "fp8", 3000.0))
    assert plot._markers["control"] is marker
    assert plot.point_position("control") == pytest.approx((3000.0, 4500e12))
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
    assert plot.label_texts()["x_title"].replace("\n", " ") == "arithmetic intensity (FLOP/byte)"
    assert plot.label_texts()["y_title"].replace("\n", " ") == "attainable (TFLOPS)"
    for numbers in plot.tick_texts().values():                  # decades, written as plain numbers
        assert len(numbers) >= 2 and all(math.log10(float(n.replace(",", ""))).is_integer() for n in numbers)
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
    frame = QRectF(0, 0, *size)
    rects = plot.label_rects()
    assert {"x_title", "y_title"} <= set(rects) and all(frame.contains(rect) for rect in rects.values())
    for theme in (THEMES["projector"], THEMES["dark"]):             # the picture is drawn in the theme handed
        plot.set_theme(theme)
        assert plot.grab().toImage().pixelColor(1, 1) == QColor(theme.background)


def test_no_height_stretches_the_axes_over_hundreds_of_decades(qapp):
    """A resize storm found heights (239 px at 300 wide) where the plot's room for decades came out a hair
    above zero: the axes spanned thousands of decades and 10.0 ** 400 overflowed."""
    from widgets.roofline_layout import lay_out
    from widgets.text_fit import TextMeasure
    measure, state = TextMeasure(), state_for("h800", "fp16", 30.0)
    for width in (1, 200, 300, 640):
        for height in range(1, 600):
            layout = lay_out(measure, state, width, height, 2.0, 18, True, 18)
            assert layout.y_range[1] - layout.y_range[0] < 1000, (width, height)


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
    rects = plot.label_rects()
    for key in ("decode", "prefill", "control"):
        legend = rects[f"legend.{key}"]
        assert legend.bottom() <= plot.plot_widget.geometry().top()
        assert not legend.intersects(QRectF(plot.plot_widget.geometry()))


def test_an_equal_state_changes_nothing(qtbot):
    plot = RooflinePlot(THEMES["light"])
    qtbot.addWidget(plot)
    plot.set_state(state_for("h800", "fp16", 30.0))
    with qtbot.assertNotEmitted(plot.plot_widget.getPlotItem().getViewBox().sigStateChanged):
        plot.set_state(state_for("h800", "fp16", 30.0))


def scene_like_state(language: str, control: float) -> RooflineState:
    """A state with the scene's own texts (both languages), as Scene 1 builds it for an H800 at FP16."""
    words = Language(language)
    gpu, precision = CATALOG.gpu("h800"), CATALOG.precision("fp16")
    ridge = roofline.ridge_point(gpu, precision)
    roof = tuple((x, roofline.attainable_flops(gpu, precision, x)) for x in (1 / 1.5, ridge, 1e4))

    def text(key, **values):
        return words.text(f"gpu_waits.label.{key}", **values)

    def intensity(x):
        return text("intensity", value=format_number(x))

    def point(key, x):
        return RooflinePoint(key, text(f"point_{key}", value=intensity(x)), x,
                             roofline.attainable_flops(gpu, precision, x), value=intensity(x))

    return RooflineState(roof=roof, ridge_flops_per_byte=ridge, ridge_label=text("ridge", ridge=intensity(ridge)),
                         x_label=text("x_axis"), y_label=text("y_axis"), **TICKS,
                         points=(point("decode", 1.02), point("prefill", 992.0), point("control", control)),
                         memory_bound_label=text("memory_bound"), compute_bound_label=text("compute_bound"))


# Plot sizes the stage gives it: beside the belt in a 1024 x 768 window (228 x 420) and presenting
# (740 x 780), alone on the smallest stage, and the extremes of width and height.
PLOT_SIZES = [(200, 200), (228, 420), (200, 900), (392, 530), (600, 400), (740, 780), (1200, 200), (1200, 900)]


@pytest.mark.parametrize("theme", ["light", "projector"])
@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("size", PLOT_SIZES)
def test_texts_never_overlap_each_other_or_the_markers_and_stay_inside(qtbot, size, language, theme):
    plot = RooflinePlot(THEMES[theme])
    qtbot.addWidget(plot)
    plot.resize(*size)
    plot.set_state(scene_like_state(language, 1.02))
    plot.show()
    qtbot.waitUntil(lambda: plot.size().toTuple() == size)
    rects = plot.label_rects()
    assert {"ridge", "x_title", "y_title", "legend.decode", "legend.prefill", "legend.control"} <= set(rects)
    inside, view = QRectF(plot.rect()), plot.plot_rect()
    names = sorted(rects)
    for n, name in enumerate(names):
        assert inside.contains(rects[name]), (name, rects[name])
        for other in names[n + 1:]:
            assert not rects[name].intersects(rects[other]), (name, other)
        if not name.startswith(("legend", "x_", "y_")):
            assert view.contains(rects[name]), name
            for marker, area in plot.marker_rects().items():
                assert not rects[name].intersects(area), (name, marker)
        elif name.startswith("legend"):
            assert not rects[name].intersects(QRectF(plot.plot_widget.geometry())), name
    assert plot.text_px() >= TEXT_PX_MIN
    texts = plot.label_texts()
    assert "295" in texts["ridge"]
    for point in plot.state.points:                 # a number never leaves its unit
        assert any(line.endswith(point.value) for line in texts[f"legend.{point.key}"].split("\n"))


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_narrow_legend_puts_values_on_their_own_line_then_drops_the_names(qtbot, language):
    plot = RooflinePlot(THEMES["light"])
    qtbot.addWidget(plot)
    plot.set_state(scene_like_state(language, 1.02))
    shown = []
    for size in [(1200, 900), (228, 420), (200, 200)]:
        plot.resize(*size)
        plot.show()
        qtbot.waitUntil(lambda: plot.size().toTuple() == size)
        shown.append(plot.label_texts()["legend.prefill"])
    prefill = plot.state.points[1]
    assert shown[0] == prefill.label
    assert shown[1].split("\n")[1] == prefill.value and shown[1].replace("\n", "").replace(" ", "") \
        == prefill.label.replace(" ", "")
    assert shown[2] == prefill.value


def test_the_data_area_is_where_the_layout_put_it(qtbot):
    """Labels are placed against the layout's data area; pyqtgraph must draw the data exactly there."""
    plot = RooflinePlot(THEMES["projector"])
    qtbot.addWidget(plot)
    plot.resize(392, 530)
    plot.set_state(scene_like_state("zh", 30.0))
    plot.show()
    view_box = plot.plot_widget.getPlotItem().getViewBox()

    def drawn() -> QRectF:
        return view_box.sceneBoundingRect().translated(QPointF(plot.plot_widget.pos()))   # scene: view pixels

    qtbot.waitUntil(lambda: abs(drawn().top() - plot.plot_rect().top()) <= 1.5
                    and abs(drawn().bottom() - plot.plot_rect().bottom()) <= 1.5
                    and abs(drawn().left() - plot.plot_rect().left()) <= 1.5
                    and abs(drawn().right() - plot.plot_rect().right()) <= 1.5)


def test_a_moving_point_moves_only_its_marker_and_its_legend_line(qtbot):
    plot = RooflinePlot(THEMES["light"])
    qtbot.addWidget(plot)
    plot.resize(228, 420)
    plot.set_state(scene_like_state("en", 30.0))
    plot.show()
    qtbot.waitUntil(plot.isVisible)
    before = plot.label_rects()
    with qtbot.assertNotEmitted(plot.plot_widget.getPlotItem().getViewBox().sigStateChanged):
        plot.set_state(scene_like_state("en", 3000.0))
    after = plot.label_rects()
    assert plot.label_texts()["legend.control"].endswith("3000\u00a0FLOP/byte")
    assert {name: rect for name, rect in after.items() if name != "legend.control"} == \
        {name: rect for name, rect in before.items() if name != "legend.control"}


def _tick_words(value: float) -> str:
    return f"<{value:g}>"


def test_tick_numbers_are_written_by_the_formatters_the_state_carries(qtbot):
    plot = RooflinePlot(THEMES["light"])
    qtbot.addWidget(plot)
    plot.resize(740, 780)
    plot.set_state(replace(state_for("h800", "fp16", 30.0), x_tick_text=_tick_words))
    ticks = plot.tick_texts()
    assert ticks["x"] and all(t.startswith("<") and t.endswith(">") for t in ticks["x"])
    assert "1000" in ticks["y"] and "1e+15" not in ticks["y"]      # FLOP/s written in TFLOPS by the scene's formatter


def test_widgets_import_no_engine_and_format_no_numbers_themselves():
    """Layering: widgets draw what they are handed; numbers are formatted by engine.units, in the scene. The one
    module of the engine widgets share is engine.frozen, the value-type decorator (test_widgets_layering.py)."""
    import ast
    import pathlib

    import widgets

    def of_the_engine(name: str) -> bool:
        return name.split(".")[0] == "engine" and name != "engine.frozen"

    for path in pathlib.Path(widgets.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert not of_the_engine(node.module or ""), path.name
            elif isinstance(node, ast.Import):
                assert not any(of_the_engine(alias.name) for alias in node.names), path.name
        assert "TERA" not in path.read_text(encoding="utf-8"), path.name


# The plot beside the belt in the export at 1024 x 768 and 1920 x 1080 (projector theme), and in a 1366 x 768
# window (light theme at that screen's floor), where English once dropped "memory-bound" and "compute-bound": a
# region label that finds none of its usual places looks over its whole side, broken after its hyphen.
ROOM_FOR_BOTH = [(392, 530, "projector"), (400, 440, "projector"), (410, 460, "projector"),
                 (740, 780, "projector"), (600, 400, "projector"), (1200, 900, "projector"),
                 (349, 643, "window"), (340, 600, "window")]


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("width, height, theme", ROOM_FOR_BOTH)
def test_region_labels_stay_on_their_own_side_of_the_ridge_and_both_are_shown(qtbot, width, height, theme,
                                                                                 language):
    size = (width, height)
    plot = RooflinePlot(THEMES["projector"] if theme == "projector" else for_screen(THEMES["light"], 768))
    qtbot.addWidget(plot)
    plot.resize(*size)
    plot.set_state(scene_like_state(language, 1.02))
    rects, ridge_x = plot.label_rects(), _ridge_x(plot)
    assert {"memory_bound", "compute_bound"} <= set(rects), sorted(rects)
    assert rects["memory_bound"].right() < ridge_x < rects["compute_bound"].left()


@pytest.mark.parametrize("size", PLOT_SIZES)
def test_a_region_label_never_crosses_the_ridge_line(qtbot, size):
    plot = RooflinePlot(THEMES["light"])
    qtbot.addWidget(plot)
    plot.resize(*size)
    plot.set_state(scene_like_state("en", 1.02))
    rects, ridge_x = plot.label_rects(), _ridge_x(plot)
    if "memory_bound" in rects:
        assert rects["memory_bound"].right() < ridge_x
    if "compute_bound" in rects:
        assert rects["compute_bound"].left() > ridge_x


def _ridge_x(plot: RooflinePlot) -> float:
    return plot.marker_rects()["ridge"].center().x()


# The plot beside the belt on a 1024 x 768 and a 1920 x 1080 stage, with those screens' text floors.
FLOORED = [((392, 530), 18), ((410, 460), 18), ((740, 780), 25), ((600, 400), 25), ((228, 420), 18)]


@pytest.mark.parametrize("theme", ["light", "projector"])
@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize(("size", "floor"), FLOORED)
def test_no_text_below_the_themes_floor_and_none_overlapping(qtbot, size, floor, language, theme):
    plot = RooflinePlot(replace(THEMES[theme], text_floor_px=floor))
    qtbot.addWidget(plot)
    plot.resize(*size)
    plot.set_state(scene_like_state(language, 1.02))
    drawn = plot.drawn_texts()
    assert {"ridge", "x_title", "y_title"} <= {text.key for text in drawn}
    inside = QRectF(plot.rect())
    for n, text in enumerate(drawn):
        assert text.px >= floor, (text.key, text.px)
        assert inside.contains(text.rect), text.key
        for other in drawn[n + 1:]:
            assert not text.rect.intersects(other.rect), (text.key, other.key)


def test_a_legend_that_does_not_fit_at_the_floor_is_left_out_not_shrunk(qtbot):
    plot = RooflinePlot(replace(THEMES["light"], text_floor_px=40))
    qtbot.addWidget(plot)
    plot.resize(260, 500)
    plot.set_state(scene_like_state("en", 1.02))
    drawn = plot.drawn_texts()
    assert all(text.px >= 40 for text in drawn)
    assert not [text for text in drawn if text.key.startswith("legend")]


def test_the_control_marker_never_hides_the_decode_point_it_sits_on(qtbot):
    """The control's diamond is hollow, larger and under the decode dot: both show where they meet."""
    from widgets.roofline_plot import HOLLOW_POINTS
    plot = RooflinePlot(THEMES["light"])
    qtbot.addWidget(plot)
    plot.resize(600, 500)
    plot.set_state(scene_like_state("en", 1.02))       # the control at decode
    markers = plot.marker_rects()
    assert markers["control"].contains(markers["decode"])
    assert "control" in HOLLOW_POINTS
    assert plot._markers["decode"].zValue() > plot._markers["control"].zValue()
    image = plot.grab().toImage()
    centre = markers["decode"].center().toPoint()
    assert image.pixelColor(centre).name() == QColor(THEMES["light"].warning).name()


def test_a_point_left_out_of_the_legend_keeps_its_marker(qtbot):
    """The control sitting on decode: its legend line would repeat decode's; its hollow marker still shows."""
    from dataclasses import replace
    plot = RooflinePlot(THEMES["light"])
    qtbot.addWidget(plot)
    plot.resize(700, 500)
    state = state_for("h800", "fp16", 1.02)
    points = tuple(replace(p, in_legend=p.key != "control") for p in state.points)
    plot.set_state(replace(state, points=points))
    assert "legend.control" not in plot.label_texts() and "legend.decode" in plot.label_texts()
    assert plot.point_position("control") == pytest.approx(plot.point_position("decode"))
    plot.set_state(state)
    assert "legend.control" in plot.label_texts()


def test_lines_are_drawn_thicker_on_a_larger_screen(qtbot):
    from widgets.theme import for_screen
    widths = []
    for height in (768, 2160):
        plot = RooflinePlot(for_screen(THEMES["dark"], height))
        qtbot.addWidget(plot)
        widths.append((plot._roof.opts["pen"].widthF(), plot._ridge_line.pen.widthF()))
    assert widths[1][0] > 2 * widths[0][0] and widths[1][1] > 2 * widths[0][1]


def test_the_plot_keeps_the_state_widget_contract(qtbot, monkeypatch):
    """Theme and state kept, nothing laid out or repainted for an equal one, the texts it draws reported."""
    from widgets.state_widget import StateWidget
    plot = RooflinePlot(THEMES["light"])
    qtbot.addWidget(plot)
    plot.resize(600, 400)
    assert isinstance(plot, StateWidget) and plot.theme is THEMES["light"] and plot.state is None
    state = state_for("h800", "fp16", 30.0)
    plot.set_state(state)
    assert plot.state is state and {"x_title", "y_title", "ridge"} <= {t.key for t in plot.drawn_texts()}
    layout = plot._layout
    updates = []
    monkeypatch.setattr(plot, "update", lambda *args: updates.append(args))
    plot.set_theme(replace(THEMES["light"]))
    plot.set_state(state_for("h800", "fp16", 30.0))
    assert not updates and plot._layout is layout
    plot.set_theme(THEMES["dark"])
    assert updates and plot.theme is THEMES["dark"]
