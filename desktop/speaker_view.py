"""The speaker view (S): what the presenter sees and the room does not, as PowerPoint's presenter view.

One talk clock (``widgets.presenter_clock.TalkClock``, the same object the
stage's badge reads) with Pause and Reset, the wall clock, the current build
large, the next build large enough to read, and the notes of the current build
with this scenario's numbers, which A+ / A− (Ctrl+= / Ctrl+-) enlarge and shrink. Hide folds the next
build's picture away so the notes take its room (a column beside the stage on one screen), Show brings it back;
both choices are remembered.
It is a window of its own: fullscreen on another screen when there is one,
else a column beside the stage, which moves aside for it
(``desktop.speaker_layout``). The same keys and clicker drive both windows:
its key presses go to the main window's commands. Its buttons never take the
keyboard, so a clicker's Space always steps the talk.

The next build's picture is known by its ``PreviewKey`` (``desktop.speaker_previews``):
the view shows a picture only under the key of the next step now, and clears
it the moment that key changes. Pictures are rendered after the build change
has been painted (a short single-shot timer), so stepping never waits for them.
"""
from __future__ import annotations

import time

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QFont, QGuiApplication, QPixmap
from PySide6.QtWidgets import QLabel, QPushButton, QTextBrowser, QWidget

from desktop.presenter import KeyController
from desktop.settings import SPEAKER_NOTES_PT_RANGE
from desktop.speaker_layout import arrange, panels
from desktop.speaker_previews import PreviewCache, PreviewKey, render_size

# Wait this long after a build change before rendering the pictures: the build's own transition
# (a few hundred ms) runs first, and a clicker pressed quickly renders only the build it stops on.
PREVIEW_DELAY_MS = 350
# Once a second: the clocks show whole seconds; a moving stage's picture is taken again as often.
CLOCK_INTERVAL_MS = 1000
NOTES_POINT_STEP = 2                  # A+ / A−: two points a press


class SpeakerView(QWidget):
    def __init__(self, window):
        # A window of its own, owned by the main window: Qt deletes it with the window, never Python's collector.
        super().__init__(window, Qt.WindowType.Window)
        self._window = window
        self.setObjectName("speaker_view")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.talk_clock = window.presenter.talk_clock
        self.status_label, self.time_label, self.wall_label = QLabel(self), QLabel(self), QLabel(self)
        self.current_label, self.next_label, self.notes_label = QLabel(self), QLabel(self), QLabel(self)
        self.current_preview, self.next_preview = QLabel(self), QLabel(self)
        for preview in (self.current_preview, self.next_preview):
            preview.setAlignment(Qt.AlignmentFlag.AlignCenter)
            preview.setStyleSheet("border: 1px solid palette(mid);")
        self.pause_button, self.reset_button = QPushButton(self), QPushButton(self)
        self.smaller_button, self.larger_button = QPushButton(self), QPushButton(self)
        self.next_button = QPushButton(self)
        for button, action in ((self.pause_button, self.talk_clock.toggle_pause),
                               (self.reset_button, self.talk_clock.reset),
                               (self.smaller_button, lambda: self.change_notes_size(-1)),
                               (self.larger_button, lambda: self.change_notes_size(+1)),
                               (self.next_button, self.toggle_next)):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)      # a clicker's Space must step the talk, not press it
            button.clicked.connect(action)
        self.notes = QTextBrowser(self)
        # Read, never typed in: the clicker's arrows and Space must reach the talk, not scroll the notes.
        self.notes.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._apply_notes_size()
        self.next_preview_key: PreviewKey | None = None       # what the next build's picture shows; None: nothing
        self._cache = PreviewCache(self._render)
        self._sources: dict[QLabel, QPixmap] = {}             # each picture at full size, scaled on resize
        self._audience_geometry = None       # the main window's geometry before it moved aside (one screen)
        self._clock = QTimer(self)
        self._clock.setInterval(CLOCK_INTERVAL_MS)
        self._clock.timeout.connect(self._tick)
        self.talk_clock.changed.connect(self._show_time)
        self._previews = QTimer(self)
        self._previews.setSingleShot(True)
        self._previews.setInterval(PREVIEW_DELAY_MS)
        self._previews.timeout.connect(self._render_previews)
        self.keys = KeyController(self, self)
        self.keys.command.connect(window.run_command)
        self.keys.jump_requested.connect(window.jump_to)
        QGuiApplication.instance().screenAdded.connect(self._screens_changed)
        QGuiApplication.instance().screenRemoved.connect(self._screens_changed)

    # -- what the frame calls ------------------------------------------------------------
    def toggle(self) -> None:
        """S: open the speaker view (the talk clock starts with the talk, once), or close it."""
        if self.isVisible():
            self.hide()
            return
        self.talk_clock.start()
        self.show()
        self.arrange()
        self._clock.start()
        self.refresh()

    def refresh(self) -> None:
        """The build, scenario or language changed: new notes now, new pictures once the stage has settled."""
        if not self.isVisible():
            return
        language, deck = self._window.language, self._window.deck
        scene = deck.current
        self.setWindowTitle(language.text("app.speaker.title"))
        now = language.text("app.speaker.now", number=deck.position + 1, build=scene.build_index + 1,
                            builds=scene.build_count)
        # Wide, the current build's own heading says where the talk is; the top row names the scene.
        self.status_label.setText(now if self.current_label.isHidden() else deck.label_of(deck.position))
        self.current_label.setText(language.text("app.speaker.now", number=deck.position + 1,
                                                 build=scene.build_index + 1, builds=scene.build_count))
        self.notes_label.setText(language.text("app.speaker.notes"))
        for button, key in ((self.reset_button, "reset"), (self.smaller_button, "smaller"),
                            (self.larger_button, "larger")):
            button.setText(language.text(f"app.speaker.{key}"))
        self.next_button.setText(language.text("app.speaker.hide_next" if self.next_shown else "app.speaker.show_next"))
        self.smaller_button.setToolTip(language.text("app.command.notes_smaller"))
        self.larger_button.setToolTip(language.text("app.command.notes_larger"))
        self.notes.setPlainText(scene.notes())
        self._show_time()
        self._lay_out()                   # the texts' widths decide what shares the narrow view's rows
        self._want_previews()

    def arrange(self) -> None:
        """Place the speaker view (when shown) and the audience's window for the screens there are now; while
        presenting, the stage's type follows the height of the audience's area."""
        window = self._window
        screens = QGuiApplication.screens()
        own = window.screen() if window.screen() in screens else QGuiApplication.primaryScreen()
        presenting = window.presentation.active
        # Presenting, only the slide shows: an explicit minimum stops the window's layout, which still counts
        # the menus and panels just hidden, from holding it wider than its place. Else its own minimum holds.
        if presenting and self.isVisible():
            window.setMinimumSize(1, 1)
        else:
            window.setMinimumSize(0, 0)
        places = arrange([screen.availableGeometry() for screen in screens],
                         screens.index(QGuiApplication.primaryScreen()), screens.index(own), presenting,
                         0 if presenting else window.minimumSizeHint().width())
        audience = screens[places.audience_screen]
        if self.isVisible():
            if places.speaker_fullscreen:
                _fullscreen_on(self, screens[places.speaker_screen])
            else:
                self.showNormal()
                _place_frame(self, places.speaker_rect, self)
        if self.isVisible() and places.audience_rect is not None:       # one screen: the stage moves aside
            if self._audience_geometry is None and not presenting:
                self._audience_geometry = window.saveGeometry()
            if window.isFullScreen():
                window.showNormal()
            _place_frame(window, places.audience_rect, self)
            if presenting:
                window.presentation.size_type(window.height())
            return
        if presenting:
            _fullscreen_on(window, audience)
            window.presentation.size_type(audience.geometry().height())

    def next_step(self):
        """(scene entry, build) the next key press shows, or None at the end of the talk."""
        deck = self._window.deck
        scene = deck.current
        if scene.build_index + 1 < scene.build_count:
            return deck.entries[deck.position], scene.build_index + 1
        if deck.position + 1 < len(deck.entries):
            return deck.entries[deck.position + 1], 0
        return None

    def next_key(self) -> PreviewKey | None:
        """What the picture of the next step must show now; None at the end of the talk."""
        step = self.next_step()
        if step is None:
            return None
        entry, build = step
        window = self._window
        size = render_size(window.slide.size())
        return PreviewKey(entry.key, build, window.store.scenario, window.language.code, window.theme.id,
                          size.width(), size.height())

    def next_picture(self):
        """The next build's picture as shown, at full size (a ``QImage``); None while none is shown."""
        source = self._sources.get(self.next_preview) if self.next_preview_key is not None else None
        return None if source is None else source.toImage()

    def change_notes_size(self, steps: int) -> None:
        """A+ / A− (Ctrl+= / Ctrl+-): the notes ``steps`` sizes larger (negative: smaller), within range."""
        low, high = SPEAKER_NOTES_PT_RANGE
        settings = self._window.settings
        settings.speaker_notes_pt = max(low, min(high, settings.speaker_notes_pt + steps * NOTES_POINT_STEP))
        self._apply_notes_size()

    def toggle_next(self) -> None:
        """Hide / Show: fold the next build's picture away, the notes taking its room, or bring it back."""
        settings = self._window.settings
        settings.speaker_next_shown = not settings.speaker_next_shown
        self.refresh()

    @property
    def next_shown(self) -> bool:
        """Whether the next build's picture shows (remembered in the settings; at first it does)."""
        return self._window.settings.speaker_next_shown

    @property
    def notes_point_size(self) -> int:
        """The notes' size in points (remembered in the settings; read at arm's length, in a hurry: 18 at first)."""
        return self._window.settings.speaker_notes_pt

    # -- inside ------------------------------------------------------------------------------
    def _apply_notes_size(self) -> None:
        font = QFont(self.notes.font())
        font.setPointSize(self.notes_point_size)
        self.notes.setFont(font)
        low, high = SPEAKER_NOTES_PT_RANGE
        self.smaller_button.setEnabled(self.notes_point_size > low)
        self.larger_button.setEnabled(self.notes_point_size < high)

    def _show_time(self) -> None:
        language, clock = self._window.language, self.talk_clock
        self.time_label.setText(language.text("app.speaker.paused" if clock.paused else "app.speaker.elapsed",
                                              time=clock.text()))
        self.pause_button.setText(language.text("app.speaker.resume" if clock.paused else "app.speaker.pause"))
        self.pause_button.setToolTip(language.text("app.command.clock_pause"))
        self.reset_button.setToolTip(language.text("app.command.clock_reset"))
        self.wall_label.setText(language.text("app.speaker.clock", time=time.strftime("%H:%M")))

    def _tick(self) -> None:
        self._show_time()
        if self.next_key() != self.next_preview_key and not self._previews.isActive():
            self._want_previews()          # the theme or the stage's size changed without a build change
        elif self._window.deck.current.clock.ticking:
            self._show_picture(self.current_preview, self._window.slide.grab())   # the stage is moving

    def _want_previews(self) -> None:
        if self.next_key() != self.next_preview_key:       # never show a picture that is not of the next build
            self.next_preview_key = None
            self._sources.pop(self.next_preview, None)
            self.next_preview.clear()
            self.next_preview.setText(self._window.language.text("app.speaker.rendering"))
        self._previews.start()

    def _render_previews(self) -> None:
        window = self._window
        self._show_picture(self.current_preview, window.slide.grab())
        step, key = self.next_step(), self.next_key()
        language = window.language
        if step is None:
            self.next_label.setText(language.text("app.speaker.end"))
            self.next_preview_key = None
            self._sources.pop(self.next_preview, None)
            self.next_preview.clear()
            return
        entry, _build = step
        self.next_label.setText(language.text("app.speaker.next") if entry.key == window.deck.current_key
                                else language.text("app.speaker.next_scene", number=entry.number))
        if not self.next_shown:          # folded away: no picture to render; Show asks for it again
            return
        self._show_picture(self.next_preview, QPixmap.fromImage(self._cache.picture(key)))
        self.next_preview_key = key

    def _render(self, key: PreviewKey):
        from desktop import export       # loaded when the speaker view first needs it
        from desktop.scenes.registry import find_entry
        window = self._window
        entry = find_entry(key.scene, window.deck.entries)
        slide = export.render_slide(entry.load(), window.language, window.store, window.theme,
                                    QSize(key.width, key.height), build=key.build, with_texts=False)
        return slide.image

    def _show_picture(self, label: QLabel, source: QPixmap) -> None:
        self._sources[label] = source
        self._place_picture(label)

    def _place_picture(self, label: QLabel) -> None:
        source = self._sources.get(label)
        if source is not None and label.width() > 2:
            label.setPixmap(source.scaled(label.size() - QSize(2, 2), Qt.AspectRatioMode.KeepAspectRatio,
                                          Qt.TransformationMode.SmoothTransformation))

    def _lay_out(self) -> None:
        text_px = max(14, round(self.height() / 40))
        label_height = round(text_px * 1.8)
        slide = self._window.slide.size()
        parts = panels(self.size(), slide.width() / max(1, slide.height()), label_height, self.next_shown)
        for widget, px, bold in ((self.status_label, text_px, False), (self.wall_label, text_px, False),
                                 (self.time_label, max(24, round(parts.top_row.height() * 0.6)), True),
                                 (self.current_label, text_px, True), (self.next_label, text_px, True),
                                 (self.notes_label, text_px, True), (self.pause_button, text_px, False),
                                 (self.reset_button, text_px, False), (self.next_button, text_px, False),
                                 (self.smaller_button, text_px, True),
                                 (self.larger_button, text_px, True)):
            font = QFont(widget.font())
            font.setPixelSize(px)
            font.setBold(bold)
            widget.setFont(font)
        top, wide = parts.top_row, parts.status_row is None
        button_width, spacing = round(text_px * 5.5), round(text_px / 2)
        buttons_width = 2 * button_width + spacing
        # Wide: where the talk is | the talk clock | Pause Reset | the wall clock. Narrow: the talk clock and
        # its buttons; where the talk is and the wall clock on the row below.
        time_width = top.width() // 3 if wide else top.width() - buttons_width - spacing
        time_x = top.x() + top.width() // 3 if wide else top.x()
        self.time_label.setGeometry(time_x, top.y(), time_width, top.height())
        self.time_label.setAlignment(Qt.AlignmentFlag.AlignCenter if wide else
                                     Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        buttons_x = time_x + time_width + (0 if wide else spacing)
        for n, button in enumerate((self.pause_button, self.reset_button)):
            button.setGeometry(buttons_x + n * (button_width + spacing), top.center().y() - label_height // 2,
                               button_width, label_height)
        status = top.adjusted(0, 0, -2 * top.width() // 3, 0) if wide else parts.status_row
        wall_x = buttons_x + buttons_width + spacing if wide else status.x() + status.width() * 2 // 3
        row = top if wide else status
        self.wall_label.setGeometry(wall_x, row.y(), max(0, row.right() - wall_x), row.height())
        self.wall_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        # Narrow, the wall clock shares the row with where the talk is only where both fit.
        needed = sum(label.fontMetrics().horizontalAdvance(label.text()) for label in (self.status_label,
                                                                                       self.wall_label))
        self.wall_label.setVisible(wide or needed + 2 * spacing <= status.width())
        if not wide and self.wall_label.isVisible():
            wall_width = self.wall_label.fontMetrics().horizontalAdvance(self.wall_label.text()) + spacing
            self.wall_label.setGeometry(status.right() - wall_width, status.y(), wall_width, status.height())
            status = status.adjusted(0, 0, -wall_width, 0)
        self.status_label.setGeometry(status)
        self.current_label.setVisible(parts.current is not None)
        self.current_preview.setVisible(parts.current is not None)
        if parts.current is not None:
            self.current_label.setGeometry(parts.current_label)
            self.current_preview.setGeometry(parts.current)
        row = parts.next_label                               # its heading, and Hide / Show at its end
        self.next_label.setGeometry(row.adjusted(0, 0, -button_width - spacing, 0))
        self.next_button.setGeometry(row.right() + 1 - button_width, row.y(), button_width, row.height())
        self.next_preview.setVisible(self.next_shown)
        self.next_preview.setGeometry(parts.next)
        bar = parts.notes_bar
        self.notes_label.setGeometry(bar.x(), bar.y(), bar.width() // 2, bar.height())
        small = round(label_height * 1.6)
        self.larger_button.setGeometry(bar.right() - small, bar.y(), small, bar.height())
        self.smaller_button.setGeometry(bar.right() - 2 * small - spacing, bar.y(), small, bar.height())
        self.notes.setGeometry(parts.notes)
        for label in (self.current_preview, self.next_preview):
            self._place_picture(label)

    def _screens_changed(self, *_screen) -> None:
        if self.isVisible():              # a projector plugged in or out mid-talk: both windows move
            QTimer.singleShot(0, self.arrange)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._lay_out()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._lay_out()

    def hideEvent(self, event) -> None:
        self._clock.stop()
        window = self._window
        window.setMinimumSize(0, 0)         # the window's own layout holds its minimum again
        if window.isVisible():              # one screen: the stage takes its whole place back
            if window.presentation.active and not window.isFullScreen():
                _fullscreen_on(window, window.screen())
                window.presentation.size_type(window.screen().geometry().height())
            elif self._audience_geometry is not None and not window.presentation.active:
                window.restoreGeometry(self._audience_geometry)
        self._audience_geometry = None
        super().hideEvent(event)


def _place_frame(widget: QWidget, rect, framed: QWidget) -> None:
    """``widget``'s frame (title bar and borders included) at ``rect``, two windows side by side never
    overlapping. The frame is measured on ``framed``, a window shown normally (a window leaving fullscreen
    does not know its frame yet)."""
    frame, inner = framed.frameGeometry(), framed.geometry()
    widget.setGeometry(rect.adjusted(inner.left() - frame.left(), inner.top() - frame.top(),
                                     inner.right() - frame.right(), inner.bottom() - frame.bottom()))


def _fullscreen_on(widget: QWidget, screen) -> None:
    """``widget`` fullscreen on ``screen`` (moved there first: a fullscreen window stays on its screen)."""
    if widget.isFullScreen() and widget.geometry() == screen.geometry():
        return
    if widget.isFullScreen():
        widget.showNormal()
    widget.setScreen(screen)
    widget.setGeometry(screen.geometry())     # covers the screen even where no window manager obeys
    widget.showFullScreen()
