"""What the command line hands the engine as text: a TEXT argument or a file, read or refused in one sentence.

``BadUsage`` is the CLI's refusal of what was typed (``engine.cli`` prints its one
sentence and exits 2); ``argument_text`` and ``read_text_file`` turn the ``tokens``
command's TEXT or ``--file`` into a string, or into that one sentence.
"""
from __future__ import annotations

import os
import sys

from engine.config_dir import FileTooBig, NotRegularFile, read_regular_file
from engine.errors import shorten
from engine.units import format_count, format_hex_byte


class BadUsage(Exception):
    """argparse could not read the command line; the message is one sentence."""


def argument_text(text: str) -> str:
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


def read_text_file(path: str) -> str:
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
