"""What tools/bundle.py decides to put in the offline bundle; quick, needs no PyInstaller."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tools import bundle, bundle_entry


def test_only_the_qt_plugins_the_app_uses_are_kept():
    assert bundle.keep_qt_plugin("platforms", "/qt/plugins/platforms/libqxcb.so")
    assert bundle.keep_qt_plugin("platforms", r"C:\qt\plugins\platforms\qwindows.dll")
    assert bundle.keep_qt_plugin("platforms", "libqoffscreen.dylib")
    assert not bundle.keep_qt_plugin("platforms", "libqwayland.so")
    assert not bundle.keep_qt_plugin("imageformats", "libqpdf.so")        # would pull in libQt6Pdf
    assert not bundle.keep_qt_plugin("platformthemes", "libqgtk3.so")     # would pull in GTK
    assert bundle.plugin_stem("/x/libqxcb-glx-integration.so") == "qxcb-glx-integration"


def test_unused_qt_modules_are_excluded_and_used_ones_never():
    import PySide6
    excluded = bundle.qt_module_excludes(Path(PySide6.__file__).parent)
    for name in ("QtQml", "QtQuick", "QtNetwork", "QtWebEngineCore", "Qt3DCore", "QtMultimedia"):
        assert f"PySide6.{name}" in excluded
    assert not {f"PySide6.{name}" for name in bundle.QT_MODULES_USED} & set(excluded)


def test_qt_translations_are_left_out_and_app_data_kept():
    assert not bundle.keep_data("PySide6/Qt/translations/qtbase_zh_CN.qm")
    assert not bundle.keep_data("PySide6\\Qt\\translations\\qtbase_de.qm")
    assert bundle.keep_data("resources/text/app.toml")


def test_package_vocabularies_are_found_where_the_engine_looks_for_them():
    from engine.tokenizer_registry import TOKENIZERS
    found = dict((Path(source).name, folder) for source, folder in bundle.package_vocabularies())
    for info in TOKENIZERS:
        if info.package_module:
            assert found[Path(info.package_file).name] == str(Path(info.package_module, info.package_file).parent)


def test_the_font_must_be_noto_sans_cjk_whose_licence_ships(tmp_path):
    other = tmp_path / "SomeFont.ttf"
    other.write_bytes(b"\0")
    with pytest.raises(bundle.BundleError, match="not Noto Sans CJK"):
        bundle.cjk_font(str(other))
    with pytest.raises(bundle.BundleError, match="not a font file"):
        bundle.cjk_font(str(tmp_path / "NotoSansCJKsc-Regular.otf"))
    noto = tmp_path / "NotoSansCJKsc-Regular.otf"
    noto.write_bytes(b"OTTO")
    assert bundle.cjk_font(str(noto)) == noto
    assert bundle.FONT_LICENCE.is_file() and "SIL OPEN FONT LICENSE Version 1.1" in bundle.FONT_LICENCE.read_text()


def test_a_linux_build_needs_a_font_and_windows_or_macos_use_their_own(tmp_path):
    nowhere = (str(tmp_path / "none.ttc"),)
    with pytest.raises(bundle.BundleError, match="fonts-noto-cjk"):
        bundle.cjk_font(None, "linux", nowhere)
    assert bundle.cjk_font(None, "win32", nowhere) is None
    assert bundle.cjk_font(None, "darwin", nowhere) is None


def test_the_entry_point_runs_the_engine_as_a_subcommand_or_as_its_own_executable(capsys, monkeypatch):
    assert bundle_entry.main(["engine", "tokens", "--list"]) == 0
    assert "qwen2.5" in capsys.readouterr().out
    monkeypatch.setattr(sys, "executable", str(Path("/bundle") / bundle.executable_name(bundle.ENGINE_NAME)))
    assert bundle_entry.main(["tokens", "--list"]) == 0
    assert "qwen2.5" in capsys.readouterr().out


def test_the_app_is_the_console_scripts_entry_point():
    import tomllib
    scripts = tomllib.loads((bundle.ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts[bundle.APP_NAME] == "desktop.__main__:run"
    assert "desktop.__main__ import run" in (bundle.TOOLS / "bundle_entry.py").read_text()
