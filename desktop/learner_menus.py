"""The learner's menu entries: File (open, save, import a model), Scenario (presets, pin, compare), Help (guide, about).

Each entry is a method that takes its path or choice (``open_from``,
``save_to``, ``import_from``, ``use_preset``), so tests and other callers need
no dialog; the menu asks for a path with the platform's file dialog first. A
file dialog is never opened while presenting: the entry says in a note that it
waits for Esc. What went wrong is one sentence: a scenario file or a value the
engine refuses at the top of the scenario controls, an import's refusal under
the model box, a file that cannot be written in the status bar.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence

from desktop.presets import PRESETS, preset_text_key
from desktop.scenario_file import SUFFIX, ScenarioFileError, read_scenario, write_scenario
from engine import InputError
from engine.units import format_parameters


class LearnerMenus(QObject):
    def __init__(self, window):
        super().__init__(window)
        self._window = window
        self.compare = None          # the compare window, made on first use
        self._help_windows: dict[str, object] = {}
        self.actions: dict[str, QAction] = {}
        for name, run, keys in (("open", self.open_dialog, QKeySequence.StandardKey.Open),
                                ("save", self.save_dialog, QKeySequence.StandardKey.Save),
                                ("import_model", self.import_dialog, None),
                                ("pin", self.pin_current, None), ("compare", self.show_compare, None),
                                ("guide", lambda: self.show_help("guide"), None),
                                ("about", lambda: self.show_help("about"), None)):
            action = QAction(window)
            action.setObjectName(f"learner_{name}")
            action.triggered.connect(lambda _checked=False, r=run: r())
            if keys is not None:
                action.setShortcut(QKeySequence(keys))
            self.actions[name] = action
        self.preset_actions: dict[str, QAction] = {}
        for preset_id in PRESETS:
            action = QAction(window)
            action.triggered.connect(lambda _checked=False, p=preset_id: self.use_preset(p))
            self.preset_actions[preset_id] = action
        self._add_to_menus()

    def _add_to_menus(self) -> None:
        menus, bar = self._window.menus, self._window.menuBar()
        file_menu = menus["file"]
        first = file_menu.actions()[0]
        for name in ("open", "save", "import_model"):
            file_menu.insertAction(first, self.actions[name])
        file_menu.insertSeparator(first)
        scenario = bar.addMenu("")
        bar.insertMenu(menus["view"].menuAction(), scenario)
        presets = scenario.addMenu("")
        self.menus = {"scenario": scenario, "presets": presets}     # the window's own menus are titled by it
        for action in self.preset_actions.values():
            presets.addAction(action)
        scenario.addSeparator()
        scenario.addAction(self.actions["pin"])
        scenario.addAction(self.actions["compare"])
        menus["help"].addAction(self._window.actions["formula"])
        menus["help"].addSeparator()
        menus["help"].addAction(self.actions["guide"])
        menus["help"].addAction(self.actions["about"])

    def retranslate(self) -> None:
        text = self._window.language.text
        menus = self.menus
        menus["scenario"].setTitle(text("learner.menu.scenario"))
        menus["presets"].setTitle(text("learner.menu.presets"))
        for name, action in self.actions.items():
            action.setText(text(f"learner.menu.{name}"))
        for preset_id, action in self.preset_actions.items():
            action.setText(text(preset_text_key(preset_id)))

    # -- notes ---------------------------------------------------------------------------------
    def _text(self, key: str, **values) -> str:
        return self._window.language.text(f"learner.note.{key}", **values)

    def _refused_while_presenting(self) -> bool:
        return self._window.presentation.refuses(self._text("not_presenting"))

    def _refusal(self, error: InputError) -> str:
        from desktop.error_text import error_text
        return error_text(self._window.language, error)

    # -- File ------------------------------------------------------------------------------------
    def open_dialog(self) -> None:
        if self._refused_while_presenting():
            return
        from PySide6.QtWidgets import QFileDialog     # Qt's dialog class: loaded on first use, not at start
        path, _ = QFileDialog.getOpenFileName(self._window, self._window.language.text("learner.menu.open"),
                                              str(Path.home()), f"{self._text('scenario_files')} (*{SUFFIX})")
        if path:
            self.open_from(Path(path))

    def open_from(self, path: Path) -> bool:
        """Make the scenario in the file at ``path`` the one in use; False (and the reason shown) if it cannot be."""
        window = self._window
        try:
            scenario = read_scenario(path)
        except ScenarioFileError as refused:
            sentence = refused.sentence(window.language)
            window.controls.show_general_refusal(sentence)
            window.show_note(sentence)
            return False
        if not window.store.set_scenario(scenario):     # the store's refusal shows at the top of the controls
            return False
        window.show_note(self._text("opened", path=str(path)))
        return True

    def save_dialog(self) -> None:
        if self._refused_while_presenting():
            return
        from PySide6.QtWidgets import QFileDialog     # Qt's dialog class: loaded on first use, not at start
        path, _ = QFileDialog.getSaveFileName(self._window, self._window.language.text("learner.menu.save"),
                                              str(Path.home() / f"scenario{SUFFIX}"),
                                              f"{self._text('scenario_files')} (*{SUFFIX})")
        if path:
            self.save_to(Path(path))

    def save_to(self, path: Path) -> bool:
        """Write the scenario in use to ``path``; False (and why, in the status bar) when it cannot be written."""
        from desktop.error_text import write_problem
        window = self._window
        try:
            write_scenario(path, window.store.scenario)
        except OSError as error:
            window.show_note(self._text("not_saved", error=write_problem(error, path).sentence(window.language)))
            return False
        window.show_note(self._text("saved", path=str(path)))
        return True

    def import_dialog(self) -> None:
        if self._refused_while_presenting():
            return
        from PySide6.QtWidgets import QFileDialog     # Qt's dialog class: loaded on first use, not at start
        path, _ = QFileDialog.getOpenFileName(self._window, self._window.language.text("learner.menu.import_model"),
                                              str(Path.home()), "config.json (*.json)")
        if path:
            self.import_from(Path(path))

    def import_from(self, path: Path, catalog_path: Path | None = None) -> bool:
        """Add the model of the ``config.json`` at ``path`` to the user's catalogue (``engine.import_model``: an
        entry the user wrote is never rewritten), list it in the model box and choose it there; a refusal is one
        sentence under the model box."""
        from engine.catalog import load_catalog
        from engine.import_model import import_model
        window = self._window
        try:
            imported = import_model(path, catalog_path)
        except InputError as refused:
            window.controls.show_field_note("model", self._refusal(refused))
            return False
        window.store.use_catalog(load_catalog(user_file=imported.catalog_path))
        window.controls.choose("model", imported.model.id)
        window.show_note(self._text("imported", name=imported.model.name,
                                    parameters=format_parameters(imported.model.published_parameters),
                                    path=str(imported.catalog_path)))
        return True

    # -- Scenario --------------------------------------------------------------------------------
    def use_preset(self, preset_id: str) -> bool:
        return self._window.store.set_scenario(PRESETS[preset_id])

    def _compare_window(self):
        if self.compare is None:
            from desktop.compare_window import CompareWindow
            window = self._window
            self.compare = CompareWindow(window.store, window.language, window.theme, window)
        return self.compare

    def pin_current(self) -> None:
        self._window.show_note(self._compare_window().pin(self._window.store.scenario))

    def show_compare(self) -> None:
        if self._refused_while_presenting():
            return
        compare = self._compare_window()
        compare.show()
        compare.raise_()

    # -- Help ----------------------------------------------------------------------------------------
    def show_help(self, which: str) -> None:
        if self._refused_while_presenting():
            return
        if which not in self._help_windows:
            from desktop.help_windows import about_window, guide_window
            window = self._window
            self._help_windows[which] = guide_window(window.language, window) if which == "guide" else \
                about_window(window.language, lambda: window.store.catalog, window)
        shown = self._help_windows[which]
        shown.refresh()
        shown.show()
        shown.raise_()

    def help_window(self, which: str):
        """The guide or About window once opened (None before)."""
        return self._help_windows.get(which)
