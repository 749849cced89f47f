"""Tokens: cut text with a real tokenizer and show the pieces.

    from engine.tokens import tokenize, count_tokens
    tokenize("qwen2.5", "推理加速")  # TokenResult(tokenizer='qwen2.5', count=..., ids=(...), pieces=(...))

The tokenizers and where their vocabularies come from are in
``engine.tokenizer_registry``; loading happens in ``engine.tokenizer_vocab``: lazily,
once per process, from files on disk (nothing is downloaded), safe to call from a
worker thread. The first call for a tokenizer takes a few tenths of a second; call
``load(tokenizer_id)`` off the UI thread to have that done early.

Rules:
- Ids are matched case-insensitively; spaces and underscores count as hyphens;
  aliases such as "gpt-4o" or a catalogue model id ("llama-3.1-70b") find their tokenizer.
- The text is cut as ordinary text: "<|endoftext|>" typed by a person is cut into
  ordinary tokens by the tiktoken-based tokenizers; the DeepSeek tokenizer, like its
  Hugging Face original, still recognises its own added tokens such as "<｜end▁of▁sentence｜>".
  No beginning-of-text token is added.
- Qwen normalises text to Unicode NFC first, as its published tokenizer does; decoding
  its ids gives the NFC form of the text. The others give the text back unchanged.
- A piece whose bytes are not whole UTF-8 characters shows them as \\xNN escapes
  (see ``engine.tokenizer_vocab.readable_piece``).
- Bad input (an unknown id, text that is not a string or not valid Unicode, more than
  ``MAX_TEXT_BYTES``) raises ``InputError`` with one sentence.
"""
from __future__ import annotations

import difflib

from engine.errors import InputError, shorten
from engine.frozen import frozen
from engine.tokenizer_registry import TOKENIZERS, TokenizerInfo
from engine.tokenizer_vocab import forget_loaded, vocabulary
from engine.units import format_bytes, format_count

MAX_TEXT_BYTES = 10_000_000          # UTF-8 bytes of text tokenized in one call

__all__ = ["MAX_TEXT_BYTES", "TOKENIZERS", "TokenResult", "TokenizerInfo", "count_tokens", "decode",
           "forget_loaded", "list_tokenizers", "load", "tokenize", "tokenizer_for_model", "tokenizer_info",
           "tokenizers_as_json", "tokenizers_as_text"]


@frozen
class TokenResult:
    tokenizer: str                   # the tokenizer's id
    count: int
    ids: tuple[int, ...]
    pieces: tuple[str, ...]          # the text of each token, in order

    def to_json_dict(self) -> dict:
        """The ``python -m engine tokens --json`` contract: {tokenizer, count, ids, pieces}."""
        return {"tokenizer": self.tokenizer, "count": self.count, "ids": list(self.ids), "pieces": list(self.pieces)}


def list_tokenizers() -> tuple[TokenizerInfo, ...]:
    return TOKENIZERS


def _key(text: str) -> str:
    return "-".join(text.strip().lower().replace("_", " ").split())


_BY_KEY: dict[str, TokenizerInfo] = {}
for _info in TOKENIZERS:
    for _name in (_info.id, *_info.aliases):
        _BY_KEY.setdefault(_key(_name), _info)


def tokenizer_info(tokenizer_id: object) -> TokenizerInfo:
    """The tokenizer with this id or alias; unknown -> InputError naming close matches."""
    known = ", ".join(info.id for info in TOKENIZERS)
    if not isinstance(tokenizer_id, str):
        raise InputError(f"A tokenizer id must be text, got {shorten(repr(tokenizer_id))}. Known tokenizers: {known}.",
                         "tokens.not_text", {"got": tokenizer_id, "known": [info.id for info in TOKENIZERS]})
    found = _BY_KEY.get(_key(tokenizer_id))
    if found is not None:
        return found
    key = _key(tokenizer_id)
    starting = [info.id for info in TOKENIZERS if key and _key(info.id).startswith(key)]
    similar = [_BY_KEY[name].id for name in difflib.get_close_matches(key, list(_BY_KEY), n=3, cutoff=0.6)]
    close = list(dict.fromkeys(starting + similar))[:3]
    hint = f"; close matches: {', '.join(close)}" if close else ""
    raise InputError(f"Unknown tokenizer {shorten(repr(tokenizer_id))}{hint}. Known tokenizers: {known}.", "tokens.unknown",
                     {"got": tokenizer_id, "close": close, "known": [info.id for info in TOKENIZERS]})


def tokenizer_for_model(model_id: str) -> TokenizerInfo | None:
    """The tokenizer of a catalogue model ("qwen2.5-72b" -> qwen2.5), or None if none is shipped."""
    key = _key(model_id) if isinstance(model_id, str) else ""
    for info in TOKENIZERS:
        if key in info.model_ids:
            return info
    return None


def load(tokenizer_id: str) -> TokenizerInfo:
    """Load the vocabulary now (it is otherwise loaded on first use); returns the tokenizer's info."""
    info = tokenizer_info(tokenizer_id)
    vocabulary(info)
    return info


def tokenize(tokenizer_id: str, text: object) -> TokenResult:
    """``text`` cut by the tokenizer: the token ids and the text of each token."""
    info = tokenizer_info(tokenizer_id)
    _check_text(text)
    if not text:
        return TokenResult(info.id, 0, (), ())
    vocab = vocabulary(info)
    ids = vocab.encode(text)
    return TokenResult(info.id, len(ids), tuple(ids), tuple(vocab.pieces(ids)))


def count_tokens(tokenizer_id: str, text: object) -> int:
    """How many tokens ``text`` is under the tokenizer."""
    info = tokenizer_info(tokenizer_id)
    _check_text(text)
    return len(vocabulary(info).encode(text)) if text else 0


def decode(tokenizer_id: str, ids) -> str:
    """The text of a sequence of token ids (a byte sequence cut mid-character shows U+FFFD)."""
    info = tokenizer_info(tokenizer_id)
    vocab = vocabulary(info)
    ids = list(ids)
    bad = next((token_id for token_id in ids
                if isinstance(token_id, bool) or not isinstance(token_id, int) or not 0 <= token_id < vocab.size), None)
    if bad is not None:
        raise InputError(f"Token id {bad!r} is not in tokenizer {info.id}; ids run from 0 to {format_count(vocab.size - 1)}.",
                         "tokens.bad_id", {"got": bad, "tokenizer": info.id, "high": vocab.size - 1})
    return vocab.decode(ids)


def _check_text(text: object) -> None:
    if not isinstance(text, str):
        raise InputError(f"The text to tokenize must be a string, got {type(text).__name__}.",
                         "tokens.text_type", {"got": type(text).__name__})
    if len(text) * 4 <= MAX_TEXT_BYTES:          # cannot be too long: skip measuring
        if text.isascii():
            return
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as error:
        raise InputError(f"The text has an unpaired surrogate {text[error.start]!r} at character {error.start}; "
                         f"only valid Unicode text can be tokenized.", "tokens.surrogate",
                         {"at": error.start}) from None
    if size > MAX_TEXT_BYTES:
        raise InputError(f"The text is {format_bytes(size)}; at most {format_bytes(MAX_TEXT_BYTES)} "
                         f"can be tokenized at once.", "tokens.too_long", {"got": size, "high": MAX_TEXT_BYTES})


# --------------------------------------------------------------------------- listings (no vocabulary is read)

def tokenizers_as_json() -> list[dict]:
    """Every shipped tokenizer with its source, for ``catalog --json`` and ``tokens --list --json``."""
    return [{"id": info.id, "name": info.name, "vocabulary_size": info.vocabulary_size,
             "models": list(info.models), "model_ids": list(info.model_ids), "aliases": list(info.aliases),
             "source": info.source, "licence": info.licence, "sha256": info.sha256}
            for info in TOKENIZERS]


def tokenizers_as_text() -> str:
    """A readable listing: id, name, vocabulary, models, source and licence of every tokenizer."""
    lines = []
    for info in TOKENIZERS:
        lines += [f"  {info.id}: {info.name}, {format_count(info.vocabulary_size)} tokens",
                  f"    models: {', '.join(info.models)}",
                  f"    vocabulary from: {info.source}",
                  f"    licence: {info.licence}"]
    return "\n".join(lines) + "\n"
