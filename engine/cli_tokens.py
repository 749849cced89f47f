"""``python -m engine tokens``: cut text into tokens with a real tokenizer (see ``engine.cli``).

    python -m engine tokens --tokenizer ID [--json] (TEXT | --file PATH | --file -)
    python -m engine tokens --list [--json]

Text that is not UTF-8, a file that cannot be read (``engine.cli_input``) and
control characters in the pieces each get one sentence or an escape, never a
traceback or a raw byte on the terminal; ``--list`` refuses what it would ignore.
"""
from __future__ import annotations

import argparse
import json

from engine.cli_input import BadUsage, argument_text, read_text_file
from engine.cli_parsing import catalog_with_warnings
from engine.units import format_count


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
            raise BadUsage(f"--list lists the tokenizers and takes no {' or '.join(given)}; leave out --list to "
                           f"cut a text.")
        if args.json:
            print(json.dumps(tokenizers_as_json(), indent=2, ensure_ascii=False))
        else:
            print("Tokenizers (every vocabulary ships with the app; nothing is downloaded)")
            print(tokenizers_as_text(), end="")
        return 0
    if args.tokenizer is None:
        raise BadUsage("Name a tokenizer with --tokenizer ID, or list them with --list.")
    if args.text is not None and args.file is not None:
        raise BadUsage("Give the text either as TEXT or with --file, not both.")
    if args.text is None and args.file is None:
        raise BadUsage("Give the text to cut as TEXT, or with --file PATH ('-' for standard input).")
    text = argument_text(args.text) if args.file is None else read_text_file(args.file)
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

