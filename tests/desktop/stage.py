"""What a scene's stage shows, read back after a paint: for tests that check the drawn texts of any scene."""
from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget


def drawn_texts(scene: QWidget) -> list[str]:
    """Every text the visible widgets of ``scene`` drew in their last paint, and its visible labels', in order
    (paint first: ``scene.grab()``)."""
    texts = []
    for widget in scene.findChildren(QWidget):
        if not widget.isVisibleTo(scene):
            continue
        if hasattr(widget, "drawn_texts"):
            texts += [drawn.text for drawn in widget.drawn_texts()]
        elif isinstance(widget, QLabel) and widget.text():
            texts.append(widget.text())
    return texts
