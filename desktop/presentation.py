"""Presentation mode: the window fullscreen with only the stage and caption (F5, Shift+F5, Esc).

The menus, status bar, scene list and side panel are hidden; the type is sized
from the screen's height; the elapsed-time clock restarts. Esc first closes
what floats over the stage (help, jump prompt), then leaves presenting.
"""
from __future__ import annotations

from PySide6.QtCore import QByteArray, QObject


class Presentation(QObject):
    def __init__(self, window):
        super().__init__(window)
        self._window = window
        self.active = False
        self.geometry_before = QByteArray()

    def start(self, from_start: bool) -> None:
        """F5 (from the first scene) and Shift+F5 (from this one): fullscreen, stage and caption only."""
        window = self._window
        if not self.active:
            self.active = True
            self.geometry_before = window.saveGeometry()
            for widget in window.chrome():
                widget.hide()
            window.setGeometry(window.screen().geometry())   # covers the screen even where no window manager obeys
            window.showFullScreen()
            height = window.screen().geometry().height()
            window.slide.set_presenting_height(height)
            window.presenter.set_type_height(height)
            window.presenter.clock.restart()
            window.presenter.clock.setVisible(window.settings.clock_visible)
        if from_start:
            window.deck.first()
        window.slide.setFocus()

    def stop(self) -> None:
        window = self._window
        self.active = False
        window.presenter.clock.hide()
        window.presenter.unblank()
        window.slide.set_presenting_height(None)
        window.presenter.set_type_height(None)
        window.showNormal()
        window.restoreGeometry(self.geometry_before)
        window.menuBar().show()
        window.statusBar().show()
        window.update_chrome(force=True)
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
