"""engine.token_pieces: raw bytes per token, joined back exactly; cut characters shown as bytes, never U+FFFD."""
import unicodedata

import pytest
from hypothesis import given, settings, strategies as st

from engine.errors import InputError
from engine.token_pieces import hex_bytes, joined_bytes, pieces_of, token_pieces, tokenized_bytes
from engine.tokens import TOKENIZERS, tokenize

IDS = [info.id for info in TOKENIZERS]
SEED_TEXTS = ("请帮我写一首关于杭州的诗", "江南忆，最忆是杭州", "Write one line about the sea.",
              "a literal \\xe6 backslash, 🙂 and é")


@pytest.mark.parametrize("tokenizer", IDS)
@pytest.mark.parametrize("text", SEED_TEXTS)
def test_pieces_join_to_the_text_bytes(tokenizer, text):
    pieces = token_pieces(tokenizer, text)
    assert joined_bytes(pieces) == text.encode("utf-8")
    assert [piece.token_id for piece in pieces] == list(tokenize(tokenizer, text).ids)
    assert all(piece.data for piece in pieces)
    # starts follow each other without gaps
    assert [piece.start_byte for piece in pieces] == [sum(len(p.data) for p in pieces[:n]) for n in range(len(pieces))]


@pytest.mark.parametrize("tokenizer", IDS)
@pytest.mark.parametrize("text", SEED_TEXTS)
def test_segments_join_to_the_token_and_never_show_a_replacement_box(tokenizer, text):
    for piece in token_pieces(tokenizer, text):
        assert b"".join(segment.data for segment in piece.segments) == piece.data
        assert "\ufffd" not in piece.label
        for segment in piece.segments:
            if segment.is_partial:
                assert segment.text == ""
                whole = segment.part_of.encode("utf-8")
                assert len(whole) == segment.character_bytes > len(segment.data)
                assert whole[segment.first_byte:segment.first_byte + len(segment.data)] == segment.data
            else:
                assert segment.text.encode("utf-8") == segment.data


def test_a_cut_character_shows_its_bytes_and_names_the_character():
    # Llama 3 cuts 杭 (E6 9D AD) into "E6 9D" and "AD" + 州: the seed's 杭州 as it really comes out.
    pieces = token_pieces("llama-3", "杭州")
    assert [piece.label for piece in pieces] == ["E6 9D", "AD 州"]
    first, second = pieces
    assert not first.is_whole and not second.is_whole
    assert first.segments[0].part_of == "杭" and first.segments[0].first_byte == 0
    assert second.segments[0].part_of == "杭" and second.segments[0].first_byte == 2
    assert second.segments[1].text == "州" and second.text == "州"


def test_whole_characters_stay_text():
    pieces = token_pieces("qwen2.5", "江南忆，最忆是杭州")
    assert all(piece.is_whole for piece in pieces)
    assert "".join(piece.text for piece in pieces) == "江南忆，最忆是杭州"


def test_gpt2_cuts_every_chinese_character_in_the_answer():
    pieces = token_pieces("gpt2", "江")
    assert [piece.label for piece in pieces] == ["E6", "B1", "9F"]
    assert [segment.first_byte for piece in pieces for segment in piece.segments] == [0, 1, 2]


def test_a_typed_backslash_escape_is_text_not_a_byte():
    text = "\\xe6"
    for tokenizer in IDS:
        pieces = token_pieces(tokenizer, text)
        assert joined_bytes(pieces) == b"\\xe6"
        assert all(piece.is_whole for piece in pieces)


def test_qwen_reads_nfc():
    decomposed = unicodedata.normalize("NFD", "é")
    assert tokenized_bytes("qwen2.5", decomposed) == "é".encode("utf-8")
    assert joined_bytes(token_pieces("qwen2.5", decomposed)) == "é".encode("utf-8")
    assert joined_bytes(token_pieces("llama-3", decomposed)) == decomposed.encode("utf-8")


def test_hex_bytes():
    assert hex_bytes(b"\xe6\x9d") == "E6 9D"
    assert hex_bytes(b"") == ""


def test_empty_text_has_no_pieces():
    assert token_pieces("llama-3", "") == ()


def test_bad_input_is_one_sentence():
    with pytest.raises(InputError, match="Unknown tokenizer"):
        token_pieces("no-such", "x")
    with pytest.raises(InputError, match="must be a string"):
        token_pieces("llama-3", 5)
    with pytest.raises(InputError, match="do not belong to this text"):
        pieces_of(tokenize("llama-3", "杭州"), "西湖".encode("utf-8"))


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40),
       st.sampled_from(IDS))
def test_any_text_joins_back(text, tokenizer):
    assert joined_bytes(token_pieces(tokenizer, text)) == tokenized_bytes(tokenizer, text)
