"""``python -m desktop``: start the app, present, or export scenes to files.

    python -m desktop [--present] [--lang zh|en] [--scene N] [--theme light|dark|projector]
    python -m desktop --export DIR [--lang zh|en] [--size WxH] [--scene N] [--theme ...]
    python -m desktop --quit-after-first-frame      (prints milliseconds since the process started)

A command line that cannot be used is refused before Qt starts: one sentence
in the user's language (``--lang`` if it could be read, else the system's)
naming the value and what is allowed, on stderr, and exit status 2. That
covers unknown options, bad values, a scene that does not exist and options
that contradict each other (``--present`` with ``--export``, ``--size``
without it). ``--scene N`` with ``--export`` exports only scene N.

Before Qt starts, it also checks that a window can be opened at all; where it
cannot, it says what is missing in one sentence and exits 2 instead of letting
Qt abort. ``--export`` needs no display: it always renders offscreen.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

_IMPORTED_SECONDS = time.monotonic()
EXIT_BAD_INPUT = 2
SIZE_LIMITS = ((640, 7680), (480, 4320))     # (width, height) ranges a picture may have
DEFAULT_SIZE = (1920, 1080)
LANGUAGE_CODES = ("zh", "en")
THEME_IDS = ("light", "dark", "projector")


class BadCommandLine(Exception):
    """The command line cannot be used; the message is one sentence in the user's language."""


def milliseconds_since_process_start() -> float:
    """From the kernel's record of when the process began where there is one, else from this module's import."""
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            start_ticks = int(stat.read().rsplit(")", 1)[1].split()[19])
        return (time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks / os.sysconf("SC_CLK_TCK")) * 1000
    except (OSError, ValueError, IndexError, AttributeError):
        return (time.monotonic() - _IMPORTED_SECONDS) * 1000


def _alternatives(language, items) -> str:
    from desktop.error_text import alternatives_text    # only a refusal needs it
    return alternatives_text(language, items)


def scene_numbers() -> list[int]:
    """The scenes this version has, from the registry (imports the scene modules, not QApplication)."""
    from desktop.scenes.registry import scene_classes
    return [cls.number for cls in scene_classes()]


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose every complaint is one sentence (``BadCommandLine``), never usage text."""

    def __init__(self, language, **kwargs):
        super().__init__(**kwargs)
        self.language = language

    def allowed(self, option: str) -> str:
        """What ``option`` accepts, as the end of a sentence."""
        text = self.language.text
        return {
            "--lang": lambda: _alternatives(self.language, LANGUAGE_CODES),
            "--theme": lambda: _alternatives(self.language, THEME_IDS),
            "--scene": lambda: _alternatives(self.language, scene_numbers()),
            "--export": lambda: text("app.cli.allowed.export"),
            "--size": lambda: text("app.cli.allowed.size"),
        }.get(option, lambda: "")()

    def refuse(self, key: str, **values) -> BadCommandLine:
        return BadCommandLine(self.language.text(f"app.cli.{key}", **values))

    def error(self, message: str):
        missing = re.match(r"argument (--[\w-]+)(?:/\S+)?: expected one argument", message)
        if missing:
            raise self.refuse("missing_value", option=missing.group(1), allowed=self.allowed(missing.group(1)))
        unknown = re.match(r"unrecognized arguments: (\S+)", message)
        if unknown:
            options = [action.option_strings[-1] for action in self._actions if action.option_strings]
            raise self.refuse("unknown_option", value=unknown.group(1),
                              allowed=_alternatives(self.language, options))
        raise self.refuse("bad_usage", detail=message.rstrip("."))


def _choice_type(parser: _Parser, option: str, allowed: tuple[str, ...]):
    def parse(value: str) -> str:
        if value not in allowed:
            raise parser.refuse("bad_value", option=option, value=value, allowed=parser.allowed(option))
        return value
    return parse


def _scene_type(parser: _Parser):
    def parse(value: str) -> int:
        try:
            return int(value)
        except ValueError:
            raise parser.refuse("bad_scene", value=value, allowed=parser.allowed("--scene")) from None
    return parse


def _size_type(parser: _Parser):
    def parse(value: str) -> tuple[int, int]:
        try:
            width, height = (int(part) for part in value.lower().split("x"))
        except ValueError:
            width = height = -1
        (min_w, max_w), (min_h, max_h) = SIZE_LIMITS
        if not (min_w <= width <= max_w and min_h <= height <= max_h):
            raise parser.refuse("bad_size", size=value, min_width=min_w, max_width=max_w,
                                min_height=min_h, max_height=max_h)
        return width, height
    return parse


def _parser(language) -> _Parser:
    text = language.text
    parser = _Parser(language, prog="python -m desktop", description=text("app.cli.description"),
                     allow_abbrev=False)
    parser.add_argument("--present", action="store_true", help=text("app.cli.present"))
    parser.add_argument("--lang", type=_choice_type(parser, "--lang", LANGUAGE_CODES), metavar="zh|en",
                        help=text("app.cli.lang"))
    parser.add_argument("--scene", type=_scene_type(parser), metavar="N", help=text("app.cli.scene"))
    parser.add_argument("--theme", type=_choice_type(parser, "--theme", THEME_IDS), metavar="|".join(THEME_IDS),
                        help=text("app.cli.theme"))
    parser.add_argument("--export", type=Path, metavar="DIR", help=text("app.cli.export"))
    parser.add_argument("--size", type=_size_type(parser), metavar="WxH", help=text("app.cli.size"))
    parser.add_argument("--quit-after-first-frame", action="store_true", help=text("app.cli.first_frame"))
    return parser


def _cli_language(argv: list[str]):
    from desktop.i18n import Language
    code = next((argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "--lang"), None)
    code = next((arg.split("=", 1)[1] for arg in argv if arg.startswith("--lang=")), code)
    return Language(code if code in LANGUAGE_CODES else None)


def parse_command_line(argv: list[str], language) -> argparse.Namespace:
    """The options, checked against each other and the scene registry; raises ``BadCommandLine``."""
    parser = _parser(language)
    args = parser.parse_args(argv)
    if args.export is not None:
        for option, given in (("--present", args.present), ("--quit-after-first-frame", args.quit_after_first_frame)):
            if given:
                raise parser.refuse("not_with_export", option=option)
    elif args.size is not None:
        raise parser.refuse("size_needs_export", size="x".join(map(str, args.size)))
    if args.scene is not None and args.scene not in scene_numbers():
        raise parser.refuse("bad_scene", value=args.scene, allowed=parser.allowed("--scene"))
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    language = _cli_language(argv)
    try:
        args = parse_command_line(argv, language)
    except BadCommandLine as refusal:
        print(refusal, file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.export is not None:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from PySide6.QtCore import QSize
        from desktop.app import run_export
        return run_export(args.export, language, QSize(*(args.size or DEFAULT_SIZE)), args.theme or "light",
                          args.scene)

    from desktop.platform_check import window_problem
    problem = window_problem(os.environ)
    if problem is not None:
        key, values = problem
        print(language.text(key, **values), file=sys.stderr)
        return EXIT_BAD_INPUT
    from desktop.app import run_window
    return run_window(language, args.lang, args.theme, args.scene, args.present,
                      args.quit_after_first_frame, milliseconds_since_process_start)


if __name__ == "__main__":
    sys.exit(main())
