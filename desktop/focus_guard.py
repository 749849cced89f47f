"""The side panel never changes a value the person is not editing (DESIGN.md, "Learner standard").

- **The wheel scrolls the panel** over a spin box, drop-down or slider that has
  not been clicked (or tabbed) into: one notch over "Output tokens" while
  scrolling down the panel used to take it from 500 to 495, and over the model
  box to switch 70B for 405B. A control that has the keyboard still takes the
  wheel, as everywhere else. The panel's controls never take the keyboard from
  the wheel alone (``Qt.StrongFocus``).
- **Leaving a control hands the keys back to the talk**: Esc does
  (``desktop.presenter.KeyController``), and so does a click on the stage, which
  takes the keyboard (``desktop.slide.SlideFrame`` is the first widget under a
  click on the stage that accepts it); Right, Space and Down then step the talk
  again instead of the batch or the GPU (``tests/desktop/test_learner_window.py``).
- **A clicker's keys are always the talk's**: PageDown and PageUp, which every
  presentation clicker sends, leave the control (its typed value is kept, as
  when it loses the keyboard any other way) and step the talk. A spin box's own
  arrows and typing are untouched.

The guard watches the panel's spin boxes, drop-downs and sliders themselves
(``watch``: the window calls it again when a scene's own controls are placed;
the wheel over a spin box's line edit reaches its spin box) and, for the
clicker's keys, whichever of the panel's widgets has the keyboard focus
(``desktop.focus_follow``): not every event of the application, nor of every
label and frame in the panel. A frame of an animation pays nothing for it.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (QAbstractSlider, QAbstractSpinBox, QApplication, QComboBox, QPlainTextEdit,
                               QScrollArea, QTextEdit, QWidget)

from desktop.focus_follow import FocusFollower

WHEEL_CONTROLS = (QAbstractSpinBox, QComboBox, QAbstractSlider)
CLICKER_KEYS = (Qt.Key.Key_PageDown, Qt.Key.Key_PageUp)
MULTI_LINE = (QTextEdit, QPlainTextEdit)           # their PageDown turns their own pages


def _control_of(widget: QWidget | None, inside: QWidget) -> QWidget | None:
    """The spin box, drop-down or slider ``widget`` is (or is part of: a spin box's line edit), inside ``inside``."""
    while widget is not None and widget is not inside:
        if isinstance(widget, WHEEL_CONTROLS):
            return widget
        widget = widget.parentWidget()
    return None


def _has_keyboard(control: QWidget) -> bool:
    focused = QApplication.focusWidget()
    return focused is not None and (focused is control or control.isAncestorOf(focused))


class FocusGuard(QObject):
    """Keeps the side panel's controls from changing by accident (see the module docstring)."""

    def __init__(self, panel: QScrollArea, slide: QWidget, parent: QObject | None = None):
        super().__init__(parent)
        self._panel, self._slide = panel, slide
        self._focus = FocusFollower(self, panel.isAncestorOf, kept=lambda widget: isinstance(widget, WHEEL_CONTROLS))
        self.watch()

    def watch(self) -> None:
        """Guard every control in the panel now (a scene's controls are placed when the scene is first shown):
        they take the keyboard from a click or Tab, never from the wheel passing over."""
        for widget in self._panel.widget().findChildren(QWidget):
            if not isinstance(widget, WHEEL_CONTROLS):
                continue
            widget.installEventFilter(self)              # installing it again changes nothing
            if widget.focusPolicy() == Qt.FocusPolicy.WheelFocus:
                widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.Wheel, QEvent.Type.KeyPress) or not isinstance(watched, QWidget):
            return False
        if kind == QEvent.Type.Wheel:
            return self._wheel(watched, event)
        return self._key(watched, event)

    def _wheel(self, watched: QWidget, event) -> bool:
        content = self._panel.widget()
        if content is None or not content.isAncestorOf(watched):
            return False
        control = _control_of(watched, content)
        if control is None or _has_keyboard(control):
            return False
        QApplication.sendEvent(self._panel.verticalScrollBar(), event)   # the panel scrolls; the value stays
        return True

    def _key(self, watched: QWidget, event: QKeyEvent) -> bool:
        focused = QApplication.focusWidget()
        if event.key() not in CLICKER_KEYS or focused is None or watched is not focused \
                or isinstance(focused, MULTI_LINE) or not self._panel.isAncestorOf(focused):
            return False
        self._slide.setFocus(Qt.FocusReason.OtherFocusReason)      # the control's typed value is kept
        QApplication.sendEvent(self._slide, QKeyEvent(event.type(), event.key(), event.modifiers(), event.text(),
                                                      event.isAutoRepeat(), event.count()))
        return True
