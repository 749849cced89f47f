"""Each token's raw bytes, and an honest way to show them.

    from engine.token_pieces import token_pieces, joined_bytes
    pieces = token_pieces("llama-3", "杭州")
    [p.label for p in pieces]          # ['E6 9D', 'AD 州']
    pieces[0].segments[0].part_of      # '杭': these two bytes are the first 2 of its 3
    joined_bytes(pieces) == "杭州".encode()   # True

Byte-level tokenizers (GPT-2, cl100k, Llama 3, Qwen, DeepSeek) may cut one UTF-8
character into two tokens. Such a token holds bytes that are not text on their
own; showing them as U+FFFD (a replacement box) would hide what happened. Here a
token is split into segments: whole characters stay text, and a run of bytes that
belongs to a cut character is a byte segment shown as hex ("E6 9D") that names
the character it is part of and where in it the bytes lie.

The promise, for every tokenizer and every valid text: the tokens' ``data``
joined is exactly the bytes the tokenizer read (``tokenized_bytes``): the text's
UTF-8 bytes, in NFC for a tokenizer that normalises (Qwen). Tokens come in the
order of ``engine.tokens.tokenize``; no beginning-of-text token is added.

The bytes are read back from the engine's readable pieces (``engine.tokens``,
where a byte that is not part of a whole character is a ``\\xNN`` escape) and
checked against the text, so a literal backslash typed in the text is never
mistaken for an escape. Qt-free; safe to call from a worker thread. Bad input
raises ``InputError`` as ``engine.tokens.tokenize`` does.

Cost: a few microseconds per token on top of tokenizing (about 0.7 s for 740 KB
of mixed Chinese and English under Llama 3, more under GPT-2, which cuts every
Chinese character): call it off the UI thread for long texts. ``pieces_of``
takes a ``TokenResult`` already made, so a text is not cut twice.
"""
from __future__ import annotations

import bisect
import unicodedata
from typing import NamedTuple

from engine.errors import InputError
from engine.tokens import TokenResult, tokenize, tokenizer_info

__all__ = ["PieceSegment", "TokenPiece", "hex_bytes", "joined_bytes", "pieces_of", "token_pieces",
           "tokenized_bytes"]

_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def hex_bytes(data: bytes) -> str:
    """Bytes as a person reads them in a dump: b"\\xe6\\x9d" -> "E6 9D"."""
    return data.hex(" ").upper()


class PieceSegment(NamedTuple):
    """Part of one token: whole characters (``text``), or bytes of one character cut by the tokenizer.

    For a byte segment ``text`` is empty, ``part_of`` is the character the bytes belong to,
    ``first_byte`` where in that character's UTF-8 bytes they start (0-based) and
    ``character_bytes`` how many bytes the whole character has (杭 = E6 9D AD: "E6 9D" is
    first_byte 0 of 3)."""
    data: bytes
    text: str = ""
    part_of: str = ""
    first_byte: int = 0
    character_bytes: int = 0

    @property
    def is_partial(self) -> bool:
        return bool(self.part_of)

    @property
    def label(self) -> str:
        """What to draw: the characters themselves, or the bytes in hex."""
        return hex_bytes(self.data) if self.is_partial else self.text


class TokenPiece(NamedTuple):
    """One token: its id, its raw bytes, where they start in the tokenized bytes, and its segments."""
    token_id: int
    data: bytes
    start_byte: int
    segments: tuple[PieceSegment, ...]

    @property
    def is_whole(self) -> bool:
        """Whether the token holds only whole characters (it reads as text on its own)."""
        return not any(segment.is_partial for segment in self.segments)

    @property
    def text(self) -> str:
        """The whole characters of the token (bytes of cut characters left out)."""
        return "".join(segment.text for segment in self.segments)

    @property
    def label(self) -> str:
        """A one-line display: characters as text, cut bytes in hex, a space between the two kinds."""
        return " ".join(segment.label for segment in self.segments)


def tokenized_bytes(tokenizer_id: str, text: str) -> bytes:
    """The bytes the tokenizer reads for ``text``: UTF-8, after NFC for a tokenizer that normalises."""
    if tokenizer_info(tokenizer_id).nfc:
        text = unicodedata.normalize("NFC", text)
    return text.encode("utf-8")


def token_pieces(tokenizer_id: str, text: object) -> tuple[TokenPiece, ...]:
    """``text`` cut by the tokenizer, each token with its bytes and segments (see the module's promise)."""
    result = tokenize(tokenizer_id, text)
    return pieces_of(result, tokenized_bytes(result.tokenizer, text))


def pieces_of(result: TokenResult, data: bytes) -> tuple[TokenPiece, ...]:
    """The pieces of an existing ``TokenResult`` whose tokens cut ``data`` (from ``tokenized_bytes``)."""
    pieces: list[TokenPiece] = []
    position, size = 0, len(data)
    bounds: list[int] | None = None                   # where each character starts: only for cut characters
    for token_id, readable in zip(result.ids, result.pieces):
        token_data = _bytes_of(readable, data, position, result.tokenizer)
        end = position + len(token_data)
        if _starts_character(data, position) and (end == size or _starts_character(data, end)):
            segments = (PieceSegment(token_data, token_data.decode("utf-8")),)     # whole characters only
        else:
            bounds = bounds if bounds is not None else _character_starts(data)
            segments = _segments(token_data, position, data, bounds)
        pieces.append(TokenPiece(token_id, token_data, position, segments))
        position = end
    if position != size:
        raise InputError(f"Tokenizer {result.tokenizer}'s pieces cover {position} of the text's {size} bytes; "
                         f"the pieces do not belong to this text.", "tokens.pieces_mismatch",
                         {"tokenizer": result.tokenizer})
    return tuple(pieces)


def joined_bytes(pieces) -> bytes:
    """The pieces' bytes, in order: the tokenized bytes again."""
    return b"".join(piece.data for piece in pieces)


def _bytes_of(readable: str, data: bytes, position: int, tokenizer: str) -> bytes:
    """The bytes behind one readable piece, read at ``position`` of ``data``.

    ``\\xNN`` is one raw byte only where ``data`` holds that byte there; otherwise the
    backslash is a character of the text (a literal "\\xe6" typed by a person)."""
    escapes = readable.count("\\x")
    if not escapes:                                 # the usual token: its text is its bytes
        token_data = readable.encode("utf-8", "surrogatepass")
        if data.startswith(token_data, position):
            return token_data
    else:                                           # each \xNN one byte, unless the text itself holds "\x"
        token_data = data[position:position + len(readable.encode("utf-8", "surrogatepass")) - 3 * escapes]
        if token_data.decode("utf-8", "backslashreplace") == readable:
            return token_data
    out = bytearray()
    i = 0
    while i < len(readable):
        at = position + len(out)
        if (readable.startswith("\\x", i) and i + 4 <= len(readable)
                and readable[i + 2] in _HEX_DIGITS and readable[i + 3] in _HEX_DIGITS
                and at < len(data) and data[at] == int(readable[i + 2:i + 4], 16) and data[at] >= 0x80):
            out.append(data[at])
            i += 4
            continue
        out += readable[i].encode("utf-8", "surrogatepass")
        i += 1
    token_data = bytes(out)
    if data[position:position + len(token_data)] != token_data:
        raise InputError(f"Tokenizer {tokenizer}'s piece {readable!r} does not match the text at byte {position}; "
                         f"the pieces do not belong to this text.", "tokens.pieces_mismatch",
                         {"tokenizer": tokenizer, "at": position})
    return token_data


def _starts_character(data: bytes, at: int) -> bool:
    """Whether a character starts at byte ``at`` (UTF-8 continuation bytes are 10xxxxxx)."""
    return data[at] & 0xC0 != 0x80


def _character_starts(data: bytes) -> list[int]:
    """The byte offset where each character of ``data`` (valid UTF-8) starts, and len(data) at the end."""
    starts = [i for i, byte in enumerate(data) if byte & 0xC0 != 0x80]
    starts.append(len(data))
    return starts


def _segments(token_data: bytes, start: int, data: bytes, bounds: list[int]) -> tuple[PieceSegment, ...]:
    """The token cut at character boundaries: whole characters merge into text, a cut one stays bytes."""
    end = start + len(token_data)
    segments: list[PieceSegment] = []
    text_run = bytearray()
    position = start
    while position < end:
        n = bisect.bisect_right(bounds, position) - 1       # the character that holds this byte
        char_start, char_end = bounds[n], bounds[n + 1]
        if char_start >= start and char_end <= end:          # the whole character is in this token
            text_run += data[char_start:char_end]
            position = char_end
            continue
        if text_run:
            segments.append(PieceSegment(bytes(text_run), text=text_run.decode("utf-8")))
            text_run = bytearray()
        cut_end = min(char_end, end)
        segments.append(PieceSegment(data[position:cut_end], part_of=data[char_start:char_end].decode("utf-8"),
                                     first_byte=position - char_start, character_bytes=char_end - char_start))
        position = cut_end
    if text_run:
        segments.append(PieceSegment(bytes(text_run), text=text_run.decode("utf-8")))
    return tuple(segments)
