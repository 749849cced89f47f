"""A real pyqtgraph PlotWidget paints, offscreen, without killing the process.

PySide6 6.12.0 with pyqtgraph 0.14.0 aborts on the first paint of a PlotWidget
(a refcount error in AxisItem.generateDrawSpecs); pyproject.toml pins below it.
Other tests replace plots or never paint them; this one paints a real one and
looks at the pixels, so a bad pairing fails here instead of in front of a room.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor

CURVE = QColor("#d62728")


def test_a_plot_widget_paints_its_axes_and_curve(qtbot):
    plot = pg.PlotWidget(background="w")
    qtbot.addWidget(plot)
    plot.resize(400, 300)
    x = np.linspace(0, 10, 200)
    plot.plot(x, np.sin(x), pen=pg.mkPen(CURVE, width=3))
    plot.setLabel("bottom", "FLOP/byte")
    for side in ("left", "bottom"):
        plot.getAxis(side).setPen("k")
        plot.getAxis(side).setTextPen("k")
    plot.show()
    qtbot.waitExposed(plot)

    image = plot.grab().toImage()
    assert image.width() >= 400 and image.height() >= 300
    colours = [image.pixelColor(x, y) for x in range(0, image.width(), 2) for y in range(0, image.height(), 2)]
    curve = [c for c in colours if c.red() > 180 and c.green() < 90 and c.blue() < 90]
    dark = [c for c in colours if c.lightness() < 100]          # axes, ticks and their labels
    assert len(curve) > 50, "the curve was not drawn"
    assert len(dark) > 50, "the axes were not drawn"
