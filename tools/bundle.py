"""Build the offline one-folder bundle: ``python tools/bundle.py`` -> ``dist/inference-physics/``.

Needs the bundler: ``python -m pip install -e ".[bundle]"`` (PyInstaller; not a runtime
dependency). The folder holds two executables (``inference-physics`` the app, also
``inference-physics engine ...``; ``inference-physics-engine`` the engine's command line),
Python, the Qt libraries and plugins the app uses, the catalogues, texts and tokenizer
vocabularies, and a CJK font with its licence where one is found (see ``cjk_font``).

    python tools/bundle.py [--dist DIR] [--work DIR] [--cjk-font FILE | --no-cjk-font]

The decisions (which Qt modules and plugins, which data files) are plain functions
here; ``tools/inference-physics.spec`` (run by PyInstaller) applies them. Nothing here
imports PyInstaller until the build starts, so the choices can be read and tested
without it.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tools"
SPEC = TOOLS / "inference-physics.spec"
APP_NAME = "inference-physics"                  # the folder and the app's executable
ENGINE_NAME = "inference-physics-engine"        # the engine's console executable
MAC_APP_NAME = "Inference Physics"              # macOS: dist/Inference Physics.app as well
FONT_ENV = "INFERENCE_PHYSICS_BUNDLE_FONT"      # tells the spec which font file to ship ("" for none)
FONT_FOLDER = "fonts"                           # inside the bundle's _internal/ (desktop/fonts.py looks there)
FONT_LICENCE = TOOLS / "fonts" / "LICENSE-NotoSansCJK.txt"

# Qt's Python modules that the app and pyqtgraph import; every other PySide6 module is
# excluded (QtQml, QtQuick, QtNetwork, QtSql, ...; and WebEngine, 3D, Multimedia, Charts
# where the larger PySide6 wheel is installed).
QT_MODULES_USED = ("QtCore", "QtGui", "QtWidgets", "QtOpenGL", "QtOpenGLWidgets", "QtSvg", "QtTest")
QT_MODULES_NEVER = (
    "QtWebEngineCore", "QtWebEngineWidgets", "QtWebEngineQuick", "QtWebChannel", "QtWebSockets", "QtWebView",
    "Qt3DCore", "Qt3DRender", "Qt3DInput", "Qt3DLogic", "Qt3DAnimation", "Qt3DExtras", "QtMultimedia",
    "QtMultimediaWidgets", "QtSpatialAudio", "QtCharts", "QtDataVisualization", "QtGraphs", "QtQuick3D",
    "QtQml", "QtQuick", "QtQuickControls2", "QtQuickWidgets", "QtQuickTest", "QtNetwork", "QtNetworkAuth",
    "QtBluetooth", "QtNfc", "QtPositioning", "QtLocation", "QtSensors", "QtSerialPort", "QtSerialBus",
    "QtRemoteObjects", "QtScxml", "QtStateMachine", "QtTextToSpeech", "QtHttpServer", "QtPdf", "QtPdfWidgets",
    "QtSql", "QtDesigner", "QtHelp", "QtUiTools", "QtXml", "QtConcurrent", "QtDBus", "QtPrintSupport",
    "QtSvgWidgets", "QtAxContainer", "QtCanvasPainter",
)

# Qt plugins kept, by plugin folder, as file names without "lib" and extension; a folder
# not named here is left out whole (platformthemes would pull in GTK; tls, wayland,
# egldeviceintegrations, generic, sqldrivers, ... are not used). PNG is built into QtGui;
# Qt 6 has no font plugins (each platform plugin reads the system's fonts itself); the
# app draws with the Fusion style, so no styles plugin either.
QT_PLUGINS_KEPT = {
    "platforms": ("qoffscreen", "qminimal", "qxcb", "qwindows", "qcocoa"),
    "xcbglintegrations": ("qxcb-glx-integration", "qxcb-egl-integration"),
    "imageformats": ("qsvg", "qico"),
    "iconengines": ("qsvgicon",),
    "platforminputcontexts": ("composeplatforminputcontextplugin", "ibusplatforminputcontextplugin"),
}
# Data the app never reads: Qt's own translations (the app has its texts in resources/text).
DATA_LEFT_OUT = ("PySide6/Qt/translations/",)
# Python packages that may be installed next to the app but that it never imports.
PYTHON_EXCLUDES = (
    "tkinter", "_tkinter", "IPython", "jedi", "matplotlib", "scipy", "pandas", "PIL", "PyQt5", "PyQt6",
    "PySide2", "OpenGL", "pyqtgraph.opengl", "pyqtgraph.examples", "pyqtgraph.jupyter", "requests",
    "urllib3", "huggingface_hub", "torch", "pytest", "_pytest", "pytestqt", "hypothesis", "setuptools",
    "pkg_resources", "pip", "blobfile", "yaml", "numpy.f2py",
)
# Linux: the libraries Qt's xcb platform plugin needs that a desktop may lack (README's
# apt-get line). Whichever the build machine has are carried in the bundle; the others
# must be on the laptop for a window to open (--export works without them).
X11_LIBRARIES = ("xcb-cursor", "xcb-icccm", "xcb-keysyms", "xcb-image", "xcb-render-util", "xcb-randr",
                 "xcb-shape", "xkbcommon-x11")

# A Noto Sans CJK file (SIL Open Font License 1.1, tools/fonts/LICENSE-NotoSansCJK.txt),
# where a build machine's system keeps one: the Simplified Chinese face alone where the
# distribution ships it, else the Regular collection of Debian's fonts-noto-cjk.
CJK_FONT_CANDIDATES = (
    "/usr/share/fonts/opentype/noto/NotoSansCJKsc-Regular.otf",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/OTF/NotoSansCJK-Regular.ttc",
)
FONT_SUFFIXES = (".ttc", ".otf", ".ttf")


class BundleError(Exception):
    """The bundle cannot be built; the message is one sentence saying why and what to do."""


def executable_name(name: str, platform: str = sys.platform) -> str:
    return name + ".exe" if platform.startswith("win") else name


def qt_module_excludes(pyside_folder: Path | None = None) -> list[str]:
    """``PySide6.<Module>`` for every Qt module installed or known that the app does not use."""
    names = set(QT_MODULES_NEVER)
    if pyside_folder is not None and pyside_folder.is_dir():
        for path in pyside_folder.iterdir():
            if path.name.startswith("Qt") and path.suffix in (".so", ".pyd"):
                names.add(path.name.split(".")[0])
    return sorted(f"PySide6.{name}" for name in names - set(QT_MODULES_USED))


def plugin_stem(path: str) -> str:
    """``/x/libqxcb.so`` -> ``qxcb``; ``qwindows.dll`` -> ``qwindows``."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    for suffix in (".so", ".dll", ".dylib"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name[3:] if name.startswith("lib") else name


def keep_qt_plugin(plugin_type: str, path: str) -> bool:
    return plugin_stem(path) in QT_PLUGINS_KEPT.get(plugin_type, ())


def keep_data(destination: str) -> bool:
    destination = destination.replace("\\", "/")
    return not any(destination.startswith(prefix) for prefix in DATA_LEFT_OUT)


def package_vocabularies() -> list[tuple[str, str]]:
    """(source file, folder in the bundle) for each vocabulary read from an installed package.

    ``engine.tokenizer_vocab`` finds them with ``importlib.util.find_spec``; in the
    bundle the file sits at ``<module>/<file>`` beside the executable's Python path,
    where that lookup finds the folder, so the package's own code is not bundled.
    """
    from engine.tokenizer_registry import TOKENIZERS
    found = []
    for info in TOKENIZERS:
        if not info.package_module:
            continue
        spec = importlib.util.find_spec(info.package_module)
        folders = list(spec.submodule_search_locations or []) if spec else []
        paths = [Path(folder) / info.package_file for folder in folders if (Path(folder) / info.package_file).is_file()]
        if not paths:
            raise BundleError(f"The vocabulary of tokenizer {info.id} comes with the Python package {info.package}, "
                              f"which is not installed; run 'python -m pip install -e .' first.")
        folder = str(Path(info.package_module, info.package_file).parent)
        found.append((str(paths[0]), folder))
    return found


def cjk_font(given: str | None, platform: str = sys.platform,
             candidates: tuple[str, ...] = CJK_FONT_CANDIDATES) -> Path | None:
    """The Noto Sans CJK file to ship, or None where the platform has its own Chinese font.

    Windows (Microsoft YaHei) and macOS (PingFang SC) come with one, so there a build
    without a font file is fine; a Linux laptop may have none, so a Linux build needs one.
    """
    if given:
        path = Path(given)
        if not path.is_file() or path.suffix.lower() not in FONT_SUFFIXES:
            raise BundleError(f"--cjk-font {given} is not a font file; give a Noto Sans CJK .otf or .ttc file.")
        if not path.name.lower().startswith("notosanscjk"):
            raise BundleError(f"--cjk-font {given} is not Noto Sans CJK; only that font's licence "
                              f"({FONT_LICENCE.name}) ships with the bundle, so give a NotoSansCJK*.otf or .ttc file.")
        return path
    found = next((Path(name) for name in candidates if Path(name).is_file()), None)
    if found is None and platform.startswith("linux"):
        raise BundleError("No Noto Sans CJK font was found to ship with the bundle; install one "
                          "(Debian: apt-get install -y fonts-noto-cjk), give --cjk-font FILE, or build --no-cjk-font.")
    return found


def missing_x11_libraries(platform: str = sys.platform) -> list[str]:
    """The X11 libraries a Linux build cannot carry because this machine lacks them."""
    if not platform.startswith("linux"):
        return []
    from ctypes.util import find_library
    return [f"lib{name}" for name in X11_LIBRARIES if find_library(name) is None]


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def build(dist: Path, work: Path, font: Path | None, log=print) -> Path:
    """Run PyInstaller on the spec; returns the bundle's folder (``dist/inference-physics``)."""
    if importlib.util.find_spec("PyInstaller") is None:
        raise BundleError("PyInstaller is not installed; run 'python -m pip install -e \".[bundle]\"' first.")
    package_vocabularies()          # fail early, with one sentence, when a vocabulary package is missing
    missing = missing_x11_libraries()
    if missing:
        log(f"note: this machine lacks {', '.join(missing)}, so the bundle cannot carry them and a laptop "
            f"needs them to open a window (install them here first: see the README's apt-get line).")
    env = dict(os.environ, **{FONT_ENV: str(font or "")})
    command = [sys.executable, "-m", "PyInstaller", str(SPEC), "--noconfirm", "--log-level", "WARN",
               "--distpath", str(dist), "--workpath", str(work)]
    log(f"building {dist / APP_NAME} with PyInstaller (a few minutes)...")
    started = time.monotonic()
    result = subprocess.run(command, cwd=ROOT, env=env)
    if result.returncode != 0:
        raise BundleError(f"PyInstaller failed (exit status {result.returncode}); its messages are above.")
    folder = dist / APP_NAME
    for name in (APP_NAME, ENGINE_NAME):
        if not (folder / executable_name(name)).is_file():
            raise BundleError(f"PyInstaller finished but {folder / executable_name(name)} is missing.")
    log(f"built {folder} in {time.monotonic() - started:.0f} s: {folder_bytes(folder) / 2**20:.0f} MiB, "
        f"CJK font: {font.name if font else 'none (the system font is used)'}")
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/bundle.py", description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="where the folder goes (default: dist/)")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "bundle",
                        help="PyInstaller's scratch folder (default: build/bundle/)")
    fonts = parser.add_mutually_exclusive_group()
    fonts.add_argument("--cjk-font", metavar="FILE", help="the Noto Sans CJK .otf/.ttc file to ship")
    fonts.add_argument("--no-cjk-font", action="store_true", help="ship no font (the laptops have their own)")
    args = parser.parse_args(argv)
    try:
        font = None if args.no_cjk_font else cjk_font(args.cjk_font)
        build(args.dist.resolve(), args.work.resolve(), font)
    except BundleError as problem:
        print(problem, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
