"""One of the summary's questions on the stage: the question, a picture for its answer, the answer's lines, a link.

Draws a ``QuestionCardState`` (``widgets.question_card_state``) and hosts the
picture widget it is given (``set_picture``), which it places between the
question and the answer's lines. Focus mode (the card fills the stage): the
question large, centred until the reveal begins, then at the top; the picture
is shown once the reveal reaches it; the answer's lines and the link fade in
last (``set_reveal``). Compact mode (the recap): framed, question on top,
picture, link at the bottom; no answer lines (they are in the notes).

A click anywhere on a card whose link is shown emits ``link_clicked(scene
key)``: the picture leaves mouse presses to its parent, so a click on the
picture counts too. The card decides nothing else.
"""
from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, Qt, Signal
from PySide6.QtGui import QPainter, QPen, QRegion
from PySide6.QtWidgets import QWidget

from widgets.question_card_state import QuestionCardState, RevealPhases, reveal_phases
from widgets.state_widget import StateWidget
from widgets.text_fit import DrawnText, FittedText, TextMeasure
from widgets.theme import THEMES, Theme

MAX_TEXT_PX = 64            # larger glyphs are drawn as paths by the raster engine: far slower per frame
QUESTION_PER_HEIGHT = 0.085
ANSWER_PER_HEIGHT = 0.055
LINK_PER_HEIGHT = 0.04
COMPACT_QUESTION_PER_HEIGHT = 0.08
GAP_SHARE = 0.02
ONE_LINE_SHRINK = 0.8       # a question keeps to one line down to this share of its type size
REPAINT_MARGIN_PX = 4       # a step of the reveal repaints this much around a text's box (glyphs reach past it)
LEFT_TOP = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def box_ok(box: QRectF) -> bool:
    return box.width() > 0 and box.height() > 0


class QuestionCard(StateWidget):
    """Draws a ``QuestionCardState`` (``state``, ``theme``, ``drawn_texts`` and the layout per size, state and
    text floor come from ``StateWidget``) and hosts its answer's picture."""
    link_clicked = Signal(str)

    def __init__(self, theme: Theme | None = None, parent: QWidget | None = None):
        super().__init__(theme or THEMES["light"], parent)
        self.measure = TextMeasure()
        self.picture: QWidget | None = None
        self._phases = reveal_phases(1.0)

    # -- what the scene hands over --------------------------------------------------------------
    def set_theme(self, theme: Theme) -> None:
        super().set_theme(theme)
        self._place_picture()

    def set_state(self, state: QuestionCardState) -> None:
        if state != self._state:
            super().set_state(state)
            self._place_picture()

    def set_picture(self, picture: QWidget) -> None:
        """Host ``picture`` (the one shown between question and answer); a picture hosted before is hidden."""
        if picture is self.picture:
            return
        if self.picture is not None:
            self.picture.hide()
        self.picture = picture
        if picture.parent() is not self:
            picture.setParent(self)
        self._place_picture()

    def set_reveal(self, progress: float) -> None:
        """0: the bare question; 1: the question at the top, the picture, the answer and the link."""
        phases = reveal_phases(progress)
        if phases != self._phases:
            before, self._phases = self._phases, phases
            self._place_picture()
            # The picture growing in is the picture's own paint, not the card's; a step of the question's move
            # repaints where it was and where it is, a step of the words' fade the words: not the whole card.
            if self.isVisible() and self.state is not None and not self.state.compact:
                changed = self._reveal_region(before, phases)
                if not changed.isEmpty():
                    self.update(changed)

    @property
    def phases(self) -> RevealPhases:
        return self._phases

    def _reveal_region(self, before: RevealPhases, after: RevealPhases) -> QRegion:
        """Where the card's own paint differs between two steps of a reveal (focus mode)."""
        layout, region = self._layout_now(), QRegion()
        question = layout.get("question")
        if question is not None and before.move != after.move:
            for move in (before.move, after.move):
                region += self._grown(self._question_rect(layout, move))
        if before.text != after.text:
            for key in ("answer", "link"):
                if layout.get(key) is not None:
                    region += self._grown(layout[key].rect)
        return region

    @staticmethod
    def _grown(rect: QRectF) -> QRect:
        """``rect`` in whole pixels, with room for glyphs that reach past the box they were measured in."""
        m = REPAINT_MARGIN_PX
        return rect.toAlignedRect().adjusted(-m, -m, m, m)

    @staticmethod
    def _question_rect(layout: dict, move: float) -> QRectF:
        """Where the question is drawn ``move`` of the way from the card's middle to its top."""
        question, centred = layout["question"].rect, layout["centred"]
        rect = QRectF(question)
        rect.moveTop(centred.top() + (question.top() - centred.top()) * move)
        return rect

    def link_shown(self) -> bool:
        state = self.state
        return bool(state and state.link_scene and (state.compact or self._phases.text > 0))

    def answer_shown(self) -> bool:
        state = self.state
        return bool(state and state.answer and not state.compact and self._phases.text > 0)

    def activate_link(self) -> bool:
        """What a click does (also what tests call): jump to the linked scene, if its link is shown."""
        if not self.link_shown():
            return False
        self.link_clicked.emit(self.state.link_scene)
        return True

    # -- layout ----------------------------------------------------------------------------------
    def _floor(self) -> int:
        return self.theme.floor_px

    def _px(self, share: float, limit: int) -> int:
        return max(self._floor(), min(limit, round(share * self.height())))

    def _fit(self, text: str, box: QRectF, px: int, bold: bool, align) -> FittedText | None:
        if not text or box.width() <= 0 or box.height() <= 0:
            return None
        return self.measure.fit(text, box, min(px, MAX_TEXT_PX), bold, align, floor_px=self._floor())

    def _fit_question(self, text: str, inner: QRectF, px: int) -> FittedText | None:
        """The question on one line if a little smaller type allows it, else on two lines at full size."""
        one_line = QRectF(inner.left(), inner.top(), inner.width(), self.measure.line_height(px, True))
        smallest = max(self._floor(), round(ONE_LINE_SHRINK * px))
        if text and box_ok(one_line):
            fitted = self.measure.fit(text, one_line, min(px, MAX_TEXT_PX), True, LEFT_TOP, floor_px=smallest)
            if fitted is not None and len(fitted.lines) == 1:
                return fitted
        two_lines = QRectF(inner.left(), inner.top(), inner.width(), 2 * self.measure.line_height(px, True))
        return self._fit(text, two_lines, px, True, LEFT_TOP)

    def _layout_now(self) -> dict:
        return self.layout_now() or {}

    def _lay_out(self) -> dict:
        return self._compute_layout(self._state)

    def _compute_layout(self, state: QuestionCardState) -> dict:
        w, h = float(self.width()), float(self.height())
        compact = state.compact
        margin = max(6.0, (0.04 if compact else 0.03) * min(w, h))
        gap = max(4.0, GAP_SHARE * h)
        inner = QRectF(margin, margin, w - 2 * margin, h - 2 * margin)
        q_px = self._px(COMPACT_QUESTION_PER_HEIGHT if compact else QUESTION_PER_HEIGHT, MAX_TEXT_PX)
        question = self._fit_question(state.question, inner, q_px)
        top = question.rect.bottom() + gap if question else inner.top()
        link_px = self._px(LINK_PER_HEIGHT, 40)
        link_h = self.measure.line_height(link_px, True)
        link_box = QRectF(inner.left(), inner.bottom() - link_h, inner.width(), link_h)
        link = self._fit(state.link, link_box, link_px, True, RIGHT)
        bottom = link.rect.top() - gap if link else inner.bottom()
        answer = None
        if not compact and state.answer:
            a_px = self._px(ANSWER_PER_HEIGHT, 48)
            a_h = 2 * self.measure.line_height(a_px, False)
            answer = self._fit(state.answer, QRectF(inner.left(), bottom - a_h, inner.width(), a_h), a_px, False,
                               Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom)
            if answer is not None:
                bottom = answer.rect.top() - gap
        centred = None
        if question is not None:     # before the reveal: the same lines, centred on the card
            centred = QRectF(question.rect)
            centred.moveTop((h - centred.height()) / 2)
        return {"question": question, "centred": centred, "link": link, "answer": answer, "margin": margin,
                "picture": QRectF(inner.left(), top, inner.width(), max(0.0, bottom - top))}

    def _place_picture(self) -> None:
        if self.picture is None or self.state is None:
            return
        rect = self._layout_now().get("picture", QRectF()).toRect()
        if self.picture.geometry() != rect:
            self.picture.setGeometry(rect)
        shown = (self.state.compact or self._phases.picture > 0) and rect.height() > 0
        if self.picture.isVisibleTo(self) != shown:
            self.picture.setVisible(shown)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_picture()

    # -- painting ----------------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), self.theme.color("background"))
        self._drawn = []
        state = self.state
        if state is None:
            return
        layout = self._layout_now()
        if state.compact:
            lw = max(1.0, self.theme.line_width / 2)
            painter.setPen(QPen(self.theme.color("muted"), lw))
            painter.setBrush(Qt.BrushStyle.NoBrush)      # the picture paints the stage's background: one ground
            painter.drawRoundedRect(QRectF(self.rect()).adjusted(lw, lw, -lw, -lw), 8, 8)
        question: FittedText | None = layout.get("question")
        if question is not None:
            rect = self._question_rect(layout, 1.0 if state.compact else self._phases.move)
            self._paint("question", state.question, question, rect, "text", 1.0, painter)
        opacity = 1.0 if state.compact else self._phases.text
        if self.answer_shown() and layout.get("answer") is not None:
            answer = layout["answer"]
            self._paint("answer", state.answer, answer, answer.rect, "text", opacity, painter)
        if self.link_shown() and layout.get("link") is not None:
            link = layout["link"]
            self._paint("link", state.link, link, link.rect, "accent", opacity, painter)

    def _paint(self, key: str, text: str, fitted: FittedText, rect: QRectF, role: str, opacity: float,
               painter: QPainter) -> None:
        # The fade is the pen's alpha, not the painter's opacity: Qt's raster engine draws text under an opacity
        # below 1 some twenty times slower (1.2 ms for a 48 px line against 60 us), the same pixels to within one
        # level of a channel, and the words fade in on every frame of a reveal.
        colour = self.theme.color(role)
        colour.setAlphaF(colour.alphaF() * max(0.0, min(1.0, opacity)))
        painter.setPen(colour)
        moved = FittedText(fitted.lines, fitted.px, fitted.bold, rect, fitted.align, fitted.line_height)
        moved.paint(painter, self.measure.font(fitted.px, fitted.bold))
        self._drawn.append(DrawnText(key, text, float(fitted.px), QRectF(rect)))

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.activate_link():
            event.accept()
            return
        super().mousePressEvent(event)

    def enterEvent(self, event) -> None:
        self.setCursor(Qt.CursorShape.PointingHandCursor if self.link_shown() else Qt.CursorShape.ArrowCursor)
        super().enterEvent(event)
