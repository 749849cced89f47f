"""The window's export commands (Ctrl+E, Ctrl+Shift+E): a file dialog, then the writing, never blocking a talk.

The PNG is the scene on screen at the build on screen; the handout is written
one scene per turn of the event loop, so the window keeps painting. Failures
become one inline note saying why (``desktop.error_text.write_problem``).
Headless export (``--export``) is ``desktop.export``; this module only drives it.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QObject, QTimer
from PySide6.QtWidgets import QFileDialog



class ExportActions(QObject):
    def __init__(self, window):
        super().__init__(window)
        self._window = window
        self._job = None
        self._path: Path | None = None

    def _text(self, key: str, **values) -> str:
        return self._window.language.text(key, **values)

    def _refused_while_presenting(self) -> bool:
        return self._window.presentation.refuses(self._text("app.note.export_not_presenting"))

    def current_scene_dialog(self) -> None:
        if self._refused_while_presenting():
            return
        entry = self._window.deck.entries[self._window.deck.position]
        path, _ = QFileDialog.getSaveFileName(self._window, self._text("app.command.export_png"),
                                              str(Path.home() / f"{entry.export_name}.png"), "PNG (*.png)")
        if path:
            self.current_scene(Path(path))

    def current_scene(self, path: Path) -> bool:
        """The shown scene at the build on screen, 1920x1080, as a PNG at ``path``."""
        from desktop import export     # loaded on first use: start-up does not pay for it
        from desktop.error_text import write_problem
        window = self._window
        slide = export.render_slide(window.deck.current_class, window.language, window.store, window.theme,
                                    build=window.deck.current.build_index)
        png = QByteArray()
        buffer = QBuffer(png)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        slide.image.save(buffer, "PNG")
        try:
            export.write_atomically(Path(path), png.data())   # written here, not by Qt, so a failure says why
        except OSError as error:
            window.show_note(self._text("app.note.export_failed",
                                        error=write_problem(error, path).sentence(window.language)))
            return False
        window.show_note(self._text("app.note.exported", path=str(path)))
        return True

    def handout_dialog(self) -> None:
        if self._refused_while_presenting():
            return
        path, _ = QFileDialog.getSaveFileName(self._window, self._text("app.command.export_pdf"),
                                              str(Path.home() / "handout.pdf"), "PDF (*.pdf)")
        if path:
            self.handout(Path(path))

    def handout(self, path: Path) -> None:
        """Start writing the handout; one scene per turn of the event loop, a note when done."""
        from desktop import export
        window = self._window
        self._path = path
        self._job = export.export_scenes(window.deck.entries, window.language, window.store, window.theme,
                                         pdf_path=path)
        QTimer.singleShot(0, self._step)

    def running(self) -> bool:
        return self._job is not None

    def _step(self) -> None:
        try:
            written = next(self._job)
        except StopIteration:
            self._job = None
            return
        except OSError as error:
            from desktop.error_text import write_problem
            self._job = None
            self._window.show_note(self._text("app.note.export_failed",
                                              error=write_problem(error, self._path).sentence(self._window.language)))
            return
        if written.suffix == ".pdf":
            self._window.show_note(self._text("app.note.exported", path=str(written)))
        QTimer.singleShot(0, self._step)
