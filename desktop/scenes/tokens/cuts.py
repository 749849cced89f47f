"""Scene 6's cuts (Qt-free): real tokenizers on the seed's examples and on what a person types.

Seed 1.6: a model reads tokens, not characters; how a text is cut depends on
the tokenizer's training data, so the same meaning costs a different number of
tokens in Chinese and in English. Every count here is the engine's
(``engine.tokens.count_tokens``), every cut its pieces (``engine.token_pieces``).

The slow parts are plain functions that the tokenizer process runs
(``desktop.kit.tokenizer_process``): ``seed_cuts`` (for ``prepared``) and
``playground_job``. A long text is counted in chunks cut where every shipped
tokenizer starts a new token anyway (after a line break, before a letter or a
Chinese character), so the counts equal the engine's on the whole text while
only one chunk's token ids are alive at a time; a superseded job stops between
chunks. Only the pieces of the text's beginning (``VISIBLE_CHARS``) are kept,
for drawing, and only they travel back to the app. The parallel corpus: ``corpus``.
"""
from __future__ import annotations

import re
import threading
from collections.abc import Sequence

from engine.errors import InputError
from engine.frozen import frozen
from engine.token_pieces import TokenPiece, hex_bytes, token_pieces
from engine.tokens import MAX_TEXT_BYTES, count_tokens, list_tokenizers, load, tokenizer_info
from engine.units import format_count
from widgets.token_view_state import SPACE_MARK, Chip

# The seed's table (section 1.6): the text, its token count and its cut as the seed draws them.
SEED_EXAMPLES: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("Hello", 1, ("Hello",)),
    ("Hello, world!", 4, ("Hello", ",", " world", "!")),
    ("unbelievable", 2, ("unbel", "ievable")),
    ("你好", 2, ("你", "好")),
    ("推理加速", 4, ("推", "理", "加", "速")),
)
# Side by side by default: one trained on much Chinese, the scenario model's, the one the seed's 30-50% fits.
DEFAULT_TOKENIZERS = ("qwen2.5", "llama-3", "cl100k_base")
MIN_CHOSEN, MAX_CHOSEN = 2, 5
# The playground keeps the pieces of this many characters at the start of the text (what a stage can show).
VISIBLE_CHARS = 600
# A long text is counted in chunks of about this many characters (one chunk's ids alive at a time).
CHUNK_CHARS = 65_536


# Characters that draw as nothing or move other text (control, format, line and paragraph separators, but not
# tab, line feed or carriage return): counted like any other, shown by their UTF-8 bytes ("<00>", "<E2 80 AE>").
HIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u180e"
                    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
                    "\U000e0001\U000e0020-\U000e007f]")


class Cancelled(Exception):
    """A later job superseded this one: its result would be dropped, so it stops early."""


def tokenizer_ids() -> tuple[str, ...]:
    return tuple(info.id for info in list_tokenizers())


def short_name(tokenizer_id: str) -> str:
    """The tokenizer ``tokenizer_id`` as every stage names it (``TokenizerInfo.short_name``)."""
    return tokenizer_info(tokenizer_id).short_name


def chosen_ids(wanted) -> tuple[str, ...]:
    """``wanted`` as known tokenizer ids in registry order, at most ``MAX_CHOSEN``; fewer than
    ``MIN_CHOSEN`` falls back to the defaults."""
    wanted = set(wanted)
    ids = tuple(t for t in tokenizer_ids() if t in wanted)[:MAX_CHOSEN]
    return ids if len(ids) >= MIN_CHOSEN else DEFAULT_TOKENIZERS


# -- cleaning what was typed or pasted ---------------------------------------------------------------
@frozen
class CleanText:
    """The text the tokenizers read, and what was changed to get it."""
    text: str
    surrogates: int = 0          # unpaired surrogates replaced by U+FFFD (not valid Unicode: no tokenizer reads them)
    cut_bytes: int = 0           # UTF-8 bytes left out past the engine's limit (``MAX_TEXT_BYTES``)
    controls: int = 0            # control and format characters kept (tokenized) but drawn as <XX>


def clean_text(text: str) -> CleanText:
    """``text`` made tokenizable: unpaired surrogates replaced, cut at ``MAX_TEXT_BYTES`` on a character boundary."""
    surrogates = 0
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        surrogates = sum(1 for c in text if 0xD800 <= ord(c) <= 0xDFFF)
        fixed = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
        text, data = fixed, fixed.encode("utf-8")
    cut = 0
    if len(data) > MAX_TEXT_BYTES:
        text = data[:MAX_TEXT_BYTES].decode("utf-8", "ignore")
        cut = len(data) - len(text.encode("utf-8"))
    controls = sum(1 for _ in HIDDEN.finditer(text))
    return CleanText(text, surrogates, cut, controls)


# -- what a token looks like on a chip ------------------------------------------------------------------
VISIBLE_MARKS = str.maketrans({" ": SPACE_MARK, "\n": "↵", "\t": "→", "\r": "␍"})


def visible(text: str, show_whitespace: bool) -> str:
    """A chip's label: hidden characters as their UTF-8 bytes <XX> always, a line break as "↵" always (a chip is one line),
    and spaces and tabs as marks when asked."""
    text = HIDDEN.sub(lambda match: "<" + hex_bytes(match.group().encode("utf-8")) + ">", text)
    if show_whitespace:
        return text.translate(VISIBLE_MARKS)
    return text.replace("\n", "↵").replace("\r", "␍")


def chips_for(pieces: Sequence[TokenPiece], show_whitespace: bool) -> tuple[Chip, ...]:
    """One chip per token. A token holding bytes of a cut character is a ``bytes`` chip: its whole
    characters as text, the cut bytes in hex ("E6 8E"), and the character they belong to after "⊂"."""
    chips = []
    for n, piece in enumerate(pieces):
        labels = [segment.label if segment.is_partial else visible(segment.text, show_whitespace)
                  for segment in piece.segments]
        cut = "".join(dict.fromkeys(segment.part_of for segment in piece.segments if segment.is_partial))
        chips.append(Chip(" ".join(label for label in labels if label), "bytes" if cut else "text",
                          format_count(piece.token_id), n % 2, part_of=f"⊂{cut}" if cut else ""))
    return tuple(chips)


# -- counting a long text in chunks --------------------------------------------------------------------
def _starts_token(char: str) -> bool:
    return char.isascii() and char.isalnum() or "\u4e00" <= char <= "\u9fff"


def _cut_after(text: str, newline: int) -> bool:
    """Whether a chunk may end after the line break at ``newline``: a letter, digit or Chinese character
    follows it and no whitespace comes before it (GPT-2 keeps trailing spaces with the line break at an end)."""
    return (0 < newline < len(text) - 1 and _starts_token(text[newline + 1])
            and not text[newline - 1].isspace())


def chunk_ends(text: str, chunk_chars: int = CHUNK_CHARS) -> list[int]:
    """Where to cut ``text`` so that each chunk is counted on its own with the same total: after a line
    break that follows no whitespace and is followed by an ASCII letter or digit or a Chinese character
    (every shipped tokenizer starts a new token there). The last end is ``len(text)``; a text with no such place is one chunk."""
    ends, start = [], 0
    while len(text) - start > chunk_chars:
        cut = text.rfind("\n", start + 1, start + chunk_chars)
        while cut > start + chunk_chars // 2 and not _cut_after(text, cut):
            cut = text.rfind("\n", start + 1, cut)
        if cut <= start + chunk_chars // 2:                 # none near the target: the next one after it
            cut = text.find("\n", start + chunk_chars)
            while cut != -1 and not _cut_after(text, cut):
                cut = text.find("\n", cut + 1)
            if cut == -1:
                break
        ends.append(cut + 1)
        start = cut + 1
    ends.append(len(text))
    return ends


def count_in_chunks(tokenizer_id: str, text: str, cancelled: threading.Event | None = None,
                    chunk_chars: int = CHUNK_CHARS) -> int:
    """``count_tokens(tokenizer_id, text)``, counted chunk by chunk (``chunk_ends``); stops when ``cancelled``."""
    total, start = 0, 0
    for end in chunk_ends(text, chunk_chars):
        if cancelled is not None and cancelled.is_set():
            raise Cancelled()
        total += count_tokens(tokenizer_id, text[start:end])
        start = end
    return total


# -- the playground: counts of the whole text, pieces of its beginning ------------------------------------
@frozen
class Lane:
    tokenizer: str
    count: int                          # tokens of the whole (cleaned) text
    pieces: tuple[TokenPiece, ...]      # tokens of its first ``shown_chars`` characters
    cut: bool                           # the pieces cover only the beginning of the text
    chips: tuple[tuple[Chip, ...], tuple[Chip, ...]] = ((), ())   # the pieces as chips: spaces plain, marked


@frozen
class PlaygroundResult:
    """What the tokenizers made of the playground's text: counts of all of it, pieces of its beginning, and what
    was cleaned (the text itself stays in the app: a 10 MB paste is not sent back)."""
    characters: int                     # of the cleaned text
    lanes: tuple[Lane, ...]
    shown_chars: int                    # the pieces cover this many characters at the start
    surrogates: int = 0                 # as ``CleanText``
    cut_bytes: int = 0
    controls: int = 0
    held_bytes: int = 0                 # the UTF-8 size of a paste too large for the box (0: the box holds it)


def visible_prefix(text: str, visible_chars: int = VISIBLE_CHARS) -> str:
    """The beginning of ``text`` whose pieces are drawn: up to ``visible_chars``, cut after a space or line
    break where there is one in the last quarter (so the last drawn token is a whole one)."""
    if len(text) <= visible_chars:
        return text
    head = text[:visible_chars]
    cut = max(head.rfind(" "), head.rfind("\n"))
    return head[:cut + 1] if cut >= visible_chars * 3 // 4 else head


def playground_job(text: str, tokenizers, visible_chars: int = VISIBLE_CHARS, held: bool = False,
                   cancelled: threading.Event | None = None) -> PlaygroundResult:
    """Counts of the whole text and pieces of its beginning, for each tokenizer (run in the tokenizer process).
    ``held``: the text is a paste the box does not hold (its size goes into the result, for the note)."""
    clean = clean_text(text)
    prefix = visible_prefix(clean.text, visible_chars)
    cut = len(prefix) < len(clean.text)
    lanes = []
    for tokenizer in tokenizers:
        count = count_in_chunks(tokenizer, clean.text, cancelled)
        pieces = token_pieces(tokenizer, prefix)
        if cut and pieces:
            pieces = pieces[:-1]        # the last token of a cut text may be longer in the whole text
        lanes.append(Lane(tokenizer, count, pieces, cut, (chips_for(pieces, False), chips_for(pieces, True))))
    held_bytes = len(text.encode("utf-8", "surrogatepass")) if held else 0
    return PlaygroundResult(len(clean.text), tuple(lanes), len(prefix), clean.surrogates, clean.cut_bytes,
                            clean.controls, held_bytes)


# -- the seed's examples -------------------------------------------------------------------------------------
@frozen
class SeedCut:
    example: str
    tokenizer: str
    pieces: tuple[TokenPiece, ...]

    @property
    def count(self) -> int:
        return len(self.pieces)

    def differs_from_seed(self) -> bool:
        seed = next(cut for text, _n, cut in SEED_EXAMPLES if text == self.example)
        return tuple(piece.label for piece in self.pieces) != seed


def seed_cuts(tokenizer: str) -> tuple[SeedCut, ...]:
    """The seed's examples, in order, cut by ``tokenizer`` (loads its vocabulary: run in the tokenizer process)."""
    load(tokenizer)
    return tuple(SeedCut(text, tokenizer, token_pieces(tokenizer, text)) for text, _count, _cut in SEED_EXAMPLES)


def safe_job(job, *args, **kwargs):
    """Run ``job``; an ``InputError`` (text the engine refuses) comes back as the value, to be shown inline."""
    try:
        return job(*args, **kwargs)
    except InputError as error:
        return error
