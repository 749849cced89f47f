"""Still pictures of every scene: ``NN-key.png`` files and a PDF handout.

Each scene is created afresh with the given scenario, language and theme, put
in the same ``SlideFrame`` the projector shows, taken to a build with every
transition finished, and rendered offscreen at a fixed size: the PNGs show the
last build, the handout (``desktop.handout``) a picture of every build beside
its caption and notes. The work comes as a generator, one scene per step, so
the window can run it between events and never freeze; the command line simply
runs it to the end.
"""
from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Iterator

from PySide6.QtCore import QBuffer, QIODevice, QRect, QSize, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication

from desktop import stop_request
from desktop.handout import PICTURE_SIZE, Handout, HandoutBuild
from desktop.i18n import Language
from desktop.kit.scene import Scene, SceneKit, create_scene
from desktop.paper import default_paper
from desktop.scenario_store import ScenarioStore
from desktop.scenario_text import describe_scenario
from desktop.scenes.registry import SceneEntry
from desktop.slide import SlideFrame
from desktop.stage_subject import subject_texts
from widgets.theme import THEMES, Theme, for_screen

DEFAULT_SIZE = QSize(1920, 1080)
HANDOUT_FILE = "handout.pdf"


class Slide:
    """One rendered scene: the picture as the projector shows it and the texts around it."""

    def __init__(self, image: QImage, stage_rect: QRect, title: str, captions: list[str], notes: list[str]):
        self.image, self.stage_rect, self.title = image, stage_rect, title
        self.captions, self.notes = captions, notes        # per build, in order


class _Still:
    """A scene in the projector's frame, offscreen, at ``size``: its texts, then pictures of its builds."""

    def __init__(self, cls: type[Scene], language: Language, store: ScenarioStore, theme: Theme, size: QSize):
        self.language, self.size = language, size
        self.theme = for_screen(theme, size.height())        # the picture's height is the screen's: same text floor
        self.frame = SlideFrame(self.theme)
        self.frame.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
        self.scene = create_scene(cls, SceneKit(language, store, self.theme))
        self.frame.stage.addWidget(self.scene)
        self.frame.set_presenting_height(size.height())
        self.frame.resize(size)
        self.frame.show()
        self.scene.clock.stop()    # a still picture: its time comes from prepare_for_export, not the wall clock
        self.scene.clock.set_seconds(0.0)   # nor from how long showing it took: the same picture every time

    def texts(self) -> list[tuple[str, str]]:
        """(caption, notes) of the builds the handout shows (``Scene.handout_texts``); ends at the last build."""
        self.scene.prepare_for_export()                # loads what the notes quote (counts, sweeps) first
        texts = self.scene.handout_texts()
        self.scene.prepare_for_export()                # and back to the finished last build
        return texts

    def picture(self, build: int | None = None) -> QImage:
        """The slide at ``build`` (None: as it stands), every transition finished."""
        scene = self.scene
        if build is not None:
            scene.go_to_build(build, animate=False)
            scene.clock.set_seconds(scene.clock.seconds() + 1.0)
        frame = self.frame
        frame.set_texts(scene.title(), scene.caption())
        frame.set_subject(*subject_texts(self.language, scene))
        frame.layout().activate()
        QApplication.processEvents()  # let the scene's widgets settle their layout at this size
        image = QImage(self.size, QImage.Format.Format_RGB32)
        image.fill(QColor(self.theme.background))
        frame.render(image)
        return image

    def close(self) -> None:
        self.frame.close()
        self.frame.deleteLater()


def render_slide(cls: type[Scene], language: Language, store: ScenarioStore, theme: Theme,
                 size: QSize = DEFAULT_SIZE, build: int | None = None, with_texts: bool = True) -> Slide:
    """``cls`` at build ``build`` (None: its last) in a slide of exactly ``size`` pixels, transitions finished.

    The command line's pictures show the last build; the menu's picture the build on screen.
    ``with_texts`` False (the speaker view's preview): the picture only, without stepping every build for the
    handout's captions and notes, nor loading what only the finished still needs.
    """
    still = _Still(cls, language, store, theme, size)
    captions: list[str] = []
    notes: list[str] = []
    if with_texts:
        texts = still.texts()
        captions, notes = [caption for caption, _ in texts], [note for _, note in texts]
    if build is None and not with_texts:
        build = still.scene.build_count - 1
    image = still.picture(build)
    slide = Slide(image, still.frame.stage.geometry(), still.frame.title_label.text(), captions, notes)
    still.close()
    return slide


def handout_builds(cls: type[Scene], language: Language, store: ScenarioStore, theme: Theme,
                   size: QSize = PICTURE_SIZE) -> list[HandoutBuild]:
    """A picture of each build the handout shows, with its caption and notes, one scene made once.

    ``Scene.handout_texts`` gives one (caption, notes) per build; a scene that lists fewer (the summary:
    its recap only) gives those of its last builds, and those are the pictures."""
    still = _Still(cls, language, store, theme, size)
    try:
        texts = still.texts()
        count = still.scene.build_count
        first = count - len(texts)
        builds = []
        for index, (caption, notes) in enumerate(texts):
            stop_request.check()          # between pictures
            builds.append(HandoutBuild(first + index + 1, count, caption, notes, still.picture(first + index)))
        return builds
    finally:
        still.close()


def print_theme(theme: Theme) -> Theme:
    """The theme a handout is printed in: the light one for a dark theme (paper is white, toner is black)."""
    return THEMES["light"] if theme.id == "dark" else theme


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


def export_scenes(entries: tuple[SceneEntry, ...], language: Language, store: ScenarioStore, theme: Theme,
                  size: QSize = DEFAULT_SIZE, png_dir: Path | None = None,
                  pdf_path: Path | None = None, paper: str | None = None) -> Iterator[Path]:
    """Render one scene per step; yields each PNG when written and the PDF when finished.

    The PNGs show each scene's last build at ``size``; the handout every build, on ``paper`` ("a4" or
    "letter"; None: the locale's, ``desktop.paper``). Raises OSError (one sentence naming the file) when a
    file cannot be written.
    """
    if png_dir is not None:
        png_dir.mkdir(parents=True, exist_ok=True)
    handout = None
    if pdf_path is not None:
        pdf_path.parent.mkdir(parents=True, exist_ok=True)
        _check_writable(pdf_path)                 # say so before any work, not after rendering every scene
        footer = language.text("app.export.footer", scenario=describe_scenario(language, store.scenario,
                                                                               store.catalog))
        handout = Handout(pdf_path, language, footer, paper or default_paper(), write_atomically)
    complete = False
    try:
        for entry in entries:
            stop_request.check()          # between scenes: a stop asked for during the last one ends here
            cls = entry.load()
            if png_dir is not None:
                slide = render_slide(cls, language, store, theme, size)
                path = png_dir / f"{entry.export_name}.png"
                write_atomically(path, _image_bytes(slide.image, path))   # never a truncated PNG in its place
                yield path
            if handout is not None:
                title = f"{entry.number} · {language.text(entry.title_key)}"
                handout.add_scene(title, handout_builds(cls, language, store, print_theme(theme)))
        stop_request.check()
        complete = True
    finally:
        if handout is not None:
            handout.close(write=complete)     # an interrupted export leaves the previous handout as it was
    if pdf_path is not None:
        yield pdf_path
