"""The formula behind a figure on the stage, on a click or a key (DESIGN.md, "Learner standard").

The kit's one hook, filled by each scene:

- the story says which figures of this build have a formula and gives them
  (``Story.formulas() -> {figure key: engine.formulas.Formula}``, asked through
  the kit: ``questions.formula``, with this scenario's values);
- the view says where each is drawn (``Scene.figure_places() -> {figure key:
  (widget, label names)}``): the labels of ``widget.label_rects()`` that show
  it (a figure whose labels are not drawn now has no card), or the whole widget when no names are given.

``FigureFormulas`` then maps a click on the stage to the figure under it (the
label that shows it, else the widget that draws it) and the I key to the next
figure of the build, and shows its card (``widgets.formula_card``) beside the
figure, in the scene's language. The card follows the scenario while it shows
(its values are recomputed with the story) and goes when the build or scene
changes. A scene that fills neither shows no card, and I says so in a note.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QRect, QRectF
from engine.units import glue_units

if TYPE_CHECKING:
    from widgets.formula_card import FormulaCard

CARD_WIDTH_SHARE = 0.6          # of the stage's width, at most
CARD_MIN_WIDTH_PX = 280
CLICK_SLOP_PX = 6               # a press and release this close are a click, not a drag


class FigureFormulas:
    """One scene's formula cards."""

    def __init__(self, scene):
        self._scene = scene
        self.card: FormulaCard | None = None       # made on first use
        self.shown_key: str | None = None
        self._pressed_at: QPoint | None = None

    # -- where the figures are -----------------------------------------------------------------
    def rects(self) -> dict[str, QRect]:
        """Each figure of this build that has a formula, where it is drawn, in the scene's pixels."""
        scene, found = self._scene, {}
        formulas = scene.formulas()
        for key, (widget, names) in scene.figure_places().items():
            if key not in formulas or widget is None or not widget.isVisible():
                continue
            labels = widget.label_rects() if names else {}
            parts = [labels[name] for name in names if name in labels]
            if names and not parts:
                continue                    # its labels are not drawn now (left out for room): nowhere to click
            rect = QRectF(widget.rect())
            if parts:
                rect = parts[0]
                for part in parts[1:]:
                    rect = rect.united(part)
            found[key] = QRect(widget.mapTo(scene, rect.toRect().topLeft()), rect.toRect().size())
        return found

    def figure_at(self, point: QPoint) -> str | None:
        """The figure under ``point`` (scene pixels): the smallest rectangle holding it, None when none does."""
        holding = [(rect.width() * rect.height(), key) for key, rect in self.rects().items() if rect.contains(point)]
        return min(holding)[1] if holding else None

    # -- showing -----------------------------------------------------------------------------------
    def show(self, key: str) -> bool:
        """Show the card of figure ``key``; False when this build has no such figure."""
        formulas = self._scene.formulas()
        if key not in formulas:
            return False
        self.shown_key = key
        self._present(formulas, key)
        return True

    def show_next(self) -> bool:
        """The I key: the card of the next figure of this build (the first when none shows); False when none."""
        keys = list(self.rects())
        if not keys:
            self.hide()
            self._scene.show_note(self._scene.kit.language.text("formulas.card.none"))
            return False
        following = keys[(keys.index(self.shown_key) + 1) % len(keys)] if self.shown_key in keys else keys[0]
        return self.show(following)

    def hide(self) -> bool:
        """Close the card; False when none showed."""
        shown = self.card is not None and self.card.isVisible()
        if self.card is not None:
            self.card.hide()
        self.shown_key = None
        return shown

    def follow(self) -> None:
        """The story changed: the card shows the new values, or goes when its figure is no longer there."""
        if self.shown_key is None:
            return
        formulas = self._scene.formulas()
        if self.shown_key in formulas and self.shown_key in self.rects():
            self._present(formulas, self.shown_key)
        else:
            self.hide()

    def _present(self, formulas, key: str) -> None:
        from widgets.formula_card import FormulaCard, FormulaCardState    # the first card shown loads its widget
        scene, text = self._scene, self._scene.kit.language.text
        if self.card is None:
            self.card = FormulaCard(scene.kit.theme, scene)
            self.card.closed.connect(lambda: setattr(self, "shown_key", None))
        shown = formulas[key]
        keys = list(self.rects())
        footer = text("formulas.card.more", index=keys.index(key) + 1, count=len(keys)) \
            if len(keys) > 1 and key in keys else ""
        self.card.set_theme(scene.kit.theme)
        self.card.set_pixel_size(scene.kit.theme.floor_px)      # the stage's text floor, as every label on it
        self.card.set_state(FormulaCardState(
            text("formulas.card.heading"), text(f"formulas.title.{shown.key}"),     # a figure key may be "tpot_seconds.8"
            tuple(glue_units(line) for line in shown.lines()),        # "989 TFLOPS" never breaks inside
            tuple((term.symbol, text(f"formulas.term.{term.name}"), glue_units(term.value)) for term in shown.terms),
            text("formulas.card.source", source=shown.source), footer, text("formulas.card.close_tip")))
        self._place(self.rects().get(key))
        self.card.show()
        self.card.raise_()

    def _place(self, figure: QRect | None) -> None:
        """Beside the figure where there is room (right of it, else left), top-aligned with it; else above or below
        it, as wide as the stage if it must be (a wide figure: the belt's idle share, a headline); inside the stage,
        over the figure only where no place leaves it in sight."""
        scene, card = self._scene, self.card
        figure = figure or QRect(0, 0, scene.width(), scene.height())
        width = min(max(CARD_MIN_WIDTH_PX, round(scene.width() * CARD_WIDTH_SHARE)), scene.width())
        for tried in dict.fromkeys((width, scene.width())):
            height = self._fit(tried)
            places = ((figure.right() + 8, figure.top()), (figure.left() - 8 - tried, figure.top()),
                      (figure.left(), figure.top() - 8 - height), (figure.left(), figure.bottom() + 8))
            for x, y in places:
                x = max(0, min(x, scene.width() - tried))      # above or below: shifted left to stay inside
                if y >= 0 and y + height <= scene.height() and not QRect(x, y, tried, height).intersects(figure) \
                        and x + tried <= scene.width():
                    card.move(x, y)
                    return
        self._fit(width)
        x = figure.right() + 8 if figure.right() + 8 + width <= scene.width() else figure.left() - 8 - width
        card.move(max(0, min(x, scene.width() - width)), max(0, min(figure.top(), scene.height() - card.height())))

    def _fit(self, width: int) -> int:
        """The card made ``width`` wide and as tall as its text then needs (at most the stage); its height."""
        scene, card = self._scene, self.card
        card.setFixedWidth(width)
        height = min(card.heightForWidth(width) if card.hasHeightForWidth() else card.sizeHint().height(),
                     scene.height())
        card.setFixedHeight(max(height, card.minimumSizeHint().height()) if height < scene.height() else height)
        return card.height()

    # -- clicks --------------------------------------------------------------------------------------
    def pressed(self, point: QPoint) -> None:
        self._pressed_at = point

    def released(self, point: QPoint) -> bool:
        """A click (not a drag) at ``point``: the card of the figure under it, or the card closed; True when it
        showed one."""
        pressed, self._pressed_at = self._pressed_at, None
        if pressed is None or (point - pressed).manhattanLength() > CLICK_SLOP_PX:
            return False
        return self.clicked(point)

    def clicked(self, point: QPoint) -> bool:
        """A click at ``point`` (scene pixels; a plot that takes the mouse reports its own): the card of the
        figure under it, or the card closed; True when it showed one."""
        key = self.figure_at(point)
        if key is None:
            self.hide()
            return False
        return self.show(key)
