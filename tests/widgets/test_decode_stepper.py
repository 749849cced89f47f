"""The decode stepper draws the state it is handed: tiles, cut bytes as hex, the new token's flight, the floor."""
import pytest

from widgets.decode_stepper import TOKEN_APPEARS, DecodeStepper
from widgets.decode_stepper_layout import ELLIPSIS, SPACE_MARK
from widgets.decode_stepper_state import Counter, DecodeStepperState, PassRow, TilePart, TokenTile, answer_tiles_shown
from widgets.theme import THEMES, for_screen

PROMPT = tuple(TokenTile((TilePart(c),), "prompt", enters=False) for c in "请帮我写一首关于")
CUT = (TokenTile((TilePart("E6 9D", True, "（杭）"),), "prompt"),
       TokenTile((TilePart("AD", True, "（杭）"), TilePart("州")), "prompt"))
ANSWER = (TokenTile((TilePart("江"),), "answer", enters=True), TokenTile((TilePart("南"),), "answer"))
LABELS = {"context": "context so far", "memory": "HBM: 141 GB", "model": "Llama\none pass",
          "belt": "this pass reads 139 GB", "input": "in: “江”", "output": "out: “南”"}
COUNTERS = (Counter("step", "pass 2 of 9"), Counter("bytes", "read: 278 GB"), Counter("gpu_time", "GPU: 61 ms"),
            Counter("screen_time", "on screen: 2 s"))


def state(tiles=PROMPT + CUT + ANSWER, new_tile=None, busy=True, **changes):
    new_tile = len(tiles) - 1 if new_tile is None else new_tile
    return DecodeStepperState(tiles=tiles, new_tile=new_tile, model_busy=busy, counters=COUNTERS,
                              labels=dict(LABELS), **changes)


@pytest.fixture
def stepper(qtbot):
    widget = DecodeStepper(for_screen(THEMES["light"], 768))
    qtbot.addWidget(widget)
    widget.resize(900, 560)
    return widget


def drawn(widget):
    widget.grab()
    return widget.drawn_texts()


def test_every_tile_and_label_is_drawn_at_rest(stepper):
    stepper.set_state(state())
    texts = [d.text for d in drawn(stepper)]
    for char in "请帮我写一首关于州江南":
        assert char in texts
    assert "E6 9D" in texts and "AD" in texts and texts.count("（杭）") == 2
    for key in ("context", "memory", "belt", "input", "output"):
        assert any(d.key == key for d in stepper.drawn_texts()), key
    assert {d.key for d in stepper.drawn_texts()} >= {f"counter.{c.key}" for c in COUNTERS}
    assert not any("\ufffd" in text for text in texts)


def test_the_new_token_flies_in_and_is_in_its_place_at_the_end(stepper):
    stepper.set_state(state(), progress=0.0)
    assert "南" not in [d.text for d in drawn(stepper)]          # still inside the model
    stepper.set_progress(TOKEN_APPEARS + 0.2)
    assert "南" not in [d.text for d in drawn(stepper)]          # on its way: not yet in the context
    stepper.set_progress(1.0)
    placed = [d for d in drawn(stepper) if d.text == "南"]
    assert placed and placed[0].key == f"tile.{len(PROMPT + CUT + ANSWER) - 1}"


def test_a_build_without_a_pass_is_at_rest_whatever_the_progress(stepper):
    stepper.set_state(state(busy=False), progress=0.0)
    assert "南" in [d.text for d in drawn(stepper)]


def test_spaces_are_shown_and_hex_keeps_its_space(stepper):
    tiles = (TokenTile((TilePart(" poem"),), "prompt"), TokenTile((TilePart("E6 9D", True, "(杭)"),), "answer"))
    stepper.set_state(state(tiles=tiles, new_tile=-1))
    texts = [d.text for d in drawn(stepper)]
    assert f"{SPACE_MARK}poem" in texts and "E6 9D" in texts


def test_too_many_tokens_leave_out_the_first_behind_an_ellipsis_never_the_newest(stepper):
    many = tuple(TokenTile((TilePart(f"w{n:03d}"),), "prompt") for n in range(300)) + ANSWER
    stepper.set_state(state(tiles=many))
    texts = [d.text for d in drawn(stepper)]
    assert ELLIPSIS in texts and "w000" not in texts
    assert "江" in texts and "南" in texts and "w299" in texts
    floor = stepper._theme.text_floor_px
    assert all(d.px >= floor for d in stepper.drawn_texts())


def test_future_tiles_and_the_seen_frame(stepper):
    future = TokenTile((TilePart("?"),), "future")
    stepper.set_state(state(tiles=PROMPT + ANSWER + (future,) * 4, new_tile=len(PROMPT) + 1, busy=False,
                            ))
    assert [d.text for d in drawn(stepper)].count("?") == 4
    assert answer_tiles_shown(stepper.state) == 2


def test_compare_picture_draws_both_rows(stepper):
    rows = (PassRow("prefill", "Prefill: 8 tokens in", PROMPT, ANSWER[0], "reads 139 GB · 1.51 TFLOP · 31 ms"),
            PassRow("decode", "Decode: 1 token in", ANSWER[:1], ANSWER[1], "reads 139 GB · 139 GFLOP · 30 ms"))
    stepper.set_state(DecodeStepperState(picture="compare", rows=rows,
                                         labels={"model": "Llama\none pass", "banner": "Same model"}))
    keys = {d.key for d in drawn(stepper)}
    assert {"banner", "row0.title", "row1.title", "row0.model", "row1.model", "row0.figures", "row1.figures"} <= keys
    assert any(k.startswith("row0.in.") for k in keys) and any(k.startswith("row1.out.") for k in keys)


@pytest.mark.parametrize("size", [(420, 320), (900, 560), (1800, 1000)])
def test_never_below_the_floor_never_overlapping(stepper, size):
    stepper.resize(*size)
    stepper.set_state(state())
    texts = drawn(stepper)
    floor = stepper._theme.text_floor_px
    for i, a in enumerate(texts):
        assert a.px >= floor and stepper.rect().toRectF().contains(a.rect)
        for b in texts[i + 1:]:
            assert not a.rect.intersects(b.rect.adjusted(0.5, 0.5, -0.5, -0.5)), (a, b)


def test_progress_is_clamped(stepper):
    stepper.set_state(state(), progress=5.0)
    assert stepper.progress == 1.0
    stepper.set_progress(-1.0)
    assert stepper.progress == 0.0
