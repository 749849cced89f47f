"""What the audience sees: the scene's title, its stage and the caption of the current build.

The same frame is used in the window, in presentation mode and for export, so
a picture in the handout looks like the projector. In presentation and export
the type is sized from the screen (or picture) height, so a caption reads at
the back of a room at 1024x768 and at 4K alike.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QStackedWidget, QVBoxLayout, QWidget

from desktop.theming import palette_for
from widgets.theme import Theme

# Presenting: text heights as a fraction of the screen height. 768/30 = 26 px at the
# smallest projector, 2160/30 = 72 px at 4K: both read from about ten metres.
TITLE_PER_HEIGHT = 1 / 20
CAPTION_PER_HEIGHT = 1 / 30
# In the window the type follows the user's font, a little larger than the controls.
WINDOW_TITLE_SCALE = 1.6
WINDOW_CAPTION_SCALE = 1.2


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
        self.title_label.setTextFormat(Qt.TextFormat.PlainText)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title_label)
        layout.addWidget(self.stage, stretch=1)
        layout.addWidget(self.caption_label)
        self._presenting_height: int | None = None
        self.set_theme(theme)
        self._apply_type()

    def set_theme(self, theme: Theme) -> None:
        self.setPalette(palette_for(theme))

    def set_texts(self, title: str, caption: str) -> None:
        self.title_label.setText(title)
        self.caption_label.setText(caption)

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
        self.layout().setContentsMargins(2 * margin, margin, 2 * margin, margin)
        self.layout().setSpacing(margin)
