"""Scenario ▸ Compare: 2 to 4 pinned scenarios side by side, as a table and as bars, in a window of its own.

A learner pins the scenario in use (Scenario ▸ Pin this scenario, or the
button here), changes it, pins again, and reads the key figures side by side
(``desktop.compare_figures``). Each pin can be made the scenario in use again
or unpinned. The window is never modal and never opens by itself: a talk is
not interrupted by it. It follows the language, and the catalogue the store
holds (a model imported since the pin was made is known).
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QAbstractItemView, QFrame, QHBoxLayout, QHeaderView, QLabel, QPushButton,
                               QScrollArea, QTableWidget, QTableWidgetItem, QToolButton, QVBoxLayout, QWidget)

from desktop.compare_figures import BARS, FIGURES, MAX_PINS, MIN_COMPARED, Column, bar_shares, best, column
from desktop.kit import questions
from engine import Scenario
from widgets.compare_bars import Bar, BarGroup, CompareBars, CompareBarsState

WINDOW_SIZE = (760, 720)


class CompareWindow(QWidget):
    def __init__(self, store, language, theme, parent: QWidget | None = None):
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("compare_window")
        self._store, self._language = store, language
        self.pins: list[Scenario] = []
        self.resize(*WINDOW_SIZE)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.pin_button, self.clear_button = QPushButton(), QPushButton()
        self.pin_button.clicked.connect(lambda: self.pin(self._store.scenario))
        self.clear_button.clicked.connect(self.clear)
        buttons = QHBoxLayout()
        buttons.addWidget(self.pin_button)
        buttons.addWidget(self.clear_button)
        buttons.addStretch(1)
        self.pin_rows = QVBoxLayout()
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setRowCount(len(FIGURES))
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setWordWrap(False)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.bars = CompareBars(theme)
        self.footnote = QLabel()
        self.footnote.setWordWrap(True)
        content = QWidget()
        layout = QVBoxLayout(content)
        for part in (self.hint, buttons, self.pin_rows, self.table, self.bars, self.footnote):
            layout.addLayout(part) if isinstance(part, QHBoxLayout | QVBoxLayout) else layout.addWidget(part)
        layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(content)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        language.changed.connect(self.refresh)
        store.changed.connect(lambda *_: self._show_pin_button())
        self.refresh()

    def _text(self, key: str, **values) -> str:
        return self._language.text(f"learner.compare.{key}", **values)

    # -- pins -----------------------------------------------------------------------------
    def pin(self, scenario: Scenario) -> str:
        """Pin ``scenario``; returns what happened, as a note for the status bar."""
        if scenario in self.pins:
            return self._text("already_pinned", number=self.pins.index(scenario) + 1)
        if len(self.pins) >= MAX_PINS:
            return self._text("full", count=MAX_PINS)
        self.pins.append(scenario)
        self.refresh()
        return self._text("pinned", number=len(self.pins), count=len(self.pins))

    def unpin(self, index: int) -> None:
        del self.pins[index]
        self.refresh()

    def clear(self) -> None:
        self.pins.clear()
        self.refresh()

    def use(self, index: int) -> bool:
        """Make pin ``index`` the scenario in use (False: the engine refuses it now)."""
        return self._store.set_scenario(self.pins[index])

    def columns(self) -> list[Column]:
        text = self._language.text
        return [column(text, scenario, self._store.answers.ask(questions.report, scenario)) for scenario in self.pins]

    # -- showing ------------------------------------------------------------------------------
    def refresh(self, *_args) -> None:
        self.setWindowTitle(self._text("title"))
        self.hint.setText(self._text("hint", low=MIN_COMPARED, high=MAX_PINS))
        self.pin_button.setText(self._text("pin_current"))
        self.clear_button.setText(self._text("clear"))
        self.clear_button.setEnabled(bool(self.pins))
        self._show_pin_button()
        columns = self.columns()
        self._show_pins(columns)
        self._show_table(columns)
        self._show_bars(columns)
        hypothetical = any(cell.hypothetical for c in columns if c.cells for cell in c.cells.values())
        self.footnote.setText(self._text("hypothetical") if hypothetical else "")
        self.footnote.setVisible(hypothetical)

    def _show_pin_button(self) -> None:
        self.pin_button.setEnabled(len(self.pins) < MAX_PINS and self._store.scenario not in self.pins)

    def _show_pins(self, columns: list[Column]) -> None:
        while self.pin_rows.count():
            row = self.pin_rows.takeAt(0).widget()
            row.deleteLater()
        for index, pinned in enumerate(columns):
            row = QWidget()
            row.setObjectName(f"pin_{index + 1}")
            line = QHBoxLayout(row)
            line.setContentsMargins(0, 0, 0, 0)
            label = QLabel(f"{index + 1}. {pinned.label}")
            label.setWordWrap(True)
            use, remove = QToolButton(), QToolButton()
            use.setText(self._text("use"))
            use.setToolTip(self._text("use_tip"))
            remove.setText(self._text("unpin"))
            use.clicked.connect(lambda _=False, i=index: self.use(i))
            remove.clicked.connect(lambda _=False, i=index: self.unpin(i))
            line.addWidget(label, stretch=1)
            line.addWidget(use)
            line.addWidget(remove)
            self.pin_rows.addWidget(row)

    def _show_table(self, columns: list[Column]) -> None:
        table = self.table
        table.setColumnCount(len(columns))
        table.setHorizontalHeaderLabels([str(i + 1) for i in range(len(columns))])
        table.setVerticalHeaderLabels([self._text(f"figure.{key}") for key in FIGURES])
        for row, key in enumerate(FIGURES):
            winner = best(columns, key) if len(columns) >= MIN_COMPARED else None
            for col, pinned in enumerate(columns):
                if pinned.cells is None:
                    item = QTableWidgetItem(self._text("refused") if row == 0 else "")
                    if row == 0:
                        item.setToolTip(self._language.text("learner.compare.refused_tip",
                                                            reason=str(pinned.refusal)))
                else:
                    cell = pinned.cells[key]
                    item = QTableWidgetItem(cell.text + (" *" if cell.hypothetical else ""))
                    if col == winner:
                        font = QFont(item.font())
                        font.setBold(True)
                        item.setFont(font)
                        item.setToolTip(self._text("best"))
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                table.setItem(row, col, item)
        height = table.horizontalHeader().height() + sum(table.rowHeight(r) for r in range(table.rowCount()))
        table.setFixedHeight(height + 2 * table.frameWidth())
        table.setVisible(bool(columns))

    def _show_bars(self, columns: list[Column]) -> None:
        groups = []
        if len(columns) >= MIN_COMPARED:
            for key in BARS:
                shares, winner = bar_shares(columns, key), best(columns, key)
                bars = tuple(Bar(share, c.cells[key].text if c.cells else self._text("refused"),
                                 bool(c.cells and c.cells[key].hypothetical), index == winner)
                             for index, (share, c) in enumerate(zip(shares, columns)))
                groups.append(BarGroup(self._text(f"figure.{key}"), bars))
        self.bars.set_state(CompareBarsState(tuple(groups), self._text("best")))
        self.bars.setVisible(bool(groups))

    def set_theme(self, theme) -> None:
        self.bars.set_theme(theme)
