"""The card that says where a number on the stage comes from: the formula, this scenario's values, the result.

Draws a ``FormulaCardState`` over the stage (never a dialog: nothing to click
away, Esc or × closes it, a talk goes on under it): a heading, the figure's
name, three lines (the formula in symbols, the same with this scenario's
values, the result), what each symbol stands for with its value, and which
engine function computed it. Every text is handed in; nothing is formatted here.
"""
from __future__ import annotations


from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QFrame, QGridLayout, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from engine.frozen import frozen
from widgets.theme import Theme


@frozen
class FormulaCardState:
    heading: str                              # "Where this number comes from"
    title: str                                # the figure's name
    lines: tuple[str, ...]                    # the formula in symbols, with the values, the result
    terms: tuple[tuple[str, str, str], ...]   # (symbol, what it stands for, its value here)
    source: str                               # which engine function computed it
    footer: str = ""                          # how to see the next figure's card, when there are more
    close_tip: str = ""


class FormulaCard(QFrame):
    closed = Signal()

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("formula_card")
        self.setFrameShape(QFrame.Shape.Box)
        self.setAutoFillBackground(True)
        self._state: FormulaCardState | None = None
        self._px = 0
        self.heading, self.title, self.source, self.footer = QLabel(), QLabel(), QLabel(), QLabel()
        self.close_button = QToolButton()
        self.close_button.setText("×")
        self.close_button.setAutoRaise(True)
        self.close_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.close_button.clicked.connect(self.hide)
        self.close_button.clicked.connect(self.closed)
        self.lines_label = QLabel()
        self.terms = QGridLayout()
        self.terms.setHorizontalSpacing(12)
        for label in (self.heading, self.title, self.lines_label, self.source, self.footer):
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)
        self.lines_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        top = QHBoxLayout()
        top.addWidget(self.heading, stretch=1)
        top.addWidget(self.close_button, alignment=Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        for part in (self.title, self.lines_label, self.terms, self.source, self.footer):
            layout.addLayout(part) if isinstance(part, QGridLayout) else layout.addWidget(part)
        self.set_theme(theme)
        self.hide()

    @property
    def state(self) -> FormulaCardState | None:
        return self._state

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.setStyleSheet(f"#formula_card {{ background: {theme.surface}; color: {theme.text}; "
                           f"border: {max(2, round(theme.scaled_line_width))}px solid {theme.accent}; }} "
                           f"#formula_card QLabel {{ color: {theme.text}; border: none; }}")
        self.heading.setStyleSheet(f"color: {theme.muted};")
        self.source.setStyleSheet(f"color: {theme.muted};")
        self.footer.setStyleSheet(f"color: {theme.muted};")

    def set_pixel_size(self, px: int) -> None:
        """Its body text ``px`` high (the stage's text floor while presenting; the window's font otherwise)."""
        self._px = px
        self._apply_fonts()

    def set_state(self, state: FormulaCardState) -> None:
        if state == self._state:
            return
        self._state = state
        self.heading.setText(state.heading)
        self.title.setText(state.title)
        self.lines_label.setText("\n".join(state.lines))
        self.source.setText(state.source)
        self.footer.setText(state.footer)
        self.footer.setVisible(bool(state.footer))
        self.close_button.setToolTip(state.close_tip)
        while self.terms.count():
            old = self.terms.takeAt(0).widget()
            old.hide()               # gone from the picture now; deleteLater only frees it on the next turn
            old.deleteLater()
        for row, (symbol, meaning, value) in enumerate(state.terms):
            for column, text in enumerate((symbol, meaning, value)):
                label = QLabel(text)
                label.setTextFormat(Qt.TextFormat.PlainText)
                label.setWordWrap(column == 1)
                self.terms.addWidget(label, row, column)
        self._apply_fonts()
        self.adjustSize()

    def texts(self) -> list[str]:
        """Every text the card shows, in reading order."""
        if self._state is None:
            return []
        s = self._state
        return [s.heading, s.title, *s.lines, *(part for term in s.terms for part in term), s.source, s.footer]

    def _apply_fonts(self) -> None:
        base = QFont(self.font())
        if self._px:
            base.setPixelSize(self._px)
        big = QFont(base)
        big.setBold(True)
        if self._px:
            big.setPixelSize(round(self._px * 1.2))
        else:
            big.setPointSizeF(base.pointSizeF() * 1.2)
        for label in (self.heading, self.source, self.footer):
            label.setFont(base)
        self.title.setFont(big)
        self.lines_label.setFont(big)
        for index in range(self.terms.count()):
            self.terms.itemAt(index).widget().setFont(base)
