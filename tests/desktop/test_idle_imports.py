"""Idle time after the first frame: modules imported on a thread of their own, the UI thread's idle work waiting
for them, and each scene's first visit prepared as its modules arrive (issue 26: a 0.3 s import of pyqtgraph on
the UI thread froze the window after its first frame)."""
from __future__ import annotations

import sys
import threading

import pytest

from desktop.kit import imports
from desktop.kit.idle import IdleWork


@pytest.fixture
def fresh_imports(monkeypatch):
    monkeypatch.setattr(imports, "_thread", None)       # once per process: each test starts its own
    monkeypatch.setattr(imports, "_done", set())


def test_modules_are_imported_in_order_on_a_thread_of_their_own_once(tmp_path, monkeypatch, fresh_imports):
    for name in ("first_idle_module", "second_idle_module"):
        (tmp_path / f"{name}.py").write_text(
            "import threading, idle_record\nidle_record.seen.append((__name__, threading.current_thread().name))\n")
    (tmp_path / "idle_record.py").write_text("seen = []\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    thread = imports.import_in_background(["first_idle_module", "not_a_module_at_all", "second_idle_module"])
    thread.join(timeout=30)
    import idle_record
    assert [name for name, _ in idle_record.seen] == ["first_idle_module", "second_idle_module"]   # a failure skipped
    assert all(where != threading.main_thread().name for _, where in idle_record.seen)
    assert imports.import_in_background(["first_idle_module"]) is None and not imports.importing()
    assert imports.ready("first_idle_module") and imports.ready("not_a_module_at_all")
    for name in ("first_idle_module", "second_idle_module", "idle_record"):
        sys.modules.pop(name, None)


def test_when_the_app_ends_the_thread_finishes_the_module_it_is_importing_and_starts_no_other(
        tmp_path, monkeypatch, fresh_imports):
    (tmp_path / "idle_gate.py").write_text("import threading\nstarted, go = threading.Event(), threading.Event()\n")
    (tmp_path / "slow_idle_module.py").write_text("import idle_gate\nidle_gate.started.set()\nidle_gate.go.wait(30)\n")
    (tmp_path / "later_idle_module.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    import idle_gate
    thread = imports.import_in_background(["slow_idle_module", "later_idle_module"])
    assert idle_gate.started.wait(30)
    imports.finish(timeout=0)            # the app ends while the slow module is half imported
    idle_gate.go.set()
    imports.finish()                     # ... and waits for that one
    assert not thread.is_alive() and "slow_idle_module" in sys.modules and "later_idle_module" not in sys.modules
    for name in ("idle_gate", "slow_idle_module"):
        sys.modules.pop(name, None)


def test_before_pyqtgraph_the_thread_makes_the_qt_names_it_copies_letting_the_lock_go_between(
        tmp_path, monkeypatch, fresh_imports):
    """pyqtgraph copies every name of QtCore, QtGui and QtWidgets, and PySide makes each on first asking: asked for
    first, a few at a time with the lock let go between, and only before a pyqtgraph not yet imported."""
    from PySide6 import QtCore, QtGui, QtWidgets

    (tmp_path / "idle_plot_library.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    yields = []
    monkeypatch.setattr(imports, "_let_go", lambda: yields.append(1))
    monkeypatch.setattr(imports, "BEFORE_IMPORT", {"idle_plot_library": imports._make_qt_names, "sys": pytest.fail})
    imports.import_in_background(["sys", "idle_plot_library"]).join(timeout=60)
    names = sum(len(dir(module)) for module in (QtCore, QtGui, QtWidgets))
    assert len(yields) >= names // imports.NAMES_BETWEEN_YIELDS
    assert imports.ready("idle_plot_library")
    sys.modules.pop("idle_plot_library", None)


def test_a_scenes_idle_work_waits_while_the_thread_imports(qtbot, monkeypatch):
    from PySide6.QtWidgets import QWidget

    busy = {"now": True}
    monkeypatch.setattr(imports, "importing", lambda: busy["now"])
    scene = QWidget()
    qtbot.addWidget(scene)
    scene.show()
    ran = []
    work = IdleWork(scene)
    work.schedule([lambda: ran.append(1)])
    work._run_one()                                  # its turn comes while the thread imports: it waits
    assert ran == [] and work.pending == 1
    assert work._timer.isActive() and work._timer.interval() == imports.WAIT_MS
    busy["now"] = False
    qtbot.waitUntil(lambda: ran == [1])


def test_a_module_the_thread_is_still_importing_is_not_ready(fresh_imports, monkeypatch):
    monkeypatch.setattr(imports, "importing", lambda: True)
    imports._done.add("desktop.scenes.tokens.view")
    assert imports.ready("desktop.scenes.tokens.view")
    assert not imports.ready("desktop.scenes.serving.view")     # in sys.modules from its import's start: not a sign
    monkeypatch.setattr(imports, "importing", lambda: False)
    assert imports.ready("desktop.scenes.serving.view")


def test_the_deck_imports_every_scene_then_the_libraries_and_prepares_each_scene_once(make_window, qtbot,
                                                                                     monkeypatch):
    window = make_window()
    deck = window.deck
    asked, prepared = [], []
    monkeypatch.setattr(imports, "import_in_background", lambda names: asked.append(list(names)))
    monkeypatch.setattr(imports, "importing", lambda: False)
    for entry in deck.entries:
        monkeypatch.setattr(entry.load(), "prepare_before_first_visit",
                            classmethod(lambda cls, kit: prepared.append(cls.key)))
    deck.prepare_in_idle(delay_ms=0)
    qtbot.waitUntil(lambda: len(prepared) == len(deck.entries))
    assert asked == [[*imports.PROCESS_LIBRARIES, *(entry.module for entry in deck.entries), *imports.LIBRARIES]]
    assert prepared == [entry.key for entry in deck.entries]
