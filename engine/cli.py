"""``python -m engine``: the engine from a terminal.

    python -m engine report --gpu H800 --model llama-3.1-70b --weights fp16 --kv fp16 \\
        --gpus 1 [--tp T --pp P --ep E] --batch 1 --prompt 1000 --output 500 \\
        [--mode ideal|realistic] [--usd-per-gpu-hour 2.0] [--json]
    python -m engine catalog [--json]
    python -m engine tokens --tokenizer ID [--json] (TEXT | --file PATH | --file -)
    python -m engine tokens --list [--json]
    python -m engine import-model CONFIG.json [--id ID]

Each subcommand is one ``add_<name>_command(commands)`` function that declares
its options and sets ``run``, and one ``run_<name>(args, catalog) -> int``
function that does the work and returns the exit status; a new subcommand is
one more pair and one entry in ``COMMANDS``. ``catalog`` is None from the
command line (the built-in catalogue) and a test catalogue in tests.

Bad input never shows a traceback: the one sentence of the ``InputError``
(or of the option that could not be read) goes to stderr and the exit status is 2.
Only argparse's public API: a ``type=`` function raises ``ArgumentTypeError`` with
our sentence and records it, and ``error`` prints it (argparse's English is never
read); an option without its value gets ``_NO_VALUE`` and its own sentence. A full
disk on standard output, or standard input closed, is one sentence too. Echoes are
bounded (``engine.errors.shorten``); control characters reach no terminal raw.
"""
from __future__ import annotations

import argparse
import errno
import json
import math
import os
import sys
from typing import Callable

from engine.cli_input import BadUsage as _BadUsage, argument_text as _argument_text, read_text_file as _read_text_file
from engine.errors import InputError, shorten
from engine.levers.cli_options import add_lever_options, lever_fields
from engine.scenario import PRICE_ALLOWED, WHOLE_NUMBER_FIELDS, Scenario, allowed_whole_number
from engine.units import format_count

EXIT_BAD_INPUT = 2
EXIT_CANNOT_WRITE = 1
_FLAGS = {"--json", "--list", "-h", "--help", "--"}      # options that take no value
_DEFAULTS = Scenario()


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that reports problems as one sentence instead of usage text and exit.

    ``refused`` holds the sentences this parser's type functions refused values with;
    ``value_options`` the options that take a value, with what each one allows.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, allow_abbrev=False, **kwargs)
        self.refused: list[str] = []
        self.value_options: dict[str, str] = {}

    def value_option(self, name: str, allowed: str, **kwargs) -> None:
        """An option that takes one value; given without one, ``parse_command`` says what it takes."""
        self.value_options[name] = allowed
        self.add_argument(name, **kwargs)

    def refuse(self, sentence: str) -> argparse.ArgumentTypeError:
        """For a type function: remember ``sentence`` (``error`` prints it) and return the error to raise."""
        self.refused.append(sentence)
        return argparse.ArgumentTypeError(sentence)

    def error(self, message: str):
        if self.refused:                         # a value one of our type functions refused: its own sentence
            raise _BadUsage(self.refused[-1])
        sentence = message[:1].upper() + message[1:]
        raise _BadUsage(f"{shorten(sentence.rstrip('.'), 200)}; see '{self.prog} --help'.")

    def parse_command(self, argv: list[str]) -> argparse.Namespace:
        """The options of ``argv``, or ``_BadUsage`` naming the first one that cannot be used."""
        argv = _attach_dash_values(argv, self.value_options)
        for here, after in zip(argv, [*argv[1:], None]):     # an option whose value is missing, read by us
            if here in self.value_options and (after is None or after.split("=")[0] in {*self.value_options, *_FLAGS}):
                raise _BadUsage(f"{here} needs a value after it: {self.value_options[here]}.")
        args, extra = self.parse_known_args(argv)
        if extra:
            kind = "option" if extra[0].startswith("-") else "word"
            raise _BadUsage(f"Unknown {kind} {shorten(repr(extra[0]))} for '{self.prog}'; "
                            f"see '{self.prog} --help'.")
        return args


def _number_option(parser: _Parser, option: str, field: str, allowed: str | None = None) -> Callable[[str], int | float]:
    """A type function for ``option``: text -> the number it spells, or one sentence naming what is allowed
    (``allowed``: for a number that is not a whole-number field; default: a price).

    Whole-number fields keep every digit ("99999999999999999999999" stays exact, so
    the range sentence shows it as typed); ``Scenario`` validation judges the range.
    """
    whole = field in WHOLE_NUMBER_FIELDS
    allowed = allowed_whole_number(field) if whole else allowed or PRICE_ALLOWED

    def parse(text: str) -> int | float:
        try:
            return int(text)
        except ValueError:
            pass
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or (whole and not value.is_integer()):
            raise parser.refuse(f"{option} must be {allowed}; got {shorten(repr(text))}.")
        return int(value) if whole else value
    return parse


# ----------------------------------------------------------------------------- the user's catalogue

def catalog_with_warnings(catalog=None):
    """The catalogue to use (default: built-in plus the user's file), after printing on stderr,
    one line each, every problem found in the user's file, so that a later "Unknown GPU"
    or a missing entry in a listing is explained before it is seen."""
    from engine.catalog import default_catalog

    catalog = default_catalog() if catalog is None else catalog
    for warning in catalog.warnings:
        print(_printable(" ".join(warning.split())), file=sys.stderr)
    return catalog


# ----------------------------------------------------------------------------- report

def add_report_command(commands) -> None:
    p = commands.add_parser("report", help="compute memory, roofline, timing and cost of one scenario",
                            description="Compute memory, roofline, timing and cost of one inference scenario.")
    p.value_option("--gpu", "a GPU id such as h800", default=_DEFAULTS.gpu, help="GPU id (default: %(default)s)")
    p.value_option("--model", "a model id such as llama-3.1-70b", default=_DEFAULTS.model,
                   help="model id (default: %(default)s)")
    p.value_option("--weights", "a precision id such as fp16", default=_DEFAULTS.weights,
                   help="weight precision id (default: %(default)s)")
    p.value_option("--kv", "a precision id such as fp16", default=_DEFAULTS.kv,
                   help="KV cache precision id (default: %(default)s)")
    for option, field, default, text in (
            ("--gpus", "gpus", _DEFAULTS.gpus, "GPUs of the deployment, in nodes of the GPU's node size"),
            ("--tp", "tp", _DEFAULTS.tp, "tensor-parallel degree; 0: the default layout (inside a node)"),
            ("--pp", "pp", _DEFAULTS.pp, "pipeline stages; 0: the default layout (one per node)"),
            ("--ep", "ep", _DEFAULTS.ep, "expert-parallel degree of a mixture-of-experts model; 0: the default"),
            ("--batch", "batch", _DEFAULTS.batch, "sequences decoded together"),
            ("--prompt", "prompt_tokens", _DEFAULTS.prompt_tokens, "prompt tokens per sequence"),
            ("--output", "output_tokens", _DEFAULTS.output_tokens, "output tokens per sequence"),
            ("--usd-per-gpu-hour", "usd_per_gpu_hour", _DEFAULTS.usd_per_gpu_hour,
             "rental price of one GPU for an hour, US dollars")):
        allowed = allowed_whole_number(field) if field in WHOLE_NUMBER_FIELDS else PRICE_ALLOWED
        p.value_option(option, allowed, type=_number_option(p, option, field), default=default,
                       help=f"{text} (default: %(default)s)")
    p.value_option("--mode", "'ideal' or 'realistic'", default=_DEFAULTS.mode,
                   help="'ideal' (pure roofline at 100%% of peak) or 'realistic' (default: %(default)s)")
    add_lever_options(p, _number_option)
    p.add_argument("--json", action="store_true", help="print the report as JSON (SI units)")
    p.set_defaults(run=run_report)


def run_report(args: argparse.Namespace, catalog=None) -> int:
    from engine.compute import compute_report
    from engine.report_text import report_as_text

    catalog = catalog_with_warnings(catalog)
    report = compute_report(Scenario(
        gpu=args.gpu, model=args.model, weights=args.weights, kv=args.kv, gpus=args.gpus,
        tp=args.tp, pp=args.pp, ep=args.ep, batch=args.batch, prompt_tokens=args.prompt, output_tokens=args.output,
        usd_per_gpu_hour=args.usd_per_gpu_hour, mode=args.mode, **lever_fields(args)), catalog)
    if args.json:
        print(json.dumps(_finite(report.to_json_dict()), indent=2, allow_nan=False))
    else:
        print(_terminal_text(report_as_text(report.scenario, report, report.gpu, report.model,
                                            report.weights_precision, report.kv_precision)))
    return 0


# ----------------------------------------------------------------------------- catalog

def _finite(value):
    """JSON-ready data with every number that is not finite written as null (JSON has no infinity)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def add_catalog_command(commands) -> None:
    p = commands.add_parser("catalog", help="list GPUs, models, precisions and tokenizers with their sources",
                            description="List the catalogue: GPUs, models, precisions and tokenizers, with sources.")
    p.add_argument("--json", action="store_true", help="print the catalogue as JSON")
    p.set_defaults(run=run_catalog)


def run_catalog(args: argparse.Namespace, catalog=None) -> int:
    from engine.catalog import catalog_as_json, catalog_as_text

    catalog = catalog_with_warnings(catalog)
    if args.json:
        print(json.dumps(_finite(catalog_as_json(catalog)), indent=2, ensure_ascii=False, allow_nan=False))
    else:
        text = catalog_as_text(catalog)
        print(_terminal_text(text), end="" if text.endswith("\n") else "\n")
    return 0


# ----------------------------------------------------------------------------- tokens

def add_tokens_command(commands) -> None:
    p = commands.add_parser("tokens", help="cut text into tokens with a real tokenizer",
                            description="Cut text into tokens with a real tokenizer (vocabularies ship with "
                                        "the app; nothing is downloaded).")
    p.add_argument("text", nargs="?", metavar="TEXT", help="the text to cut (or use --file)")
    p.value_option("--tokenizer", "a tokenizer id such as qwen2.5 (see --list)", metavar="ID",
                   help="tokenizer id, see --list (e.g. qwen2.5, llama-3, o200k_base)")
    p.value_option("--file", "the path of a UTF-8 text file, or - for standard input", metavar="PATH",
                   help="read the text from a UTF-8 file; '-' reads standard input")
    p.add_argument("--list", action="store_true", help="list the tokenizers with their sources")
    p.add_argument("--json", action="store_true", help="print JSON: {tokenizer, count, ids, pieces}")
    p.set_defaults(run=run_tokens)


def run_tokens(args: argparse.Namespace, catalog=None) -> int:
    from engine.tokens import tokenize, tokenizers_as_json, tokenizers_as_text

    catalog_with_warnings(catalog)
    if args.list:
        given = [name for name, value in (("--tokenizer", args.tokenizer), ("--file", args.file), ("TEXT", args.text))
                 if value is not None]
        if given:
            raise _BadUsage(f"--list lists the tokenizers and takes no {' or '.join(given)}; leave out --list to "
                            f"cut a text.")
        if args.json:
            print(json.dumps(tokenizers_as_json(), indent=2, ensure_ascii=False))
        else:
            print("Tokenizers (every vocabulary ships with the app; nothing is downloaded)")
            print(tokenizers_as_text(), end="")
        return 0
    if args.tokenizer is None:
        raise _BadUsage("Name a tokenizer with --tokenizer ID, or list them with --list.")
    if args.text is not None and args.file is not None:
        raise _BadUsage("Give the text either as TEXT or with --file, not both.")
    if args.text is None and args.file is None:
        raise _BadUsage("Give the text to cut as TEXT, or with --file PATH ('-' for standard input).")
    text = _argument_text(args.text) if args.file is None else _read_text_file(args.file)
    result = tokenize(args.tokenizer, text)
    if args.json:
        print(json.dumps(result.to_json_dict(), ensure_ascii=False))
    else:
        print(f"{format_count(result.count)} {'token' if result.count == 1 else 'tokens'} ({result.tokenizer})")
        if result.pieces:
            print(" ".join(f"[{_visible(piece)}]" for piece in result.pieces))
    return 0


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(piece: str) -> str:
    """A piece with line breaks, tabs and every other control character shown escaped (\\n, \\x1b,
    \\u202e), so that one token stays on one line and no pasted text can drive the terminal."""
    return "".join(_ESCAPES.get(c) or (c if c.isprintable() else repr(c)[1:-1]) for c in piece)


# ----------------------------------------------------------------------------- import-model

def add_import_model_command(commands) -> None:
    p = commands.add_parser("import-model", help="add a model to your catalogue from its Hugging Face config.json",
                            description="Add a model to your own catalogue from its Hugging Face config.json, "
                                        "offline; entries already in your catalogue are never rewritten.")
    p.add_argument("config", nargs="?", metavar="CONFIG.json", help="the model's config.json")
    p.value_option("--id", "a model id such as my-model", metavar="ID",
                   help="the id to file it under (default: from the config's name, file or folder)")
    p.set_defaults(run=run_import_model)


def run_import_model(args: argparse.Namespace, catalog=None) -> int:
    from engine.import_model import import_model

    if args.config is None:
        raise _BadUsage("Name the config.json to import: python -m engine import-model CONFIG.json [--id ID].")
    imported = import_model(args.config, model_id=args.id)
    print(_terminal_text(imported.summary()))
    for note in imported.notes:
        print(_terminal_text(f"  {note}"))
    return 0


# ----------------------------------------------------------------------------- entry point

COMMANDS = (add_report_command, add_catalog_command, add_tokens_command, add_import_model_command)


class _Commands:
    """What ``add_<name>_command`` adds its parser to: one ``_Parser`` per command, listed in the help."""

    def __init__(self, listing):
        self._listing = listing
        self.parsers: dict[str, _Parser] = {}

    def add_parser(self, name: str, **kwargs) -> _Parser:
        parser = self._listing.add_parser(name, **kwargs)
        self.parsers[name] = parser
        return parser


def build_parser() -> tuple[_Parser, _Commands]:
    """The top-level parser (its help lists the commands) and each command's own parser."""
    parser = _Parser(prog="python -m engine",
                     description="The physics of LLM inference: memory, roofline, timing and cost.")
    commands = _Commands(parser.add_subparsers(title="commands", metavar="COMMAND"))
    for add in COMMANDS:
        add(commands)
    return parser, commands


def main(argv: list[str] | None = None, catalog=None) -> int:
    """Run one subcommand; 0 on success, 2 with one sentence on stderr for bad input,
    1 with one sentence when standard output cannot be written (a full disk)."""
    parser, commands = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    for stream in (sys.stdout, sys.stderr):   # a terminal that is not UTF-8 (a pipe on Chinese Windows) gets escapes
        if stream is not None and getattr(stream, "errors", None) == "strict":
            stream.reconfigure(errors="backslashreplace")
    if sys.stdout is None:                    # ``>&-``: nowhere to write the answer; say so rather than exit 0
        if sys.stderr is not None:
            print("Standard output is closed, so the answer cannot be written; run the command with its output "
                  "open (a terminal, a file or a pipe).", file=sys.stderr)
        return EXIT_CANNOT_WRITE
    try:
        if argv[:1] in (["-h"], ["--help"]):
            parser.print_help()
        else:
            names = ", ".join(commands.parsers)
            if not argv or argv[0].startswith("-"):
                raise _BadUsage(f"Choose a command: {names}; see 'python -m engine --help'.")
            if argv[0] not in commands.parsers:
                raise _BadUsage(f"Unknown command {shorten(repr(argv[0]))}; choose one of: {names}.")
            args = commands.parsers[argv[0]].parse_command(argv[1:])
            code = args.run(args, catalog)
            if code:
                return code
        if sys.stdout is not None:
            sys.stdout.flush()             # a full disk shows here, not in the interpreter's last flush
        return 0
    except (InputError, _BadUsage) as error:
        print(_printable(str(error)), file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:                # the reader went away (``... | head``): nothing more to say
        _silence_stdout()
        return 0
    except OSError as error:               # standard output on a full disk (``> /dev/full``), a dead terminal
        _silence_stdout()
        reason = error.strerror or os.strerror(error.errno or errno.EIO)
        print(f"The output cannot be written: {reason}.", file=sys.stderr)
        return EXIT_CANNOT_WRITE


def _silence_stdout() -> None:
    """Point standard output at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, AttributeError, ValueError):
        pass


def _attach_dash_values(argv: list[str], takes_value) -> list[str]:
    """``--prompt -1e5`` -> ``--prompt=-1e5``: argparse would take "-1e5" or "-inf" for an option
    and give the option no value; attached, the value reaches the type function, whose
    sentence names it. A following word that is itself an option is left alone."""
    known = set(takes_value) | _FLAGS
    out: list[str] = []
    for arg in argv:
        if out and out[-1] in takes_value and arg.startswith("-") and arg != "-" and arg.split("=")[0] not in known:
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


def _terminal_text(text: str) -> str:
    """Lines for a terminal: names from a user's catalogue cannot carry escape sequences into it."""
    return "\n".join(_printable(line) for line in text.split("\n"))


def _printable(sentence: str) -> str:
    """The sentence on one line: control characters from the command line shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in sentence)
