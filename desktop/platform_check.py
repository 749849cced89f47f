"""Can a window be opened here? Asked before Qt is started, because Qt aborts.

On Linux without a display, or with X11 but without the xcb libraries Qt's
window-system plugin needs (a bare Debian lacks some of them), creating the
QApplication kills the process with a message about plugins. These checks
answer first, in one sentence naming what is missing and how to get it.
"""
from __future__ import annotations

import ctypes
import sys
from typing import Callable, Mapping

# shared library -> the Debian/Ubuntu package that provides it (Qt 6's xcb plugin needs all of them)
XCB_LIBRARIES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
}


def _loadable(library: str) -> bool:
    try:
        ctypes.CDLL(library)
    except OSError:
        return False
    return True


def missing_xcb_packages(loadable: Callable[[str], bool] = _loadable) -> list[str]:
    """Debian packages whose libraries cannot be loaded, in a stable order."""
    return [package for library, package in XCB_LIBRARIES.items() if not loadable(library)]


def window_problem(environ: Mapping[str, str], platform: str = sys.platform,
                   loadable: Callable[[str], bool] = _loadable) -> tuple[str, dict] | None:
    """None when a window can be opened, else (text key in app.toml, its values)."""
    if not platform.startswith("linux"):
        return None
    chosen = environ.get("QT_QPA_PLATFORM", "")
    if chosen and not chosen.startswith("xcb"):
        return None            # offscreen, wayland, vnc...: Qt reports its own problems
    has_x11 = bool(environ.get("DISPLAY"))
    uses_xcb = chosen.startswith("xcb") or (has_x11 and not environ.get("WAYLAND_DISPLAY"))
    if (uses_xcb and not has_x11) or not (has_x11 or environ.get("WAYLAND_DISPLAY")):
        return "app.startup.no_display", {}
    if uses_xcb:
        missing = missing_xcb_packages(loadable)
        if missing:
            return "app.startup.missing_xcb", {"packages": " ".join(missing)}
    return None
