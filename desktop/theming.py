"""Turns a ``widgets.theme.Theme`` into the Qt palette the window and its controls use."""
from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from widgets.theme import Theme


def palette_for(theme: Theme) -> QPalette:
    palette = QPalette()
    role = QPalette.ColorRole
    background, surface, text = QColor(theme.background), QColor(theme.surface), QColor(theme.text)
    for name, color in (
        (role.Window, background), (role.Base, surface), (role.AlternateBase, background),
        (role.Button, surface), (role.WindowText, text), (role.Text, text), (role.ButtonText, text),
        (role.ToolTipBase, surface), (role.ToolTipText, text), (role.PlaceholderText, QColor(theme.muted)),
        (role.Highlight, QColor(theme.accent)), (role.HighlightedText, QColor(theme.surface)),
        (role.Link, QColor(theme.accent)), (role.Mid, QColor(theme.muted)),
    ):
        palette.setColor(name, color)
    palette.setColor(QPalette.ColorGroup.Disabled, role.Text, QColor(theme.muted))
    palette.setColor(QPalette.ColorGroup.Disabled, role.ButtonText, QColor(theme.muted))
    palette.setColor(QPalette.ColorGroup.Disabled, role.WindowText, QColor(theme.muted))
    return palette


def apply_theme(app: QApplication, theme: Theme) -> None:
    app.setPalette(palette_for(theme))
