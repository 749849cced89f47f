"""``python -m engine``: the engine from a terminal.

    python -m engine report --gpu H800 --model llama-3.1-70b --weights fp16 --kv fp16 \\
        --gpus 1 --batch 1 --prompt 1000 --output 500 [--mode ideal|realistic] \\
        [--usd-per-gpu-hour 2.0] [--json]
    python -m engine catalog [--json]
    python -m engine tokens --tokenizer ID [--json] (TEXT | --file PATH | --file -)
    python -m engine tokens --list [--json]

Each subcommand is one ``add_<name>_command(commands)`` function that declares
its options and sets ``run``, and one ``run_<name>(args, catalog) -> int``
function that does the work and returns the exit status; a new subcommand is
one more pair and one entry in ``COMMANDS``. ``catalog`` is None from the
command line (the built-in catalogue) and a test catalogue in tests.

Bad input never shows a traceback: the one sentence of the ``InputError``
(or of the option that could not be read) goes to stderr and the exit status is 2.
"""
from __future__ import annotations

import argparse
import os
import json
import math
import re
import sys
from typing import Callable

from engine.errors import InputError
from engine.scenario import PRICE_ALLOWED, WHOLE_NUMBER_FIELDS, Scenario, allowed_whole_number
from engine.units import format_count, format_hex_byte

EXIT_BAD_INPUT = 2
_DEFAULTS = Scenario()


class _BadUsage(Exception):
    """argparse could not read the command line; the message is one sentence."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that reports problems as one sentence instead of usage text and exit."""

    def _commands(self) -> list[str]:
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return list(action.choices)
        return []

    def error(self, message: str):
        own = re.match(r"argument [^:]+: (--\S+ .*)$", message)
        if own:                                  # a sentence from one of our type functions
            raise _BadUsage(own.group(1))
        unknown = re.match(r"argument COMMAND: invalid choice: (\S+)", message)
        if unknown:
            raise _BadUsage(f"Unknown command {unknown.group(1)}; choose one of: {', '.join(self._commands())}.")
        sentence = message[:1].upper() + message[1:]
        raise _BadUsage(f"{sentence.rstrip('.')}; see '{self.prog} --help'.")


def _number_option(option: str, field: str) -> Callable[[str], int | float]:
    """A type function for ``option``: text -> the number it spells, or one sentence naming what is allowed.

    Whole-number fields keep every digit ("99999999999999999999999" stays exact, so
    the range sentence shows it as typed); ``Scenario`` validation judges the range.
    """
    whole = field in WHOLE_NUMBER_FIELDS
    allowed = allowed_whole_number(field) if whole else PRICE_ALLOWED

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
            raise argparse.ArgumentTypeError(f"{option} must be {allowed}; got {text!r}.")
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
    p.add_argument("--gpu", default=_DEFAULTS.gpu, help="GPU id (default: %(default)s)")
    p.add_argument("--model", default=_DEFAULTS.model, help="model id (default: %(default)s)")
    p.add_argument("--weights", default=_DEFAULTS.weights, help="weight precision id (default: %(default)s)")
    p.add_argument("--kv", default=_DEFAULTS.kv, help="KV cache precision id (default: %(default)s)")
    p.add_argument("--gpus", type=_number_option("--gpus", "gpus"), default=_DEFAULTS.gpus,
                   help="GPUs in the tensor-parallel group (default: %(default)s)")
    p.add_argument("--batch", type=_number_option("--batch", "batch"), default=_DEFAULTS.batch,
                   help="sequences decoded together (default: %(default)s)")
    p.add_argument("--prompt", type=_number_option("--prompt", "prompt_tokens"), default=_DEFAULTS.prompt_tokens,
                   help="prompt tokens per sequence (default: %(default)s)")
    p.add_argument("--output", type=_number_option("--output", "output_tokens"), default=_DEFAULTS.output_tokens,
                   help="output tokens per sequence (default: %(default)s)")
    p.add_argument("--mode", default=_DEFAULTS.mode,
                   help="'ideal' (pure roofline at 100%% of peak) or 'realistic' (default: %(default)s)")
    p.add_argument("--usd-per-gpu-hour", type=_number_option("--usd-per-gpu-hour", "usd_per_gpu_hour"), default=_DEFAULTS.usd_per_gpu_hour,
                   help="rental price of one GPU for an hour, US dollars (default: %(default)s)")
    p.add_argument("--json", action="store_true", help="print the report as JSON (SI units)")
    p.set_defaults(run=run_report)


def run_report(args: argparse.Namespace, catalog=None) -> int:
    from engine.compute import report_for, resolve
    from engine.report_text import report_as_text

    catalog = catalog_with_warnings(catalog)
    scenario, gpu, model, weights, kv = resolve(Scenario(
        gpu=args.gpu, model=args.model, weights=args.weights, kv=args.kv, gpus=args.gpus,
        batch=args.batch, prompt_tokens=args.prompt, output_tokens=args.output,
        usd_per_gpu_hour=args.usd_per_gpu_hour, mode=args.mode), catalog)
    report = report_for(scenario, gpu, model, weights, kv)
    if args.json:
        print(json.dumps(report.to_json_dict(), indent=2, allow_nan=False))
    else:
        print(report_as_text(scenario, report, gpu, model, weights, kv))
    return 0


# ----------------------------------------------------------------------------- catalog

def add_catalog_command(commands) -> None:
    p = commands.add_parser("catalog", help="list GPUs, models, precisions and tokenizers with their sources",
                            description="List the catalogue: GPUs, models, precisions and tokenizers, with sources.")
    p.add_argument("--json", action="store_true", help="print the catalogue as JSON")
    p.set_defaults(run=run_catalog)


def run_catalog(args: argparse.Namespace, catalog=None) -> int:
    from engine.catalog import catalog_as_json, catalog_as_text

    catalog = catalog_with_warnings(catalog)
    if args.json:
        print(json.dumps(catalog_as_json(catalog), indent=2, ensure_ascii=False))
    else:
        text = catalog_as_text(catalog)
        print(text, end="" if text.endswith("\n") else "\n")
    return 0


# ----------------------------------------------------------------------------- tokens

def add_tokens_command(commands) -> None:
    p = commands.add_parser("tokens", help="cut text into tokens with a real tokenizer",
                            description="Cut text into tokens with a real tokenizer (vocabularies ship with "
                                        "the app; nothing is downloaded).")
    p.add_argument("text", nargs="?", metavar="TEXT", help="the text to cut (or use --file)")
    p.add_argument("--tokenizer", metavar="ID", help="tokenizer id, see --list (e.g. qwen2.5, llama-3, o200k_base)")
    p.add_argument("--file", metavar="PATH", help="read the text from a UTF-8 file; '-' reads standard input")
    p.add_argument("--list", action="store_true", help="list the tokenizers with their sources")
    p.add_argument("--json", action="store_true", help="print JSON: {tokenizer, count, ids, pieces}")
    p.set_defaults(run=run_tokens)


def run_tokens(args: argparse.Namespace, catalog=None) -> int:
    from engine.tokens import tokenize, tokenizers_as_json, tokenizers_as_text

    catalog_with_warnings(catalog)
    if args.list:
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
    text = args.text if args.file is None else _read_text_file(args.file)
    result = tokenize(args.tokenizer, text)
    if args.json:
        print(json.dumps(result.to_json_dict(), ensure_ascii=False))
    else:
        print(f"{format_count(result.count)} {'token' if result.count == 1 else 'tokens'} ({result.tokenizer})")
        if result.pieces:
            print(" ".join(f"[{_visible(piece)}]" for piece in result.pieces))
    return 0


def _read_text_file(path: str) -> str:
    """The UTF-8 text of ``path`` ('-': standard input), or one sentence saying why it cannot be read."""
    from engine.tokens import MAX_TEXT_BYTES

    shown = "standard input" if path == "-" else repr(path)
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_TEXT_BYTES + 1)
        else:
            with open(path, "rb") as stream:
                data = stream.read(MAX_TEXT_BYTES + 1)
    except FileNotFoundError:
        raise _BadUsage(f"--file {shown}: no such file.") from None
    except IsADirectoryError:
        raise _BadUsage(f"--file {shown} is a folder; give a text file.") from None
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise _BadUsage(f"--file {shown} cannot be read: {reason}.") from None
    if len(data) > MAX_TEXT_BYTES:
        limit = format_count(MAX_TEXT_BYTES)
        raise _BadUsage(f"--file {shown} holds more than {limit} bytes; "
                        f"at most {limit} bytes of text can be cut at once.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise _BadUsage(f"--file {shown} is not UTF-8 text (byte {format_hex_byte(data[error.start])} at offset "
                        f"{format_count(error.start)}); save it as UTF-8.") from None


def _visible(piece: str) -> str:
    """A piece with line breaks and tabs shown as \\n, \\r, \\t so that one token stays on one line."""
    return piece.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")


# ----------------------------------------------------------------------------- entry point

COMMANDS = (add_report_command, add_catalog_command, add_tokens_command)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m engine",
                     description="The physics of LLM inference: memory, roofline, timing and cost.")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    for add in COMMANDS:
        add(commands)
    return parser


def main(argv: list[str] | None = None, catalog=None) -> int:
    """Run one subcommand; 0 on success, 2 with one sentence on stderr for bad input."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = parser.parse_args(_attach_dash_values(argv, parser))
        if not hasattr(args, "run"):
            raise _BadUsage(f"Choose a command: {', '.join(parser._commands())}; "
                            f"see 'python -m engine --help'.")
        return args.run(args, catalog)
    except (InputError, _BadUsage) as error:
        print(_printable(str(error)), file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader went away (``... | head``): nothing more to say, and no traceback.
        # Point stdout at /dev/null so the interpreter's final flush cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _value_options(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string, in the parser and its subcommands, that takes one value."""
    found: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _value_options(sub)
        elif action.option_strings and action.nargs is None:
            found.update(action.option_strings)
    return found


def _attach_dash_values(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """``--prompt -1e5`` -> ``--prompt=-1e5``: argparse would take "-1e5" or "-inf" for an option
    and answer "expected one argument"; attached, the value reaches the type function, whose
    sentence names it. A following word that is itself an option is left alone."""
    takes_value = _value_options(parser)
    known = takes_value | {"--json", "-h", "--help", "--"}
    out: list[str] = []
    for arg in argv:
        if out and out[-1] in takes_value and arg.startswith("-") and arg.split("=")[0] not in known:
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


def _printable(sentence: str) -> str:
    """The sentence on one line: control characters from the command line shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in sentence)
