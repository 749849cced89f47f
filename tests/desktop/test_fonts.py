"""Chinese text needs a CJK font: one is found and used, or the app warns once."""
from __future__ import annotations

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


def test_without_a_cjk_font_the_app_warns_once(qapp, language, monkeypatch, capsys):
    monkeypatch.setattr(app_module, "install_cjk_fallback", lambda _app: None)
    notes = app_module._startup_notes(qapp, language, None)
    warning = language.text("app.note.no_cjk_font")
    assert notes.count(warning) == 1
    assert capsys.readouterr().err.count("fonts-noto-cjk") == 1
