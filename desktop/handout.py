"""The PDF handout: a landscape page per build, its picture beside its caption and notes.

A trainer prints it, often in black and white, so (DESIGN.md, presenter standard):

- every build has its picture (as the projector shows it, drawn at
  ``PICTURE_SIZE``) at ``PICTURE_SHARE`` of the page's width, beside the build's
  caption and notes: the stage's smallest text (2.3% of the picture's height)
  prints at ``printed_floor_pt`` points, above ``MIN_PRINTED_PT``;
- every printed word is at least ``MIN_PRINTED_PT`` points (notes from
  ``LARGEST_NOTES_PT`` down to ``SMALLEST_NOTES_PT``; longer notes continue on
  a next page beside the same picture, never smaller);
- the page is A4 or US Letter (``desktop.paper``);
- every page's footer says which scenario the numbers are for;
- all of it is real text, searchable and copyable (``handout_font``).

``page_layout`` is the page's geometry in millimetres, plain arithmetic tested
without Qt painting anything.
"""
from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QMarginsF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QImage, QPageLayout, QPageSize, QPainter, QPdfWriter, \
    QTextDocument
from PySide6.QtWidgets import QApplication

from desktop import stop_request
from desktop.slide import keep_units_whole
from engine.frozen import frozen
from widgets.theme import TEXT_FLOOR_PER_SCREEN_HEIGHT

PDF_DPI = 150                      # the page's device pixels: fine enough for placing text and pictures
# Each build drawn as a 4:3 projector shows it, 1440x1080: of the usual screen shapes, 4:3 prints the stage's
# smallest text largest for a given picture width (the text floor is a share of the height), and 1440 px over
# the picture's 17 to 18 cm is about 200 dpi.
PICTURE_SIZE = QSize(1440, 1080)
PICTURE_SHARE = 0.62               # of the page's width (the standard: at least 60%)
MIN_PRINTED_PT = 7.0               # no printed text smaller (DESIGN.md)
TITLE_PT, BUILD_PT, CAPTION_PT, FOOTER_PT = 14.0, 10.0, 11.0, 7.5
LARGEST_NOTES_PT, SMALLEST_NOTES_PT = 10.0, 8.0
MARGINS_MM = (12.0, 10.0, 12.0, 10.0)          # left, top, right, bottom
HEADER_MM, FOOTER_MM, GAP_MM = 11.0, 9.0, 6.0
MM_PER_PT = 25.4 / 72
PAPER_SIZES = {"a4": QPageSize.PageSizeId.A4, "letter": QPageSize.PageSizeId.Letter}
# Latin families whose digits Qt's PDF writer maps back to text (see ``handout_font``), in order of preference.
LATIN_FAMILIES = ("Noto Sans", "DejaVu Sans", "Liberation Sans", "Arial", "Helvetica", "Nimbus Sans")
# CJK families whose ideographs Qt's PDF writer maps back to the right characters (see ``handout_font``);
# Debian: fonts-wqy-zenhei. Without one, Chinese in the handout still reads right but some characters search
# as their Kangxi radicals.
HANDOUT_CJK_FAMILIES = ("WenQuanYi Zen Hei", "Microsoft YaHei", "PingFang SC")


@frozen
class HandoutBuild:
    """One build of a scene as the handout prints it."""
    number: int            # from 1
    count: int             # the scene's builds
    caption: str
    notes: str
    picture: QImage


@frozen
class PageLayout:
    """A landscape page's parts in millimetres from the page's top left corner."""
    page: tuple[float, float]                     # width, height
    header: tuple[float, float, float, float]     # x, y, width, height
    picture: tuple[float, float, float, float]
    column: tuple[float, float, float, float]     # the caption and notes
    footer: tuple[float, float, float, float]


def page_layout(paper: str, picture_size: QSize = PICTURE_SIZE) -> PageLayout:
    """Where everything goes on a landscape page of ``paper`` ("a4" or "letter")."""
    portrait = QPageSize(PAPER_SIZES[paper]).size(QPageSize.Unit.Millimeter)
    width, height = max(portrait.width(), portrait.height()), min(portrait.width(), portrait.height())
    left, top, right, bottom = MARGINS_MM
    picture_width = width * PICTURE_SHARE
    picture_height = picture_width * picture_size.height() / picture_size.width()
    body_top = top + HEADER_MM
    column_x = left + picture_width + GAP_MM
    footer_y = height - bottom - FOOTER_MM
    return PageLayout((width, height), (left, top, width - left - right, HEADER_MM),
                      (left, body_top, picture_width, picture_height),
                      (column_x, body_top, width - right - column_x, footer_y - GAP_MM / 2 - body_top),
                      (left, footer_y, width - left - right, FOOTER_MM))


def printed_floor_pt(layout: PageLayout, picture_size: QSize = PICTURE_SIZE) -> float:
    """The stage's smallest text (its floor: 2.3% of the picture's height) as printed, in points."""
    floor_px = TEXT_FLOOR_PER_SCREEN_HEIGHT * picture_size.height()
    return floor_px * layout.picture[2] / picture_size.width() / MM_PER_PT


def handout_font() -> QFont:
    """The handout's type: a Latin family first, then a CJK family whose text survives in the PDF, then the
    app's own families.

    With a CJK OpenType family first, Qt's PDF writer gives digits and Latin letters no text mapping, and
    ``pdftotext`` (or a search in a PDF reader) loses every number; a Latin family keeps them. Noto Sans CJK
    shares glyphs between ideographs and the Kangxi radicals, and the writer maps such a glyph back to the
    radical (一 becomes ⼀), so a search for 一 finds nothing; ``HANDOUT_CJK_FAMILIES`` map back correctly."""
    font = QFont(QApplication.font())
    font.setFeature(QFont.Tag("liga"), 0)      # "ﬁ" in "prefill" would not be found by a search for "fi"
    installed = set(QFontDatabase.families())
    latin = [family for family in LATIN_FAMILIES if family in installed][:1]
    cjk = [family for family in HANDOUT_CJK_FAMILIES if family in installed][:1]
    font.setFamilies([*latin, *cjk, *font.families()])
    return font


class Handout:
    """The PDF being written: ``add_scene`` per scene, then ``close``. Written in memory and put in place only
    when complete (``write``: ``desktop.export.write_atomically``)."""

    def __init__(self, path: Path, language, footer: str, paper: str, write):
        self._path, self._write, self._buffer = path, write, QBuffer()
        self._buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        self._writer = QPdfWriter(self._buffer)
        self._writer.setResolution(PDF_DPI)
        self.layout = page_layout(paper)
        left, top, right, bottom = MARGINS_MM
        self._writer.setPageLayout(QPageLayout(QPageSize(PAPER_SIZES[paper]), QPageLayout.Orientation.Landscape,
                                               QMarginsF(left, top, right, bottom), QPageLayout.Unit.Millimeter))
        self._writer.setTitle(language.text("app.window.title"))
        self._writer.setCreator(language.text("app.window.title"))
        self._painter = QPainter(self._writer)
        if not self._painter.isActive():
            raise OSError(f"could not write {path}")
        self._font = handout_font()
        self._language, self._footer, self._pages = language, footer, 0

    def _rect(self, part: tuple[float, float, float, float]) -> QRectF:
        """A part of ``page_layout`` in the painter's coordinates (device pixels from the top left margin)."""
        left, top = MARGINS_MM[0], MARGINS_MM[1]
        scale = PDF_DPI / 25.4
        x, y, width, height = part
        return QRectF((x - left) * scale, (y - top) * scale, width * scale, height * scale)

    def _type(self, points: float, bold: bool = False) -> QFont:
        font = QFont(self._font)
        font.setPointSizeF(points)
        font.setBold(bold)
        return font

    def add_scene(self, title: str, builds: list[HandoutBuild]) -> None:
        """A page per build (more where its notes need them)."""
        for build in builds:
            stop_request.check()          # between pages: a stop asked for during the last one ends here
            document = self._notes_document(build)
            for page in range(document.pageCount()):
                self._new_page(title, build)
                column = self._rect(self.layout.column)
                painter = self._painter
                painter.save()
                painter.translate(column.left(), column.top() - page * column.height())
                document.drawContents(painter, QRectF(0, page * column.height(), column.width(), column.height()))
                painter.restore()

    def _new_page(self, title: str, build: HandoutBuild) -> None:
        if self._pages:
            self._writer.newPage()
        self._pages += 1
        painter, text = self._painter, self._language.text
        header = self._rect(self.layout.header)
        painter.setPen(QColor("#000000"))
        painter.setFont(self._type(TITLE_PT, bold=True))
        painter.drawText(header, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, title)
        painter.setFont(self._type(BUILD_PT))
        painter.drawText(header, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                         text("app.export.build_of", number=build.number, count=build.count))
        picture = self._rect(self.layout.picture)
        painter.drawImage(picture, build.picture)
        painter.setPen(QColor("#808080"))
        painter.drawRect(picture)
        footer = self._rect(self.layout.footer)
        painter.setPen(QColor("#333333"))
        painter.setFont(self._type(FOOTER_PT))
        page = text("app.export.page", number=self._pages)
        page_width = footer.width() * 0.12
        painter.drawText(footer.adjusted(0, 0, -page_width, 0),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextWordWrap,
                         self._footer)
        painter.drawText(footer, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, page)
        painter.setPen(QColor("#000000"))

    def _notes_document(self, build: HandoutBuild) -> QTextDocument:
        """The build's caption (bold) and notes, at the largest size from ``LARGEST_NOTES_PT`` down to
        ``SMALLEST_NOTES_PT`` that fits the column on one page (or the smallest, over more pages)."""
        paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in build.notes.split("\n") if p.strip())
        caption = html.escape(keep_units_whole(build.caption))
        column = self._rect(self.layout.column)
        document = QTextDocument()
        document.documentLayout().setPaintDevice(self._writer)   # points are the page's, not the screen's
        document.setDocumentMargin(0)
        document.setPageSize(column.size())
        points = LARGEST_NOTES_PT
        while True:
            # The caption a step above the notes, in points of its own: never under the notes' size.
            document.setHtml(f'<p style="font-weight:bold; font-size:{max(points, CAPTION_PT):.1f}pt">{caption}</p>'
                             f'{paragraphs}')
            document.setDefaultFont(self._type(points))
            if document.pageCount() <= 1 or points <= SMALLEST_NOTES_PT:
                return document
            points = max(SMALLEST_NOTES_PT, points - 0.5)

    def close(self, write: bool = True) -> None:
        """End the document; with ``write``, put it at the path, complete."""
        if self._painter.isActive():
            self._painter.end()
        if write:
            self._write(self._path, bytes(self._buffer.data()))
