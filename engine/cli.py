"""``python -m engine``: the engine from a terminal.

    python -m engine report --gpu H800 --model llama-3.1-70b --weights fp16 --kv fp16 \\
        --gpus 1 [--tp T --pp P --ep E] --batch 1 --prompt 1000 --output 500 \\
        [--mode ideal|realistic] [--usd-per-gpu-hour 2.0] [lever options] [--json]
    python -m engine catalog [--json]
    python -m engine tokens --tokenizer ID [--json] (TEXT | --file PATH | --file -)
    python -m engine tokens --list [--json]
    python -m engine plan [scenario options] --rate R --ttft-slo S --tpot-slo S \\
        [--prompt-spread CV] [--output-spread CV] [--seed N] [--disaggregated] [--json]
    python -m engine import-model CONFIG.json [--id ID]
    python -m engine probe [--model ID] [--memory-mb N] [--cpu-only] [--json]     (engine.cli_probe)

Each subcommand is one ``add_<name>_command(commands)`` function that declares
its options and sets ``run``, and one ``run_<name>(args, catalog) -> int``
function that does the work and returns the exit status; a new subcommand is
one more pair and one entry in ``COMMANDS`` (``tokens`` and ``plan`` live in
``engine.cli_tokens`` and ``engine.cli_plan``; the shared parser and the scenario's
options, levers included, in ``engine.cli_parsing``). ``catalog`` is None from the
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
import os
import sys

from engine.cli_input import BadUsage
from engine.cli_parsing import CommandParser, add_scenario_options, catalog_with_warnings, finite, printable, \
    scenario_from, terminal_text
from engine.cli_plan import add_plan_command
from engine.cli_probe import add_probe_command
from engine.cli_tokens import add_tokens_command
from engine.errors import InputError, shorten

EXIT_BAD_INPUT = 2
EXIT_CANNOT_WRITE = 1


# ----------------------------------------------------------------------------- report

def add_report_command(commands) -> None:
    p = commands.add_parser("report", help="compute memory, roofline, timing and cost of one scenario",
                            description="Compute memory, roofline, timing and cost of one inference scenario.")
    add_scenario_options(p)
    p.add_argument("--json", action="store_true", help="print the report as JSON (SI units)")
    p.set_defaults(run=run_report)


def run_report(args: argparse.Namespace, catalog=None) -> int:
    from engine.compute import compute_report
    from engine.report_text import report_as_text

    catalog = catalog_with_warnings(catalog)
    report = compute_report(scenario_from(args), catalog)
    if args.json:
        print(json.dumps(finite(report.to_json_dict()), indent=2, allow_nan=False))
    else:
        print(terminal_text(report_as_text(report.scenario, report, report.gpu, report.model,
                                           report.weights_precision, report.kv_precision)))
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
        print(json.dumps(finite(catalog_as_json(catalog)), indent=2, ensure_ascii=False, allow_nan=False))
    else:
        text = catalog_as_text(catalog)
        print(terminal_text(text), end="" if text.endswith("\n") else "\n")
    return 0


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
        raise BadUsage("Name the config.json to import: python -m engine import-model CONFIG.json [--id ID].")
    imported = import_model(args.config, model_id=args.id)
    print(terminal_text(imported.summary()))
    for note in imported.notes:
        print(terminal_text(f"  {note}"))
    return 0


# ----------------------------------------------------------------------------- entry point

COMMANDS = (add_report_command, add_catalog_command, add_tokens_command, add_plan_command, add_import_model_command,
            add_probe_command)


class _Commands:
    """What ``add_<name>_command`` adds its parser to: one ``CommandParser`` per command, listed in the help."""

    def __init__(self, listing):
        self._listing = listing
        self.parsers: dict[str, CommandParser] = {}

    def add_parser(self, name: str, **kwargs) -> CommandParser:
        parser = self._listing.add_parser(name, **kwargs)
        self.parsers[name] = parser
        return parser


def build_parser() -> tuple[CommandParser, _Commands]:
    """The top-level parser (its help lists the commands) and each command's own parser."""
    parser = CommandParser(prog="python -m engine",
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
                raise BadUsage(f"Choose a command: {names}; see 'python -m engine --help'.")
            if argv[0] not in commands.parsers:
                raise BadUsage(f"Unknown command {shorten(repr(argv[0]))}; choose one of: {names}.")
            args = commands.parsers[argv[0]].parse_command(argv[1:])
            code = args.run(args, catalog)
            if code:
                return code
        if sys.stdout is not None:
            sys.stdout.flush()             # a full disk shows here, not in the interpreter's last flush
        return 0
    except (InputError, BadUsage) as error:
        print(printable(str(error)), file=sys.stderr)
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
