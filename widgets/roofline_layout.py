"""Where every text of the roofline plot goes, in widget pixels, for a size and a ``RooflineState``.

Every text is measured with ``QFontMetricsF`` (``widgets.text_fit``) and
painted line by line exactly where it was measured, so what the plot reports
is what is on screen. From the top: the legend (one entry a line, each after
its point's sign), the y-axis title (written level, so a narrow plot keeps its
width for the data), the plot, the x ticks and the x-axis title. The axes get
fixed sizes from the measured tick texts (written by the formatters the state
carries), so the plot's area is known before pyqtgraph lays it out. Inside the
plot the ridge, "memory-bound" and "compute-bound" labels take the first of a
few places that is clear of each other and of the roofline; every point lies
on the roofline, so a label clear of it is clear of every marker wherever the
points move. A region label lies wholly on its own side of the ridge line.

When room runs short, text gives way in this order: a legend entry puts its
value on a line of its own under its name; a region label drops its second
line (the explanation), then its short form shrinks towards the theme's floor;
the legend drops the names (sign and value remain, the caption names the
points); a region label that still finds no place is left out (never put
across the ridge line); then everything shrinks a pixel at a time, never under
the theme's ``text_floor_px``; at the floor a legend that still does not fit is
left out. A number never leaves its unit, and no text is ever wrapped by Qt.

Text is sized from the widget (its height, and its width when narrow), so it
reads from the back of a room at 1024 x 768 and at 4K alike. Rates are in
FLOP/s and intensities in FLOP/byte, as the state gives them; the data area is
addressed in their log10.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRect, QRectF, Qt

from widgets.roofline_state import extent, number_template
from widgets.text_fit import FLOOR_PX, FittedText, TextMeasure

if TYPE_CHECKING:
    from widgets.roofline_state import RooflinePoint, RooflineState

# Text size follows the widget: one line per this many pixels of height, and never wider than
# this many text heights across the widget (a narrow, tall plot), never under the readable floor.
TEXT_LINES_PER_HEIGHT = 28
TEXT_HEIGHTS_PER_WIDTH = 18
TEXT_PX_MIN = FLOOR_PX
LEGEND_MAX_SHARE = 0.36       # of the height: a legend on two lines an entry, above it, drops the names
PLOT_MIN_LINES = 4            # the plot's height, in text lines, before text shrinks to make room
MIN_PX_PER_DECADE = 1.0       # an axis never packs decades tighter, however small the plot
LEFT_OF_RIDGE, RIGHT_OF_RIDGE = -1, 1
MARKER_REACH = 0.8            # the largest marker's half-size, in marker sizes (the plot's hollow diamond)
REGION_LABELS = ("compute_bound", "memory_bound")


@dataclass
class RooflineLayout:
    """Where everything goes, in widget pixels; computed by ``lay_out`` from the size, texts and roof."""
    px: int
    legend_form: str                        # "one_line", "two_lines", "value" or "none"
    legend: dict[str, tuple[QRectF, FittedText]] = field(default_factory=dict)   # key: (sign, text)
    texts: dict[str, FittedText] = field(default_factory=dict)   # titles and in-plot labels
    plot_widget: QRect = field(default_factory=QRect)
    axis_width: int = 0
    axis_height: int = 0
    view: QRectF = field(default_factory=QRectF)   # the data area
    x_range: tuple[float, float] = (0.0, 1.0)      # log10 FLOP/byte
    y_range: tuple[float, float] = (0.0, 1.0)      # log10 FLOP/s
    x_ticks: tuple = ()
    y_ticks: tuple = ()
    marker_px: int = 12

    def to_pixels(self, flops_per_byte: float, flops_per_second: float) -> QPointF:
        (x0, x1), (y0, y1) = self.x_range, self.y_range
        return QPointF(self.view.left() + (math.log10(flops_per_byte) - x0) / (x1 - x0) * self.view.width(),
                       self.view.bottom() - (math.log10(flops_per_second) - y0) / (y1 - y0) * self.view.height())


def preferred_px(width: int, height: int, floor_px: int = TEXT_PX_MIN) -> int:
    return max(floor_px, round(min(height / TEXT_LINES_PER_HEIGHT, width / TEXT_HEIGHTS_PER_WIDTH)))


def legend_top(px: int) -> float:
    return round(px * 0.3)


def short_form(text: str) -> str:
    """A region label's first line, without its colon: "memory-bound:\\nthe worker waits" -> "memory-bound"."""
    return text.split("\n")[0].rstrip(":：")


def _split_before_unit(measure: TextMeasure, text: str, px: int, max_width: float) -> tuple[str, ...] | None:
    """An axis title on one line, or two with its bracketed unit on the second; None if neither fits."""
    if measure.width(text, px, False) <= max_width:
        return (text,)
    cut = max(text.rfind("("), text.rfind("（"))
    if cut > 0:
        lines = (text[:cut].rstrip(), text[cut:])
        if max(measure.width(line, px, False) for line in lines) <= max_width:
            return lines
    return None


def _crosses(rect: QRectF, a: QPointF, b: QPointF) -> bool:
    """Whether the segment a-b passes through ``rect`` (Liang-Barsky clipping)."""
    t0, t1 = 0.0, 1.0
    dx, dy = b.x() - a.x(), b.y() - a.y()
    for p, q in ((-dx, a.x() - rect.left()), (dx, rect.right() - a.x()),
                 (-dy, a.y() - rect.top()), (dy, rect.bottom() - a.y())):
        if p == 0:
            if q < 0:
                return False
        else:
            t = q / p
            if p < 0:
                t0 = max(t0, t)
            else:
                t1 = min(t1, t)
            if t0 > t1:
                return False
    return True


def lay_out_legend(measure: TextMeasure, points: "tuple[RooflinePoint, ...]", px: int, form: str, top: float):
    """The legend's entries, one under another from ``top``: (entries, bottom, widest line's right edge)."""
    line = measure.line_height(px, False)
    sign_size = round(px * 0.8)
    text_left = round(px * 0.4) + sign_size + round(px * 0.4)
    entries, y, right = {}, top, 0.0
    for point in (point for point in points if point.in_legend):
        if form == "one_line" or not point.value:
            lines = (point.label,)
        elif form == "two_lines":
            lines = (point.label.removesuffix(point.value).rstrip(), point.value)
        else:
            lines = (point.value,)
        # Room for any number up to six digits, so a moving point never changes the layout.
        wide = max(max(measure.width(t, px, False), measure.width(number_template(t), px, False))
                   for t in lines)
        rect = QRectF(text_left, y, wide, len(lines) * line)
        sign = QRectF(round(px * 0.4), y + (line - sign_size) / 2, sign_size, sign_size)
        entries[point.key] = (sign, FittedText(lines, px, False, rect, Qt.AlignmentFlag.AlignLeft, line))
        y, right = rect.bottom(), max(right, rect.right())
    return entries, y, right


def lay_out(measure: TextMeasure, state: "RooflineState", width: int, height: int, line_width: float,
            px: int, last_try: bool, floor_px: int = TEXT_PX_MIN) -> RooflineLayout | None:
    """Everything at text size ``px``; None when it does not fit (unless ``last_try``: then the legend is
    left out if even its values do not fit, and the rest comes as it comes)."""
    line = measure.line_height(px, False)
    pad, gap = round(px * 0.4), round(px * 0.3)
    right_edge = width - pad
    # The legend, from the fullest form that fits.
    top = legend_top(px)
    for form in ("one_line", "two_lines", "value"):
        legend, legend_bottom, legend_right = lay_out_legend(measure, state.points, px, form, top)
        if legend_right <= right_edge and (form == "one_line" or legend_bottom <= height * LEGEND_MAX_SHARE):
            break
    else:
        if not last_try:
            return None
        legend, legend_bottom, form = {}, top, "none"      # the caption and the notes name the points
    layout = RooflineLayout(px=px, legend_form=form, legend=legend, marker_px=round(px * 1.2))
    # Axis titles: y above the plot, x at the bottom.
    y_lines = _split_before_unit(measure, state.y_label, px, width - 2 * pad)
    x_lines = _split_before_unit(measure, state.x_label, px, width - 2 * pad)
    if (y_lines is None or x_lines is None) and not last_try:
        return None
    y_lines, x_lines = y_lines or (state.y_label,), x_lines or (state.x_label,)
    y_top = (legend_bottom + gap) if legend else top
    y_title = QRectF(pad, y_top, max(measure.width(t, px, False) for t in y_lines), len(y_lines) * line)
    x_width = max(measure.width(t, px, False) for t in x_lines)
    x_title = QRectF(0, height - pad // 2 - len(x_lines) * line, x_width, len(x_lines) * line)
    # The plot widget between them; its axes sized from their tick texts.
    plot_top, plot_bottom = math.ceil(y_title.bottom() + gap), math.floor(x_title.top() - gap // 2)
    axis_offset = max(4, px // 3)
    layout.axis_height = line + axis_offset + 2
    view_height = plot_bottom - plot_top - 2 - layout.axis_height
    if view_height < PLOT_MIN_LINES * line and not last_try:
        return None
    view_height = max(view_height, 2 * line)
    clear = layout.marker_px * MARKER_REACH + 2 + max(gap, line_width)   # from the roofline's centre
    (x0, y0), (x2, y2) = extent(state)
    bottom_log, roof_log = math.log10(y0), math.log10(y2)
    headroom = min(clear + 2 * measure.line_height(px, True) + gap, 0.6 * view_height)
    # At least a pixel a decade: a window dragged down to a few pixels must not stretch the axes over
    # hundreds of decades (10.0 ** 400 overflows, and every decade is a tick to lay out).
    per_decade = max(MIN_PX_PER_DECADE, (view_height - headroom - clear) / max(roof_log - bottom_log, 1e-6))
    layout.y_range = (bottom_log - clear / per_decade, roof_log + headroom / per_decade)
    layout.y_ticks = _ticks(layout.y_range, per_decade, state.y_tick_text, lambda t: 1.2 * line)
    layout.axis_width = math.ceil(max((measure.width(t, px, False) for _, t in layout.y_ticks[0]),
                                      default=0)) + axis_offset + 4
    layout.plot_widget = QRect(pad, plot_top, right_edge - pad, plot_bottom - plot_top)
    view_left = pad + 1 + layout.axis_width
    layout.view = QRectF(view_left, plot_top + 1, right_edge - 1 - view_left, view_height)
    per_decade_x = max(MIN_PX_PER_DECADE, (layout.view.width() - 2 * clear) / (math.log10(x2) - math.log10(x0)))
    layout.x_range = (math.log10(x0) - clear / per_decade_x, math.log10(x2) + clear / per_decade_x)
    layout.x_ticks = _ticks(layout.x_range, per_decade_x, state.x_tick_text,
                            lambda t: measure.width(t, px, False) + 0.6 * px)
    x_title.moveLeft(min(max(pad, layout.view.center().x() - x_width / 2), width - pad - x_width))
    layout.texts["y_title"] = FittedText(y_lines, px, False, y_title, Qt.AlignmentFlag.AlignLeft, line)
    layout.texts["x_title"] = FittedText(x_lines, px, False, x_title, Qt.AlignmentFlag.AlignHCenter, line)
    if not _place_in_plot(measure, layout, state, clear, gap, floor_px) and not last_try:
        return None
    return layout


def _ticks(log_range: tuple[float, float], px_per_decade: float, text_of, room) -> tuple:
    """Decade ticks, written by ``text_of(value)``, each labelled where its text has room inside the
    axis; every n-th (the most of them) when they would crowd. ``room(text)``: its length along the
    axis, with a gap."""
    low, high = log_range
    decades = [k for k in range(math.floor(low), math.ceil(high) + 1) if low <= k <= high]
    texts = {k: text_of(10.0 ** k) for k in decades}
    fits = [k for k in decades if min(k - low, high - k) * px_per_decade >= room(texts[k]) / 2]
    step = max(1, math.ceil(max((room(texts[k]) for k in fits), default=0) / max(px_per_decade, 1e-6)))
    phase = max(range(step), key=lambda n: (sum(1 for k in fits if k % step == n), n == 0))
    labelled = [k for k in fits if k % step == phase]
    return [(k, texts[k]) for k in labelled], [(k, "") for k in decades if k not in labelled]


def _region_forms(text: str, px: int, floor_px: int) -> list[tuple[tuple[str, ...], int]]:
    """The forms of a region label to try, fullest first: both lines at ``px`` and a little smaller; the short
    form at ``px``, then smaller, down to the floor; the short form broken after its hyphen."""
    # Both lines a little smaller before the explanation goes ("带宽瓶颈：" keeps "工人在等" where it can).
    forms = [(tuple(text.split("\n")), size) for size in range(px, max(floor_px, round(px * 0.8)) - 1, -1)]
    short = short_form(text) if "\n" in text else text
    sizes = range(px, floor_px - 1, -1) if "\n" in text else range(px - 1, floor_px - 1, -1)
    forms += [((short,), size) for size in sizes]
    if "-" in short.strip("-"):               # "memory-bound" broken after its hyphen: half as wide
        head, tail = short.split("-", 1)
        forms += [((f"{head}-", tail), size) for size in range(px, floor_px - 1, -1)]
    return forms


def _place_in_plot(measure: TextMeasure, layout: RooflineLayout, state: "RooflineState", clear: float,
                   gap: float, floor_px: int) -> bool:
    """The ridge and region labels, each at its first free place; False when the ridge label finds none."""
    px = layout.px
    corners = [layout.to_pixels(x, y) for x, y in state.roof]
    ridge = corners[1]
    roofs = [corners]
    if state.other is not None:
        roofs.append([layout.to_pixels(x, y) for x, y in state.other.roof])
    segments = [(roof[i], roof[i + 1]) for roof in roofs for i in range(len(roof) - 1)]
    # Points off the roofs (a measured point below its roof) are kept clear of too.
    off_roof = [layout.to_pixels(p.flops_per_byte, p.attainable_flops_per_second) for p in state.points]
    inner = layout.view.adjusted(gap, gap, -gap, -gap)
    touch = clear - gap / 2            # a label's distance from the roofline's centre, at least
    placed: list[QRectF] = []

    def free(rect: QRectF, side: int | None) -> bool:
        if not inner.contains(rect) or any(rect.intersects(other.adjusted(-gap, -gap, gap, gap))
                                            for other in placed):
            return False
        # Wholly on its own side of the (dashed) ridge line.
        if side == RIGHT_OF_RIDGE and rect.left() < ridge.x() + gap / 2:
            return False
        if side == LEFT_OF_RIDGE and rect.right() > ridge.x() - gap / 2:
            return False
        grown = rect.adjusted(-touch, -touch, touch, touch)
        return not (any(_crosses(grown, a, b) for a, b in segments) or any(grown.contains(m) for m in off_roof))

    # The last resort (a tiny plot): clear of the markers where they are now, across a line.
    markers = off_roof + [roof[1] for roof in roofs]

    def clear_of_markers(rect: QRectF) -> bool:
        grown = rect.adjusted(-touch, -touch, touch, touch)
        return inner.contains(rect) and not any(grown.contains(m) for m in markers) and \
            not any(rect.intersects(other.adjusted(-gap, -gap, gap, gap)) for other in placed)

    def place(name, forms, bold, spots, side, anywhere=False) -> bool:
        for lines, size in forms:
            line = measure.line_height(size, bold)
            w, h = max(measure.width(t, size, bold) for t in lines), len(lines) * line
            for left, top in spots(w, h):
                rect = QRectF(left, top, w, h)
                if free(rect, side) or (anywhere and clear_of_markers(rect)):
                    placed.append(rect)
                    layout.texts[name] = FittedText(tuple(lines), size, bold, rect, Qt.AlignmentFlag.AlignLeft, line)
                    return True
        return False

    rx, ry = ridge.x(), ridge.y()
    ridge_spots = lambda w, h: [                                          # noqa: E731
        (rx - clear - w, ry - clear - h), (rx + clear, ry - clear - h),
        (min(max(inner.left(), rx - w / 2), inner.right() - w), ry - clear - h),
        (rx + clear, ry + clear), (inner.left(), inner.top())]
    ridge_forms = [(tuple(state.ridge_label.split("\n")), px), ((state.ridge_label.replace("\n", " "),), px),
                   # a cramped plot keeps the value alone ("295 FLOP/byte"): the caption names it the ridge
                   ((state.ridge_label.split("\n")[-1],), px)]

    def nearest(w, h, x, y):
        """Every place on a coarse grid of the data area, nearest the point (x, y) first."""
        step = max(4.0, layout.px / 2)
        columns = int(max(0.0, inner.width() - w) // step) + 1
        rows = int(max(0.0, inner.height() - h) // step) + 1
        grid = [(inner.left() + i * step, inner.top() + j * step) for i in range(columns) for j in range(rows)]
        return sorted(grid, key=lambda xy: math.hypot(xy[0] + w / 2 - x, xy[1] + h / 2 - y))

    def anywhere_spots(w, h):
        return ridge_spots(w, h) + nearest(w, h, rx, ry)

    if not place("ridge", ridge_forms, True, ridge_spots, None):
        if not place("ridge", ridge_forms, True, anywhere_spots, None, anywhere=True):
            return False
    if state.other is not None:
        ox, oy = roofs[1][1].x(), roofs[1][1].y()
        label = state.other.ridge_label
        forms = [(tuple(label.split("\n")), px), ((label.replace("\n", " "),), px), ((label.split("\n")[-1],), px)]

        def near_other(w, h):
            """Right of the other ridge, above or below its roof, then anywhere clear, the nearest first."""
            return [(ox + clear, oy - clear - h), (ox + clear, oy + clear), *nearest(w, h, ox, oy)]
        if not place("other_ridge", forms, True, near_other, None):
            place("other_ridge", forms, True, near_other, None, anywhere=True)

    def on_side(spots, side):
        """The usual places first, then every place on a coarse grid of its own side: a small plot (a window
        at 1366x768) still says which side is memory-bound and which compute-bound."""
        def all_spots(w, h):
            step = max(4.0, layout.px / 3)
            columns = int(max(0.0, inner.width() - w) // step) + 1
            rows = int(max(0.0, inner.height() - h) // step) + 1
            grid = [(inner.left() + i * step, inner.top() + j * step) for i in range(columns) for j in range(rows)]
            grid = [(x, y) for x, y in grid if (x >= rx if side == RIGHT_OF_RIDGE else x + w <= rx)]
            return spots(w, h) + sorted(grid, key=lambda xy: abs(xy[0] + w / 2 - rx))
        return all_spots
    for name, text, side, spots in (
            ("compute_bound", state.compute_bound_label, RIGHT_OF_RIDGE, lambda w, h: [
                (inner.right() - w, ry - clear - h), (rx + gap, ry + clear), (inner.right() - w, inner.top()),
                (inner.right() - w, ry + clear), (inner.right() - w, inner.bottom() - h),
                (rx + gap, inner.bottom() - h)]),
            ("memory_bound", state.memory_bound_label, LEFT_OF_RIDGE, lambda w, h: [
                (rx - gap - w, inner.bottom() - h), (inner.left(), inner.top()),
                (rx - clear - w, ry - clear - h)])):
        if text:
            place(name, _region_forms(text, px, floor_px), False, on_side(spots, side), side)
    return True


__all__ = ["RooflineLayout", "lay_out", "lay_out_legend", "preferred_px", "legend_top", "short_form",
           "TEXT_PX_MIN", "REGION_LABELS"]
