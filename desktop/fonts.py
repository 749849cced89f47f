"""A CJK font for Chinese text, found once at start-up; and how its glyphs are blended.

Without one Qt draws Chinese as empty boxes and says nothing; here the app
finds one (preferring Noto Sans CJK SC, Debian package fonts-noto-cjk), puts it
behind the default font as the fallback for Chinese, or warns once.

Where Qt draws text with FreeType (Linux), it turns FreeType's stem darkening on
for CFF fonts, Noto Sans CJK among them, and then blends their glyphs with gamma
correction, converting every edge pixel through look-up tables. Where the
default font is a generic name (a bare X server, Qt's offscreen platform) every
text is drawn in Noto Sans CJK, Latin too, so that blending was a fifth of a
dragged scene's frame. ``blend_glyphs_plainly`` turns the darkening off before
the first font is made: text then cost 1.0 against 2.6 us a character in scene
4, and at the projector's sizes a stroke changes by a fraction of a pixel (light
text on a dark block a little thinner; the widths of texts do not change, so
nothing is laid out differently).
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


def blend_glyphs_plainly() -> bool:
    """Turn FreeType's stem darkening of CFF fonts off for the fonts Qt makes from now on (see the module's
    docstring); True when it was turned off, False where Qt does not draw with FreeType or the library cannot be
    reached (nothing changes then). Call it before the first text is measured or drawn: a font Qt has already
    made keeps its blending."""
    found = qt_freetype()
    if found is None:
        return False
    import ctypes
    gui, library = found
    no_darkening = ctypes.c_ubyte(1)                           # an FT_Bool
    return gui.FT_Property_Set(library, b"cff", b"no-stem-darkening", ctypes.byref(no_darkening)) == 0


def qt_freetype():
    """(Qt's GUI library, the FreeType library it draws this thread's text with), or None where Qt draws text
    without FreeType (Windows, macOS) or either cannot be reached. FreeType's functions are looked up through the
    first: the FreeType that Qt links."""
    if sys.platform in ("win32", "darwin"):        # DirectWrite and Core Text
        return None
    import ctypes
    try:
        gui = ctypes.CDLL("libQt6Gui.so.6")        # already loaded by PySide6: found by its name
        library_of_this_thread = gui._Z14qt_getFreetypev      # qt_getFreetype(), exported by QtGui
        for name in ("FT_Property_Set", "FT_Property_Get"):
            getattr(gui, name).argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p]
    except (OSError, AttributeError):
        return None
    library_of_this_thread.restype = ctypes.c_void_p
    library_of_this_thread.argtypes = []
    return gui, library_of_this_thread()
