"""The scene list's compact form: a drop-down in the title row, for a window too narrow for the list.

It lists the same "N  title" entries as the list, one per registered scene, and
its list opens as wide as the longest of them, while the closed box stays
narrow so the title beside it keeps its room.
"""
from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QWidget

from desktop.kit.signals import signals_blocked

from desktop.eliding_combo import ElidingComboBox

PICKER_MIN_CHARACTERS = 14     # the closed box shows at least this much of "N  title"
POPUP_PADDING = 24             # px beside the widest entry in the open list (margins, a scroll bar)


class ScenePicker(ElidingComboBox):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("scene_picker")
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(PICKER_MIN_CHARACTERS)
        self.setMaxVisibleItems(12)

    def set_entries(self, entries: list[str], current: int) -> None:
        """Replace the entries without telling anyone (``activated`` is only the user's)."""
        with signals_blocked(self):
            self.clear()
            self.addItems(entries)
            self.setCurrentIndex(current)
        if entries:
            widest = max(self.view().fontMetrics().horizontalAdvance(entry) for entry in entries)
            self.view().setMinimumWidth(widest + POPUP_PADDING)

    def set_current(self, position: int) -> None:
        with signals_blocked(self):
            self.setCurrentIndex(position)
