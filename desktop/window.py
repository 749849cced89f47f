"""The main window: scene list, the slide (title, stage, caption), the controls, the menus.

A window narrower than ``COMPACT_BELOW_WIDTH_PX`` (most of a 1024x768 screen)
gives the stage the room: the scene list turns into a drop-down in the title
row and the side panel puts each label above its field. The View menu hides
the list (the drop-down stays) and the side panel (Ctrl+\\); both are remembered.

Everything a key or a menu can do is a named command (``run_command``); the
keys come from ``desktop.presenter``, the menus show the same names and keys.
Presentation mode is this window, fullscreen, with the list, controls, menus
and status bar hidden.
"""
from __future__ import annotations

import sys

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QAction, QActionGroup, QGuiApplication
from PySide6.QtWidgets import QApplication, QListWidget, QMainWindow, QSplitter, QWidget

from desktop.deck import SceneDeck
from desktop.i18n import LANGUAGES, Language
from desktop.kit.signals import signals_blocked
from desktop.learner import LearnerTools
from desktop.presentation import Presentation
from desktop.presenter import BINDINGS, KeyController, PresenterLayer, key_label
from desktop.scenario_controls import ScenarioControls
from desktop.scenario_store import ScenarioStore
from desktop.scenes.registry import SceneEntry
from desktop.scene_picker import ScenePicker
from desktop.settings import Settings, save as save_settings
from desktop.side_panel import SidePanel
from desktop.slide import SlideFrame
from desktop.stage_subject import subject_texts
from desktop.theming import apply_theme
from desktop.window_geometry import clamp_onto_screens, first_window_rect
from engine.catalog import Catalog
from widgets.theme import THEMES, for_screen

LANGUAGE_NAMES = {"zh": "chinese", "en": "english"}
NOTE_MILLISECONDS = 10_000
SCENE_LIST_MAX_WIDTH = 160     # px; a longer title wraps: the stage needs the width more than the list
SCENE_LIST_PADDING = 12        # px beside the widest title (item margins and the focus frame)
# Below this window width the list becomes a drop-down and the panel a narrow column: at 1024x768
# (a window of about 920 px) list and panel beside each other left the stage about 450 px.
COMPACT_BELOW_WIDTH_PX = 1280
# (menu, commands in it); None draws a separator
MENUS = (
    ("file", ("export_png", "export_pdf", None, "quit")),
    ("scene", ("next", "previous", "first", "last", "jump", None, "reset")),
    ("view", ("present_start", "present_current", "speaker", "fullscreen", None, "scene_list", "side_panel", None,
              "black", "white", "clock", "clock_pause", "clock_reset")),
    ("help", ("help",)),
)


class MainWindow(QMainWindow):
    def __init__(self, language: Language, store: ScenarioStore, settings: Settings, catalog: Catalog,
                 entries: tuple[SceneEntry, ...], parent: QWidget | None = None):
        super().__init__(parent)
        self.language, self.store, self.settings = language, store, settings
        self.theme = for_screen(THEMES[settings.theme], (QGuiApplication.primaryScreen()).geometry().height())
        self.presentation = Presentation(self)
        self._exports = self._speaker = None       # made when first wanted: ``exports``, ``speaker``

        self.slide = SlideFrame(self.theme)
        self.deck = SceneDeck(entries, language, store, self.theme, self.slide.stage, self)
        self.scene_list = QListWidget()
        self.scene_list.setObjectName("scene_list")
        self.scene_list.setWordWrap(True)
        self.scene_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scene_picker = ScenePicker()          # the list's compact form, in the slide's title row
        self.scene_picker.hide()
        self.slide.add_to_title_row(self.scene_picker)
        self._chrome_state: tuple | None = None     # (compact, list, panel) in use
        self.controls = ScenarioControls(store, language, catalog)
        self.side_panel = SidePanel(self.controls, language)   # the scene's own controls above the scenario
        self.splitter = QSplitter()
        for widget, stretch in ((self.scene_list, 0), (self.slide, 1), (self.side_panel, 0)):
            self.splitter.addWidget(widget)
            self.splitter.setStretchFactor(self.splitter.indexOf(widget), stretch)
        self.splitter.setCollapsible(self.splitter.indexOf(self.slide), False)
        self.setCentralWidget(self.splitter)

        self.presenter = PresenterLayer(self, self.slide, language, self.theme)
        self.slide.keep_clear_of(self.presenter.clock)
        self.keys = KeyController(self, self.slide)
        self._commands = self._command_table()
        self._create_actions()
        self._create_menus()

        self.keys.command.connect(self.run_command)
        self.keys.jump_requested.connect(self.jump_to)
        self.keys.jump_text_changed.connect(self.presenter.show_jump_text)
        self.keys.jump_closed.connect(self.presenter.hide_jump)
        self.deck.current_changed.connect(self._on_scene_change)
        self.deck.texts_changed.connect(self._show_texts)
        self.scene_list.currentRowChanged.connect(self._on_list_row)
        self.scene_picker.activated.connect(self._on_list_row)
        store.error.connect(self._on_store_error)
        language.changed.connect(self.retranslate)

        self.learner = LearnerTools(self)       # build marker, panel guard, formulas, files, compare, help
        self._commands.update(self.learner.commands())

        self.set_theme(settings.theme)
        self.retranslate()
        self._place(settings.geometry)
        self.deck.show(self.deck.position_of(settings.last_scene) or 0)
        self.slide.setFocus()

    # -- commands -------------------------------------------------------------------
    def _command_table(self) -> dict:
        deck, presenter = self.deck, self.presenter
        return {
            "next": deck.next, "previous": deck.previous, "first": deck.first, "last": deck.last,
            "jump": self.keys.open_jump, "reset": deck.reset_current,
            "black": lambda: presenter.toggle_blank("black"), "white": lambda: presenter.toggle_blank("white"),
            "language": self.language.toggle, "clock": self.toggle_clock,
            "clock_pause": presenter.talk_clock.toggle_pause, "clock_reset": presenter.talk_clock.reset,
            "notes_larger": lambda: self.speaker.change_notes_size(+1),
            "notes_smaller": lambda: self.speaker.change_notes_size(-1),
            "present_start": lambda: self.presentation.start(from_start=True),
            "present_current": lambda: self.presentation.start(from_start=False),
            "fullscreen": self.presentation.toggle_fullscreen, "side_panel": self.toggle_side_panel,
            "help": presenter.toggle_help, "speaker": lambda: self.speaker.toggle(), "leave": self.presentation.leave,
            "export_png": lambda: self.exports.current_scene_dialog(),
            "export_pdf": lambda: self.exports.handout_dialog(),
            "quit": self.close,
        }

    @property
    def speaker(self):
        """The speaker view (``desktop.speaker_view.SpeakerView``), made the first time it is wanted (S, presenting):
        a window that no start shows, so the first frame waits neither for it nor for its modules."""
        if self._speaker is None:
            from desktop.speaker_view import SpeakerView
            self._speaker = SpeakerView(self)      # reads the presenter's talk clock
        return self._speaker

    def speaker_shown(self) -> bool:
        """Whether the speaker view is open (never made: it is not)."""
        return self._speaker is not None and self._speaker.isVisible()

    @property
    def exports(self):
        """The export commands (``desktop.export_actions.ExportActions``), made on the first export: the first frame
        does not wait for their module and its Qt classes."""
        if self._exports is None:
            from desktop.export_actions import ExportActions
            self._exports = ExportActions(self)
        return self._exports

    def run_command(self, name: str) -> None:
        """Do what key or menu ``name`` stands for (the names of ``presenter.BINDINGS``)."""
        if self.presenter.blank_shade and name not in ("black", "white", "quit"):
            self.presenter.unblank()          # any key brings the stage back, and only that
            return
        if self.presenter.help.isVisible() and name != "help":
            self.presenter.help.hide()
            if name == "leave":
                return
        self._commands[name]()

    def jump_to(self, number: int) -> None:
        if not self.deck.go_to(number):
            self.show_note(self.language.text("app.note.no_such_scene", number=number))

    def toggle_clock(self) -> None:
        """T: show the talk's elapsed time on the stage too (by default only the speaker view shows it)."""
        self.settings.stage_clock_visible = not self.settings.stage_clock_visible
        self.actions["clock"].setChecked(self.settings.stage_clock_visible)
        self.presenter.clock.setVisible(self.presentation.active and self.settings.stage_clock_visible)

    def toggle_side_panel(self) -> None:
        if not self.presentation.active:            # presenting hides it anyway; the key must not change the setting
            self.settings.side_panel_visible = not self.settings.side_panel_visible
            self.update_chrome()

    def toggle_scene_list(self) -> None:
        self.settings.scene_list_visible = not self.settings.scene_list_visible
        self.update_chrome()

    def chrome(self) -> list[QWidget]:
        """What presenting hides: everything but the stage and caption."""
        return [self.menuBar(), self.statusBar(), self.scene_list, self.scene_picker, self.side_panel]

    # -- notes (never a dialog) --------------------------------------------------------
    def show_note(self, text: str) -> None:
        if self.presentation.active:
            self.presenter.show_note(text)
        else:
            self.statusBar().showMessage(text, NOTE_MILLISECONDS)

    def _on_store_error(self, message: str) -> None:
        if self.presentation.active:                  # the controls that show it inline are hidden
            self.presenter.show_note(message)

    # -- looks and language -----------------------------------------------------------------
    def set_theme(self, theme_id: str, height_px: int | None = None) -> None:
        """Use theme ``theme_id`` with the text floor of a stage ``height_px`` high (default: this screen's)."""
        self.settings.theme = theme_id
        screen = self.screen() or QGuiApplication.primaryScreen()
        self.theme = for_screen(THEMES[theme_id], height_px or screen.geometry().height())
        apply_theme(QApplication.instance(), self.theme)
        self.slide.set_theme(self.theme)
        self.deck.set_theme(self.theme)
        self.presenter.set_theme(self.theme)
        self.controls.set_theme(self.theme)
        self.actions[f"theme_{theme_id}"].setChecked(True)

    def retranslate(self, *_args) -> None:
        if _args:                                   # a switch, not the first call: the user chose
            self.settings.language = self.language.code
        text = self.language.text
        self.setWindowTitle(text("app.window.title"))
        for name, menu in self.menus.items():
            menu.setTitle(text(f"app.menu.{name}"))
        for command in BINDINGS:
            if command in self.actions:
                self.actions[command].setText(f"{text(f'app.command.{command}')}\t{key_label(command)}")
                self.actions[command].setStatusTip(text(f"app.command.{command}"))
        for theme_id in THEMES:
            self.actions[f"theme_{theme_id}"].setText(text(f"app.theme.{theme_id}"))
        for code in LANGUAGES:
            self.actions[f"language_{code}"].setText(text(f"app.language_name.{LANGUAGE_NAMES[code]}"))
            self.actions[f"language_{code}"].setChecked(code == self.language.code)
        self.actions["language"].setText(f"{text('app.command.language')}\t{key_label('language')}")
        self.actions["scene_list"].setText(text("app.view.scene_list"))
        self.actions["scene_list"].setStatusTip(text("app.view.scene_list_tip"))
        entries = [self.deck.label_of(position) for position in range(len(self.deck.entries))]
        with signals_blocked(self.scene_list):
            self.scene_list.clear()
            self.scene_list.addItems(entries)
            self.scene_list.setCurrentRow(self.deck.position)
        self.scene_picker.set_entries(entries, self.deck.position)
        self.scene_picker.setStatusTip(text("app.view.scene_picker_tip"))
        self.scene_picker.setAccessibleName(text("app.view.scene_picker_tip"))
        self._fit_columns()
        self.presenter.retranslate()

    def _create_actions(self) -> None:
        self.actions: dict[str, QAction] = {}
        for command in BINDINGS:
            action = QAction(self)
            action.triggered.connect(lambda _checked=False, c=command: self.run_command(c))
            self.actions[command] = action
        self.actions["clock"].setCheckable(True)
        self.actions["clock"].setChecked(self.settings.stage_clock_visible)
        self.actions["side_panel"].setCheckable(True)
        self.actions["side_panel"].setChecked(self.settings.side_panel_visible)
        scene_list = QAction(self, checkable=True, checked=self.settings.scene_list_visible)
        scene_list.triggered.connect(self.toggle_scene_list)
        self.actions["scene_list"] = scene_list
        themes = QActionGroup(self)
        for theme_id in THEMES:
            action = QAction(themes, checkable=True)
            action.triggered.connect(lambda _checked=False, t=theme_id: self.set_theme(t))
            self.actions[f"theme_{theme_id}"] = action
        languages = QActionGroup(self)
        for code in LANGUAGES:
            action = QAction(languages, checkable=True)
            action.triggered.connect(lambda _checked=False, c=code: self.language.set_code(c))
            self.actions[f"language_{code}"] = action

    def _create_menus(self) -> None:
        self.menus = {}
        for name, commands in MENUS:
            menu = self.menuBar().addMenu("")
            self.menus[name] = menu
            for command in commands:
                menu.addSeparator() if command is None else menu.addAction(self.actions[command])
            if name == "view":
                self.menus["theme"] = menu.addMenu("")
                for theme_id in THEMES:
                    self.menus["theme"].addAction(self.actions[f"theme_{theme_id}"])
                self.menus["language"] = menu.addMenu("")
                for code in LANGUAGES:
                    self.menus["language"].addAction(self.actions[f"language_{code}"])
                self.menus["language"].addAction(self.actions["language"])

    # -- following the deck ------------------------------------------------------------------
    def _on_list_row(self, row: int) -> None:
        if 0 <= row != self.deck.position:
            self.deck.show(row)
            self.slide.setFocus()

    def _on_scene_change(self, key: str) -> None:
        self.settings.last_scene = key
        position = self.deck.position_of(key)           # the row of the scene list and drop-down
        with signals_blocked(self.scene_list):
            self.scene_list.setCurrentRow(position)
        self.scene_picker.set_current(position)
        self.side_panel.show_scene_controls(self.deck.current.controls())
        self._fit_columns()

    def _show_texts(self) -> None:
        scene = self.deck.current
        self.slide.set_texts(self.deck.title_of(self.deck.position), scene.caption())
        self.slide.set_subject(*subject_texts(self.language, scene))
        if self.speaker_shown():
            self.speaker.refresh()

    # -- size and place -------------------------------------------------------------------------
    def _place(self, saved_geometry: str) -> None:
        """The saved geometry kept on a visible screen, or most of the screen the first time."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        if saved_geometry and self.restoreGeometry(QByteArray.fromBase64(saved_geometry.encode())):
            if not (self.isMaximized() or self.isFullScreen()):
                screens = [QGuiApplication.primaryScreen().availableGeometry()] + [
                    other.availableGeometry() for other in QGuiApplication.screens()
                    if other is not QGuiApplication.primaryScreen()]
                self.setGeometry(clamp_onto_screens(self.geometry(), screens))
        else:
            self.setGeometry(first_window_rect(screen.availableGeometry()))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.update_chrome()

    def update_chrome(self, force: bool = False) -> None:
        """List or drop-down, panel labels beside or above their fields, panel shown or not, from the
        window's width and the View menu's choices."""
        if self.presentation.active:
            return
        compact = self.width() < COMPACT_BELOW_WIDTH_PX
        list_shown = self.settings.scene_list_visible and not compact
        panel_shown = self.settings.side_panel_visible
        self.actions["scene_list"].setChecked(self.settings.scene_list_visible)
        self.actions["side_panel"].setChecked(panel_shown)
        state = (compact, list_shown, panel_shown)
        if not force and state == self._chrome_state:
            return
        self._chrome_state = state
        self.scene_list.setVisible(list_shown)
        self.scene_picker.setVisible(not list_shown)
        self.side_panel.setVisible(panel_shown)
        self.controls.set_labels_above(compact)
        self._fit_columns()

    def _fit_columns(self) -> None:
        """The scene list as wide as its longest title (up to a limit; longer ones wrap), the panel
        as wide as its widest control, the stage everything else (hidden columns take nothing)."""
        metrics = self.scene_list.fontMetrics()
        widest = max((metrics.horizontalAdvance(self.scene_list.item(row).text())
                      for row in range(self.scene_list.count())), default=0)
        list_width = min(widest + SCENE_LIST_PADDING + 2 * self.scene_list.frameWidth(), SCENE_LIST_MAX_WIDTH)
        self.scene_list.setFixedWidth(list_width)
        self.side_panel.fit_width()
        list_width = list_width if not self.scene_list.isHidden() else 0
        panel_width = self.side_panel.minimumWidth() if not self.side_panel.isHidden() else 0
        total = sum(self.splitter.sizes()) or self.width()
        self.splitter.setSizes([list_width, max(0, total - list_width - panel_width), panel_width])

    # -- remembering ---------------------------------------------------------------------------
    def closeEvent(self, event) -> None:
        geometry = self.presentation.geometry_before if self.presentation.active else self.saveGeometry()
        self.settings.geometry = bytes(geometry.toBase64()).decode("ascii")
        self.settings.scenario = self.store.scenario
        problem = save_settings(self.settings)
        if problem:
            print(self.language.text("app.note.settings_not_saved", error=problem.sentence(self.language)),
                  file=sys.stderr)
        super().closeEvent(event)
