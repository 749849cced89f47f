"""Scene "Your machine waits too" in Qt: measuring off the UI thread, progress as signals, stopping, the session's
measurement, export, language and the presenter standard with a measurement shown.

Most tests replace the probe's run by one that reports its stages at once (``FakeRun``); two run the real
probe at the engine tests' small size, in its child process: one waits for its result, one leaves the scene
while it measures. Neither asserts a timing.
"""
from __future__ import annotations

import multiprocessing
import os
import re
import subprocess
import sys
import select
import textwrap
import threading
from functools import partial
from pathlib import Path

import pytest
from PySide6.QtCore import QSize, Qt

from desktop.i18n import Language
from desktop.kit.scene import SceneKit, create_scene
from desktop.scenario_store import ScenarioStore
from desktop.scenes.registry import find_entry
from desktop.scenes.your_machine import measurement, probe_process
from desktop.scenes.your_machine.measurement import ProbeState
from engine.probe import STAGES, ProbeCancelled
from engine.probe_sizes import probe_error
from engine.units import format_flops
from tests.desktop import test_presenter_standard as presenter_standard
from tests.desktop.stage import drawn_texts
from tests.desktop.your_machine_fixtures import sample_accelerator, sample_result
from tests.engine.probe_fixtures import SMALL_BUDGET_BYTES
from widgets.theme import THEMES

ROOT = Path(__file__).resolve().parents[2]
KEY = "your_machine"
SCENE = find_entry(KEY).load()
CJK = re.compile(r"[\u4e00-\u9fff]")
PROBE_CHILD = probe_process.CHILD_NAME
REAL_PROBE_TIMEOUT_MS = 120_000          # a busy two-core machine: spawning, importing numpy, measuring


@pytest.fixture(autouse=True)
def no_measurement(monkeypatch):
    """Every test starts with nothing measured in the session and no file standing in for it."""
    monkeypatch.delenv(measurement.PROBE_FILE_VARIABLE, raising=False)
    measurement.forget()
    yield
    measurement.forget()


class FakeRun:
    """Stands in for ``probe_process.ProbeRun``: reports each stage, then returns ``answer`` (or raises it), or
    waits for ``release`` first when given one; ``stop`` ends the wait with ``ProbeCancelled``."""
    answer = None
    release: threading.Event | None = None
    made: list["FakeRun"] = []

    def __init__(self, catalog=None, **_options):
        self.stopped = threading.Event()
        FakeRun.made.append(self)

    def run(self, progress=None):
        for index, stage in enumerate(STAGES):
            if progress is not None:
                progress(stage, (index + 0.5) / len(STAGES))
        if self.release is not None:
            self.release.wait(timeout=60)                  # released by the test, or by stop()
        if self.stopped.is_set():
            raise ProbeCancelled()
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer

    def stop(self):
        self.stopped.set()
        if self.release is not None:
            self.release.set()


@pytest.fixture
def fake_run(monkeypatch):
    FakeRun.answer, FakeRun.release, FakeRun.made = sample_result(), None, []      # a test sets a new release
    monkeypatch.setattr(probe_process, "ProbeRun", FakeRun)
    return FakeRun


def _shown_scene(qtbot, make_window, language="en"):
    window = make_window(language)
    window.deck.show(window.deck.position_of(KEY))
    scene = window.deck.current
    assert scene.key == KEY
    return window, scene


def _strip_texts(scene) -> list[str]:
    scene.grab()
    widget = scene.progress if scene.progress.isVisible() else scene.strip
    return [drawn.text for drawn in widget.drawn_texts()]


# -- measuring ---------------------------------------------------------------------------------------------------------
def test_measure_shows_each_stage_in_order_then_the_measurement(qtbot, make_window, fake_run):
    window, scene = _shown_scene(qtbot, make_window)
    headlines, texts_changed = [], []
    scene.worker.progressed.connect(lambda _report: headlines.append(scene.progress.state.headline))
    scene.texts_changed.connect(lambda: texts_changed.append(scene.caption()))
    with qtbot.waitSignal(scene.worker.finished, timeout=10_000):
        scene._side.measure_button.click()
        assert scene.measuring and scene._side.measure_button.text() == "Stop measuring"
        assert scene.progress.isVisible() and not scene.strip.isVisible()
    stages = [scene.text(f"label.stage_{stage}") for stage in STAGES]
    assert [next(i for i, name in enumerate(stages) if f"Measuring {name}:" in line) for line in headlines] == \
        list(range(len(STAGES)))
    assert not scene.measuring and measurement.session_result() is fake_run.answer
    assert scene._side.measure_button.text() == "Measure again"
    assert texts_changed and format_flops(fake_run.answer.cpu.flops_per_second) in texts_changed[-1]   # measured
    assert any(fake_run.answer.machine.cpu_name in text for text in _strip_texts(scene))


def test_while_measuring_the_clock_rests_between_reports(qtbot, make_window, fake_run):
    fake_run.release = threading.Event()
    window, scene = _shown_scene(qtbot, make_window)
    with qtbot.waitSignal(scene.worker.progressed, timeout=10_000):
        scene.measure()
    qtbot.waitUntil(lambda: not scene.clock.ticking, timeout=5_000)   # nothing moves: no frame is drawn
    assert scene.measuring and not scene.moving(scene.clock.seconds())
    fake_run.release.set()
    qtbot.waitUntil(lambda: not scene.measuring, timeout=10_000)


def test_pressing_the_button_while_measuring_stops_it_and_keeps_what_was_shown(qtbot, make_window, fake_run):
    earlier = sample_result(measured_at="2026-01-01T08:00:00+08:00")
    measurement.keep(earlier)
    fake_run.release = threading.Event()
    window, scene = _shown_scene(qtbot, make_window)
    assert scene._side.measure_button.text() == "Measure again"
    scene._side.measure_button.click()
    assert scene.measuring
    scene._side.measure_button.click()                       # "Stop measuring"
    assert not scene.measuring and fake_run.made[-1].stopped.is_set()
    assert scene.control_values() == ProbeState(result=earlier)
    assert any("2026-01-01 08:00" in text for text in _strip_texts(scene))
    assert measurement.session_result() is earlier


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_probe_that_cannot_run_says_why_in_one_sentence_and_shows_no_figure(qtbot, make_window, fake_run,
                                                                               language):
    fake_run.answer = probe_error("probe.memory", {"needed": "32 MB", "available": "20 MB"})
    window, scene = _shown_scene(qtbot, make_window, language)
    with qtbot.waitSignal(scene.worker.finished, timeout=10_000):
        scene.measure()
    sentence = scene.kit.refusal_text(fake_run.answer)
    assert scene.control_values().error is fake_run.answer and scene.control_values().result is None
    assert re.sub(r"\s", "", sentence) in re.sub(r"\s", "", "".join(_strip_texts(scene)))   # wrapped, whole
    assert (CJK.search(sentence) is not None) == (language == "zh")
    mark = scene.text("label.measured", value="")
    for index in range(scene.build_count):
        scene.go_to_build(index, animate=False)
        scene.grab()
        assert not any(mark.strip() in text for text in drawn_texts(scene))


def test_l_in_the_middle_of_a_measurement_switches_its_progress_and_then_its_result(qtbot, make_window, fake_run):
    fake_run.release = threading.Event()
    window, scene = _shown_scene(qtbot, make_window, "en")
    scene.go_to_build(2, animate=False)
    with qtbot.waitSignal(scene.worker.progressed, timeout=10_000):
        scene.measure()
    qtbot.waitUntil(lambda: scene.control_values().stage == STAGES[-1], timeout=10_000)
    assert any(text.startswith("Measuring") for text in _strip_texts(scene))
    qtbot.keyClick(window.slide, Qt.Key.Key_L)
    assert window.language.code == "zh" and scene.measuring
    assert any(text.startswith("正在测量一次 Prefill") for text in _strip_texts(scene))
    assert scene._side.measure_button.text() == "停止测量"
    with qtbot.waitSignal(scene.worker.finished, timeout=10_000):
        fake_run.release.set()
    assert CJK.search(window.slide.caption_label.text()) and "本机实测" in "".join(_strip_texts(scene))
    assert scene.phase() == "waits"


# -- no child process left behind -----------------------------------------------------------------------------------------
def _probe_children() -> list:
    return [child for child in multiprocessing.active_children() if child.name == PROBE_CHILD]


@pytest.fixture
def small_probe(monkeypatch):
    """The real probe, CPU only, at the engine tests' small size."""
    real = probe_process.ProbeRun
    monkeypatch.setattr(probe_process, "ProbeRun", partial(real, memory_budget_bytes=SMALL_BUDGET_BYTES,
                                                            accelerators=False))


def test_leaving_the_scene_while_it_measures_ends_the_probes_process(qtbot, make_window, small_probe):
    window, scene = _shown_scene(qtbot, make_window)
    with qtbot.waitSignal(scene.worker.progressed, timeout=REAL_PROBE_TIMEOUT_MS):
        scene.measure()                                       # its child process has started and reports
    assert _probe_children()
    window.deck.show(window.deck.position_of("summary"))      # the next scene: this one is hidden
    assert not scene.measuring
    qtbot.waitUntil(lambda: not _probe_children() and probe_process.running() == 0, timeout=15_000)
    assert measurement.session_result() is None and scene.control_values() == ProbeState()


def test_a_real_measurement_arrives_off_the_ui_thread_and_is_kept_for_the_session(qtbot, make_window, small_probe):
    window, scene = _shown_scene(qtbot, make_window)
    with qtbot.waitSignal(scene.worker.finished, timeout=REAL_PROBE_TIMEOUT_MS):
        scene.measure()
        assert scene.measuring                                # the call returned at once: the stage goes on
    result = measurement.session_result()
    assert result is not None and result is scene.control_values().result
    qtbot.waitUntil(lambda: not _probe_children(), timeout=15_000)
    from desktop.scenes.your_machine.probe_file import result_from_json
    assert result_from_json(result.to_json_dict()).cpu.decode == result.cpu.decode     # the file form reads back
    assert any(result.machine.cpu_name in text for text in _strip_texts(scene))
    again = create_scene(SCENE, SceneKit(Language("en"), ScenarioStore(), THEMES["light"]))   # a later export
    qtbot.addWidget(again)
    assert again.control_values().result is result


_QUIT_MID_MEASUREMENT = textwrap.dedent("""
    import multiprocessing, os, sys
    from functools import partial
    if __name__ == "__main__":
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication
        app = QApplication([])
        from desktop.i18n import Language
        from desktop.scenario_store import ScenarioStore
        from desktop.scenes.registry import scene_entries
        from desktop.scenes.your_machine import probe_process
        from desktop.settings import Settings
        from desktop.window import MainWindow
        probe_process.ProbeRun = partial(probe_process.ProbeRun, memory_budget_bytes={budget}, accelerators=False)
        language, settings = Language("en"), Settings()
        store = ScenarioStore(settings.scenario, language=language)
        window = MainWindow(language, store, settings, store.catalog, scene_entries())
        window.show()
        window.deck.show(window.deck.position_of("your_machine"))
        scene = window.deck.current
        def on_progress(_report):
            children = [c.pid for c in multiprocessing.active_children() if c.name == "{name}"]
            if children:
                print(children[0], flush=True)
                {ending}
        scene.worker.progressed.connect(on_progress)
        QTimer.singleShot(0, scene.measure)
        app.exec()
""")


@pytest.mark.parametrize("ending", ["window.close(); app.quit()", "os.kill(os.getpid(), 9)"], ids=["quit", "killed"])
def test_an_app_that_ends_while_it_measures_leaves_no_probe_process(tmp_path, ending):
    program = _QUIT_MID_MEASUREMENT.format(budget=SMALL_BUDGET_BYTES, name=PROBE_CHILD, ending=ending)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT), "HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=REAL_PROBE_TIMEOUT_MS / 1000)
    child = int(done.stdout.split()[0])
    assert _ends_within(child, seconds=15), f"the probe's process {child} outlived the app"


def _ends_within(pid: int, seconds: float) -> bool:
    """Whether process ``pid`` (not ours: the app's child) has ended, or ends within ``seconds``."""
    if not hasattr(os, "pidfd_open"):
        pytest.skip("waiting for another process's end needs pidfd_open (Linux)")
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return True                                        # gone already
    try:
        return bool(select.select([handle], [], [], seconds)[0])      # readable once it has ended
    finally:
        os.close(handle)


# -- export ------------------------------------------------------------------------------------------------------------------
def test_an_export_never_runs_the_probe_and_shows_the_session_or_the_invitation(qtbot, monkeypatch):
    def refuse(*_args, **_kwargs):
        raise AssertionError("an export ran the probe")
    monkeypatch.setattr(probe_process, "ProbeRun", refuse)
    scene = create_scene(SCENE, SceneKit(Language("en"), ScenarioStore(), THEMES["light"]))
    qtbot.addWidget(scene)
    scene.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    scene.measure()                                           # a render never on screen measures nothing
    scene.prepare_for_export()
    assert scene.phase() == "prefill_invite" and not scene.measuring
    measurement.keep(sample_result())
    later = create_scene(SCENE, SceneKit(Language("en"), ScenarioStore(), THEMES["light"]))
    qtbot.addWidget(later)
    later.prepare_for_export()
    assert later.phase() == "prefill"


# -- the presenter standard with a measurement shown -----------------------------------------------------------------------
STATES = {
    "measured": lambda: ProbeState(result=sample_result()),
    "busy": lambda: ProbeState(result=sample_result(core_share=0.4)),
    "running": lambda: ProbeState(result=sample_result()).started().progressed("decode", 0.57),
    "refused": lambda: ProbeState().failed(probe_error("probe.memory", {"needed": "32 MB", "available": "20 MB"})),
    "gpu": lambda: ProbeState(result=sample_result(accelerator=sample_accelerator())),
}


@pytest.mark.parametrize("size, theme_id", [(QSize(1024, 768), "projector"), (QSize(1920, 1080), "light"),
                                            (QSize(3840, 2160), "dark")], ids=["1024-projector", "1920-light", "4k-dark"])
@pytest.mark.parametrize("code", ["en", "zh"])
@pytest.mark.parametrize("state", STATES, ids=list(STATES))
def test_with_a_measurement_no_text_is_below_the_floor_overlapping_or_cut(presenting, state, code, size, theme_id):
    probe = STATES[state]()
    if probe.result is not None:
        measurement.keep(probe.result)
    frame, scene, _ = presenting(SCENE, code, size, theme_id)
    scene._probe = probe
    scene.refresh()
    floor = presenter_standard.for_screen(THEMES[theme_id], size.height()).text_floor_px
    problems = []
    for index in range(scene.build_count):
        scene.go_to_build(index, animate=False)
        frame.set_texts(scene.title(), scene.caption())
        frame.layout().activate()
        presenter_standard.QApplication.processEvents()
        frame.grab()
        if presenter_standard._caption_lines(frame, scene.caption()) > presenter_standard.MAX_CAPTION_LINES:
            problems.append(f"build {index}: caption over two lines: {scene.caption()}")
        texts = presenter_standard._stage_texts(frame.stage)
        assert any(hasattr(d, "key") for _, d in texts)
        for widget, drawn in texts:
            if not hasattr(drawn, "key"):
                continue
            if drawn.px < floor - 0.5:
                problems.append(f"build {index}: {drawn.key!r} {drawn.text!r} at {drawn.px} px")
            bounds = presenter_standard.QRectF(widget.rect()).adjusted(-1, -1, 1, 1)
            if not bounds.contains(drawn.rect):
                problems.append(f"build {index}: {type(widget).__name__} {drawn.key!r} {drawn.text!r} cut off")
        by_widget: dict[int, list] = {}
        for widget, drawn in texts:
            if hasattr(drawn, "key"):
                by_widget.setdefault(id(widget), []).append(drawn)
        for entries in by_widget.values():
            for i, a in enumerate(entries):
                for b in entries[i + 1:]:
                    overlap = a.rect.intersected(b.rect)
                    if overlap.width() > 1 and overlap.height() > 1:
                        problems.append(f"build {index}: {a.key!r} overlaps {b.key!r}")
        if state != "refused":
            shown = " ".join(drawn.text for _, drawn in texts if hasattr(drawn, "key"))
            assert sample_result().machine.cpu_name.split()[0] in shown, f"build {index} does not name the machine"
    assert not problems, "\n".join(problems[:20])


def test_the_roofline_is_made_in_idle_time_so_stepping_to_it_costs_no_long_frame(qtbot, make_window):
    window, scene = _shown_scene(qtbot, make_window)
    assert scene.build_index == 0
    qtbot.waitUntil(lambda: scene.plot is not None and scene.idle.pending == 0, timeout=10_000)
    assert scene.plot.isHidden() and scene.plot.state is not None
    prepared = scene.plot.state
    qtbot.keyClick(window.slide, Qt.Key.Key_Right)
    assert scene.phase() == "roofline_invite" and scene.plot.isVisible() and scene.plot.state == prepared
