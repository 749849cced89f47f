"""The memory bars past one node: bars in node frames, a wider gap with the network across it, readable labels."""
from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtGui import QColor

from tests.widgets.test_memory_bars import GB, assert_readable, bar, make, painted
from widgets.memory_bars_state import MAX_BARS, MemoryBarsState, NodeGroup, bar_nodes, motion_values

NODE_LABELS = {"en": ("Node 1 · 8 GPUs", "Nodes 2–128 · 1,016 GPUs, each like these"),
               "zh": ("节点 1 · 8 张卡", "节点 2–128 · 共 1,016 张卡，每张都一样")}


def nodes_state(per_node=(8, 8), repeated=False, code="en", names=False):
    count = sum(per_node)
    bars = tuple(replace(bar(weights=42 * GB, kv=0.05 * GB), name=f"{n + 1}" if names else "",
                         capacity_label="80 GB" if n == 0 else "") for n in range(count))
    first, rest = NODE_LABELS[code]
    nodes = (NodeGroup(first, per_node[0], "Node 1"),
             NodeGroup(rest if repeated else "Node 2 · 8 GPUs", per_node[1], "Nodes 2–128" if repeated else "Node 2",
                       repeated=repeated))
    return MemoryBarsState(bars, 90 * GB, link_label="NVLink 4 · 400 GB/s inside each node",
                           network_label="InfiniBand NDR · 100 GB/s per GPU between nodes", nodes=nodes,
                           title="Your deployment", footer="Fits, with 36.8 GB free")


def test_bar_nodes_follow_the_groups_in_order():
    assert bar_nodes(nodes_state((8, 4))) == (0,) * 8 + (1,) * 4
    assert bar_nodes(nodes_state((1, 1))) == (0, 1)
    assert bar_nodes(replace(nodes_state(), nodes=())) == ()
    assert len(bar_nodes(nodes_state((8, 8)))) == MAX_BARS


@pytest.mark.parametrize("per_node", [(8, 8), (8, 4), (4, 4), (1, 1)])
@pytest.mark.parametrize("code", ["en", "zh"])
@pytest.mark.parametrize("size, screen, theme", [((990, 550), 768, "light"), ((990, 550), 768, "projector"),
                                                 ((1860, 780), 1080, "light")])
def test_node_frames_hold_their_bars_and_every_label_is_readable(qtbot, per_node, code, size, screen, theme):
    widget = make(qtbot, size, screen, theme)
    widget.set_state(nodes_state(per_node, repeated=per_node == (8, 8), code=code))
    texts = painted(widget)
    assert_readable(widget, texts)
    keys = {text.key for text in texts}
    assert {"node.0", "node.1", "link", "network", "column.weights", "capacity", "footer"} <= keys
    frame, placed = widget._frame, widget.placed()
    first, second = frame.node_frames
    assert first.right() < second.left()                                 # two frames, apart
    for i, left in enumerate(frame.bar_lefts):                           # each bar inside its own node's frame
        own = frame.node_frames[frame.bar_nodes[i]]
        assert own.left() < left and left + frame.bar_width < own.right()
        assert own.bottom() >= frame.plot.bottom()
    gaps = [b - a - frame.bar_width for a, b in zip(frame.bar_lefts, frame.bar_lefts[1:])]
    between = gaps[per_node[0] - 1]
    assert all(between > gap for n, gap in enumerate(gaps) if n != per_node[0] - 1)    # the network's gap is wider
    for key in ("node.0", "node.1"):                                     # the labels inside their frames' tops
        rect = next(t.rect for t in texts if t.key == key)
        own = frame.node_frames[int(key[-1])]
        assert own.contains(rect) and rect.bottom() < frame.plot.top() + rect.height()
    assert frame.bar_width >= widget._theme.floor_px
    assert placed.swatches["network"][0] == "network" and placed.swatches["link"][0] == "link"


def test_the_network_is_drawn_dashed_in_its_own_colour_across_the_gap(qtbot):
    widget = make(qtbot, (990, 550), 768)
    widget.set_state(nodes_state((8, 8)))
    image = widget.grab().toImage()
    frame = widget._frame
    y = round(frame.plot.bottom() - frame.plot.height() * 0.12)
    x0 = round(frame.bar_lefts[7] + frame.bar_width) + 8
    x1 = round(frame.bar_lefts[8]) - 8
    warning, accent = QColor(widget._theme.color("warning")), QColor(widget._theme.color("accent"))
    row = [image.pixelColor(x, y) for x in range(x0, x1)]
    drawn = [c for c in row if c.rgb() == warning.rgb()]
    assert drawn and len(drawn) < len(row)                     # dashed: the line has gaps
    inside = round(frame.bar_lefts[0] + frame.bar_width + 2)
    assert image.pixelColor(inside, y).rgb() == accent.rgb()    # the link inside a node: the link's colour


def test_without_nodes_the_picture_is_what_it_was(qtbot):
    """A state without nodes lays out exactly as before frames existed: no frames, no network, no gap."""
    widget = make(qtbot, (990, 550), 768)
    flat = replace(nodes_state((4, 4), names=True), nodes=(), network_label="")
    widget.set_state(flat)
    texts = painted(widget)
    assert widget._frame.node_frames == () and "network" not in {t.key for t in texts}
    lefts = widget._frame.bar_lefts
    gaps = {round(b - a, 6) for a, b in zip(lefts, lefts[1:])}
    assert len(gaps) == 1


def test_a_transition_between_node_pictures_ends_exactly(qtbot):
    widget = make(qtbot, (990, 550), 768)
    widget.set_state(nodes_state((8, 8)))
    target = nodes_state((8, 4))
    widget.show_state(target, 0.0)
    widget.set_seconds(10.0)
    assert widget.shown_state() is target and motion_values(widget.shown_state()) == motion_values(target)
    assert_readable(widget, painted(widget))


@pytest.mark.parametrize("size", [(380, 240), (250, 420)])
def test_a_picture_too_small_for_the_nodes_bars_draws_one_bar_for_each_gpu(qtbot, size):
    """Sixteen bars in a small card would be slivers: one bar named for every GPU instead, its figures the same."""
    widget = make(qtbot, size, 768)
    shown = replace(nodes_state((8, 8)), each_label="each of 16 GPUs in 2 nodes", title="", footer="")
    widget.set_state(shown)
    texts = painted(widget)
    assert_readable(widget, texts)
    placed = widget.placed()
    assert len(widget._frame.bar_lefts) == 1 and widget._frame.node_frames == ()
    names = [t.text.replace("\n", " ") for t in texts if t.key == "name.0"]
    assert names == ["each of 16 GPUs in 2 nodes"]
    weights = [rect for _bar, key, rect in placed.segments if key == "weights"]
    assert len(weights) == 1 and weights[0].width() >= widget._theme.floor_px
    assert widget.state is shown                      # the state asked for is kept; only the picture is one bar
    widget.resize(990, 550)                           # room again: the nodes' bars come back
    assert_readable(widget, painted(widget))
    assert len(widget._frame.bar_lefts) == 16 and len(widget._frame.node_frames) == 2


def test_without_a_name_for_each_the_nodes_bars_stay(qtbot):
    widget = make(qtbot, (380, 240), 768)
    widget.set_state(nodes_state((8, 8)))
    painted(widget)
    assert len(widget._frame.bar_lefts) == 16
