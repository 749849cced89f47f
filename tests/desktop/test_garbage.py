"""The app's cycle collector runs on the UI thread between events: never on a worker thread, never
automatically in the middle of a paint; garbage is still collected."""
from __future__ import annotations

import gc
import threading
import weakref

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication, QWidget

from desktop.app import create_application
from desktop import garbage
from desktop.garbage import UiThreadCollector, collect_on_ui_thread
from desktop.kit import imports
from desktop.kit.worker import Worker


def _cycles(n: int) -> None:
    for _ in range(n):
        a, b = [], []
        a.append(b)
        b.append(a)


def test_the_application_turns_automatic_collection_off_once(qtbot):
    app = create_application()
    assert not gc.isenabled()
    assert collect_on_ui_thread(app) is collect_on_ui_thread(app)
    assert len(app.findChildren(UiThreadCollector)) == 1


def test_a_worker_thread_that_makes_garbage_never_collects(qtbot):
    create_application()
    threads = []

    def watch(phase, _info):
        if phase == "start":
            threads.append(threading.current_thread() is threading.main_thread())

    gc.callbacks.append(watch)
    try:
        worker = Worker()
        with qtbot.waitSignal(worker.finished, timeout=30_000):
            worker.run(_cycles, 200_000)       # hundreds of Python's generation-0 thresholds
        qtbot.waitUntil(lambda: bool(threads), timeout=10_000)   # collected afterwards, by the UI thread's timer
    finally:
        gc.callbacks.remove(watch)
    assert all(threads)


def test_a_parentless_widget_in_a_cycle_is_still_deleted_between_events(qtbot):
    create_application()
    holder = QObject()
    widget = QWidget()
    widget.setObjectName("dropped")
    widget.destroyed.connect(holder.deleteLater)        # a Qt-side sign that the widget went
    widget.me = widget                                  # a cycle: only the cycle collector frees it
    gone = weakref.ref(widget)
    del widget
    _cycles(2_000)                                      # enough allocation that a collection is due
    qtbot.waitUntil(lambda: gone() is None, timeout=10_000)
    assert not [w for w in QApplication.topLevelWidgets() if w.objectName() == "dropped"]


def test_a_check_collects_only_what_is_due(monkeypatch):
    monkeypatch.setattr(garbage, "_settled", {"start-up", "imports"})
    thresholds = gc.get_threshold()
    gc.set_threshold(700, 10, 10)                      # Python's defaults, whatever a run set
    try:
        gc.collect()
        assert UiThreadCollector.check() == -1
        _cycles(700)
        assert UiThreadCollector.check() == 0
        assert gc.get_count()[0] < 100
    finally:
        gc.set_threshold(*thresholds)


def _freezes(monkeypatch) -> list[int]:
    frozen = []
    monkeypatch.setattr(garbage.gc, "freeze", lambda: frozen.append(gc.get_count()[0]))   # never for real here
    monkeypatch.setattr(garbage, "_settled", set())
    monkeypatch.setattr(garbage, "FREEZES", True)           # as in the app (the test run's own switch is off)
    return frozen


def test_while_the_import_thread_runs_no_full_collection_runs_and_afterwards_survivors_are_frozen(monkeypatch):
    frozen = _freezes(monkeypatch)
    garbage._settled.add("start-up")
    running = [True]
    monkeypatch.setattr(imports, "importing", lambda: running[0])
    monkeypatch.setattr(imports, "started", lambda: True)
    collected = []
    real_collect = gc.collect
    monkeypatch.setattr(garbage.gc, "collect",
                        lambda generation=2: collected.append(generation) or real_collect(generation))
    thresholds = gc.get_threshold()
    gc.set_threshold(700, 10, 2)              # Python's young threshold; a full collection due after a few young ones
    try:
        for _ in range(40):                   # enough generation-1 collections that a full one would be due
            _cycles(800)
            assert UiThreadCollector.check() in (0, 1)
        assert collected and max(collected) == 1 and frozen == []
        assert collected.count(1) >= len(collected) // (garbage.YOUNG_COLLECTIONS_WHILE_IMPORTING + 2)   # not 1 in 12
        running[0] = False                    # the thread is done: the young generations, then frozen, once
        collected.clear()
        assert UiThreadCollector.check() == 1 and collected == [1] and len(frozen) == 1
        _cycles(800)
        assert UiThreadCollector.check() in (0, 1, 2) and len(frozen) == 1
    finally:
        gc.set_threshold(*thresholds)


def test_start_up_is_frozen_at_the_first_check_without_walking_it(monkeypatch):
    """Collecting start-up's 20,000-50,000 objects stalled the window 10-28 ms just after its first frame."""
    frozen = _freezes(monkeypatch)
    collected = []
    monkeypatch.setattr(garbage.gc, "collect", lambda generation=2: collected.append(generation) or 0)
    for importing in (False, True):           # whether or not the import thread has started by then
        garbage._settled.clear()
        monkeypatch.setattr(imports, "importing", lambda: importing)
        monkeypatch.setattr(imports, "started", lambda: importing)
        assert UiThreadCollector.check() == -1 and collected == []
        assert garbage._settled == {"start-up"}
    assert len(frozen) == 2
    monkeypatch.setattr(imports, "importing", lambda: False)
    monkeypatch.setattr(imports, "started", lambda: False)
    UiThreadCollector.check()
    assert len(frozen) == 2                   # once per stage


def test_checks_come_often_until_the_import_thread_is_done(qtbot, monkeypatch):
    """Checked every 250 ms while the thread imports, a young collection walked up to 100,000 objects."""
    collector = collect_on_ui_thread(create_application())
    state = {"started": False, "importing": False}
    monkeypatch.setattr(imports, "started", lambda: state["started"])
    monkeypatch.setattr(imports, "importing", lambda: state["importing"])
    for started, importing, interval in ((False, False, garbage.IMPORTING_CHECK_INTERVAL_MS),
                                         (True, True, garbage.IMPORTING_CHECK_INTERVAL_MS),
                                         (True, False, garbage.CHECK_INTERVAL_MS)):
        state.update(started=started, importing=importing)
        collector._tick()
        assert collector.interval_ms() == interval


def test_a_full_collection_gives_the_heaps_free_memory_back_at_most_every_interval(monkeypatch):
    """3.5 MB of heap freed after a burst of allocations stayed resident for good: half the drift budget."""
    trims = []
    monkeypatch.setattr(garbage, "_last_trim", None)
    monkeypatch.setattr(garbage, "_trim", lambda pad: trims.append(pad) or 1)
    assert garbage.give_back_free_memory(now=100.0)
    assert not garbage.give_back_free_memory(now=100.0 + garbage.TRIM_INTERVAL_SECONDS / 2)
    assert garbage.give_back_free_memory(now=100.0 + garbage.TRIM_INTERVAL_SECONDS)
    assert trims == [0, 0]
    monkeypatch.setattr(garbage, "_trim", None)                  # a C library without malloc_trim
    assert not garbage.give_back_free_memory(now=1000.0)


def test_the_trim_is_found_in_the_c_library_where_it_has_one(monkeypatch):
    import platform
    monkeypatch.setattr(garbage, "_trim", False)
    found = garbage._malloc_trim()
    assert (found is not None) == (platform.libc_ver()[0] == "glibc")
