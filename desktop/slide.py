"""What the audience sees: the scene's title, its stage and the caption of the current build.

The same frame is used in the window, in presentation mode and for export, so
a picture in the handout looks like the projector. In presentation and export
the type is sized from the screen (or picture) height, so a caption reads at
the back of a room at 1024x768 and at 4K alike.
"""
from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QLabel, QStackedWidget, QVBoxLayout, QWidget

from desktop.theming import palette_for
from widgets.theme import Theme

# Presenting: text heights as a fraction of the screen height. 768/30 = 26 px at the
# smallest projector, 2160/30 = 72 px at 4K: both read from about ten metres.
TITLE_PER_HEIGHT = 1 / 20
CAPTION_PER_HEIGHT = 1 / 30
# In the window the type follows the user's font: the title larger, the caption a little larger than
# the controls (one step smaller than it was: at 1024x768 a caption of four lines took the stage's height).
WINDOW_TITLE_SCALE = 1.6
WINDOW_CAPTION_SCALE = 1.1


# Chinese text may break anywhere, so Qt will end a line after the "/" of "FLOP/字节" and put the
# rest of the unit on the next. A WORD JOINER (U+2060, zero width, drawn as nothing) between a "/"
# and the ideograph after it keeps a unit whole; English units ("FLOP/byte") never break there.
_SLASH_BEFORE_IDEOGRAPH = re.compile(r"/(?=[\u3400-\u9fff])")


def keep_units_whole(text: str) -> str:
    """``text`` with a word joiner after every "/" that precedes a CJK ideograph ("FLOP/⁠字节")."""
    return _SLASH_BEFORE_IDEOGRAPH.sub("/\u2060", text)


class SlideFrame(QWidget):
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
        self._caption_floor_px = 0           # the caption's height kept for this scene (see set_texts)
        self.title_label.setTextFormat(Qt.TextFormat.PlainText)
        self._title_row = QHBoxLayout()        # the title, and at its right what the window puts there
        self._title_row.addWidget(self.title_label, stretch=1)
        layout = QVBoxLayout(self)
        layout.addLayout(self._title_row)
        layout.addWidget(self.stage, stretch=1)
        layout.addWidget(self.caption_label)
        self._presenting_height: int | None = None
        self.set_theme(theme)
        self._apply_type()

    def set_theme(self, theme: Theme) -> None:
        self.setPalette(palette_for(theme))

    def add_to_title_row(self, widget: QWidget) -> None:
        """Place ``widget`` (the window's compact scene picker) at the right of the title."""
        self._title_row.addWidget(widget, alignment=Qt.AlignmentFlag.AlignVCenter)

    def set_texts(self, title: str, caption: str) -> None:
        """Show a title and caption. Within one scene (the same title) the caption keeps the tallest height
        it has needed, so stepping through builds never moves the stage up and down (nor re-lays it out)."""
        if title != self.title_label.text():
            self._caption_floor_px = 0
            self.title_label.setText(title)
        self.caption_label.setText(keep_units_whole(caption))
        width = self.caption_label.width()
        needed = self.caption_label.heightForWidth(width) if width > 0 else 0
        if needed > self._caption_floor_px or self.caption_label.minimumHeight() > self._caption_floor_px:
            self._caption_floor_px = max(needed, self._caption_floor_px)
            self.caption_label.setMinimumHeight(self._caption_floor_px)

    def resizeEvent(self, event) -> None:
        if event.size().width() != event.oldSize().width():
            self._caption_floor_px = 0       # a new width wraps differently: measure again
            self.caption_label.setMinimumHeight(0)
        super().resizeEvent(event)

    def set_presenting_height(self, height_px: int | None) -> None:
        """Size the type from ``height_px`` (a screen or picture height); None: window sizes."""
        self._presenting_height = height_px
        self._apply_type()

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
        self._caption_floor_px = 0
        self.caption_label.setMinimumHeight(0)
        self.layout().setContentsMargins(2 * margin, margin, 2 * margin, margin)
        self.layout().setSpacing(margin)
