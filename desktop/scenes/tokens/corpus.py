"""Scene 6's parallel text (Qt-free): Chinese and English with the same meaning, counted by every tokenizer.

The app's corpus is ``resources/corpus/parallel_zh_en.txt`` (105 pairs in five
sections; its README says how it was written). A person may paste their own:
one pair a line, the Chinese, a tab, the English; lines starting with ``#`` are
comments and ``# section: NAME`` names the pairs after it. A line without a tab,
or with an empty side, is skipped and counted, so the scene can say so.

The ratio of a tokenizer is the tokens of all Chinese sentences over the tokens
of all English sentences (a sum, so a long pair weighs more than a short one, as
it does on a bill). The cost of the same content is that many tokens at the
report's price of a million output tokens (``engine.token_counts.cost_per_million_sentences``).

A pasted side is cleaned as the playground's text is (``cuts.clean_text``:
an unpaired surrogate becomes U+FFFD), so no tokenizer is handed text it cannot
encode. Counting runs in the tokenizer process and stops between pairs when its
``cancelled`` is set (a later count superseded it).
"""
from __future__ import annotations

import threading
from functools import lru_cache
from importlib import resources

from .cuts import Cancelled, clean_text
from engine.frozen import frozen
from engine.token_counts import token_ratio, tokens_per_sentence
from engine.tokens import count_tokens, load, tokenizer_for_model

CORPUS_FILE = "parallel_zh_en.txt"
SECTION_PREFIX = "# section:"
# User text: at most this many pairs are counted (a bigger paste is cut, and the scene says so).
MAX_PAIRS = 5_000


@frozen
class Pair:
    zh: str
    en: str
    section: str = ""


@frozen
class ParallelText:
    pairs: tuple[Pair, ...]
    skipped_lines: tuple[int, ...] = ()     # 1-based numbers of lines that are not a pair
    cut_pairs: int = 0                      # pairs past ``MAX_PAIRS``, not counted

    @property
    def sections(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(pair.section for pair in self.pairs if pair.section))


def parse_parallel(text: str) -> ParallelText:
    """Pairs from tab-separated lines (module docstring); never raises on what a person pastes."""
    pairs: list[Pair] = []
    skipped: list[int] = []
    section = ""
    cut = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip("\r\n")
        if not line.strip():
            continue
        if line.startswith("#"):
            if line.lower().startswith(SECTION_PREFIX):
                section = line[len(SECTION_PREFIX):].strip()
            continue
        zh, tab, en = line.partition("\t")
        zh, en = clean_text(zh).text.strip(), clean_text(en).text.strip()
        if not tab or not zh or not en:
            skipped.append(number)
            continue
        if len(pairs) >= MAX_PAIRS:
            cut += 1
            continue
        pairs.append(Pair(zh, en, section))
    return ParallelText(tuple(pairs), tuple(skipped), cut)


@lru_cache(maxsize=1)
def app_corpus() -> ParallelText:
    """The corpus shipped with the app."""
    data = resources.files("resources.corpus").joinpath(CORPUS_FILE).read_text(encoding="utf-8")
    return parse_parallel(data)


@frozen
class CorpusCounts:
    """One tokenizer's tokens for each pair, in Chinese and in English."""
    tokenizer: str
    zh_tokens: tuple[int, ...]
    en_tokens: tuple[int, ...]

    @property
    def zh_total(self) -> int:
        return sum(self.zh_tokens)

    @property
    def en_total(self) -> int:
        return sum(self.en_tokens)

    @property
    def ratio(self) -> float:
        """Chinese tokens per English token for the same meaning (0 when there is no English)."""
        return token_ratio(self.zh_total, self.en_total)

    @property
    def zh_per_pair(self) -> float:
        return tokens_per_sentence(self.zh_total, len(self.zh_tokens))

    @property
    def en_per_pair(self) -> float:
        return tokens_per_sentence(self.en_total, len(self.en_tokens))


def count_pairs(tokenizer: str, parallel: ParallelText, cancelled: threading.Event | None = None) -> CorpusCounts:
    """Every pair counted by the engine (``engine.tokens.count_tokens``); stops when ``cancelled`` is set."""
    zh, en = [], []
    for pair in parallel.pairs:
        if cancelled is not None and cancelled.is_set():
            raise Cancelled()
        zh.append(count_tokens(tokenizer, pair.zh))
        en.append(count_tokens(tokenizer, pair.en))
    return CorpusCounts(tokenizer, tuple(zh), tuple(en))


def corpus_job(parallel: ParallelText, tokenizers, cancelled: threading.Event | None = None) -> tuple[CorpusCounts, ...]:
    """Every tokenizer's counts of ``parallel`` (loads vocabularies: run in the tokenizer process)."""
    out = []
    for tokenizer in tokenizers:
        if cancelled is not None and cancelled.is_set():
            raise Cancelled()
        load(tokenizer)
        out.append(count_pairs(tokenizer, parallel, cancelled))
    return tuple(out)


@frozen
class PastedCorpus:
    """What a person's parallel text gave: the pairs read (and lines skipped), and the counts of those pairs,
    or of the app's corpus when there was not a single pair."""
    read: ParallelText
    counted: ParallelText
    counts: tuple[CorpusCounts, ...]
    held_bytes: int = 0              # the UTF-8 size of a paste too large for the box (0: the box holds it)

    @property
    def own(self) -> bool:
        return bool(self.read.pairs)

    @property
    def tokenizers(self) -> tuple[str, ...]:
        return tuple(c.tokenizer for c in self.counts)


def pasted_corpus_job(text: str, tokenizers, held: bool = False,
                      cancelled: threading.Event | None = None) -> PastedCorpus:
    """A person's parallel text read and counted (in the tokenizer process: a large paste is parsed there)."""
    own = parse_parallel(text)
    counted = own if own.pairs else app_corpus()
    held_bytes = len(text.encode("utf-8", "surrogatepass")) if held else 0
    return PastedCorpus(own, counted, corpus_job(counted, tokenizers, cancelled), held_bytes)


def counted_tokenizers(chosen: tuple[str, ...], model: str) -> tuple[str, ...]:
    """The tokenizers the corpus is counted with: the chosen ones and the scenario model's (for the notes)."""
    mine = tokenizer_for_model(model)
    return chosen + ((mine.id,) if mine is not None and mine.id not in chosen else ())

