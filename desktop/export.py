"""Still pictures of every scene: ``NN-key.png`` files and a PDF handout.

Each scene is created afresh with the given scenario, language and theme, put
in the same ``SlideFrame`` the projector shows, taken to its last build with
every transition finished, and rendered offscreen at a fixed size. The work
comes as a generator, one scene per step, so the window can run it between
events and never freeze; the command line simply runs it to the end.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

from PySide6.QtCore import QMarginsF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPageLayout, QPageSize, QPainter, QPdfWriter
from PySide6.QtWidgets import QApplication

from desktop.i18n import Language
from desktop.scenario_store import ScenarioStore
from desktop.scene import Scene, SceneContext, create_scene
from desktop.scenes.registry import export_name
from desktop.slide import SlideFrame, keep_units_whole
from engine.catalog import default_catalog
from engine.units import format_count, format_usd
from widgets.theme import Theme

DEFAULT_SIZE = QSize(1920, 1080)
HANDOUT_FILE = "handout.pdf"
PDF_DPI = 150                      # sharp enough to print, small enough to mail


class Slide:
    """One rendered scene: the picture as the projector shows it and the texts around it."""

    def __init__(self, image: QImage, stage_rect: QRect, title: str, captions: list[str]):
        self.image, self.stage_rect, self.title, self.captions = image, stage_rect, title, captions

    def stage_image(self) -> QImage:
        return self.image.copy(self.stage_rect)


def render_slide(cls: type[Scene], language: Language, store: ScenarioStore, theme: Theme,
                 size: QSize = DEFAULT_SIZE, build: int | None = None) -> Slide:
    """``cls`` at build ``build`` (None: its last) in a slide of exactly ``size`` pixels, transitions finished.

    The command line's pictures and the handout show the last build; the menu's picture the build on screen.
    """
    frame = SlideFrame(theme)
    frame.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    scene = create_scene(cls, SceneContext(language, store, theme))
    frame.stage.addWidget(scene)
    frame.set_presenting_height(size.height())
    frame.resize(size)
    captions = []
    for index in range(scene.build_count):
        scene.go_to_build(index, animate=False)
        captions.append(scene.caption())
    frame.show()
    scene.clock.stop()            # a still picture: its time comes from prepare_for_export, not the wall clock
    scene.prepare_for_export()
    if build is not None:
        scene.go_to_build(build, animate=False)     # the still-picture state, at the build asked for
    frame.set_texts(language.text(f"{cls.key}.title"), scene.caption())
    frame.layout().activate()
    QApplication.processEvents()  # let the scene's widgets settle their layout at this size
    image = QImage(size, QImage.Format.Format_RGB32)
    image.fill(QColor(theme.background))
    frame.render(image)
    slide = Slide(image, frame.stage.geometry(), frame.title_label.text(), captions)
    frame.close()
    frame.deleteLater()
    return slide


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` beside ``path`` and rename it over ``path`` once complete: an interrupted or failed
    write never leaves a truncated file in place of a good one. Raises OSError naming what failed."""
    path = Path(path)
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_bytes(data)
        os.replace(partial, path)
    except BaseException as failure:
        try:
            partial.unlink(missing_ok=True)
        except OSError:
            pass
        if isinstance(failure, OSError):
            failure.filename = str(path)       # the sentence names the file the person chose, not ours
        raise


def describe_scenario(language: Language, scenario) -> str:
    """One line naming the scenario a handout was made with."""
    catalog = default_catalog()
    return language.text(
        "app.export.scenario", gpu=catalog.gpu(scenario.gpu).name, model=catalog.model(scenario.model).name,
        weights=catalog.precision(scenario.weights).name, kv=catalog.precision(scenario.kv).name,
        gpus=format_count(scenario.gpus), batch=format_count(scenario.batch),
        prompt=format_count(scenario.prompt_tokens), output=format_count(scenario.output_tokens),
        price=format_usd(scenario.usd_per_gpu_hour))


def export_scenes(classes: tuple[type[Scene], ...], language: Language, store: ScenarioStore, theme: Theme,
                  size: QSize = DEFAULT_SIZE, png_dir: Path | None = None,
                  pdf_path: Path | None = None) -> Iterator[Path]:
    """Render one scene per step; yields each PNG when written and the PDF when finished.

    Raises OSError (one sentence naming the file) when a file cannot be written.
    """
    if png_dir is not None:
        png_dir.mkdir(parents=True, exist_ok=True)
    handout = _Handout(pdf_path, language, describe_scenario(language, store.scenario), len(classes)) \
        if pdf_path is not None else None
    try:
        for cls in classes:
            slide = render_slide(cls, language, store, theme, size)
            if png_dir is not None:
                path = png_dir / f"{export_name(cls)}.png"
                if not slide.image.save(str(path)):
                    raise OSError(f"could not write {path}")
                yield path
            if handout is not None:
                handout.add(slide)
    finally:
        if handout is not None:
            handout.close()
    if pdf_path is not None:
        yield pdf_path


class _Handout:
    """A landscape A4 page per scene: title, picture, the caption of every build, the scenario."""

    def __init__(self, path: Path, language: Language, footer: str, page_count: int):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._writer = QPdfWriter(str(path))
        self._writer.setResolution(PDF_DPI)
        self._writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Landscape,
                                               QMarginsF(12, 10, 12, 10), QPageLayout.Unit.Millimeter))
        self._writer.setTitle(language.text("app.window.title"))
        self._writer.setCreator(language.text("app.window.title"))
        self._painter = QPainter(self._writer)
        if not self._painter.isActive():
            raise OSError(f"could not write {path}")
        self._language, self._footer, self._page_count, self._pages = language, footer, page_count, 0

    def add(self, slide: Slide) -> None:
        if self._pages:
            self._writer.newPage()
        self._pages += 1
        painter = self._painter
        width, height = self._writer.width(), self._writer.height()
        unit = height / 40                     # one line of caption text
        painter.setPen(QColor("#000000"))
        title_font = QFont(QApplication.font())
        title_font.setPixelSize(round(unit * 1.6))
        title_font.setBold(True)
        painter.setFont(title_font)
        title_rect = QRectF(0, 0, width, unit * 2.4)
        painter.drawText(title_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, slide.title)

        body = QFont(QApplication.font())
        body.setPixelSize(round(unit * 0.8))
        painter.setFont(body)
        text = "\n".join(self._language.text("app.export.build", number=i + 1, caption=keep_units_whole(caption))
                         for i, caption in enumerate(slide.captions))
        footer_height = unit * 1.2
        text_height = painter.fontMetrics().boundingRect(
            QRect(0, 0, width, height), Qt.TextFlag.TextWordWrap, text).height()
        picture = slide.stage_image()
        space = QRectF(0, title_rect.bottom() + unit * 0.3, width,
                       height - title_rect.bottom() - text_height - footer_height - unit * 1.5)
        scaled = QSize(picture.width(), picture.height()).scaled(space.size().toSize(),
                                                                 Qt.AspectRatioMode.KeepAspectRatio)
        target = QRectF(space.left(), space.top(), scaled.width(), scaled.height())
        painter.drawImage(target, picture)
        painter.setPen(QColor("#999999"))
        painter.drawRect(target)
        painter.setPen(QColor("#000000"))
        painter.drawText(QRectF(0, target.bottom() + unit * 0.6, width, text_height),
                         Qt.TextFlag.TextWordWrap, text)
        small = QFont(body)
        small.setPixelSize(round(unit * 0.6))
        painter.setFont(small)
        painter.setPen(QColor("#555555"))
        footer_rect = QRectF(0, height - footer_height, width, footer_height)
        page = self._language.text("app.export.page", number=self._pages, total=self._page_count)
        painter.drawText(footer_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self._footer)
        painter.drawText(footer_rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, page)

    def close(self) -> None:
        if self._painter.isActive():
            self._painter.end()
