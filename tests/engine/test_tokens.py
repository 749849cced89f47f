"""engine.tokens: real vocabularies, the seed's examples as they really cut, round trips, bad input, no network."""
import socket
import subprocess
import sys
import threading
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from engine.errors import InputError
from engine.tokenizer_vocab import forget_loaded, is_loaded, vocabulary
from engine.tokens import (MAX_TEXT_BYTES, TOKENIZERS, count_tokens, decode, load, tokenize, tokenizer_for_model,
                           tokenizer_info)

ROOT = Path(__file__).resolve().parents[2]
IDS = [info.id for info in TOKENIZERS]

# The seed's table (section 1.6) is illustrative: it gives Hello 1, "Hello, world!" 4, unbelievable 2
# ["unbel", "ievable"], 你好 2 ["你", "好"], 推理加速 4 ["推", "理", "加", "速"]. The real tokenizers agree on
# the first two; none cuts "unbelievable" in two (GPT-2 even needs four); Qwen, DeepSeek and o200k_base
# know 你好 as one token, and Qwen and DeepSeek know 推理 and 加速 as words.
SEED_EXAMPLES = {
    "qwen2.5": {"Hello": ["Hello"], "Hello, world!": ["Hello", ",", " world", "!"],
                "unbelievable": ["un", "belie", "vable"], "你好": ["你好"], "推理加速": ["推理", "加速"]},
    "llama-3": {"Hello": ["Hello"], "Hello, world!": ["Hello", ",", " world", "!"],
                "unbelievable": ["un", "belie", "vable"], "你好": ["你", "好"], "推理加速": ["推", "理", "加", "速"]},
    "deepseek-v3": {"Hello": ["Hello"], "Hello, world!": ["Hello", ",", " world", "!"],
                    "unbelievable": ["un", "belie", "vable"], "你好": ["你好"], "推理加速": ["推理", "加速"]},
    "o200k_base": {"Hello": ["Hello"], "Hello, world!": ["Hello", ",", " world", "!"],
                   "unbelievable": ["un", "bel", "ievable"], "你好": ["你好"], "推理加速": ["推", "理", "加", "速"]},
    "cl100k_base": {"Hello": ["Hello"], "Hello, world!": ["Hello", ",", " world", "!"],
                    "unbelievable": ["un", "belie", "vable"], "你好": ["你", "好"], "推理加速": ["推", "理", "加", "速"]},
    # GPT-2 cuts every Chinese character into byte pieces: 你 is e4 bd a0, cut as e4 bd + a0.
    "gpt2": {"Hello": ["Hello"], "Hello, world!": ["Hello", ",", " world", "!"],
             "unbelievable": ["un", "bel", "iev", "able"],
             "你好": ["\\xe4\\xbd", "\\xa0", "\\xe5\\xa5", "\\xbd"]},
}
# Token ids anyone can check against the publishers' own tokenizers.
KNOWN_IDS = {"qwen2.5": [9707, 11, 1879, 0], "llama-3": [9906, 11, 1917, 0], "deepseek-v3": [19923, 14, 2058, 3],
             "o200k_base": [13225, 11, 2375, 0], "cl100k_base": [9906, 11, 1917, 0], "gpt2": [15496, 11, 995, 0]}


@pytest.mark.parametrize("tokenizer_id", IDS)
def test_the_seed_examples_as_the_real_tokenizer_cuts_them(tokenizer_id):
    for text, pieces in SEED_EXAMPLES[tokenizer_id].items():
        result = tokenize(tokenizer_id, text)
        assert list(result.pieces) == pieces, text
        assert result.count == len(result.ids) == len(pieces)
    assert list(tokenize(tokenizer_id, "Hello, world!").ids) == KNOWN_IDS[tokenizer_id]


def test_gpt2_needs_nine_tokens_for_four_chinese_characters():
    assert count_tokens("gpt2", "推理加速") == 9


def test_a_character_cut_across_tokens_shows_its_bytes():
    # Llama 3 has 州 but not 杭: 杭 (e6 9d ad) is cut as e6 9d + ad州.
    assert list(tokenize("llama-3", "杭州").pieces) == ["\\xe6\\x9d", "\\xad州"]
    assert list(tokenize("qwen2.5", "杭州").pieces) == ["杭州"]


@pytest.mark.parametrize("tokenizer_id", IDS)
def test_vocabulary_sizes_are_the_loaded_ones(tokenizer_id):
    info = tokenizer_info(tokenizer_id)
    assert vocabulary(info).size == info.vocabulary_size


@pytest.mark.parametrize("tokenizer_id", IDS)
@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=200))
def test_decoding_the_ids_gives_the_text_back(tokenizer_id, text):
    result = tokenize(tokenizer_id, text)
    expected = unicodedata.normalize("NFC", text) if tokenizer_info(tokenizer_id).nfc else text
    assert decode(tokenizer_id, result.ids) == expected
    assert result.count == len(result.ids) == len(result.pieces) == count_tokens(tokenizer_id, text)


@pytest.mark.parametrize("tokenizer_id", IDS)
def test_pieces_join_to_the_text_when_no_character_is_cut(tokenizer_id):
    text = "The KV cache grows with context. KV 缓存随上下文增长。\n\tend"
    result = tokenize(tokenizer_id, text)
    if not any("\\x" in piece for piece in result.pieces):
        assert "".join(result.pieces) == text
    assert decode(tokenizer_id, result.ids) == text


# A small parallel sample (our own sentences, same meaning in both languages).
PARALLEL = [
    ("Decoding is slow because every new token moves all the weights across the memory bus again.",
     "解码很慢，因为每生成一个新词元，都要把全部权重重新搬过一次显存总线。"),
    ("The KV cache stores the keys and values of earlier tokens so they are computed only once.",
     "KV 缓存保存之前词元的键和值，这样它们只需计算一次。"),
    ("Output tokens usually cost two to four times as much as input tokens.",
     "输出词元的价格通常是输入词元的二到四倍。"),
    ("A seventy billion parameter model in sixteen-bit precision needs about one hundred and forty gigabytes.",
     "一个七百亿参数的模型以十六位精度存储，大约需要一百四十吉字节。"),
]


def _total(tokenizer_id, column):
    return sum(count_tokens(tokenizer_id, pair[column]) for pair in PARALLEL)


# Measured (English, Chinese): qwen2.5 68, 79; llama-3 68, 87; deepseek-v3 67, 70; o200k_base 68, 88;
# cl100k_base 68, 119; gpt2 70, 233. Chinese costs more under every one, as the seed says.
@pytest.mark.parametrize("tokenizer_id", IDS)
def test_the_same_meaning_costs_more_tokens_in_chinese(tokenizer_id):
    assert _total(tokenizer_id, 1) > _total(tokenizer_id, 0)


@pytest.mark.parametrize("tokenizer_id", ["qwen2.5", "deepseek-v3"])
def test_chinese_trained_vocabularies_close_the_gap(tokenizer_id):
    # Qwen and DeepSeek carry many Chinese words: Chinese costs them fewer tokens than it costs
    # cl100k_base, and at most 1.2x their English (cl100k_base: 1.75x).
    assert _total(tokenizer_id, 1) < _total("cl100k_base", 1)
    assert _total(tokenizer_id, 1) <= 1.2 * _total(tokenizer_id, 0)


@pytest.mark.parametrize("tokenizer_id", IDS)
def test_empty_text_is_zero_tokens(tokenizer_id):
    result = tokenize(tokenizer_id, "")
    assert (result.count, result.ids, result.pieces) == (0, (), ())
    assert count_tokens(tokenizer_id, "") == 0


def test_ids_and_aliases_find_their_tokenizer():
    assert tokenizer_info("Qwen2.5").id == "qwen2.5"
    assert tokenizer_info("CL100K-BASE").id == "cl100k_base"
    assert tokenizer_info("gpt-4o").id == "o200k_base"
    assert tokenizer_info("llama-3.1-70b").id == "llama-3"
    assert tokenizer_for_model("qwen3-32b").id == "qwen2.5"
    assert tokenizer_for_model("deepseek-v3").id == "deepseek-v3"
    assert tokenizer_for_model("mixtral-8x7b") is None


def test_an_unknown_tokenizer_names_close_matches():
    with pytest.raises(InputError, match=r"Unknown tokenizer 'o200k_bas'; close matches: o200k_base[,.]"):
        tokenize("o200k_bas", "hi")
    with pytest.raises(InputError, match="Known tokenizers: qwen2.5, llama-3"):
        count_tokens("bert", "hi")
    with pytest.raises(InputError, match="must be text"):
        tokenizer_info(None)


def test_bad_text_is_refused_with_one_sentence():
    with pytest.raises(InputError, match="must be a string, got bytes"):
        tokenize("gpt2", b"hello")
    with pytest.raises(InputError, match="unpaired surrogate"):
        tokenize("gpt2", "a\udcff")
    with pytest.raises(InputError, match=r"The text is 10\.1 MB; at most 10 MB"):
        tokenize("gpt2", "x" * (MAX_TEXT_BYTES + 100_000))
    with pytest.raises(InputError, match="at most 10 MB"):
        count_tokens("gpt2", "你" * (MAX_TEXT_BYTES // 3 + 1))     # 3 bytes each in UTF-8
    with pytest.raises(InputError, match="Token id 50256 is not in tokenizer gpt2"):
        decode("gpt2", [15496, 50256])


def test_text_just_under_the_limit_is_accepted():
    text = "abc " * (MAX_TEXT_BYTES // 4)
    assert len(text.encode()) == MAX_TEXT_BYTES and count_tokens("gpt2", text) > 0


@pytest.mark.parametrize("tokenizer_id", IDS)
def test_very_long_runs_do_not_break_the_regex_engine(tokenizer_id):
    # tiktoken's regex engine gives up on a million spaces; the run is cut and still counted.
    text = " " * 1_000_000 + "end"
    result = tokenize(tokenizer_id, text)
    assert decode(tokenizer_id, result.ids) == text


def test_loading_touches_no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a tokenizer tried to use the network")
    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    import tiktoken.load
    monkeypatch.setattr(tiktoken.load, "read_file", refuse)       # tiktoken's downloader
    forget_loaded()
    for info in TOKENIZERS:
        assert not is_loaded(info)
        assert load(info.id) is info and is_loaded(info)
        assert count_tokens(info.id, "推理加速 inference") > 0


def test_first_use_from_many_threads_loads_once():
    forget_loaded()
    barrier = threading.Barrier(4)

    def cut(tokenizer_id):
        barrier.wait()
        return vocabulary(tokenizer_info(tokenizer_id)), tokenize(tokenizer_id, "推理加速 is decode-bound")

    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(cut, ["llama-3"] * 4))
    assert len({id(vocab) for vocab, _ in outcomes}) == 1
    assert len({result for _, result in outcomes}) == 1


def test_importing_and_using_engine_tokens_imports_no_qt():
    script = ("import sys; from engine.tokens import tokenize; tokenize('gpt2', 'hi'); "
              "leaked = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph')]; "
              "assert not leaked, leaked")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_listing_tokenizers_loads_no_vocabulary():
    script = ("import sys; from engine.catalog import catalog_as_json, catalog_as_text, default_catalog; "
              "catalog_as_text(default_catalog()); data = catalog_as_json(default_catalog()); "
              "assert [t['id'] for t in data['tokenizers']][:2] == ['qwen2.5', 'llama-3'], data['tokenizers']; "
              "assert 'tiktoken' not in sys.modules and 'tokenizers' not in sys.modules")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_cutting_long_text_at_line_breaks_changes_no_token():
    # DeepSeek's long text is encoded in pieces cut after a line break (for speed); the ids must be
    # exactly those of encoding the text in one go.
    text = "".join(f"{n}. 第{n}段：推理加速 decode-bound, KV cache {n * 7} GB!\n  \n" for n in range(4000))
    vocab = vocabulary(tokenizer_info("deepseek-v3"))
    assert len(text) > 4 * (1 << 15)
    assert vocab.encode(text) == vocab._tokenizer.encode(text, add_special_tokens=False).ids


def test_refusals_carry_a_code_for_translation():
    with pytest.raises(InputError) as caught:
        tokenize("lama-3", "hi")
    assert caught.value.code == "tokens.unknown" and caught.value.values["close"] == ["llama-3"]
    with pytest.raises(InputError) as caught:
        count_tokens("gpt2", "x" * (MAX_TEXT_BYTES + 1))
    assert caught.value.code == "tokens.too_long" and caught.value.values["got"] == MAX_TEXT_BYTES + 1


def test_a_vocabulary_that_is_not_the_published_one_is_refused(monkeypatch):
    import dataclasses
    import engine.tokenizer_vocab as tokenizer_vocab
    changed = dataclasses.replace(tokenizer_info("gpt2"), id="gpt2-test", sha256="0" * 64)
    with pytest.raises(InputError, match="is not the expected vocabulary") as caught:
        tokenizer_vocab.vocabulary(changed)
    assert caught.value.code == "tokens.unavailable"
    missing = dataclasses.replace(tokenizer_info("qwen2.5"), id="qwen-test", package_module="no_such_package_here")
    with pytest.raises(InputError, match="which is not installed"):
        tokenizer_vocab.vocabulary(missing)


def test_a_tiktoken_file_is_read_as_each_lines_token_bytes_and_rank(monkeypatch):
    import engine.tokenizer_vocab as tokenizer_vocab
    from engine.tokenizer_vocab import _ranks
    data = b"IQ== 0\nIg== 1\n5pyI 7\n"                 # "!", '"', "月"'s three bytes
    assert _ranks(data) == {b"!": 0, b'"': 1, "月".encode(): 7}
    monkeypatch.setattr(tokenizer_vocab, "_RANKS_PER_PIECE", 2)      # read in pieces: the same, none lost
    assert _ranks(data) == {b"!": 0, b'"': 1, "月".encode(): 7}
    with pytest.raises(ValueError, match="one token and its rank per line"):
        _ranks(b"IQ== 0\nIg==\n")
