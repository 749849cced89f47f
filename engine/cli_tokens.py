"""``python -m engine tokens``: cut text into tokens with a real tokenizer (see ``engine.cli``).

    python -m engine tokens --tokenizer ID [--json] (TEXT | --file PATH | --file -)
    python -m engine tokens --list [--json]

Text that is not UTF-8, a file that cannot be read and control characters in
the pieces each get one sentence or an escape, never a traceback or a raw byte
on the terminal.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from engine.cli_parsing import BadUsage, catalog_with_warnings
from engine.config_dir import FileTooBig, NotRegularFile, read_regular_file
from engine.errors import shorten
from engine.units import format_count, format_hex_byte

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
    text = _argument_text(args.text) if args.file is None else _read_text_file(args.file)
    result = tokenize(args.tokenizer, text)
    if args.json:
        print(json.dumps(result.to_json_dict(), ensure_ascii=False))
    else:
        print(f"{format_count(result.count)} {'token' if result.count == 1 else 'tokens'} ({result.tokenizer})")
        if result.pieces:
            print(" ".join(f"[{_visible(piece)}]" for piece in result.pieces))
    return 0


def _argument_text(text: str) -> str:
    """TEXT as typed; bytes that are not UTF-8 (Python keeps them as lone surrogates) are named as bytes."""
    try:
        data = os.fsencode(text)
    except UnicodeEncodeError:          # a lone surrogate passed from Python: the engine names it
        return text
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadUsage(f"TEXT is not UTF-8 text (byte {format_hex_byte(data[error.start])} at offset "
                        f"{format_count(error.start)}); type it in a UTF-8 terminal or use --file.") from None


def _read_text_file(path: str) -> str:
    """The UTF-8 text of ``path`` ('-': standard input), or one sentence saying why it cannot be read."""
    from engine.tokens import MAX_TEXT_BYTES

    shown = "standard input" if path == "-" else shorten(repr(path))
    try:
        if path == "-":
            if sys.stdin is None:            # started with standard input closed (<&-)
                raise BadUsage("--file -: standard input is closed; give the text as TEXT or --file PATH.")
            data = sys.stdin.buffer.read(MAX_TEXT_BYTES + 1)
        else:
            data = read_regular_file(path, MAX_TEXT_BYTES)
    except FileNotFoundError:
        raise BadUsage(f"--file {shown}: no such file.") from None
    except IsADirectoryError:
        raise BadUsage(f"--file {shown} is a folder; give a text file.") from None
    except NotRegularFile as error:
        raise BadUsage(f"--file {shown} is {error.kind}, not a file; give a text file.") from None
    except FileTooBig:
        data = None
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise BadUsage(f"--file {shown} cannot be read: {reason}.") from None
    if data is None or len(data) > MAX_TEXT_BYTES:
        limit = format_count(MAX_TEXT_BYTES)
        raise BadUsage(f"--file {shown} holds more than {limit} bytes; "
                        f"at most {limit} bytes of text can be cut at once.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise BadUsage(f"--file {shown} is not UTF-8 text (byte {format_hex_byte(data[error.start])} at offset "
                        f"{format_count(error.start)}); save it as UTF-8.") from None


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(piece: str) -> str:
    """A piece with line breaks, tabs and every other control character shown escaped (\\n, \\x1b,
    \\u202e), so that one token stays on one line and no pasted text can drive the terminal."""
    return "".join(_ESCAPES.get(c) or (c if c.isprintable() else repr(c)[1:-1]) for c in piece)

