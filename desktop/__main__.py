"""``python -m desktop``: start the app, present, or export scenes to files.

    python -m desktop [--present] [--lang zh|en] [--scene N|KEY] [--theme light|dark|projector]
                      [--scenario FILE] [scenario flags]
    python -m desktop --export DIR [--lang zh|en] [--size WxH] [--paper a4|letter] [--scene N|KEY]
                      [--theme ...] [--scenario FILE] [scenario flags]
    python -m desktop --quit-after-first-frame      (prints milliseconds since the process started)

The scenario flags are ``python -m engine report``'s own (``--gpu --model
--weights --kv --gpus --batch --prompt --output --usd-per-gpu-hour --mode``
and the levers' ``--draft-model ... --kv-allocation``: ``desktop.scenario_options``).
The scenario is the saved one (the settings), or the one in ``--scenario FILE``
(``desktop.scenario_file``), with the fields the flags name changed; the
window and ``--export`` use it alike. ``--paper`` chooses the handout's paper
(default: the locale's, ``desktop.paper``).

A command line that cannot be used is refused before Qt starts: one sentence
in the user's language (``--lang`` if it could be read, else the system's)
naming the value and what is allowed, on stderr, and exit status 2. That
covers unknown options, bad values, a scene that does not exist and options
that contradict each other (``--present`` with ``--export``, ``--size`` or
``--paper`` without it), an empty ``--export ""``, a scenario file that cannot
be used, and a scenario the engine refuses. ``--scene N`` with ``--export`` exports
only scene N. Values are checked by argparse ``type=`` functions (public API
only; argparse's English is never read); a value that starts with "-" (``--size
-5x3``) still reaches its check, and what the sentence echoes is bounded, with
bytes that are not UTF-8 shown as \\xNN.

Before Qt starts, it also checks that a window can be opened at all; where it
cannot, it says what is missing in one sentence and exits 2 instead of letting
Qt abort. ``--export`` needs no display: it always renders offscreen.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

from desktop.paper import PAPERS
from desktop.stop_request import StopRequested

_IMPORTED_SECONDS = time.monotonic()
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130                       # as a shell reports a program stopped by Ctrl+C
SIZE_LIMITS = ((640, 7680), (480, 4320))     # (width, height) ranges a picture may have
DEFAULT_SIZE = (1920, 1080)
LANGUAGE_CODES = ("zh", "en")
THEME_IDS = ("light", "dark", "projector")
EXPORT_ONLY = ("--size", "--paper")          # options that say how to export, refused without --export


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


def scene_names() -> list[str]:
    """The scenes this version has, by number and by key, from the registry (which imports no scene)."""
    from desktop.scenes.registry import scene_entries
    return [f"{entry.number} ({entry.key})" for entry in scene_entries()]


VALUE_OPTIONS = ("--lang", "--scene", "--theme", "--export", "--size", "--paper", "--scenario")
FLAG_OPTIONS = ("--present", "--quit-after-first-frame", "--help")


def shown_argument(value: str) -> str:
    """A value from the command line as a sentence shows it: bytes that are not UTF-8 as \\xNN,
    control characters escaped, at most 80 characters."""
    from engine.errors import shorten
    text = os.fsencode(value).decode("utf-8", "backslashreplace")
    return shorten("".join(c if c.isprintable() else repr(c)[1:-1] for c in text))


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose every complaint is one sentence (``BadCommandLine``), never usage text.

    Only argparse's public API: values are checked by ``type=`` functions that raise
    ``ArgumentTypeError`` and record their sentence in ``refused``, which ``error`` raises;
    argparse's own English is never read.
    """

    def __init__(self, language, **kwargs):
        super().__init__(allow_abbrev=False, **kwargs)
        self.language = language
        self.refused: list[BadCommandLine] = []

    def allowed(self, option: str) -> str:
        """What ``option`` accepts, as the end of a sentence."""
        text = self.language.text
        return {
            "--lang": lambda: _alternatives(self.language, LANGUAGE_CODES),
            "--theme": lambda: _alternatives(self.language, THEME_IDS),
            "--scene": lambda: _alternatives(self.language, scene_names()),
            "--export": lambda: text("app.cli.allowed.export"),
            "--size": lambda: text("app.cli.allowed.size"),
            "--paper": lambda: _alternatives(self.language, PAPERS),
            "--scenario": lambda: text("app.cli.allowed.scenario"),
        }.get(option, lambda: "")()

    def format_help(self) -> str:
        """The help, its last line naming the scenario flags: the engine's parser is built only when help is
        asked for, not on every start."""
        from desktop.scenario_options import scenario_options
        self.epilog = self.language.text("app.cli.scenario_flags", options=" ".join(scenario_options()))
        return super().format_help()

    def refuse(self, key: str, **values) -> BadCommandLine:
        return BadCommandLine(self.language.text(f"app.cli.{key}", **values))

    def refuse_value(self, key: str, **values) -> argparse.ArgumentTypeError:
        """For a type function: the sentence is kept for ``error``; argparse gets the error to raise."""
        refusal = self.refuse(key, **values)
        self.refused.append(refusal)
        return argparse.ArgumentTypeError(str(refusal))

    def error(self, message: str):
        if self.refused:
            raise self.refused[-1]
        raise self.refuse("bad_usage", detail=shown_argument(message.rstrip(".")))

    def value_option(self, option: str, **kwargs) -> None:
        self.add_argument(option, **kwargs)


def _choice_type(parser: _Parser, option: str, allowed: tuple[str, ...]):
    def parse(value: str) -> str:
        if value not in allowed:
            raise parser.refuse_value("bad_value", option=option, value=shown_argument(value),
                                      allowed=parser.allowed(option))
        return value
    return parse


def _scene_type(parser: _Parser):
    def parse(value: str) -> str:
        from desktop.scenes.registry import find_entry
        entry = find_entry(value) if value.strip().isascii() and len(value) <= 100 else None
        if entry is None:
            raise parser.refuse_value("bad_scene", value=shown_argument(value), allowed=parser.allowed("--scene"))
        return entry.key
    return parse


def _size_type(parser: _Parser):
    def parse(value: str) -> tuple[int, int]:
        parts = value.lower().split("x")
        if len(parts) == 2 and all(part.isascii() and part.isdigit() and len(part) <= 5 for part in parts):
            width, height = int(parts[0]), int(parts[1])
        else:
            width = height = -1
        (min_w, max_w), (min_h, max_h) = SIZE_LIMITS
        if not (min_w <= width <= max_w and min_h <= height <= max_h):
            raise parser.refuse_value("bad_size", size=shown_argument(value), min_width=min_w, max_width=max_w,
                                      min_height=min_h, max_height=max_h)
        return width, height
    return parse


def _path_type(parser: _Parser, option: str):
    def parse(value: str) -> Path:
        if not value.strip():              # "" would quietly mean the current folder
            raise parser.refuse_value("missing_value", option=option, allowed=parser.allowed(option))
        return Path(value)
    return parse


def _parser(language) -> _Parser:
    text = language.text
    parser = _Parser(language, prog="python -m desktop", description=text("app.cli.description"))
    parser.add_argument("--present", action="store_true", help=text("app.cli.present"))
    parser.value_option("--lang", type=_choice_type(parser, "--lang", LANGUAGE_CODES), metavar="zh|en",
                        help=text("app.cli.lang"))
    parser.value_option("--scene", type=_scene_type(parser), metavar="N|KEY", help=text("app.cli.scene"))
    parser.value_option("--theme", type=_choice_type(parser, "--theme", THEME_IDS), metavar="|".join(THEME_IDS),
                        help=text("app.cli.theme"))
    parser.value_option("--export", type=_path_type(parser, "--export"), metavar="DIR", help=text("app.cli.export"))
    parser.value_option("--size", type=_size_type(parser), metavar="WxH", help=text("app.cli.size"))
    parser.value_option("--paper", type=_choice_type(parser, "--paper", PAPERS), metavar="|".join(PAPERS),
                        help=text("app.cli.paper"))
    parser.value_option("--scenario", type=_path_type(parser, "--scenario"), metavar="FILE",
                        help=text("app.cli.scenario"))
    parser.add_argument("--quit-after-first-frame", action="store_true", help=text("app.cli.first_frame"))
    return parser


def _attach_dash_values(argv: list[str]) -> list[str]:
    """``--size -5x3`` -> ``--size=-5x3``: argparse would take "-5x3" for an option and give --size no value;
    attached, the value reaches the type function, whose sentence names it."""
    from desktop.scenario_options import scenario_options
    ours = set(VALUE_OPTIONS) | set(FLAG_OPTIONS) | {"-h", "--"}
    out: list[str] = []
    for arg in argv:     # the engine's options are asked for last: a start with none of them never builds its parser
        name = arg.split("=")[0]
        if out and out[-1] in VALUE_OPTIONS and arg.startswith("-") and name not in ours \
                and name not in scenario_options():
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


def _cli_language(argv: list[str]):
    from desktop.i18n import Language
    code = next((argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "--lang"), None)
    code = next((arg.split("=", 1)[1] for arg in argv if arg.startswith("--lang=")), code)
    return Language(code if code in LANGUAGE_CODES else None)


# Flags that take no value and contradict nothing a window start can be asked: a command line of only these (or
# none, the ordinary start) has nothing to check, and is read without building the parser (about 5 ms: argparse
# asks gettext for its own help's headings, which imports locale and looks for catalogues, on every start).
PLAIN_FLAGS = ("--present", "--quit-after-first-frame")


def _plain_start(argv: list[str]) -> argparse.Namespace:
    """What ``parse_command_line`` gives for a command line of ``PLAIN_FLAGS`` only."""
    values = dict.fromkeys(("lang", "scene", "theme", "export", "size", "paper", "scenario"))
    return argparse.Namespace(**values, present="--present" in argv,
                              quit_after_first_frame="--quit-after-first-frame" in argv, scenario_given=[])


def parse_command_line(argv: list[str], language) -> argparse.Namespace:
    """The options, checked against each other and the scene registry; raises ``BadCommandLine``.

    ``scenario_given``: the scenario flags, as [(option, text)] (``desktop.scenario_options``)."""
    if all(argument in PLAIN_FLAGS for argument in argv):
        return _plain_start(argv)
    return _parsed_command_line(argv, language)


def _parsed_command_line(argv: list[str], language) -> argparse.Namespace:
    """``parse_command_line`` by the parser, for any command line."""
    from desktop.scenario_options import scenario_options, split_arguments
    parser = _parser(language)
    argv = _attach_dash_values(argv)
    known = set(VALUE_OPTIONS) | set(FLAG_OPTIONS) | {"-h", "--"}
    argv, given = split_arguments(argv, known)
    for option, text in given:
        if text is None:
            raise parser.refuse("missing_value", option=option, allowed=scenario_options()[option])
    for here, after in zip(argv, [*argv[1:], None]):         # an option whose value is missing, read by us
        name_after = None if after is None else after.split("=")[0]
        if here in VALUE_OPTIONS and (name_after is None or name_after in known
                                      or name_after.startswith("--") and name_after in scenario_options()):
            raise parser.refuse("missing_value", option=here, allowed=parser.allowed(here))
    args, extra = parser.parse_known_args(argv)
    if extra:
        raise parser.refuse("unknown_option", value=shown_argument(extra[0]),
                            allowed=_alternatives(language, VALUE_OPTIONS + FLAG_OPTIONS + tuple(scenario_options())))
    if args.export is not None:
        for option, given_flag in (("--present", args.present), ("--quit-after-first-frame", args.quit_after_first_frame)):
            if given_flag:
                raise parser.refuse("not_with_export", option=option)
    elif args.size is not None:
        raise parser.refuse("size_needs_export", size="x".join(map(str, args.size)))
    elif args.paper is not None:
        raise parser.refuse("paper_needs_export", paper=args.paper)
    args.scenario_given = given
    return args


def scenario_choice(args: argparse.Namespace, language):
    """The scenario the command line asks for (``desktop.scenario_options.ScenarioChoice``): the file read
    and checked now, before Qt starts; raises ``BadCommandLine`` with the file's one sentence."""
    from desktop.scenario_file import ScenarioFileError, read_scenario
    from desktop.scenario_options import ScenarioChoice, scenario_changes
    from_file = None
    if args.scenario is not None:
        try:
            from_file = read_scenario(args.scenario)
        except ScenarioFileError as bad:
            raise BadCommandLine(bad.sentence(language)) from None
    return ScenarioChoice(from_file, scenario_changes(args.scenario_given))


def main(argv: list[str] | None = None) -> int:
    from desktop import stop_request
    stop_request.install()       # Ctrl+C, SIGTERM, SIGHUP from now on stop at safe points (desktop.stop_request)
    try:
        return _main(argv)
    except stop_request.StopRequested:
        return EXIT_INTERRUPTED


def _drop_unusable_scale_factors(language) -> None:
    """A scale factor Qt cannot draw with (0 hangs, a negative one breaks every paint) is left out, said once."""
    from desktop.platform_check import SCALE_FACTOR_RANGE, unusable_scale_factors
    for name, value in unusable_scale_factors(os.environ):
        from engine.units import format_number        # only when there is something to say: start-up pays nothing
        del os.environ[name]
        low, high = (format_number(limit) for limit in SCALE_FACTOR_RANGE)
        print(language.text("app.startup.bad_scale", name=name, value=shown_argument(value), low=low, high=high),
              file=sys.stderr)


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    for stream in (sys.stdout, sys.stderr):   # a path typed in another encoding prints, never raises
        if stream is not None and getattr(stream, "errors", None) == "strict":
            stream.reconfigure(errors="backslashreplace")
    language = _cli_language(argv)
    try:
        args = parse_command_line(argv, language)
        choice = scenario_choice(args, language)
    except BadCommandLine as refusal:
        print(refusal, file=sys.stderr)
        return EXIT_BAD_INPUT
    _drop_unusable_scale_factors(language)
    if args.export is not None:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from PySide6.QtCore import QSize
        from desktop.app import run_export
        try:
            return run_export(args.export, language, QSize(*(args.size or DEFAULT_SIZE)), args.theme or "light",
                              args.scene, choice, args.paper)
        except (StopRequested, KeyboardInterrupt):   # Ctrl+C, SIGTERM, SIGHUP: the unfinished file is discarded
            print(language.text("errors.write.interrupted"), file=sys.stderr)
            return EXIT_INTERRUPTED

    from desktop.platform_check import window_problem
    problem = window_problem(os.environ)
    if problem is not None:
        key, values = problem
        print(language.text(key, **values), file=sys.stderr)
        return EXIT_BAD_INPUT
    from desktop.app import run_window
    return run_window(language, args.lang, args.theme, args.scene, args.present,
                      args.quit_after_first_frame, milliseconds_since_process_start, choice)


def run(argv: list[str] | None = None) -> int:
    """The program itself (``python -m desktop``, the ``inference-physics`` command): ``main``, with Python's
    automatic cycle collector off from the start. Start-up makes enough objects for some sixty collections
    before the first frame (about 12 ms); once the application exists its own collector runs them on the UI
    thread (``desktop.garbage``). At the end what is left is frozen: the interpreter's last collections would
    walk every object the app made (about 30 ms) only to free memory the system takes back anyway, and the
    settings, files and the tokenizer process were all closed before ``main`` returned."""
    gc.disable()
    code = main(argv)
    gc.freeze()
    return code


if __name__ == "__main__":
    sys.exit(run())
