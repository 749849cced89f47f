"""``python -m desktop``: start the app, present, or export every scene to files.

    python -m desktop [--present] [--lang zh|en] [--scene N] [--theme light|dark|projector]
    python -m desktop --export DIR [--lang zh|en] [--size WxH] [--theme ...]
    python -m desktop --quit-after-first-frame      (prints milliseconds since the process started)

Before Qt starts, it checks that a window can be opened at all; where it
cannot, it says what is missing in one sentence and exits 2 instead of letting
Qt abort. ``--export`` needs no display: it always renders offscreen.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

_IMPORTED_SECONDS = time.monotonic()
SIZE_LIMITS = ((320, 7680), (240, 4320))     # (width, height) ranges a picture may have


def milliseconds_since_process_start() -> float:
    """From the kernel's record of when the process began where there is one, else from this module's import."""
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            start_ticks = int(stat.read().rsplit(")", 1)[1].split()[19])
        return (time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks / os.sysconf("SC_CLK_TCK")) * 1000
    except (OSError, ValueError, IndexError, AttributeError):
        return (time.monotonic() - _IMPORTED_SECONDS) * 1000


def _size_type(text):
    """An argparse type for WxH whose complaint is one sentence in the user's language."""
    def parse(value: str) -> tuple[int, int]:
        try:
            width, height = (int(part) for part in value.lower().split("x"))
        except ValueError:
            width = height = -1
        (min_w, max_w), (min_h, max_h) = SIZE_LIMITS
        if not (min_w <= width <= max_w and min_h <= height <= max_h):
            raise argparse.ArgumentTypeError(text("app.cli.bad_size", size=value, min_width=min_w, max_width=max_w,
                                                  min_height=min_h, max_height=max_h))
        return width, height
    return parse


def _parser(text) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m desktop", description=text("app.cli.description"))
    parser.add_argument("--present", action="store_true", help=text("app.cli.present"))
    parser.add_argument("--lang", choices=("zh", "en"), help=text("app.cli.lang"))
    parser.add_argument("--scene", type=int, metavar="N", help=text("app.cli.scene"))
    parser.add_argument("--theme", choices=("light", "dark", "projector"), help=text("app.cli.theme"))
    parser.add_argument("--export", type=Path, metavar="DIR", help=text("app.cli.export"))
    parser.add_argument("--size", type=_size_type(text), default=(1920, 1080), metavar="WxH", help=text("app.cli.size"))
    parser.add_argument("--quit-after-first-frame", action="store_true", help=text("app.cli.first_frame"))
    return parser


def _cli_language(argv: list[str]):
    from desktop.i18n import Language
    code = next((argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "--lang"), None)
    code = next((arg.split("=", 1)[1] for arg in argv if arg.startswith("--lang=")), code)
    return Language(code if code in ("zh", "en") else None)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    language = _cli_language(argv)
    args = _parser(language.text).parse_args(argv)
    if args.export is not None:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from PySide6.QtCore import QSize
        from desktop.app import run_export
        return run_export(args.export, language, QSize(*args.size), args.theme or "light")

    from desktop.platform_check import window_problem
    problem = window_problem(os.environ)
    if problem is not None:
        key, values = problem
        print(language.text(key, **values), file=sys.stderr)
        return 2
    from desktop.app import run_window
    return run_window(language, args.lang, args.theme, args.scene, args.present,
                      args.quit_after_first_frame, milliseconds_since_process_start)


if __name__ == "__main__":
    sys.exit(main())
