"""Scene 6's cuts, corpus and pictures without Qt: counts are the engine's, pieces give back the bytes, the corpus
ratios are recomputed from the corpus file, prices are the report's, and bad text is cleaned and said so."""
from __future__ import annotations

import pickle
import threading
from importlib import resources

import pytest

from desktop.scenes.tokens import pictures as stage
from desktop.scenes.tokens.corpus import (
    MAX_PAIRS, app_corpus, corpus_job, parse_parallel, pasted_corpus_job,
)
from desktop.scenes.tokens.cuts import (
    SEED_EXAMPLES, VISIBLE_CHARS, Cancelled, chosen_ids, chunk_ends, clean_text, count_in_chunks, playground_job,
    seed_cuts, tokenizer_ids, visible_prefix,
)
from engine import Scenario, compute_report
from engine.catalog import default_catalog
from engine.token_counts import cost_per_million_sentences
from engine.token_pieces import joined_bytes, tokenized_bytes
from engine.tokens import MAX_TEXT_BYTES, count_tokens

TOKENIZERS = tokenizer_ids()
MIXED = [
    "", "Hello", "Hello, world!", "unbelievable", "你好", "推理加速", "江南忆，最忆是杭州。",
    "Mixed 中英 text, with numbers 12345 and punctuation!?", "  leading and trailing  ", "a\r\n\r\nb\tc",
    "👨‍👩‍👧‍👦 family 🇨🇳 flag " * 3, "مرحبا بالعالم שלום עולם", "NUL\x00inside\x01\x7f", "e\u0301 composed é",
    "\\xe6 a typed backslash escape", "<|endoftext|> is typed text", "ﬁ ligature and Ω", "한국어 텍스트",
]


def text(key, count=None, **values):
    """A stand-in for the language: the key and its values, so states can be checked without Qt."""
    return key + "|" + "|".join(f"{k}={v}" for k, v in sorted(values.items()))


def _long_mixed(lines: int = 4000) -> str:
    corpus = app_corpus().pairs
    return "\n".join(f"{p.zh} {p.en}" if n % 3 else f"  {p.en}\n\n{p.zh}" for n, p in
                     ((n, corpus[n % len(corpus)]) for n in range(lines)))


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_playground_counts_equal_the_engines_and_pieces_give_back_the_bytes(tokenizer):
    for sample in MIXED:
        result = playground_job(sample, (tokenizer,))
        lane = result.lanes[0]
        assert lane.count == count_tokens(tokenizer, sample), sample
        assert not lane.cut
        assert joined_bytes(lane.pieces) == tokenized_bytes(tokenizer, sample), sample


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_a_long_text_counted_in_chunks_equals_the_whole_count(tokenizer):
    long_text = _long_mixed()
    assert len(chunk_ends(long_text, 2048)) > 20
    assert count_in_chunks(tokenizer, long_text, chunk_chars=2048) == count_tokens(tokenizer, long_text)


def test_chunks_cover_the_text_and_a_single_line_stays_whole():
    long_text = _long_mixed(500)
    ends = chunk_ends(long_text, 1000)
    assert ends[-1] == len(long_text) and ends == sorted(set(ends))
    assert chunk_ends("x" * 5000, 1000) == [5000]


def test_a_superseded_count_stops_between_chunks():
    cancelled = threading.Event()
    cancelled.set()
    with pytest.raises(Cancelled):
        count_in_chunks("gpt2", _long_mixed(200), cancelled, chunk_chars=1000)


def test_only_the_beginning_keeps_pieces_and_they_are_its_bytes():
    long_text = _long_mixed(200)
    result = playground_job(long_text, ("qwen2.5", "gpt2"))
    prefix = visible_prefix(long_text)
    assert result.shown_chars == len(prefix) <= VISIBLE_CHARS < result.characters
    for lane in result.lanes:
        assert lane.cut and lane.count == count_tokens(lane.tokenizer, long_text)
        drawn = joined_bytes(lane.pieces)
        assert tokenized_bytes(lane.tokenizer, prefix).startswith(drawn) and len(lane.pieces) < 400


def test_bad_text_is_cleaned_and_said_so():
    lone = "ok \ud800 and \udfff end"
    clean = clean_text(lone)
    assert clean.surrogates == 2 and "\ufffd" in clean.text and clean.text.encode("utf-8")
    played = playground_job(lone, ("llama-3",))
    assert played.lanes[0].count == count_tokens("llama-3", clean.text) and played.surrogates == 2
    assert clean_text("a\x00b\u202e").controls == 2
    big = "汉" * (MAX_TEXT_BYTES // 3 + 10)
    cut = clean_text(big)
    assert len(cut.text.encode("utf-8")) <= MAX_TEXT_BYTES and cut.cut_bytes == len(big.encode()) - len(
        cut.text.encode())
    notes = stage.playground_notes(playground_job("a\x00\ud800b", ("gpt2",)), text)
    assert "note_surrogates" in notes and "note_controls" in notes
    assert "label.empty" in stage.playground_notes(playground_job("", ("gpt2",)), text)


def test_control_and_direction_characters_are_drawn_by_their_code():
    assert stage.visible("a\x00\u202eb", False) == "a<00><E2 80 AE>b"      # their UTF-8 bytes, as byte chips
    assert stage.visible(" x\n", True) == "␣x↵" and stage.visible(" x\n", False) == " x↵"


def seed_job(tokenizers=TOKENIZERS):
    """Every seed example cut by every tokenizer, by (example, tokenizer), as the story gathers them."""
    return {(cut.example, cut.tokenizer): cut for tokenizer in tokenizers for cut in seed_cuts(tokenizer)}


def test_the_seed_examples_are_the_real_cuts_and_differences_are_marked():
    cuts = seed_job()
    for example, _n, _cut in SEED_EXAMPLES:
        for tokenizer in TOKENIZERS:
            assert cuts[(example, tokenizer)].count == count_tokens(tokenizer, example)
    assert all(cuts[("unbelievable", t)].differs_from_seed() for t in TOKENIZERS)     # 2 in the seed, 3-4 real
    assert not cuts[("Hello", "llama-3")].differs_from_seed()
    state = stage.seed_state(cuts, ("qwen2.5", "gpt2"), text, True, False)
    gpt2_tuili = state.rows[4].cells[2]
    assert any(chip.kind == "bytes" and chip.part_of.startswith("⊂") for chip in gpt2_tuili.chips)
    assert "label.differs" in state.rows[4].cells[2].summary          # GPT-2 cuts 推理加速 into 9 tokens


def test_the_app_corpus_has_five_sections_of_parallel_sentences():
    corpus = app_corpus()
    assert len(corpus.pairs) >= 100 and not corpus.skipped_lines
    assert set(corpus.sections) == {"daily", "technology", "business", "news", "poetry"}
    assert all(any("\u4e00" <= c <= "\u9fff" for c in p.zh) and p.en.isascii() for p in corpus.pairs)


def test_the_ratio_chart_equals_the_ratios_recomputed_from_the_corpus_file():
    raw = resources.files("resources.corpus").joinpath("parallel_zh_en.txt").read_text(encoding="utf-8")
    pairs = [line.split("\t") for line in raw.splitlines() if line and not line.startswith("#")]
    counts = corpus_job(app_corpus(), TOKENIZERS)
    state = stage.ratio_state(counts, len(pairs), False, text, TOKENIZERS)
    for bar, tokenizer in zip(state.bars, TOKENIZERS, strict=True):
        zh = sum(count_tokens(tokenizer, z) for z, _e in pairs)
        en = sum(count_tokens(tokenizer, e) for _z, e in pairs)
        assert bar.value == pytest.approx(zh / en, rel=1e-12)
    by_id = {c.tokenizer: c.ratio for c in counts}
    assert by_id["cl100k_base"] > 1.2 and by_id["qwen2.5"] < 1.0      # the seed's 30-50%, and its opposite


def test_parallel_text_reads_pairs_and_counts_what_it_skips():
    parsed = parse_parallel("# section: mine\n你好\tHello\nno tab here\n\t\n空\t \n天气\tWeather\n")
    assert [(p.zh, p.en, p.section) for p in parsed.pairs] == [("你好", "Hello", "mine"), ("天气", "Weather", "mine")]
    assert parsed.skipped_lines == (3, 5)           # a blank line (only a tab) is no pair and no mistake
    many = parse_parallel("一\tone\n" * (MAX_PAIRS + 3))
    assert len(many.pairs) == MAX_PAIRS and many.cut_pairs == 3


def test_a_paste_without_pairs_counts_the_app_corpus_and_says_what_it_read():
    pasted = pasted_corpus_job("just some text\nno tabs", ("gpt2",))
    assert not pasted.own and pasted.counted == app_corpus() and pasted.read.skipped_lines == (1, 2)
    pasted = pasted_corpus_job("你好\tHello", ("gpt2",))
    assert pasted.own and pasted.counts[0].zh_tokens == (count_tokens("gpt2", "你好"),)


def test_prices_and_costs_are_the_reports():
    report = compute_report(Scenario(), default_catalog())
    prices = stage.price_state(report, text, str)
    assert [bar.value for bar in prices.bars] == [report.usd_per_million_input_tokens,
                                                  report.usd_per_million_output_tokens]
    counts = corpus_job(app_corpus(), ("qwen2.5", "cl100k_base"))
    cost = stage.cost_state(counts, ("qwen2.5", "cl100k_base"), report, text)
    price = report.usd_per_million_output_tokens
    assert [bar.value for bar in cost.bars] == [cost_per_million_sentences(v, price) for c in counts
                                                for v in (c.zh_per_pair, c.en_per_pair)]
    chosen = ("qwen2.5", "cl100k_base")
    counted = counts + corpus_job(app_corpus(), ("llama-3",))          # the scenario model's, for the notes
    values = stage.figures(report, counted, seed_job(chosen), len(app_corpus().pairs), chosen)
    assert values["price_ratio"].endswith("×") and stage.PENDING not in values.values()
    assert (values["high"], values["low"]) == ("GPT-4", "Qwen2.5")
    assert values["input_price"] == stage.format_usd(report.usd_per_million_input_tokens)


def test_two_to_five_tokenizers_are_chosen():
    assert chosen_ids(["gpt2"]) == ("qwen2.5", "llama-3", "cl100k_base")
    assert len(chosen_ids(TOKENIZERS)) == 5
    assert chosen_ids(["gpt2", "qwen2.5", "nonsense"]) == ("qwen2.5", "gpt2")


def test_a_pasted_pair_is_cleaned_and_a_corpus_count_stops_when_cancelled():
    read = parse_parallel("推理\ud800\tfast\ud800er\n")
    assert read.pairs and "\ufffd" in read.pairs[0].zh and "\ufffd" in read.pairs[0].en
    assert corpus_job(read, ("gpt2",))[0].zh_total > 0            # a tokenizer reads it
    stop = threading.Event()
    stop.set()
    with pytest.raises(Cancelled):
        corpus_job(app_corpus(), ("gpt2",), stop)


def test_the_cost_of_a_million_sentences_is_tokens_per_sentence_times_the_price_of_a_million():
    assert cost_per_million_sentences(30.0, 2.0) == pytest.approx(60.0)


def test_what_travels_back_to_the_app_is_counts_and_a_beginning_never_the_whole_text():
    big = "推理加速 inference acceleration\n" * 20_000
    held = playground_job(big, ("gpt2",), held=True)
    assert held.held_bytes == len(big.encode("utf-8")) and "label.note_held" in stage.playground_notes(held, text)
    sent = [len(pickle.dumps(playground_job(big * n, ("gpt2",)))) for n in (1, 4)]
    assert abs(sent[1] - sent[0]) < 100          # the pieces of the beginning only: the same size for any length
    assert playground_job(big, ("gpt2",)).held_bytes == 0
    pasted = pasted_corpus_job("你好\tHello\n", ("gpt2",), held=True)
    assert pasted.held_bytes == len("你好\tHello\n".encode("utf-8")) and pasted.tokenizers == ("gpt2",)


def test_scenes_3_and_6_mark_a_space_and_name_a_tokenizer_alike():
    """Issue 24: one space mark (not ␣ in one scene and · in another) and one name per tokenizer on every stage."""
    from desktop.scenes.tokens.cuts import short_name
    from engine.tokens import list_tokenizers
    from widgets.decode_stepper_layout import shown_text
    assert shown_text(" Hello") == stage.visible(" Hello", True)
    assert {short_name(info.id) for info in list_tokenizers()} >= {"GPT-4o", "Llama 3", "Qwen2.5"}
