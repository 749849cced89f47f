"""What the audience sees: the scene's title, its stage and the caption of the current build.

The same frame is used in the window, in presentation mode and for export, so
a picture in the handout looks like the projector. In presentation and export
the type is sized from the screen (or picture) height, so a caption reads at
the back of a room at 1024x768 and at 4K alike.
"""
from __future__ import annotations

import math
import re

from PySide6.QtCore import QEvent, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QFontMetricsF
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QStackedWidget, QVBoxLayout, QWidget

from desktop.build_navigator import BuildNavigator
from desktop.theming import palette_for
from widgets.theme import Theme

# Presenting: text heights as a fraction of the screen height. 768/30 = 26 px at the
# smallest projector, 2160/30 = 72 px at 4K: both read from about ten metres.
TITLE_PER_HEIGHT = 1 / 20
CAPTION_PER_HEIGHT = 1 / 30
# The corner naming what the stage shows: small, but at the stage's text floor (2.3% of the height).
CORNER_PER_HEIGHT = 0.024
# In the window the type follows the user's font: the title larger, the caption a little larger than
# the controls (one step smaller than it was: at 1024x768 a caption of four lines took the stage's height).
WINDOW_TITLE_SCALE = 1.6
WINDOW_CAPTION_SCALE = 1.1


# Chinese text may break anywhere, so Qt will end a line after the "/" of "FLOP/字节" and put the
# rest of the unit on the next. A WORD JOINER (U+2060, zero width, drawn as nothing) between a "/"
# and the ideograph after it keeps a unit whole; English units ("FLOP/byte") never break there.
_SLASH_BEFORE_IDEOGRAPH = re.compile(r"/(?=[\u3400-\u9fff])")
# A number and its unit ("40.7 µs", "3.35 TB/s", "989 TFLOPS") are one word to a reader: a NO-BREAK SPACE
# between them, so a caption never ends a line with the number and starts the next with "µs。".
_SPACE_BEFORE_UNIT = re.compile(r"(?<=\d) (?=(?:[kKMGTPE]i?)?(?:B|FLOPS?|FLOP)(?![A-Za-z])|[mµn]?s(?![A-Za-z]))")


def keep_units_whole(text: str) -> str:
    """``text`` with a word joiner after every "/" that precedes a CJK ideograph ("FLOP/⁠字节") and a no-break
    space between a number and its unit ("40.7 µs")."""
    return _SPACE_BEFORE_UNIT.sub("\u00a0", _SLASH_BEFORE_IDEOGRAPH.sub("/\u2060", text))


# A run of this many characters with no place to break (a model name of a user's catalogue, 3,000 letters long)
# gets break opportunities: a caption wraps it instead of growing wider than the screen.
LONGEST_UNBROKEN = 40
_LONG_WORD = re.compile(rf"[^\s\u200b]{{{LONGEST_UNBROKEN},}}")


def breakable(text: str) -> str:
    """``text`` with a zero-width space every ``LONGEST_UNBROKEN`` characters inside a longer unbroken run."""
    return _LONG_WORD.sub(lambda m: "\u200b".join(m.group(0)[i:i + LONGEST_UNBROKEN]
                                                  for i in range(0, len(m.group(0)), LONGEST_UNBROKEN)), text)


class ElidedLabel(QLabel):
    """A one-line label that ends a text too long for its room with "…" (the whole text as its tooltip) and never
    asks for more width than the room it is given: a 3,000-character model name from a user's catalogue must
    not widen the window past the screen."""

    MAX_HINT_CHARACTERS = 110  # the most a long text asks for: a subject with a long GPU name fits, whole

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._full = ""
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def sizeHint(self) -> QSize:
        """As wide as the whole text, at most ``MAX_HINT_CHARACTERS`` average characters: a real subject asks
        for all it needs, a name of thousands of characters for no more than a line's worth."""
        metrics = QFontMetrics(self.font())
        cap = metrics.averageCharWidth() * self.MAX_HINT_CHARACTERS
        margins = self.contentsMargins()
        # the exact width rounded up: the whole-pixel advance can be a fraction short, and the text is elided
        exact = math.ceil(QFontMetricsF(self.font()).horizontalAdvance(self._full))
        return QSize(min(exact, cap) + margins.left() + margins.right(),
                     super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        """A few characters: the room the layout must leave it, however long the text."""
        return QSize(QFontMetrics(self.font()).horizontalAdvance("…") * 4, super().minimumSizeHint().height())

    def set_full_text(self, text: str) -> None:
        self._full = text
        self._elide()

    def full_text(self) -> str:
        return self._full

    def _elide(self) -> None:
        width = self.contentsRect().width()
        shown = QFontMetrics(self.font()).elidedText(self._full, Qt.TextElideMode.ElideMiddle, max(width, 1)) \
            if width > 0 else self._full
        self.setText(shown)
        self.setToolTip(self._full if shown != self._full else "")

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._elide()


class SlideFrame(QWidget):
    presenting_changed = Signal(bool)     # the type follows a screen (presenting, export) or the window

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.setAutoFillBackground(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)   # clicking the stage gives the keys back to the talk
        self.title_label = QLabel(self)
        self.title_label.setObjectName("slide_title")
        self.title_label.setWordWrap(True)
        self.stage = QStackedWidget(self)
        self.caption_label = QLabel(self)
        self.caption_label.setObjectName("slide_caption")
        self.caption_label.setWordWrap(True)
        self.caption_label.setTextFormat(Qt.TextFormat.PlainText)
        self.caption_label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.caption_label.installEventFilter(self)
        self.caption_label.setMinimumWidth(1)      # its width is the slide's: a long word wraps, never widens it
        self.title_label.setTextFormat(Qt.TextFormat.PlainText)
        # The stage's corner: what it shows (model, precision, GPUs) and, when that does not fit its GPUs,
        # that every time and price on it is hypothetical (words, not a colour alone).
        self.subject_label = ElidedLabel(self)
        self.subject_label.setObjectName("slide_subject")
        self.subject_label.setTextFormat(Qt.TextFormat.PlainText)
        self.subject_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.hypothetical_label = ElidedLabel(self)
        self.hypothetical_label.setObjectName("slide_hypothetical")
        self.hypothetical_label.setTextFormat(Qt.TextFormat.PlainText)
        self.hypothetical_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.hypothetical_label.hide()
        corner = QVBoxLayout()
        corner.setSpacing(0)
        corner.addWidget(self.subject_label)
        corner.addWidget(self.hypothetical_label)
        self._title_row = QHBoxLayout()        # the title, and at its right what the window puts there
        self._title_row.addWidget(self.title_label, stretch=1)
        self._title_row.addLayout(corner)
        # Windowed mode only: where the talk is ("3 / 6") and buttons on, beside the caption (``show_builds``).
        self.builds = BuildNavigator(self)
        self.builds.hide()
        self._builds_wanted = False
        caption_row = QHBoxLayout()
        caption_row.addWidget(self.caption_label, stretch=1)
        caption_row.addWidget(self.builds, alignment=Qt.AlignmentFlag.AlignBottom)
        layout = QVBoxLayout(self)
        layout.addLayout(self._title_row)
        layout.addWidget(self.stage, stretch=1)
        layout.addLayout(caption_row)
        self._presenting_height: int | None = None
        self.set_theme(theme)
        self._apply_type()

    def set_theme(self, theme: Theme) -> None:
        self.setPalette(palette_for(theme))
        self._warning_style = f"color: {theme.warning}; font-weight: bold;"
        if self.hypothetical_label.styleSheet():       # a warning shown now takes the new colour
            self.hypothetical_label.setStyleSheet(self._warning_style)

    def set_subject(self, subject: str, hypothetical: str = "", note: str = "") -> None:
        """Name what the stage shows; under it ``hypothetical``, the warning (in the warning's colour), or where
        there is none ``note`` ("The tutorial's case", plain); "" for both hides the line."""
        self.subject_label.set_full_text(subject)
        self.hypothetical_label.set_full_text(hypothetical or note)
        self.hypothetical_label.setStyleSheet(self._warning_style if hypothetical else "")
        self.hypothetical_label.setVisible(bool(hypothetical or note))

    def add_to_title_row(self, widget: QWidget) -> None:
        """Place ``widget`` (the window's compact scene picker) at the right of the title."""
        self._title_row.addWidget(widget, alignment=Qt.AlignmentFlag.AlignVCenter)

    def set_texts(self, title: str, caption: str) -> None:
        """Show a title and caption. The caption box is as tall as this caption needs, and never less than
        two lines (every caption's limit), so the stage keeps its size from build to build and is the same
        size however the build was reached."""
        self.title_label.setText(title)
        self.caption_label.setText(breakable(keep_units_whole(caption)))
        self._fit_caption()

    def _fit_caption(self) -> None:
        """Whole lines of the caption's font, never fewer than two: the same height for every caption that
        keeps to its two-line limit, so the stage does not move by a pixel between builds."""
        label = self.caption_label
        metrics = QFontMetricsF(label.font())
        width = label.contentsRect().width()
        laid_out = label.testAttribute(Qt.WidgetAttribute.WA_Resized) or self.isVisible()
        lines = 2
        if width > 0 and laid_out:
            text_height = metrics.boundingRect(QRectF(0, 0, width, 1e6), Qt.TextFlag.TextWordWrap,
                                               label.text()).height()
            lines = max(lines, round(text_height / metrics.lineSpacing()))
        margins = label.contentsMargins()
        label.setFixedHeight(math.ceil(lines * metrics.lineSpacing()) + margins.top() + margins.bottom())

    def keep_clear_of(self, badge: QWidget) -> None:
        """``badge`` floats in the top-right corner (the presenter's clock): while it shows, the corner's
        words move left of it instead of lying under it."""
        self._corner_badge = badge
        badge.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        if watched is getattr(self, "_corner_badge", None) and event.type() in (
                QEvent.Type.Show, QEvent.Type.Hide, QEvent.Type.Resize, QEvent.Type.Move):
            shown = event.type() != QEvent.Type.Hide and watched.isVisible()
            reserve = self.width() - watched.geometry().left() if shown else 0
            self._title_row.setContentsMargins(0, 0, max(0, reserve), 0)
        # The caption's own width is what its wrapping depends on: measured again whenever the layout gives
        # it a new one (before the first layout it has a placeholder width that would wrap absurdly).
        if watched is self.caption_label and event.type() == QEvent.Type.Resize \
                and event.size().width() != event.oldSize().width():
            self._fit_caption()
        return False

    def show_builds(self, shown: bool = True) -> None:
        """Show the build marker and its buttons (the window does; presentation and export never show them)."""
        self._builds_wanted = shown
        self.builds.setVisible(shown and self._presenting_height is None)

    def set_presenting_height(self, height_px: int | None) -> None:
        """Size the type from ``height_px`` (a screen or picture height); None: window sizes. Presenting hides
        the build marker and its buttons: the audience sees the stage alone."""
        was = self._presenting_height is not None
        self._presenting_height = height_px
        self.builds.setVisible(self._builds_wanted and height_px is None)
        self._apply_type()
        if was != (height_px is not None):
            self.presenting_changed.emit(height_px is not None)

    def _apply_type(self) -> None:
        title, caption = QFont(self.font()), QFont(self.font())
        title.setBold(True)
        height = self._presenting_height
        if height:
            title.setPixelSize(round(height * TITLE_PER_HEIGHT))
            caption.setPixelSize(round(height * CAPTION_PER_HEIGHT))
            margin = round(height / 60)
        else:
            base = self.font().pointSizeF()
            title.setPointSizeF(base * WINDOW_TITLE_SCALE)
            caption.setPointSizeF(base * WINDOW_CAPTION_SCALE)
            margin = 9
        self.title_label.setFont(title)
        self.caption_label.setFont(caption)
        self.builds.set_font(caption)
        corner = QFont(self.font())
        if height:
            corner.setPixelSize(round(height * CORNER_PER_HEIGHT))
        self.subject_label.setFont(corner)
        self.hypothetical_label.setFont(corner)
        self._fit_caption()
        self.layout().setContentsMargins(2 * margin, margin, 2 * margin, margin)
        self.layout().setSpacing(margin)
