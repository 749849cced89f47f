"""The speaker view (S): what the presenter sees and the room does not.

As PowerPoint's presenter view and reveal.js's speaker view: the current build,
a small preview of the next build, the speaker notes of the current phase with
this scenario's numbers, the elapsed time and the clock. It is a window of its
own: fullscreen on a second screen when there is one (the audience's screen
keeps only the stage), else a window beside the presentation. The same keys
and clicker drive both: its key presses go to the main window's commands.

Previews are rendered after the build change has been painted (a short
single-shot timer), so stepping through builds never waits for them.
"""
from __future__ import annotations

import time

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QFont, QGuiApplication, QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QTextBrowser, QVBoxLayout, QWidget

from desktop.presenter import KeyController
from widgets.presenter_clock import format_elapsed

# Wait this long after a build change before rendering the previews: the build's own transition
# (a few hundred ms) runs first, and a clicker pressed quickly renders only the build it stops on.
PREVIEW_DELAY_MS = 350
# Once a second: the clocks show whole seconds.
CLOCK_INTERVAL_MS = 1000
PREVIEW_WIDTH_PX = 480              # the previews' width on a wide screen ...
PREVIEW_SHARE = 0.4                 # ... and at most this share of a narrow speaker view: the notes keep the rest
PREVIEW_MIN_WIDTH_PX = 160
PREVIEW_SIZE = QSize(960, 540)       # rendered at a projector-like 16:9 and scaled down: the same layout the room sees
NOTES_POINT_SIZE = 18        # notes are read at arm's length, in a hurry


class SpeakerView(QWidget):
    def __init__(self, window):
        # A window of its own, owned by the main window: Qt deletes it with the window, never Python's collector.
        super().__init__(window, Qt.WindowType.Window)
        self._window = window
        self.setObjectName("speaker_view")
        self.status_label = QLabel()
        self.time_label = QLabel()
        self.current_preview = QLabel()
        self.next_label = QLabel()
        self.next_preview = QLabel()
        self.notes = QTextBrowser()
        # Read, never typed in: the clicker's arrows and Space must reach the talk, not scroll the notes.
        self.notes.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        font = QFont(self.notes.font())
        font.setPointSize(NOTES_POINT_SIZE)
        self.notes.setFont(font)
        self._sources: dict[QLabel, QPixmap] = {}     # each preview's full-size picture, scaled on resize
        for preview in (self.current_preview, self.next_preview):
            preview.setAlignment(Qt.AlignmentFlag.AlignCenter)
            # The picture is scaled to the width this view gives it; it never sets the view's minimum width.
            preview.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        left = QVBoxLayout()
        for widget in (self.status_label, self.current_preview, self.next_label, self.next_preview):
            left.addWidget(widget)
        left.addStretch(1)
        right = QVBoxLayout()
        right.addWidget(self.time_label, alignment=Qt.AlignmentFlag.AlignRight)
        right.addWidget(self.notes, stretch=1)
        columns = QHBoxLayout(self)
        columns.addLayout(left)
        columns.addLayout(right, stretch=1)
        self._started = time.monotonic()
        self._clock = QTimer(self)
        self._clock.setInterval(CLOCK_INTERVAL_MS)
        self._clock.timeout.connect(self._tick)
        self._previews = QTimer(self)
        self._previews.setSingleShot(True)
        self._previews.setInterval(PREVIEW_DELAY_MS)
        self._previews.timeout.connect(self._render_previews)
        self._preview_cache: dict = {}
        self.keys = KeyController(self, self)
        self.keys.command.connect(window.run_command)
        self.keys.jump_requested.connect(window.jump_to)

    # -- what the frame calls ------------------------------------------------------------
    def toggle(self) -> None:
        """S: open the speaker view (on another screen when there is one), or close it."""
        if self.isVisible():
            self.hide()
            return
        self._place()
        self._started = time.monotonic()
        self._clock.start()
        self.refresh()

    def refresh(self) -> None:
        """The build or scenario changed: new notes now, new previews once the stage has settled."""
        if not self.isVisible():
            return
        language, deck = self._window.language, self._window.deck
        scene = deck.current
        self.setWindowTitle(language.text("app.speaker.title"))
        self.status_label.setText(language.text("app.speaker.now", number=deck.position + 1,
                                                build=scene.build_index + 1, builds=scene.build_count))
        self.notes.setPlainText(scene.notes())
        self._tick()
        self._previews.start()

    def next_step(self):
        """(scene entry, build) the next key press shows, or None at the end of the talk."""
        deck = self._window.deck
        scene = deck.current
        if scene.build_index + 1 < scene.build_count:
            return deck.entries[deck.position], scene.build_index + 1
        if deck.position + 1 < len(deck.entries):
            return deck.entries[deck.position + 1], 0
        return None

    # -- inside ------------------------------------------------------------------------------
    def _place(self) -> None:
        own = self._window.screen()
        others = [screen for screen in QGuiApplication.screens() if screen is not own]
        if others:
            self.setGeometry(others[0].geometry())
            self.showFullScreen()
        else:
            area = (own or QGuiApplication.primaryScreen()).availableGeometry()
            self.setGeometry(area.x() + area.width() // 2, area.y(), area.width() // 2, area.height())
            self.show()

    def _tick(self) -> None:
        language = self._window.language
        elapsed = format_elapsed(time.monotonic() - self._started)
        self.time_label.setText(f"{language.text('app.speaker.elapsed', time=elapsed)}   "
                                f"{language.text('app.speaker.clock', time=time.strftime('%H:%M'))}")

    def _render_previews(self) -> None:
        from desktop import export       # loaded when the speaker view first needs it
        window = self._window
        self._show_preview(self.current_preview, window.slide.grab())
        step = self.next_step()
        language = window.language
        if step is None:
            self.next_label.setText(language.text("app.speaker.end"))
            self._sources.pop(self.next_preview, None)
            self.next_preview.clear()
            return
        entry, build = step
        self.next_label.setText(language.text("app.speaker.next") if entry.key == window.deck.current_key
                                else language.text("app.speaker.next_scene", number=entry.number))
        key = (entry, build, window.store.scenario, language.code, window.theme.id)
        if key not in self._preview_cache:
            slide = export.render_slide(entry.load(), language, window.store, window.theme, PREVIEW_SIZE,
                                        build=build, with_texts=False)
            self._preview_cache = {key: slide}       # the one the next key press shows; older ones are stale
        slide = self._preview_cache[key]
        self._show_preview(self.next_preview, QPixmap.fromImage(slide.image))

    def preview_width(self) -> int:
        """The previews' width: ``PREVIEW_WIDTH_PX``, less in a narrow view (a window on one small screen)."""
        return max(PREVIEW_MIN_WIDTH_PX, min(PREVIEW_WIDTH_PX, round(self.width() * PREVIEW_SHARE)))

    def _show_preview(self, label: QLabel, source: QPixmap) -> None:
        self._sources[label] = source
        label.setFixedWidth(self.preview_width())
        label.setPixmap(source.scaledToWidth(self.preview_width(), Qt.TransformationMode.SmoothTransformation))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        for label, source in self._sources.items():
            self._show_preview(label, source)

    def closeEvent(self, event) -> None:
        self._clock.stop()
        super().closeEvent(event)
