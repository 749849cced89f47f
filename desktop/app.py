"""Starting the application: Qt, fonts, settings, language, the shared scenario, the window.

Also the two ways the app runs without a person: ``--export`` (render every
scene to files and exit) and ``--quit-after-first-frame`` (for the start-up
benchmark).
"""
from __future__ import annotations

import sys
import traceback
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QSize, QTimer, qInstallMessageHandler
from PySide6.QtWidgets import QApplication, QWidget

from desktop import settings as settings_store
from desktop.fonts import blend_glyphs_plainly, install_cjk_fallback
from desktop.garbage import collect_on_ui_thread
from desktop.i18n import Language
from desktop.kit import imports
from desktop.quit_signals import QuitOnSignals
from desktop.error_text import error_text
from desktop.scenario_store import NoScenario, ScenarioStore
from desktop.scenes.registry import find_entry, scene_entries
from desktop.theming import apply_theme
from engine import InputError, Scenario, compute_report
from engine.catalog import default_catalog
from widgets.theme import THEMES

APP_NAME = "Inference Physics"
# Qt messages that say nothing to a user: the offscreen platform (used by --export) cannot
# pass size hints to a window system it does not have.
QUIET_QT_MESSAGES = frozenset({"This plugin does not support propagateSizeHints()"})


def _print_qt_message(_mode, _context, message: str) -> None:
    if message not in QUIET_QT_MESSAGES:
        print(message, file=sys.stderr)


# How long a thread may hold Python's lock while another waits for it (Python's default: 5 ms). The engine answers
# on worker threads while the window paints and builds scenes, and the window takes the lock back after most of
# its calls into Qt: at 5 ms a scene's first visit stalled 1.5x longer than at 1 ms (scene 7: 51-159 ms against
# 63-93 ms, six runs each). Each extra switch costs the workers a few microseconds.
UI_SWITCH_SECONDS = 0.001


def create_application() -> QApplication:
    sys.setswitchinterval(UI_SWITCH_SECONDS)
    qInstallMessageHandler(_print_qt_message)
    app = QApplication.instance()
    if app is None:
        # Fusion: the same look, and the themes' palettes, on every platform. Named to Qt as it starts rather than
        # set from Python, whose setStyle hands back a QStyle and so makes QStyle's enumerations (5-10 ms)
        # before the first frame, which needs none of them (desktop.eliding_combo).
        app = QApplication([sys.argv[0], "-style", "Fusion"])
    else:
        app.setStyle("Fusion")
    blend_glyphs_plainly()        # before the first font is made (desktop.fonts)
    app.setApplicationName(APP_NAME)
    collect_on_ui_thread(app)     # Python's cycle collector only between events, on this thread
    return app


def _startup_notes(app: QApplication, language: Language, loaded: settings_store.Loaded | None) -> list[str]:
    """Problems worth one line each: settings replaced, no CJK font, a bad catalogue entry."""
    notes = []
    if loaded is not None:
        notes.extend(loaded.notes(language))      # the file set aside or kept, or the fields reset and why
    if install_cjk_fallback(app) is None:
        notes.append(language.text("app.note.no_cjk_font"))
    notes.extend(language.text("app.note.catalog_warning", detail=warning) for warning in default_catalog().warnings)
    for note in notes:
        print(note, file=sys.stderr)
    return notes


def _chosen_scenario(choice, saved: Scenario, language: Language) -> Scenario | None:
    """The scenario the command line asks for on top of ``saved``, or None after printing the engine's one
    sentence when it refuses it (exit 2). Nothing asked: ``saved`` as it is (settings have checked it)."""
    if choice is None or not choice.asked:
        return saved
    scenario = choice.scenario(saved)
    try:
        compute_report(scenario)
    except InputError as refusal:
        print(error_text(language, refusal), file=sys.stderr)
        return None
    return scenario


def run_export(directory: Path, language: Language, size: QSize, theme_id: str,
               scene: str | None = None, choice=None, paper: str | None = None) -> int:
    """Every scene (or only the one ``scene`` names: a key or a number) to ``directory``: NN-key.png (the last
    build, ``size``) and handout.pdf (every build, on ``paper``: "a4", "letter", None for the locale's).

    The scenario is the saved one (the settings), or ``choice``'s (``desktop.scenario_options.ScenarioChoice``:
    ``--scenario FILE`` and the scenario flags). Returns the exit code: 0, 2 when the scenario is refused or
    ``directory`` is no place to write (a file, no permission, a read-only disk), 1 when writing failed for
    another reason (a full disk).
    """
    from desktop import export
    from desktop.error_text import write_problem
    app = create_application()
    loaded = settings_store.load()
    _startup_notes(app, language, loaded)
    theme = THEMES[theme_id]
    apply_theme(app, theme)
    scenario = _chosen_scenario(choice, loaded.settings.scenario, language)
    if scenario is None:
        return 2
    try:
        store = ScenarioStore(scenario, language=language)
    except NoScenario as none:
        print(none.sentence(language), file=sys.stderr)
        return 2
    try:
        entries = scene_entries() if scene is None else (find_entry(scene),)
        for path in export.export_scenes(entries, language, store, theme, size, png_dir=directory,
                                         pdf_path=directory / export.HANDOUT_FILE, paper=paper):
            print(language.text("app.export.wrote", path=str(path)))
    except OSError as error:
        problem = write_problem(error, directory, is_folder=True)
        print(problem.sentence(language), file=sys.stderr)
        return 2 if problem.bad_path else 1
    return 0


class FirstFrameWatcher(QObject):
    """Quits once ``widget`` has painted for the first time and prints the milliseconds since start."""

    def __init__(self, widget: QWidget, milliseconds_since_start):
        super().__init__(widget)
        self._since_start = milliseconds_since_start
        self._seen = False
        widget.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Paint and not self._seen:
            self._seen = True
            QTimer.singleShot(0, self._finish)    # after this paint has been drawn and flushed
        return False

    def _finish(self) -> None:
        print(f"{self._since_start():.0f}")
        QApplication.instance().quit()


def run_window(language: Language, language_code: str | None, theme_id: str | None, scene: str | None,
               present: bool, quit_after_first_frame: bool = False, milliseconds_since_start=None,
               choice=None) -> int:
    """Start the window; ``language`` is the one the command line already speaks, set to the saved choice here.
    ``choice``: the scenario the command line asks for (as for ``run_export``); None: the saved one."""
    from desktop import stop_request
    from desktop.window import MainWindow    # the window's modules load only when a window is wanted

    stop_request.check()                     # Ctrl+C while the modules loaded: no window opens
    app = create_application()
    loaded = settings_store.load()
    settings = loaded.settings
    if language_code:
        settings.language = language_code     # asked for by name: remembered like a menu choice
    if settings.language:
        language.set_code(settings.language)
    if theme_id:
        settings.theme = theme_id
    notes = _startup_notes(app, language, loaded)
    if scene is not None:                # the command line has checked that it exists
        settings.last_scene = find_entry(scene).key
    scenario = _chosen_scenario(choice, settings.scenario, language)
    if scenario is None:
        return 2
    try:
        store = ScenarioStore(scenario, language=language)
    except NoScenario as none:
        print(none.sentence(language), file=sys.stderr)
        return 2
    stop_request.check()
    window = MainWindow(language, store, settings, store.catalog, scene_entries())
    _show_errors_inline(window, language)
    stop_request.check()
    if present:
        window.presentation.start(from_start=scene is None)
    else:
        window.show()
    for note in notes:
        window.show_note(note)
    if quit_after_first_frame:
        FirstFrameWatcher(window.slide, milliseconds_since_start)
    else:
        window.deck.prepare_in_idle()             # every scene's first visit, readied after the first frame
    quit_on_signals = QuitOnSignals(app.quit)     # Ctrl+C or SIGTERM: out of the loop, then saved below
    try:
        code = app.exec()
    finally:
        quit_on_signals.uninstall()
        imports.finish()                          # no import left half done when the interpreter shuts down
    if window.isVisible():
        window.close()       # quitting without closing (first-frame run, a signal, session end) still saves
    return code


def _show_errors_inline(window, language: Language) -> None:
    """An exception in a slot is printed and shown as a note; the talk goes on."""
    def note_error(kind, value, trace) -> None:
        traceback.print_exception(kind, value, trace)
        window.show_note(language.text("app.note.unexpected", error=f"{kind.__name__}: {value}"))
    sys.excepthook = note_error
