"""Still pictures of every scene: ``NN-key.png`` files and a PDF handout.

Each scene is created afresh with the given scenario, language and theme, put
in the same ``SlideFrame`` the projector shows, taken to its last build with
every transition finished, and rendered offscreen at a fixed size. The work
comes as a generator, one scene per step, so the window can run it between
events and never freeze; the command line simply runs it to the end.
"""
from __future__ import annotations

import errno
import html
import os
from pathlib import Path
from typing import Iterator

from PySide6.QtCore import QBuffer, QIODevice, QMarginsF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (QColor, QFont, QFontDatabase, QImage, QPageLayout, QPageSize, QPainter, QPdfWriter,
                           QTextDocument)
from PySide6.QtWidgets import QApplication

from desktop.i18n import Language
from desktop.scenario_store import ScenarioStore
from desktop import stop_request
from desktop.kit.scene import Scene, SceneKit, create_scene
from desktop.scenes.registry import SceneEntry
from desktop.slide import SlideFrame, keep_units_whole
from desktop.stage_subject import subject_texts
from engine.units import format_count, format_usd
from widgets.theme import Theme, for_screen

DEFAULT_SIZE = QSize(1920, 1080)
HANDOUT_FILE = "handout.pdf"
PDF_DPI = 150                      # sharp enough to print, small enough to mail
# Of the page's width: the stage on the left, the notes on the right. Long notes get a smaller picture
# before their type goes below READABLE_NOTES_PT; past the last share they shrink to SMALLEST_NOTES_PT.
PICTURE_SHARES = (0.5, 0.42, 0.34)
LARGEST_NOTES_PT = 11.0
READABLE_NOTES_PT = 8.0
SMALLEST_NOTES_PT = 6.5            # still readable on paper; longer notes continue on the next page
# Latin families whose digits Qt's PDF writer maps back to text (see ``handout_font``), in order of preference.
LATIN_FAMILIES = ("Noto Sans", "DejaVu Sans", "Liberation Sans", "Arial", "Helvetica", "Nimbus Sans")
# CJK families whose ideographs Qt's PDF writer maps back to the right characters (see ``handout_font``);
# Debian: fonts-wqy-zenhei. Without one, Chinese in the handout still reads right but some characters search
# as their Kangxi radicals.
HANDOUT_CJK_FAMILIES = ("WenQuanYi Zen Hei", "Microsoft YaHei", "PingFang SC")


class Slide:
    """One rendered scene: the picture as the projector shows it and the texts around it."""

    def __init__(self, image: QImage, stage_rect: QRect, title: str, captions: list[str], notes: list[str]):
        self.image, self.stage_rect, self.title = image, stage_rect, title
        self.captions, self.notes = captions, notes        # per build, in order


def render_slide(cls: type[Scene], language: Language, store: ScenarioStore, theme: Theme,
                 size: QSize = DEFAULT_SIZE, build: int | None = None, with_texts: bool = True) -> Slide:
    """``cls`` at build ``build`` (None: its last) in a slide of exactly ``size`` pixels, transitions finished.

    The command line's pictures and the handout show the last build; the menu's picture the build on screen.
    ``with_texts`` False (the speaker view's preview): the picture only, without stepping every build for the
    handout's captions and notes, nor loading what only the finished still needs.
    """
    theme = for_screen(theme, size.height())        # the picture's height is the screen's: same text floor
    frame = SlideFrame(theme)
    frame.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    scene = create_scene(cls, SceneKit(language, store, theme))
    frame.stage.addWidget(scene)
    frame.set_presenting_height(size.height())
    frame.resize(size)
    frame.show()
    scene.clock.stop()            # a still picture: its time comes from prepare_for_export, not the wall clock
    scene.clock.set_seconds(0.0)  # nor from how long showing it took: the same picture every time
    captions: list[str] = []
    notes: list[str] = []
    if with_texts:
        scene.prepare_for_export()                  # loads what the notes quote (counts, sweeps) first
        texts = scene.handout_texts()
        captions, notes = [caption for caption, _ in texts], [note for _, note in texts]
        scene.prepare_for_export()                  # and back to the finished last build
    if build is not None or not with_texts:
        scene.go_to_build(scene.build_count - 1 if build is None else build, animate=False)
        scene.clock.set_seconds(scene.clock.seconds() + 1.0)     # every transition finished
    frame.set_texts(scene.title(), scene.caption())
    frame.set_subject(*subject_texts(language, scene))
    frame.layout().activate()
    QApplication.processEvents()  # let the scene's widgets settle their layout at this size
    image = QImage(size, QImage.Format.Format_RGB32)
    image.fill(QColor(theme.background))
    frame.render(image)
    slide = Slide(image, frame.stage.geometry(), frame.title_label.text(), captions, notes)
    frame.close()
    frame.deleteLater()
    return slide


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` beside ``path`` and rename it over ``path`` once complete: an interrupted or failed
    write never leaves a truncated file in place of a good one. Raises OSError naming what failed."""
    path = Path(path)
    partial = partial_path(path)
    try:
        with open(partial, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())          # on the disk before it replaces the good file
        os.replace(partial, path)
    except BaseException as failure:
        try:
            partial.unlink(missing_ok=True)
        except OSError:
            pass
        if isinstance(failure, OSError):
            failure.filename = str(path)       # the sentence names the file the person chose, not ours
        raise


def partial_path(path: Path) -> Path:
    """Where ``path`` is written before it is complete: beside it, hidden, one name per target
    (an export killed outright leaves at most this file, and the next export reuses it)."""
    return path.with_name(f".{path.name}.partial")


def _check_writable(path: Path) -> None:
    """Raise the OSError that writing ``path`` would raise (naming ``path``), without touching ``path``."""
    partial = partial_path(path)
    try:
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        with open(partial, "wb"):
            pass
        partial.unlink()
    except OSError as failure:
        failure.filename = str(path)
        raise


def _image_bytes(image: QImage, path: Path) -> bytes:
    """``image`` encoded as PNG in memory: the file itself is written by Python, so a failure says why."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise OSError(f"could not encode {path}")
    return bytes(buffer.data())


def describe_scenario(language: Language, store: ScenarioStore) -> str:
    """One line naming the scenario a handout was made with."""
    catalog, scenario = store.catalog, store.scenario
    return language.text(
        "app.export.scenario", gpu=catalog.gpu(scenario.gpu).name, model=catalog.model(scenario.model).name,
        weights=catalog.precision(scenario.weights).name, kv=catalog.precision(scenario.kv).name,
        count=scenario.gpus, batch=format_count(scenario.batch),
        prompt=format_count(scenario.prompt_tokens), output=format_count(scenario.output_tokens),
        price=format_usd(scenario.usd_per_gpu_hour))


def export_scenes(entries: tuple[SceneEntry, ...], language: Language, store: ScenarioStore, theme: Theme,
                  size: QSize = DEFAULT_SIZE, png_dir: Path | None = None,
                  pdf_path: Path | None = None) -> Iterator[Path]:
    """Render one scene per step; yields each PNG when written and the PDF when finished.

    Raises OSError (one sentence naming the file) when a file cannot be written.
    """
    if png_dir is not None:
        png_dir.mkdir(parents=True, exist_ok=True)
    handout = _Handout(pdf_path, language, describe_scenario(language, store)) \
        if pdf_path is not None else None
    complete = False
    try:
        for entry in entries:
            stop_request.check()          # between scenes: a stop asked for during the last one ends here
            slide = render_slide(entry.load(), language, store, theme, size)
            if png_dir is not None:
                path = png_dir / f"{entry.export_name}.png"
                write_atomically(path, _image_bytes(slide.image, path))   # never a truncated PNG in its place
                yield path
            if handout is not None:
                handout.add(slide)
        stop_request.check()
        complete = True
    finally:
        if handout is not None:
            handout.close(write=complete)     # an interrupted export leaves the previous handout as it was
    if pdf_path is not None:
        yield pdf_path


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


class _Handout:
    """A landscape A4 page per scene: the stage at its last build, then each build's caption and notes.

    The text shrinks (down to ``SMALLEST_NOTES_PT``) to keep a scene on one page; longer notes continue
    on the next page rather than being cut. All of it is real text, searchable and copyable."""

    def __init__(self, path: Path, language: Language, footer: str):
        path.parent.mkdir(parents=True, exist_ok=True)
        _check_writable(path)                      # say so before any work, not after rendering every scene
        self._path, self._buffer = path, QBuffer()
        self._buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        self._writer = QPdfWriter(self._buffer)    # in memory; written beside the target and renamed over it
        self._writer.setResolution(PDF_DPI)
        self._writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Landscape,
                                               QMarginsF(12, 10, 12, 10), QPageLayout.Unit.Millimeter))
        self._writer.setTitle(language.text("app.window.title"))
        self._writer.setCreator(language.text("app.window.title"))
        self._painter = QPainter(self._writer)
        if not self._painter.isActive():
            raise OSError(f"could not write {path}")
        self._font = handout_font()
        self._language, self._footer, self._pages = language, footer, 0

    def _new_page(self) -> None:
        if self._pages:
            self._writer.newPage()
        self._pages += 1

    def add(self, slide: Slide) -> None:
        self._new_page()
        painter = self._painter
        width, height = self._writer.width(), self._writer.height()
        unit = height / 40                     # one line of caption text
        painter.setPen(QColor("#000000"))
        title_font = QFont(self._font)
        title_font.setPixelSize(round(unit * 1.6))
        title_font.setBold(True)
        painter.setFont(title_font)
        title_rect = QRectF(0, 0, width, unit * 2.4)
        painter.drawText(title_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, slide.title)
        footer_height = unit * 1.2
        top = title_rect.bottom() + unit * 0.3
        body_height = height - top - footer_height - unit * 0.5
        for share in PICTURE_SHARES:
            picture_width = width * share
            column = QRectF(picture_width + unit, top, width - picture_width - unit, body_height)
            document = self._notes_document(slide, column)
            if document.pageCount() <= 1 and document.defaultFont().pointSizeF() >= READABLE_NOTES_PT:
                break
        picture = slide.image
        scaled = QSize(picture.width(), picture.height()).scaled(QSize(round(picture_width), round(body_height)),
                                                                 Qt.AspectRatioMode.KeepAspectRatio)
        target = QRectF(0, top, scaled.width(), scaled.height())
        painter.drawImage(target, picture)
        painter.setPen(QColor("#999999"))
        painter.drawRect(target)
        self._draw_footer(unit, footer_height)
        for page in range(document.pageCount()):
            stop_request.check()          # between pages
            if page:
                self._new_page()
                self._draw_footer(unit, footer_height)
            painter.save()
            painter.translate(column.left(), column.top() - page * column.height())
            document.drawContents(painter, QRectF(0, page * column.height(), column.width(), column.height()))
            painter.restore()

    def _notes_document(self, slide: Slide, column: QRectF) -> QTextDocument:
        """Each build's caption (bold) and notes, at the largest size that fits ``column`` (or the smallest)."""
        blocks = []
        for number, (caption, notes) in enumerate(zip(slide.captions, slide.notes), start=1):
            heading = self._language.text("app.export.build", number=number, caption=keep_units_whole(caption))
            paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in notes.split("\n") if p.strip())
            blocks.append(f"<h4>{html.escape(heading)}</h4>{paragraphs}")
        document = QTextDocument()
        document.documentLayout().setPaintDevice(self._writer)   # points are the page's, not the screen's
        document.setDocumentMargin(0)
        document.setHtml("".join(blocks))
        document.setPageSize(column.size())
        points = LARGEST_NOTES_PT
        while True:
            font = QFont(self._font)
            font.setPointSizeF(points)
            document.setDefaultFont(font)
            if document.pageCount() <= 1 or points <= SMALLEST_NOTES_PT:
                return document
            points = max(SMALLEST_NOTES_PT, points - 0.5)

    def _draw_footer(self, unit: float, footer_height: float) -> None:
        painter = self._painter
        small = QFont(self._font)
        small.setPixelSize(round(unit * 0.6))
        painter.setFont(small)
        painter.setPen(QColor("#555555"))
        width, height = self._writer.width(), self._writer.height()
        footer_rect = QRectF(0, height - footer_height, width, footer_height)
        page = self._language.text("app.export.page", number=self._pages)
        painter.drawText(footer_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self._footer)
        painter.drawText(footer_rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, page)
        painter.setPen(QColor("#000000"))

    def close(self, write: bool = True) -> None:
        """End the document; with ``write``, replace the file at the path with it, complete."""
        if self._painter.isActive():
            self._painter.end()
        if write:
            write_atomically(self._path, bytes(self._buffer.data()))
