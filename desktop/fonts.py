"""A CJK font for Chinese text, found once at start-up.

Without one Qt draws Chinese as empty boxes and says nothing; here the app
finds one (preferring Noto Sans CJK SC, Debian package fonts-noto-cjk), puts it
behind the default font as the fallback for Chinese, or warns once.
"""
from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QApplication

PREFERRED_CJK_FAMILIES = (
    "Noto Sans CJK SC", "Source Han Sans SC", "Noto Sans SC", "Microsoft YaHei",
    "PingFang SC", "Hiragino Sans GB", "WenQuanYi Micro Hei", "Noto Serif CJK SC",
)


def find_cjk_family() -> str | None:
    """The family used for Chinese text, or None when the system has none.

    The offline bundle (tools/bundle.py) may carry a font in ``fonts/`` of its folder;
    it is loaded only when the system has no Chinese font of its own.
    """
    family = _installed_cjk_family()
    if family is None and _add_bundled_fonts():
        family = _installed_cjk_family()
    return family


def _add_bundled_fonts() -> bool:
    """Load the fonts shipped in a frozen bundle's ``fonts/`` folder; False when there are none."""
    folder = Path(getattr(sys, "_MEIPASS", "")) / "fonts"
    if not getattr(sys, "frozen", False) or not folder.is_dir():
        return False
    loaded = [QFontDatabase.addApplicationFont(str(path)) for path in sorted(folder.iterdir())
              if path.suffix.lower() in (".ttc", ".otf", ".ttf")]
    return any(font_id >= 0 for font_id in loaded)


def _installed_cjk_family() -> str | None:
    families = set(QFontDatabase.families())
    for name in PREFERRED_CJK_FAMILIES:
        if name in families:
            return name
    chinese = QFontDatabase.WritingSystem.SimplifiedChinese
    return next((name for name in sorted(families) if chinese in QFontDatabase.writingSystems(name)), None)


def install_cjk_fallback(app: QApplication) -> str | None:
    """Make Chinese text use a CJK family; returns it, or None (the caller warns once)."""
    family = find_cjk_family()
    if family is None:
        return None
    font = QFont(app.font())
    font.setFamilies([font.family(), family])
    app.setFont(font)
    return family
