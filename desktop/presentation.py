"""Presentation mode: the window fullscreen with only the stage and caption (F5, Shift+F5, Esc).

The menus, status bar, scene list and side panel are hidden; the type is sized
from the screen's height. The talk clock starts with the first presentation and
is never restarted by one (Alt+T resets it). With two screens the stage goes to
the one that is not the primary (the projector), as PowerPoint does; on one
screen with the speaker view open, the stage keeps beside it
(``SpeakerView.arrange``). Esc first closes what floats over the stage (help,
jump prompt), then leaves presenting.
"""
from __future__ import annotations

from PySide6.QtCore import QByteArray, QObject

from widgets.theme import for_screen


class Presentation(QObject):
    def __init__(self, window):
        super().__init__(window)
        self._window = window
        self.active = False
        self.geometry_before = QByteArray()

    def refuses(self, note: str) -> bool:
        """Whether a dialog must wait while presenting (no dialog pops up mid-talk): then ``note`` says so."""
        if self.active:
            self._window.show_note(note)
        return self.active

    def start(self, from_start: bool) -> None:
        """F5 (from the first scene) and Shift+F5 (from this one): fullscreen, stage and caption only."""
        window = self._window
        if not self.active:
            self.active = True
            self.geometry_before = window.saveGeometry()
            for widget in window.chrome():
                widget.hide()
            window.speaker.arrange()     # fullscreen on the audience's screen, or beside the speaker view
            window.presenter.talk_clock.start()
            window.presenter.clock.setVisible(window.settings.stage_clock_visible)
        if from_start:
            window.deck.first()
        window.slide.setFocus()

    def size_type(self, height_px: int) -> None:
        """Size the stage's type from the height of the audience's area (the screen, or the part of it left
        beside the speaker view on one screen)."""
        window = self._window
        window.slide.set_presenting_height(height_px)
        window.presenter.set_type_height(height_px)
        self._fit_theme(height_px)           # the stage's own text floor too

    def _fit_theme(self, height_px: int) -> None:
        window = self._window
        if window.theme.text_floor_px != for_screen(window.theme, height_px).text_floor_px:
            window.set_theme(window.settings.theme, height_px)

    def stop(self) -> None:
        window = self._window
        self.active = False
        window.presenter.clock.hide()
        window.presenter.unblank()
        window.slide.set_presenting_height(None)
        window.presenter.set_type_height(None)
        window.showNormal()
        window.restoreGeometry(self.geometry_before)
        self._fit_theme((window.screen() or window.windowHandle().screen()).geometry().height())
        window.menuBar().show()
        window.statusBar().show()
        window.update_chrome(force=True)
        if window.speaker_shown():
            window.speaker.arrange()              # one screen: the window keeps beside the speaker view
        window.slide.setFocus()

    def leave(self) -> None:
        """Esc: close the top overlay, else stop presenting, else leave fullscreen."""
        window = self._window
        if window.presenter.close_top():
            return
        if self.active:
            self.stop()
        elif window.isFullScreen():
            window.showNormal()

    def toggle_fullscreen(self) -> None:
        window = self._window
        if not self.active:
            window.showNormal() if window.isFullScreen() else window.showFullScreen()
