"""The conveyor belt shows the roofline honestly: its motion follows bandwidth, peak and intensity."""

from dataclasses import replace

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor

from engine import roofline
from engine.catalog import default_catalog
from widgets.conveyor_belt import ConveyorBelt
from widgets.conveyor_state import (
    ESSENTIAL_LABELS, QUEUE_CAP_BOXES, ConveyorState, belt_share, box_work_share, belt_speed_boxes_per_second, busy_intervals, busy_share,
    cycle_screen_seconds, frame_at, gear_turns_per_second, queue_boxes,
)
from widgets.theme import THEMES

CATALOG = default_catalog()


def state_for(gpu_id: str, precision_id: str, flops_per_byte: float, **extra) -> ConveyorState:
    """The state the scene hands over: speeds and the utilisation, all from the engine."""
    gpu, precision = CATALOG.gpu(gpu_id), CATALOG.precision(precision_id)
    return ConveyorState(gpu.memory_bandwidth_bytes_per_second, roofline.peak_flops(gpu, precision),
                         flops_per_byte, roofline.utilisation(gpu, precision, flops_per_byte), **extra)


def busy_seconds(state: ConveyorState, start: float, end: float) -> float:
    return sum(finish - begin for begin, finish in busy_intervals(state, start, end))


@pytest.mark.parametrize("gpu_id", ["h800", "a100-80gb", "h200", "b200", "rtx-4090"])
@pytest.mark.parametrize("precision_id", ["fp16", "fp8"])
@pytest.mark.parametrize("flops_per_byte", [1.0, 1.02, 50.0, 295.0, 1000.0, 10_000.0])
def test_worker_is_busy_for_exactly_the_engines_utilisation(gpu_id, precision_id, flops_per_byte):
    state = state_for(gpu_id, precision_id, flops_per_byte)
    expected = roofline.utilisation(CATALOG.gpu(gpu_id), CATALOG.precision(precision_id), flops_per_byte)
    window = 7 * cycle_screen_seconds(state)
    assert busy_seconds(state, 3.25, 3.25 + window) / window == pytest.approx(expected, rel=1e-9)
    assert busy_share(state) == pytest.approx(expected, rel=1e-12)


def test_decode_on_an_h800_leaves_the_worker_idle_almost_all_the_time():
    state = state_for("h800", "fp16", 1.02)
    assert 1 - busy_share(state) > 0.99
    samples = [frame_at(state, t / 100).worker_busy for t in range(1000)]
    assert 0 < sum(samples) < 20          # busy, but only in slivers


def test_frame_busy_agrees_with_the_busy_intervals():
    state = state_for("h800", "fp16", 120.0)
    intervals = busy_intervals(state, 0.0, 10.0)
    for step in range(500):
        t = step * 0.02 + 0.001
        inside = any(begin <= t < finish for begin, finish in intervals)
        assert frame_at(state, t).worker_busy == inside


@pytest.mark.parametrize("other", ["a100-80gb", "h200", "b200", "rtx-4090"])
def test_belt_and_worker_speeds_follow_the_gpu_in_proportion(other):
    h800, gpu = CATALOG.gpu("h800"), CATALOG.gpu(other)
    fp16 = CATALOG.precision("fp16")
    a, b = state_for("h800", "fp16", 10.0), state_for(other, "fp16", 10.0)
    assert belt_speed_boxes_per_second(b) / belt_speed_boxes_per_second(a) == pytest.approx(
        gpu.memory_bandwidth_bytes_per_second / h800.memory_bandwidth_bytes_per_second)
    assert gear_turns_per_second(b) / gear_turns_per_second(a) == pytest.approx(
        roofline.peak_flops(gpu, fp16) / roofline.peak_flops(h800, fp16))


def test_fp8_doubles_the_worker_and_he_waits_more():
    fp16, fp8 = state_for("h800", "fp16", 1.02), state_for("h800", "fp8", 1.02)
    assert gear_turns_per_second(fp8) == pytest.approx(2 * gear_turns_per_second(fp16), rel=1e-3)
    assert belt_speed_boxes_per_second(fp8) == belt_speed_boxes_per_second(fp16)
    assert busy_share(fp8) < busy_share(fp16)


def test_below_the_ridge_the_belt_never_stops_above_it_boxes_queue():
    below, above = state_for("h800", "fp16", 100.0), state_for("h800", "fp16", 2000.0)
    assert queue_boxes(below) == 0 and belt_share(below) == 1.0
    travel = [frame_at(below, t / 10).belt_travel_boxes for t in range(50)]
    assert all(later > earlier for earlier, later in zip(travel, travel[1:]))
    assert 0 < queue_boxes(above) <= QUEUE_CAP_BOXES
    ridge = roofline.ridge_point(CATALOG.gpu("h800"), CATALOG.precision("fp16"))
    assert belt_share(above) == pytest.approx(ridge / 2000.0)
    assert busy_share(above) == 1.0


def test_the_picture_depends_on_time_not_on_how_often_it_is_drawn(qtbot):
    state = state_for("h800", "fp16", 40.0)
    coarse, fine = ConveyorBelt(THEMES["light"]), ConveyorBelt(THEMES["light"])
    for widget in (coarse, fine):
        qtbot.addWidget(widget)
        widget.set_state(state)
    for step in range(1, 4):
        coarse.set_seconds(step * 0.5)
    for step in range(1, 91):
        fine.set_seconds(step / 60)
    assert coarse.current_frame() == fine.current_frame() == frame_at(state, 1.5)


def test_a_new_state_keeps_the_cycle_phase_so_boxes_do_not_jump(qtbot):
    widget = ConveyorBelt(THEMES["light"])
    qtbot.addWidget(widget)
    widget.set_state(state_for("h800", "fp16", 10.0))
    widget.set_seconds(1.37)
    before = widget.current_frame().belt_travel_boxes % 1.0
    widget.set_state(state_for("h800", "fp16", 20.0))
    assert widget.current_frame().belt_travel_boxes % 1.0 == pytest.approx(before)


def test_a_hidden_widget_keeps_time_without_drawing(qtbot):
    widget = ConveyorBelt(THEMES["light"])
    qtbot.addWidget(widget)
    state = state_for("h800", "fp16", 10.0)
    widget.set_state(state)
    assert not widget.isVisible()
    widget.set_seconds(2.0)
    assert widget.current_frame() == frame_at(state, 2.0)


LABELS = {"warehouse": "Warehouse = HBM", "capacity": "80 GB", "belt": "Belt", "bandwidth": "3.35 TB/s",
          "worker": "Worker", "peak": "989 TFLOPS", "ratio": "295×", "idle": "idle 99.7%", "busy": "busy 0.3%",
          "waiting": "waiting…", "backed_up": "backed up", "trace": "trace", "time_scale": "1 s = 1 µs",
          "box": "2 MFLOP"}


@pytest.mark.parametrize("size", [(320, 240), (3840, 2160)])
@pytest.mark.parametrize("flops_per_byte", [1.02, 5000.0])
@pytest.mark.parametrize("theme", ["light", "projector"])
def test_paints_at_the_smallest_and_largest_sizes(qtbot, size, flops_per_byte, theme):
    widget = ConveyorBelt(THEMES[theme])
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.set_state(state_for("h800", "fp16", flops_per_byte, labels=LABELS))
    widget.set_seconds(0.1)
    image = widget.grab().toImage()
    assert (image.width(), image.height()) == size
    colours = {image.pixelColor(x, y).name() for x in range(0, size[0], max(1, size[0] // 64))
               for y in range(0, size[1], max(1, size[1] // 36))}
    assert QColor(THEMES[theme].background).name() in colours
    assert QColor(THEMES[theme].memory).name() in colours or len(colours) > 3   # something was drawn


def test_static_parts_are_drawn_once_and_redrawn_on_theme_change(qtbot):
    widget = ConveyorBelt(THEMES["light"])
    qtbot.addWidget(widget)
    widget.resize(800, 400)
    widget.set_state(state_for("h800", "fp16", 10.0, labels=LABELS))
    widget.grab()
    first = widget._still.picture_id()
    widget.set_seconds(0.7)
    widget.set_state(state_for("h800", "fp16", 30.0, labels={**LABELS, "idle": "idle 90%"}))
    widget.grab()
    assert widget._still.picture_id() == first      # only moving parts and dynamic labels changed
    widget.set_theme(THEMES["projector"])
    widget.grab()
    assert widget._still.picture_id() != first


def test_the_static_picture_is_kept_by_what_its_layout_depends_on_not_by_an_objects_id(qtbot):
    """Evicted layouts are freed: a new one may get the old one's id, so the key is the layout's own key."""
    import widgets.conveyor_belt as belt_module
    widget = ConveyorBelt(THEMES["light"])
    qtbot.addWidget(widget)
    widget.resize(800, 400)
    widget.set_state(state_for("h800", "fp16", 10.0, labels=LABELS))
    widget.grab()
    assert widget._layout_key in widget._still.key
    first = widget._still.picture_id()
    for width in range(300, 300 + 10 * (belt_module.LAYOUTS_KEPT + 2), 10):     # every layout made since evicted
        widget.prepare(widget.state, width, 300)
    widget.set_state(state_for("h800", "fp16", 10.0, labels={**LABELS, "warehouse": "Store = HBM"}))
    widget.grab()
    assert widget._layout_key in widget._still.key and widget._still.picture_id() != first


LONG_LABELS = {**LABELS, "warehouse": "Warehouse = HBM", "belt": "Belt = HBM bandwidth",
               "worker": "Worker = compute units", "peak": "989 TFLOPS · FP16",
               "ratio": "compute ÷ bandwidth = 295\u00a0FLOP per byte", "belt_time": "a box every 597 ms",
               "worker_time": "he needs 2.06 ms for it",
               "time_scale": "1 s here = 1 µs on the GPU · a box holds 2 MB of weights",
               "trace": "The worker over the last 6 s on screen (filled = working)",
               "box": "work in each box: 2.04 MFLOP (1.02\u00a0FLOP/byte)", "basis": "realistic mode (real kernels)"}
LONG_LABELS_ZH = {**LONG_LABELS, "warehouse": "仓库 = 显存（HBM）", "belt": "传送带 = HBM 带宽", "worker": "工人 = 计算单元",
                  "ratio": "算力 ÷ 带宽 = 每字节 295\u00a0FLOP", "belt_time": "每 597 ms 送来一箱",
                  "worker_time": "他只要 2.06 ms 就干完", "idle": "空闲 99.8%", "busy": "在干活 0.241%",
                  "basis": "“接近实测”模式", "trace": "工人最近 6 s 的状态（屏幕时间，色块 = 在干活）",
                  "time_scale": "这里 1 秒 = GPU 上 1 µs · 一箱装 2 MB 权重", "waiting": "等货中…"}
STAGE_SIZES = [(450, 400), (570, 420), (900, 600), (1850, 700), (980, 430), (320, 240)]


def check_places(widget: ConveyorBelt, labels: dict[str, str], floor: float = 0.0) -> None:
    rects, shapes = widget.label_rects(), widget.shape_rects()
    if widget.width() >= 400:            # smaller, not every essential word fits at a readable size
        assert ESSENTIAL_LABELS & set(labels) <= set(rects), sorted(ESSENTIAL_LABELS & set(labels) - set(rects))
    bounds = QRectF(0, 0, widget.width(), widget.height())
    for key, rect in rects.items():
        assert bounds.contains(rect), key
        assert not any(rect.intersects(shape) for shape in shapes.values()), key
        assert not any(rect.intersects(other) for name, other in rects.items() if name != key), key
    for text in widget.drawn_texts():
        assert text.px >= floor, (text.key, text.px, floor)


@pytest.mark.parametrize("size", STAGE_SIZES)
@pytest.mark.parametrize("compact", [False, True])
def test_labels_keep_to_their_own_places_at_every_stage_size(qtbot, size, compact):
    widget = ConveyorBelt(THEMES["projector"])
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.set_state(state_for("h800", "fp16", 1.02, labels=LONG_LABELS, compact=compact))
    widget.grab()
    check_places(widget, LONG_LABELS)


# The belt's share of a 1024 x 768 and a 1920 x 1080 screen's stage, alone and beside the roofline,
# with those screens' text floors (2.3% of the height; the projector theme's higher still).
FLOORED_STAGES = [((1000, 470), 18), ((600, 470), 18), ((980, 430), 18), ((1880, 760), 25), ((1130, 760), 25),
                  ((1880, 700), 29)]


@pytest.mark.parametrize(("size", "floor"), FLOORED_STAGES)
@pytest.mark.parametrize("labels", [LONG_LABELS, LONG_LABELS_ZH], ids=["en", "zh"])
@pytest.mark.parametrize("compact", [False, True])
def test_no_label_below_the_themes_floor_and_the_essentials_stay(qtbot, size, floor, labels, compact):
    widget = ConveyorBelt(replace(THEMES["light"], text_floor_px=floor))
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.set_state(state_for("h800", "fp16", 1.02, labels=labels, compact=compact))
    widget.grab()
    check_places(widget, labels, floor)
    drawn = {text.key: text for text in widget.drawn_texts()}
    assert drawn["idle"].px == max(text.px for text in drawn.values())       # the one hero number


def test_a_higher_floor_drops_optional_labels_before_it_shrinks_any(qtbot):
    widget = ConveyorBelt(replace(THEMES["light"], text_floor_px=12))
    qtbot.addWidget(widget)
    widget.resize(1000, 470)
    widget.set_state(state_for("h800", "fp16", 1.02, labels=LONG_LABELS))
    low = {text.key for text in widget.drawn_texts()}
    widget.set_theme(replace(THEMES["light"], text_floor_px=30))
    high = {text.key: text.px for text in widget.drawn_texts()}
    assert min(high.values()) >= 30
    dropped = low - set(high)
    assert dropped and not dropped & ESSENTIAL_LABELS
    assert ESSENTIAL_LABELS & set(LONG_LABELS) <= set(high)


@pytest.mark.parametrize(("flops_per_byte", "full"), [(1.02, 1.02 / 295.3), (295.3, 1.0), (5000.0, 1.0), (50.0, 50 / 295.3)])
def test_each_box_holds_its_work_to_scale_full_at_the_ridge(flops_per_byte, full):
    assert box_work_share(state_for("h800", "fp16", flops_per_byte)) == pytest.approx(full, rel=1e-3)


def test_the_worker_glows_only_while_he_works(qtbot):
    widget = ConveyorBelt(THEMES["light"])
    qtbot.addWidget(widget)
    widget.resize(900, 500)
    state = state_for("h800", "fp16", 150.0, labels=LABELS)        # busy about half of each cycle
    widget.set_state(state)
    layout = widget._layout if widget._layout else (widget.label_rects(), widget._layout)[1]
    spot = layout.to_screen(QRectF(layout.bench.center().x() - 60, layout.bench.top() - 30, 1, 1)).topLeft().toPoint()
    background = QColor(THEMES["light"].background).name()
    colours = {}
    for busy in (True, False):
        t = next(step / 100 for step in range(1, 400) if frame_at(state, step / 100).worker_busy == busy)
        widget.set_seconds(t)
        colours[busy] = widget.grab().toImage().pixelColor(spot).name()
    assert colours[False] == background and colours[True] != background


def test_the_moment_labels_are_reported_only_while_their_moment_lasts(qtbot):
    widget = ConveyorBelt(THEMES["light"])
    qtbot.addWidget(widget)
    widget.resize(1850, 700)
    state = state_for("h800", "fp16", 150.0, labels=LONG_LABELS)
    widget.set_state(state)
    for busy in (True, False):
        t = next(step / 100 for step in range(1, 400) if frame_at(state, step / 100).worker_busy == busy)
        widget.set_seconds(t)
        assert ("waiting" in {text.key for text in widget.drawn_texts()}) == (not busy)


def test_text_is_measured_where_it_is_painted_and_grows_with_the_drawing(qtbot):
    widget = ConveyorBelt(THEMES["light"])
    qtbot.addWidget(widget)
    widget.set_state(state_for("h800", "fp16", 1.02, labels=LONG_LABELS))
    widget.resize(450, 400)
    small = widget.label_rects()["peak"].height()
    widget.resize(1850, 700)
    assert widget.label_rects()["peak"].height() > 1.5 * small


def test_the_busy_share_is_the_utilisation_handed_over_not_recomputed():
    """The gauge, its label and the motion all show the engine's figure, whatever it is."""
    roofline_state = state_for("h800", "fp16", 1.02)
    handed = replace(roofline_state, utilisation=0.5 * roofline_state.utilisation)
    assert busy_share(handed) == handed.utilisation
    window = 5 * cycle_screen_seconds(handed)
    assert busy_seconds(handed, 0.4, 0.4 + window) / window == pytest.approx(handed.utilisation, rel=1e-9)
    assert cycle_screen_seconds(handed) == cycle_screen_seconds(roofline_state)   # the speeds set the pace


def test_the_gauge_bar_draws_the_utilisation_handed_over(qtbot):
    def busy_pixels(utilisation: float) -> int:
        widget = ConveyorBelt(THEMES["light"])
        qtbot.addWidget(widget)
        widget.resize(900, 600)
        widget.set_state(replace(state_for("h800", "fp16", 150.0, labels=LABELS), utilisation=utilisation))
        image = widget.grab().toImage()
        bar = widget._layout.to_screen(widget._layout.gauge_bar).toAlignedRect()
        good = QColor(THEMES["light"].good).name()
        return sum(image.pixelColor(x, y).name() == good
                   for x in range(bar.left() + 2, bar.right() - 1) for y in range(bar.top() + 2, bar.bottom() - 1))

    assert busy_pixels(0.6) > 1.8 * busy_pixels(0.3)


def test_hidden_labels_keep_their_place_but_are_not_drawn(qtbot):
    widget = ConveyorBelt(THEMES["light"])
    qtbot.addWidget(widget)
    widget.resize(1850, 700)

    def drawn() -> dict[str, str]:
        return {text.key: text.text for text in widget.drawn_texts()}

    widget.set_state(state_for("h800", "fp16", 1.02, labels=LONG_LABELS, hidden=frozenset({"capacity", "basis"})))
    rects = widget.label_rects()
    assert {"capacity", "basis"} <= set(rects)
    assert not {"capacity", "basis"} & set(drawn()) and "bandwidth" in drawn()
    widget.set_state(state_for("h800", "fp16", 1.02, labels=LONG_LABELS))
    assert widget.label_rects() == rects                       # appearing, it does not move anything
    assert drawn()["basis"].replace("\n", " ") == LONG_LABELS["basis"]
    widget.set_state(state_for("h800", "fp16", 1.02, labels=LONG_LABELS, show_gauge=False))
    assert not {"idle", "busy", "basis"} & set(drawn())


def test_the_belt_keeps_the_state_widget_contract(qtbot, monkeypatch):
    """Theme and state kept; an equal state or theme repaints nothing and keeps the cycle's origin, so the
    worker's gear does not jump back when a scene hands the same state again."""
    from dataclasses import replace as replaced

    from widgets.state_widget import StateWidget
    widget = ConveyorBelt(THEMES["light"])
    qtbot.addWidget(widget)
    assert isinstance(widget, StateWidget)
    state = state_for("h800", "fp16", 40.0)
    widget.set_state(state)
    widget.set_seconds(7.3)
    gear = widget.current_frame().gear_turns
    updates = []
    monkeypatch.setattr(widget, "update", lambda *args: updates.append(args))
    widget.set_state(state_for("h800", "fp16", 40.0))
    widget.set_theme(replaced(THEMES["light"]))
    assert not updates and widget.current_frame().gear_turns == gear
    widget.set_theme(THEMES["dark"])
    assert updates and widget.theme is THEMES["dark"]


def test_idle_is_the_alarm_only_while_the_worker_mostly_waits():
    """"idle 0%" (a compute-bound step) was drawn in the stage's alarm red."""
    from widgets.conveyor_state import ConveyorState, label_role
    waiting = ConveyorState(3.35e12, 989e12, 1.0, utilisation=0.0024, labels={"idle": "idle 99.8%"})
    working = ConveyorState(3.35e12, 989e12, 1000.0, utilisation=1.0, labels={"idle": "idle 0%"})
    assert label_role("idle", waiting) == "warning"
    assert label_role("idle", working) == "good"
    assert label_role("busy", working) == "good" and label_role("peak", working) == "compute"
