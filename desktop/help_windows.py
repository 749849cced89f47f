"""Help ▸ Guide and Help ▸ About: two windows of text, never modal, in the app's language.

The guide says what each scene shows, how to explore (the build buttons, the
panel, a click on a figure for its formula, pins and presets, files) and where
the numbers come from. About names the version, the data sources (every GPU
and model of the catalogue with its source, the tokenizer vocabularies'
``resources/tokenizers/SOURCES.md``) and the licences shipped with the data
(``resources/tokenizers/LICENSE-*`` and ``NOTICE-*``, in full). Both are
Markdown documents (``guide_markdown``, ``about_markdown``) shown in a text
browser; a language switch rewrites them. Neither opens while presenting.
"""
from __future__ import annotations

from importlib import metadata, resources

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTextBrowser, QVBoxLayout, QWidget

from desktop.scenes.registry import scene_entries

DISTRIBUTION = "inference-physics"
WINDOW_SIZE = (720, 640)
TOKENIZER_FOLDER = ("resources", "tokenizers")
GUIDE_SECTIONS = ("explore", "numbers")


def app_version() -> str:
    """The installed package's version ("0.1.0"), or "?" when it is run from a folder that was never installed."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "?"


def _optional(language, key: str) -> str:
    return language.text(key) if key in language.keys() else ""


def guide_markdown(language) -> str:
    """The guide, in ``language``: each registered scene with what it shows, then how to explore and the numbers."""
    text = language.text
    lines = [f"# {text('learner.guide.title')}", "", text("learner.guide.intro"), "",
             f"## {text('learner.guide.scenes')}", ""]
    for entry in scene_entries():
        shows = _optional(language, f"learner.guide.scene.{entry.key}")
        title = text(entry.title_key)
        lines.append(f"{entry.number}. " + (text("learner.guide.scene_line", title=f"**{title}**", shows=shows)
                                            if shows else f"**{title}**"))
    for section in GUIDE_SECTIONS:
        lines += ["", f"## {text(f'learner.guide.{section}_title')}", ""]
        lines += [f"- {text(f'learner.guide.{section}.{item}')}" for item in _items(language, section)]
    return "\n".join(lines) + "\n"


def _items(language, section: str) -> list[str]:
    prefix = f"learner.guide.{section}."
    return sorted({key[len(prefix):] for key in language.keys() if key.startswith(prefix)})


def _tokenizer_files(prefix: str) -> list:
    folder = resources.files(TOKENIZER_FOLDER[0]).joinpath(*TOKENIZER_FOLDER[1:])
    return sorted((entry for entry in folder.iterdir() if entry.name.startswith(prefix)), key=lambda e: e.name)


def about_markdown(language, catalog) -> str:
    """About, in ``language``: version, data sources (catalogue and tokenizers) and the licences in full."""
    text = language.text
    lines = [f"# {text('app.window.title')} {app_version()}", "", text("learner.about.intro"), "",
             f"## {text('learner.about.catalog_title')}", "",
             text("learner.about.catalog", gpus=len(catalog.gpus), models=len(catalog.models)), ""]
    for kind, entries in ((text("learner.about.gpus"), catalog.gpus), (text("learner.about.models"), catalog.models)):
        lines += [f"### {kind}", ""]
        lines += [f"- **{entry.name}** (`{entry.id}`): {_escaped(entry.source)}" for entry in entries.values()]
        lines.append("")
    lines += [f"## {text('learner.about.tokenizers_title')}", "", text("learner.about.tokenizers"), ""]
    sources = _tokenizer_files("SOURCES.md")
    if sources:
        body = sources[0].read_text(encoding="utf-8").split("\n", 1)[-1]     # its own heading is replaced by ours
        lines += [body.replace("\n#", "\n###"), ""]
    lines += [f"## {text('learner.about.licences_title')}", "", text("learner.about.licences"), ""]
    for entry in _tokenizer_files("LICENSE-") + _tokenizer_files("NOTICE-"):
        lines += [f"### {entry.name}", "", "```", entry.read_text(encoding="utf-8").rstrip(), "```", ""]
    return "\n".join(lines)


def _escaped(source: str) -> str:
    """A catalogue source as Markdown shows it literally (asterisks mark sparsity there, not emphasis)."""
    return source.replace("\\", "\\\\").replace("*", "\\*").replace("_", "\\_")


class TextWindow(QWidget):
    """A window with one Markdown document, rewritten when the language changes."""

    def __init__(self, language, markdown, title_key: str, parent: QWidget | None = None):
        super().__init__(parent, Qt.WindowType.Window)
        self._language, self._markdown, self._title_key = language, markdown, title_key
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(False)       # nothing reaches the network from the app
        self.browser.setOpenLinks(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.browser)
        self.resize(*WINDOW_SIZE)
        language.changed.connect(self.refresh)
        self.refresh()

    def refresh(self, *_args) -> None:
        self.setWindowTitle(self._language.text(self._title_key))
        self.browser.setMarkdown(self._markdown())

    def plain_text(self) -> str:
        return self.browser.toPlainText()


def guide_window(language, parent: QWidget | None = None) -> TextWindow:
    window = TextWindow(language, lambda: guide_markdown(language), "learner.guide.title", parent)
    window.setObjectName("guide_window")
    return window


def about_window(language, catalog_of, parent: QWidget | None = None) -> TextWindow:
    """``catalog_of()``: the catalogue in use now (a model imported later is listed)."""
    window = TextWindow(language, lambda: about_markdown(language, catalog_of()), "learner.about.title", parent)
    window.setObjectName("about_window")
    return window

