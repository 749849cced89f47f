"""What every ``python -m engine`` command shares: a parser that speaks in one sentence, and the scenario's options.

``CommandParser`` never prints argparse's usage text: a value its type function
refused is that function's sentence, an option without its value says what it
takes, and anything else is one line pointing at ``--help`` (``BadUsage``, from
``engine.cli_input``). ``add_scenario_options`` declares the scenario's flags
(``report``'s, which ``plan`` shares: the GPUs and their layout, the lengths,
the price, the mode and the levers of ``engine.levers.cli_options``) and
``scenario_from`` reads them back. ``printable`` and
``terminal_text`` keep control characters from a command line or a user's
catalogue off the terminal; ``finite`` makes numbers JSON can hold.
"""
from __future__ import annotations

import argparse
import math
import sys
from typing import Callable

from engine.cli_input import BadUsage
from engine.errors import shorten
from engine.levers.cli_options import add_lever_options, lever_fields
from engine.scenario import PRICE_ALLOWED, WHOLE_NUMBER_FIELDS, Scenario, allowed_whole_number

FLAGS = {"--json", "--list", "--disaggregated", "-h", "--help", "--"}      # options that take no value
DEFAULT_SCENARIO = Scenario()


class CommandParser(argparse.ArgumentParser):
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
            raise BadUsage(self.refused[-1])
        sentence = message[:1].upper() + message[1:]
        raise BadUsage(f"{shorten(sentence.rstrip('.'), 200)}; see '{self.prog} --help'.")

    def parse_command(self, argv: list[str]) -> argparse.Namespace:
        """The options of ``argv``, or ``BadUsage`` naming the first one that cannot be used."""
        argv = attach_dash_values(argv, self.value_options)
        for here, after in zip(argv, [*argv[1:], None]):     # an option whose value is missing, read by us
            if here in self.value_options and (after is None or after.split("=")[0] in {*self.value_options, *FLAGS}):
                raise BadUsage(f"{here} needs a value after it: {self.value_options[here]}.")
        args, extra = self.parse_known_args(argv)
        if extra:
            kind = "option" if extra[0].startswith("-") else "word"
            raise BadUsage(f"Unknown {kind} {shorten(repr(extra[0]))} for '{self.prog}'; "
                            f"see '{self.prog} --help'.")
        return args


def number_option(parser: CommandParser, option: str, field: str, allowed: str | None = None,
                   whole: bool | None = None) -> Callable[[str], int | float]:
    """A type function for ``option``: text -> the number it spells, or one sentence naming what is allowed.

    Whole-number fields keep every digit ("99999999999999999999999" stays exact, so
    the range sentence shows it as typed); ``Scenario`` validation judges the range.
    A field that is not the scenario's says what it allows and whether it is whole.
    """
    whole = field in WHOLE_NUMBER_FIELDS if whole is None else whole
    if allowed is None:
        allowed = allowed_whole_number(field) if field in WHOLE_NUMBER_FIELDS else PRICE_ALLOWED

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


def catalog_with_warnings(catalog=None):
    """The catalogue to use (default: built-in plus the user's file), after printing on stderr,
    one line each, every problem found in the user's file, so that a later "Unknown GPU"
    or a missing entry in a listing is explained before it is seen."""
    from engine.catalog import default_catalog

    catalog = default_catalog() if catalog is None else catalog
    for warning in catalog.warnings:
        print(printable(" ".join(warning.split())), file=sys.stderr)
    return catalog


def add_scenario_options(p: CommandParser, batch_help: str = "sequences decoded together (default: %(default)s)",
                         batch_default: int | None = DEFAULT_SCENARIO.batch) -> None:
    """The scenario's options (``report``'s; ``plan`` gives ``--batch`` its own meaning, and its ``--gpus``
    are each replica's)."""
    p.value_option("--gpu", "a GPU id such as h800", default=DEFAULT_SCENARIO.gpu, help="GPU id (default: %(default)s)")
    p.value_option("--model", "a model id such as llama-3.1-70b", default=DEFAULT_SCENARIO.model,
                   help="model id (default: %(default)s)")
    p.value_option("--weights", "a precision id such as fp16", default=DEFAULT_SCENARIO.weights,
                   help="weight precision id (default: %(default)s)")
    p.value_option("--kv", "a precision id such as fp16", default=DEFAULT_SCENARIO.kv,
                   help="KV cache precision id (default: %(default)s)")
    for option, field, default, text in (
            ("--gpus", "gpus", DEFAULT_SCENARIO.gpus,
             "GPUs of the deployment (of each replica, for plan), in nodes of the GPU's node size "
             "(default: %(default)s)"),
            ("--tp", "tp", DEFAULT_SCENARIO.tp, "tensor-parallel degree; 0: the default layout (inside a node)"),
            ("--pp", "pp", DEFAULT_SCENARIO.pp, "pipeline stages; 0: the default layout (across nodes)"),
            ("--ep", "ep", DEFAULT_SCENARIO.ep, "expert-parallel degree of a mixture-of-experts model; 0: the default"),
            ("--batch", "batch", batch_default, batch_help),
            ("--prompt", "prompt_tokens", DEFAULT_SCENARIO.prompt_tokens, "prompt tokens per sequence (default: %(default)s)"),
            ("--output", "output_tokens", DEFAULT_SCENARIO.output_tokens, "output tokens per sequence (default: %(default)s)"),
            ("--usd-per-gpu-hour", "usd_per_gpu_hour", DEFAULT_SCENARIO.usd_per_gpu_hour,
             "rental price of one GPU for an hour, US dollars (default: %(default)s)")):
        allowed = allowed_whole_number(field) if field in WHOLE_NUMBER_FIELDS else PRICE_ALLOWED
        p.value_option(option, allowed, type=number_option(p, option, field), default=default, help=text)
    p.value_option("--mode", "'ideal' or 'realistic'", default=DEFAULT_SCENARIO.mode,
                   help="'ideal' (pure roofline at 100%% of peak) or 'realistic' (default: %(default)s)")
    add_lever_options(p, number_option)


def scenario_from(args: argparse.Namespace) -> Scenario:
    """The scenario the options of ``add_scenario_options`` name (no ``--batch``: the default batch)."""
    return Scenario(gpu=args.gpu, model=args.model, weights=args.weights, kv=args.kv, gpus=args.gpus,
                    tp=args.tp, pp=args.pp, ep=args.ep,
                    batch=DEFAULT_SCENARIO.batch if args.batch is None else args.batch, prompt_tokens=args.prompt,
                    output_tokens=args.output, usd_per_gpu_hour=args.usd_per_gpu_hour, mode=args.mode,
                    **lever_fields(args))


def finite(value):
    """JSON-ready data with every number that is not finite written as null (JSON has no infinity)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(item) for item in value]
    return value


def attach_dash_values(argv: list[str], takes_value) -> list[str]:
    """``--prompt -1e5`` -> ``--prompt=-1e5``: argparse would take "-1e5" or "-inf" for an option
    and give the option no value; attached, the value reaches the type function, whose
    sentence names it. A following word that is itself an option is left alone."""
    known = set(takes_value) | FLAGS
    out: list[str] = []
    for arg in argv:
        if out and out[-1] in takes_value and arg.startswith("-") and arg != "-" and arg.split("=")[0] not in known:
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


def terminal_text(text: str) -> str:
    """Lines for a terminal: names from a user's catalogue cannot carry escape sequences into it."""
    return "\n".join(printable(line) for line in text.split("\n"))


def printable(sentence: str) -> str:
    """The sentence on one line: control characters from the command line shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in sentence)
