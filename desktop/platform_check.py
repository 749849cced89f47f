"""Can a window be opened here? Asked before Qt is started, because Qt aborts.

On Linux without a display, or with X11 but without the xcb libraries Qt's
window-system plugin needs (a bare Debian lacks some of them), creating the
QApplication kills the process with a message about plugins. So does a
display that is named but cannot be reached (``DISPLAY=:999``, the socket of a
Wayland session that has ended). These checks answer first, in one sentence
naming what is missing and how to get it; a dead Wayland session beside a live
X server is left to X (``QT_QPA_PLATFORM=xcb``).
"""
from __future__ import annotations

import os
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
    import ctypes               # imported where it is used (desktop.fonts uses it too, where Qt draws with FreeType)
    try:
        ctypes.CDLL(library)
    except OSError:
        return False
    return True


def missing_xcb_packages(loadable: Callable[[str], bool] = _loadable) -> list[str]:
    """Debian packages whose libraries cannot be loaded, in a stable order."""
    return [package for library, package in XCB_LIBRARIES.items() if not loadable(library)]


def x_display_reachable(display: str) -> bool:
    """Whether an X server answers at ``display`` (xcb's own connect, as Qt's plugin will do it)."""
    import ctypes
    try:
        xcb = ctypes.CDLL("libxcb.so.1")
    except OSError:
        return True            # no libxcb to ask: the missing libraries are reported instead
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    connection = xcb.xcb_connect(os.fsencode(display), None)
    if not connection:
        return False
    try:
        return xcb.xcb_connection_has_error(connection) == 0
    finally:
        xcb.xcb_disconnect(connection)


def wayland_display_reachable(environ: Mapping[str, str]) -> bool:
    """Whether the Wayland compositor's socket (``$XDG_RUNTIME_DIR/$WAYLAND_DISPLAY``) takes a connection."""
    name = environ.get("WAYLAND_DISPLAY", "")
    path = name if os.path.isabs(name) else os.path.join(environ.get("XDG_RUNTIME_DIR", ""), name)
    import socket               # only under Wayland: every other start is spared its import
    if not hasattr(socket, "AF_UNIX"):
        return True
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.settimeout(1.0)
            probe.connect(path)
    except OSError:
        return False
    return True


def window_problem(environ: Mapping[str, str], platform: str = sys.platform,
                   loadable: Callable[[str], bool] = _loadable,
                   x_reachable: Callable[[str], bool] = x_display_reachable,
                   wayland_reachable: Callable[[Mapping[str, str]], bool] = wayland_display_reachable,
                   ) -> tuple[str, dict] | None:
    """None when a window can be opened, else (text key in app.toml, its values). ``environ`` may be changed:
    a dead Wayland session beside a live X display gets ``QT_QPA_PLATFORM=xcb``."""
    if not platform.startswith("linux"):
        return None
    chosen = environ.get("QT_QPA_PLATFORM", "")
    if chosen and not chosen.startswith(("xcb", "wayland")):
        return None            # offscreen, vnc...: Qt reports its own problems
    display, wayland = environ.get("DISPLAY", ""), environ.get("WAYLAND_DISPLAY", "")
    uses_wayland = chosen.startswith("wayland") or (not chosen and bool(wayland))
    if uses_wayland:
        if wayland and wayland_reachable(environ):
            return None
        if chosen.startswith("wayland") or not display:
            return "app.startup.display_unreachable", {"display": f"WAYLAND_DISPLAY={wayland}"}
        environ["QT_QPA_PLATFORM"] = "xcb"              # the session's X display still answers
    if not display:
        return "app.startup.no_display", {}
    missing = missing_xcb_packages(loadable)
    if missing:
        return "app.startup.missing_xcb", {"packages": " ".join(missing)}
    if not x_reachable(display):
        return "app.startup.display_unreachable", {"display": f"DISPLAY={display}"}
    return None


# Qt's scale factors: a factor of 0 divides by zero inside pyqtgraph and hangs the start, a negative one makes
# every paint device fail. Qt itself accepts anything; the app takes what a screen could need.
SCALE_FACTOR_RANGE = (0.1, 10.0)


def unusable_scale_factors(environ: Mapping[str, str]) -> list[tuple[str, str]]:
    """(variable, value) of each of Qt's scale-factor variables that is not a number in ``SCALE_FACTOR_RANGE``
    (``QT_SCREEN_SCALE_FACTORS`` is a list: each of its factors is checked)."""
    low, high = SCALE_FACTOR_RANGE
    bad = []
    for name in ("QT_SCALE_FACTOR", "QT_SCREEN_SCALE_FACTORS"):
        if name not in environ:
            continue
        value = environ[name]
        parts = [part.split("=")[-1] for part in value.replace(",", ";").split(";") if part.strip()] \
            if name == "QT_SCREEN_SCALE_FACTORS" else [value]
        for part in parts or [value]:
            try:
                factor = float(part)
            except ValueError:
                factor = float("nan")
            if not low <= factor <= high:
                bad.append((name, value))
                break
    return bad
