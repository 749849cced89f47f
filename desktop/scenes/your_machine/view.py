"""The view of "Your machine waits too": a figures table, scene 1's roofline, times and shares, and a strip.

It hands the story's states to its widgets and places them where the story
says. Its one mutable part is the probe's state (``measurement.ProbeState``,
the story's control value) and the run in progress. The Measure button (the
scene's own control) starts a probe in a child process of its own
(``probe_process``) through the kit's worker: the stage never waits for it.
Each progress report arrives as a signal and repaints the strip (nothing
moves between reports, so the clock rests); the result, the probe's
one-sentence refusal or nothing (it was stopped) arrives as the job's result.
Pressing the button while the probe runs stops it, and so does leaving the
scene: the child process is ended at once, and what was shown before stays.

The measurement is the session's (``measurement.keep``): every scene made
later in this process (an export, the speaker view's preview) shows it. An
export never runs the probe: it shows the session's measurement, or the
invitation (``measurement.session_state``).

The roofline plot (pyqtgraph) is made, laid out and painted once in idle time after the first frame
(``idle_jobs``), or when a build shows it first (an export).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from desktop.kit.idle import never_on_screen
from desktop.kit.scene import Scene
from desktop.kit.worker import Worker
from engine import InputError
from engine.probe_result import ProbeResult
from engine.probe_sizes import probe_error
from widgets.figure_table import FigureTable
from widgets.ratio_bars import RatioBars
from widgets.share_bars import ShareBars

from . import measurement, probe_process
from .controls import YourMachineControls
from .story import YourMachineStory

if TYPE_CHECKING:
    from widgets.roofline_plot import RooflinePlot


class YourMachineScene(Scene):
    Story = YourMachineStory
    shows_times = True

    def __init__(self, kit, parent: QWidget | None = None):
        super().__init__(kit, parent)
        self._probe = measurement.session_state()
        self._run: probe_process.ProbeRun | None = None
        theme = kit.theme
        self.table = self.themed(FigureTable(theme, self))
        self.times = self.themed(RatioBars(theme, self))
        self.shares = self.themed(ShareBars(theme, self))
        self.strip = self.themed(FigureTable(theme, self))
        self.progress = self.themed(ShareBars(theme, self))
        self.plot: RooflinePlot | None = None       # made in idle time after the first show, or when a build shows it
        self._plot_painted_at = None                 # the size it was last painted at while hidden
        self.worker = Worker(self)
        self.worker.progressed.connect(self._on_progress)
        self.worker.finished.connect(self._on_result)
        self.worker.failed.connect(self._on_failure)
        self._side = self.own_controls(YourMachineControls())
        self._side.pressed.connect(self.press_measure)
        self.start()

    # -- the scene contract ---------------------------------------------------------------------------------
    def control_values(self) -> measurement.ProbeState:
        return self._probe

    def present(self, story: YourMachineStory, animate: bool) -> None:
        shown = story.shows()
        if "plot" in shown:
            self._create_plot().set_state(story.plot_state())
        if "table" in shown:
            self.table.set_state(story.table_state())
        if "times" in shown:
            self.times.set_state(story.times_state())
        if "shares" in shown:
            self.shares.set_state(story.shares_state())
        if story.strip_kind() == "progress":
            self.progress.set_state(story.strip_state())
        else:
            self.strip.set_state(story.strip_state())
        self._side.show_texts(story.button_text(), self.text("control.measure_tip"), story.status_text())
        self.lay_out()

    def figure_places(self) -> dict:
        """The table's ridges, the shares' parts, titles and headline, the times' prediction
        (``YourMachineStory.formula_labels``)."""
        widgets = {"table": self.table, "shares": self.shares, "times": self.times}
        return {key: (widgets[widget], names) for key, (widget, names) in self.story().formula_labels().items()}

    def lay_out(self) -> None:
        story = self.story()
        rects = story.rects(self.width(), self.height())
        progress = story.strip_kind() == "progress"
        self.place({self.table: rects["table"], self.times: rects["times"], self.shares: rects["shares"],
                    self.strip: None if progress else rects["strip"], self.progress: rects["strip"] if progress else None})
        if self.plot is not None:
            self.place({self.plot: rects["plot"]})

    def retranslate_controls(self) -> None:
        if self._story is not None:           # the controls follow the story; start() reads them first
            story = self.story()
            self._side.show_texts(story.button_text(), self.text("control.measure_tip"), story.status_text())

    def _create_plot(self) -> "RooflinePlot":
        if self.plot is None:
            from widgets.roofline_plot import RooflinePlot   # pyqtgraph loads here, after the first frame
            self.plot = self.themed(RooflinePlot(self.kit.theme, self))
            self.plot.hide()
        return self.plot

    def idle_jobs(self) -> list:
        # As scene 1 does: the plot made, laid out for the roofline build and painted once while hidden, one job a
        # turn, so that stepping to that build costs no long frame.
        return [self._create_plot, self._prepare_plot, self._paint_plot_once]

    def _roofline_story(self) -> YourMachineStory:
        return self.Story(self.inputs().at_build(self.Story.builds.index("roofline")))

    def _prepare_plot(self) -> None:
        story, plot = self._roofline_story(), self._create_plot()
        rect, state = story.rects(self.width(), self.height())["plot"], story.plot_state()
        if rect is not None and state is not None and plot.isHidden():
            plot.setGeometry(*rect)
            plot.set_state(state)

    def _paint_plot_once(self) -> None:
        if self.plot is not None and self.plot.isHidden() and self._plot_painted_at != self.plot.size():
            self._plot_painted_at = self.plot.size()
            self.plot.grab()

    # -- the probe ------------------------------------------------------------------------------------------
    @property
    def measuring(self) -> bool:
        return self._run is not None

    def press_measure(self) -> None:
        """The button: stop the probe running, else measure (again)."""
        if self.measuring:
            self.stop_measuring()
        else:
            self.measure()

    def measure(self) -> None:
        """Start a probe of this machine off the UI thread (a child process); its progress and result arrive as
        signals. Never in a render that is never on screen (an export shows what the session measured)."""
        if self.measuring or never_on_screen(self):
            return
        self._run = probe_process.ProbeRun(self.kit.catalog)
        self._probe = self._probe.started()
        self.worker.run_reporting(probe_process.measure, self._run)
        self._changed()

    def stop_measuring(self) -> None:
        """Stop the probe running (its child process ends now); what was shown before stays."""
        run, self._run = self._run, None
        if run is None:
            return
        self.worker.cancel()
        run.stop()
        self._probe = self._probe.stopped()
        self._changed()

    def _on_progress(self, report) -> None:
        if self.measuring:
            stage, fraction = report
            self._probe = self._probe.progressed(stage, fraction)
            self.refresh()

    def _on_result(self, answer) -> None:
        self._run = None
        if isinstance(answer, ProbeResult):
            measurement.keep(answer)
            self._probe = self._probe.finished(answer)
        elif isinstance(answer, InputError):
            self._probe = self._probe.failed(answer)
        else:
            self._probe = self._probe.stopped()
        self._changed()

    def _on_failure(self, message: str) -> None:
        """Something the probe did not put in its own sentence (the worker's thread failed)."""
        self._run = None
        self._probe = self._probe.failed(probe_error("probe.stopped", {"reason": message}))
        self._changed()

    def _changed(self) -> None:
        """The story's inputs changed by something the frame did not do: the caption and notes read anew."""
        self.refresh()
        self.texts_changed.emit()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self.measuring and self._probe.result is not measurement.session_result():
            self._probe = measurement.session_state()       # measured meanwhile by another view of this scene
            self._changed()

    def hideEvent(self, event) -> None:
        # Leaving the scene stops the probe (a minimised window, a spontaneous hide, does not).
        if not event.spontaneous() and getattr(self, "_run", None) is not None:
            self.stop_measuring()
        super().hideEvent(event)


SCENE = YourMachineScene
