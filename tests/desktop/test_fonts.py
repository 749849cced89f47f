"""Chinese text needs a CJK font: one is found and used, or the app warns once."""
from __future__ import annotations

import ctypes
import sys

import pytest
from PySide6.QtGui import QFontDatabase

from desktop import app as app_module
from desktop import fonts


def test_a_cjk_font_is_found_and_put_behind_the_default_font(qapp):
    family = fonts.find_cjk_family()
    assert family is not None, "install a CJK font (Debian: fonts-noto-cjk) to run the rendering tests"
    assert QFontDatabase.WritingSystem.SimplifiedChinese in QFontDatabase.writingSystems(family)
    before = qapp.font()
    try:
        assert fonts.install_cjk_fallback(qapp) == family
        assert family in qapp.font().families()
    finally:
        qapp.setFont(before)


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="Qt draws text with FreeType on Linux only")
def test_cff_fonts_are_drawn_without_stem_darkening(qapp):
    """Once the app is made, Qt's FreeType library darkens no CFF font (Qt turns it on; the app turns it off, and
    with it the gamma-corrected blending that made text the most of a dragged scene's frame)."""
    app_module.create_application()
    gui, library = fonts.qt_freetype()
    darkening_off = ctypes.c_ubyte(0)
    assert gui.FT_Property_Get(library, b"cff", b"no-stem-darkening", ctypes.byref(darkening_off)) == 0
    assert darkening_off.value == 1


def test_without_a_cjk_font_the_app_warns_once(qapp, language, monkeypatch, capsys):
    monkeypatch.setattr(app_module, "install_cjk_fallback", lambda _app: None)
    notes = app_module._startup_notes(qapp, language, None)
    warning = language.text("app.note.no_cjk_font")
    assert notes.count(warning) == 1
    assert capsys.readouterr().err.count("fonts-noto-cjk") == 1
