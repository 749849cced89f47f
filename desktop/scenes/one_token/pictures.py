"""What "one token at a time" draws for a number of model passes: the cut, the stepper, the bar, the values.

Qt-free. In: the prompt and answer texts as a tokenizer cut them
(``CutRequest``), the engine's report for this very request
(``request_changes``: batch 1, the prompt's tokens, the answer's tokens plus
the end marker), the report for the request stopped after the passes done (the
"step report": the counters and the KV cache so far), the passes done and the
playback speed. Out: the decode stepper's state, the memory bar's state,
caption and note values, and where the two widgets go on the stage. Which
build shows how many passes is the story's (``story.py``).

After n passes exactly n answer tokens are shown (n = A+1: all of them and the
end marker). Counters after n passes are the step report's: GPU time = its
``total_seconds`` (after the end marker: the whole request's), bytes read = its
prefill's bytes + its (n-1) decode steps' (the per-token mean times the steps:
a step's bytes grow linearly with the context, so that is their sum). At batch
1 and a prompt this short the prefill pass reads about what a decode step
reads; the first pass is the prefill, so its own figures are used. The KV
segment and the free memory are that report's too (prompt + n tokens cached).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

from desktop.scenes.memory_bar_model import BarName, memory_bars_state
from engine.frozen import frozen
from engine.token_pieces import TokenPiece, token_pieces
from engine.tokens import tokenizer_for_model, tokenizer_info
from engine.units import format_bytes, format_count, format_flop, format_number, format_seconds
from widgets.decode_stepper_state import Counter, DecodeStepperState, PassRow, TilePart, TokenTile
from widgets.memory_bars_state import MemoryBarsState

Text = Callable[..., str]          # text(key, **values) -> the scene's text in the current language

MISCONCEPTIONS = ("why_decode", "no_plan", "same_computation")
FALLBACK_TOKENIZER = "qwen2.5"
BARS_SHARE = 0.27               # of the stage's width: the memory bar beside the stepper
BARS_MIN_PX = 270
NARROW_STAGE_PX = 900
NARROW_BARS_SHARE = 0.3          # a narrow stage: room for the bar and its labels at the floor


@frozen
class CutRequest:
    """The request as the tokenizer cuts it: prompt and answer cut separately, as a model reads and writes them."""
    tokenizer: str
    prompt: tuple[TokenPiece, ...]
    answer: tuple[TokenPiece, ...]
    prompt_text: str = ""
    answer_text: str = ""

    @property
    def passes(self) -> int:
        """Model passes for the whole answer: one per answer token, one for the end marker."""
        return len(self.answer) + 1

    @property
    def source(self) -> tuple[str, str, str]:
        """(tokenizer, prompt text, answer text): what was cut, to tell whether a cut is still the one wanted."""
        return self.tokenizer, self.prompt_text, self.answer_text


def default_tokenizer(model_id: str) -> str:
    """The tokenizer of the scenario's model, else Qwen's."""
    info = tokenizer_for_model(model_id)
    return info.id if info is not None else FALLBACK_TOKENIZER


def wanted_cut(tokenizer: str, text: Text) -> tuple[str, str, str]:
    """(tokenizer, prompt text, answer text) for the scene's texts in the current language (``CutRequest.source``)."""
    return tokenizer, text("label.prompt_text"), text("label.answer_text")


def cut_request(tokenizer: str, prompt_text: str, answer_text: str, cancelled=None) -> CutRequest | None:
    """Both texts cut by ``tokenizer``: a job for the tokenizer process (the first use of a vocabulary loads it).
    None once ``cancelled`` is set (a later cut took the channel), looked at before each text."""
    pieces = []
    for piece_text in (prompt_text, answer_text):
        if cancelled is not None and cancelled.is_set():
            return None
        pieces.append(token_pieces(tokenizer, piece_text))
    return CutRequest(tokenizer, *pieces, prompt_text, answer_text)


def request_changes(cut: CutRequest, passes: int | None = None) -> dict:
    """The what-if for this request (``passes`` given: the request stopped after that many passes)."""
    return {"batch": 1, "prompt_tokens": max(1, len(cut.prompt)),
            "output_tokens": max(1, cut.passes if passes is None else passes)}


def stage_rects(width: int, height: int) -> tuple[tuple[int, int, int, int], tuple[int, int, int, int]]:
    """Where the stepper and the memory bar go on a stage of ``width`` x ``height`` (x, y, width, height each).
    The bar's labels need ``BARS_MIN_PX``; on a narrow stage the stepper keeps the room (its counters say the
    KV cache's size too)."""
    bars_width = round(width * BARS_SHARE)
    if bars_width < BARS_MIN_PX:
        bars_width = BARS_MIN_PX if width >= NARROW_STAGE_PX else round(width * NARROW_BARS_SHARE)
    return (0, 0, width - bars_width, height), (width - bars_width, 0, bars_width, height)


def bytes_read(step_report, passes: int) -> float:
    """HBM bytes read by the first ``passes`` passes; ``step_report``: the engine's report for the request stopped
    after them (None before the first): its prefill's bytes, then its ``passes - 1`` decode steps'."""
    if passes <= 0 or step_report is None:
        return 0.0
    return step_report.prefill.bytes + (passes - 1) * step_report.decode.bytes_per_token


def gpu_seconds(step_report, passes: int) -> float:
    """GPU time of the first ``passes`` passes: the engine's ``total_seconds`` of the request stopped after them."""
    return 0.0 if passes <= 0 or step_report is None else step_report.total_seconds


def screen_seconds(passes: int, tokens_per_second: float) -> float:
    return passes / tokens_per_second


# -- the widgets' states -----------------------------------------------------------------------------
def _tile(piece: TokenPiece, role: str, text: Text, enters: bool = False) -> TokenTile:
    parts = tuple(TilePart(segment.label, True, text("label.part_of", char=segment.part_of))
                  if segment.is_partial else TilePart(segment.text)
                  for segment in piece.segments)
    return TokenTile(parts, role, enters)


def context_tiles(cut: CutRequest, passes: int, text: Text, show_future: bool = False) -> tuple[TokenTile, ...]:
    """The prompt and the answer tokens after ``passes`` passes (the end marker after the last);
    ``show_future``: the places of the tokens not made yet, as "?" tiles."""
    answer_shown = min(passes, len(cut.answer))
    tiles = []
    for n, piece in enumerate(cut.prompt):
        tiles.append(_tile(piece, "prompt", text, enters=passes == 1))
    for n, piece in enumerate(cut.answer[:answer_shown]):
        tiles.append(_tile(piece, "answer", text, enters=passes >= 2 and n == passes - 2))
    if passes >= cut.passes:
        tiles.append(TokenTile((TilePart(text("label.end_marker")),), "end"))
    elif show_future:
        future = TokenTile((TilePart("?"),), "future")
        tiles.extend([future] * (cut.passes - answer_shown))
    return tuple(tiles)


def counters(cut: CutRequest, step_report, passes: int, tokens_per_second: float, text: Text) -> tuple[Counter, ...]:
    kv_bytes = step_report.kv_bytes if step_report is not None and passes >= 1 else 0.0
    return (
        Counter("step", text("label.counter_step", step=format_count(passes), steps=format_count(cut.passes))),
        Counter("bytes", text("label.counter_bytes", bytes=format_bytes(bytes_read(step_report, passes)))),
        Counter("gpu_time", text("label.counter_gpu_time",
                                 seconds=format_seconds(gpu_seconds(step_report, passes)))),
        Counter("screen_time", text("label.counter_screen_time",
                                    seconds=format_seconds(screen_seconds(passes, tokens_per_second)))),
        Counter("kv", text("label.counter_kv", bytes=format_bytes(kv_bytes))),
    )


def stepper_state(cut: CutRequest, report, name: str, passes: int, tokens_per_second: float, step_report,
                  model_name: str, text: Text) -> DecodeStepperState:
    """The stepper of build ``name`` after ``passes`` passes; ``step_report``: the engine's report for the request
    stopped after them (``request_changes(cut, passes)``; None before the first): the counters and the KV cache
    so far."""
    if name == "same_computation":
        return compare_state(cut, report, model_name, text)
    tiles = context_tiles(cut, passes, text, show_future=name in ("why_decode", "no_plan"))
    produced = len(cut.prompt) + min(passes, cut.passes) - 1 if passes >= 1 else -1
    labels = {
        "context": text("label.context", tokenizer=tokenizer_info(cut.tokenizer).short_name),
        "memory": text("label.memory", weights=format_bytes(report.weights_bytes)),
        "memory_short": text("label.memory_short"),
        "model": text("label.model", model=model_name),
    }
    if passes >= 1:
        step_bytes = report.prefill.bytes if passes == 1 else report.decode.bytes_per_token
        labels["belt"] = text("label.belt", bytes=format_bytes(step_bytes))
        labels["belt_short"] = text("label.belt_short", bytes=format_bytes(step_bytes))
        labels["input"] = (text("label.input_prefill", count=len(cut.prompt)) if passes == 1
                           else text("label.input_decode", token=cut.answer[passes - 2].label))
        made = cut.answer[passes - 1].label if passes <= len(cut.answer) else text("label.end_marker")
        labels["output"] = text("label.output", token=made)
    if name in MISCONCEPTIONS:
        labels["banner"] = text(f"label.banner_{name}")
    return DecodeStepperState(
        picture="pass", tiles=tiles, new_tile=produced, model_busy=name not in MISCONCEPTIONS and passes >= 1,
        counters=counters(cut, step_report, passes, tokens_per_second, text), labels=labels)


def uncut_state(prompt_text: str, label: str) -> DecodeStepperState:
    """The question as one uncut piece of text under ``label`` (what is happening: the vocabulary loading)."""
    return DecodeStepperState(tiles=(TokenTile((TilePart(prompt_text),), "future"),), labels={"context": label})


def _quoted(tile: TokenTile, text: Text) -> TokenTile:
    """An output token in quotes where the language marks a piece of a word so ("fo" is not a word, but a
    token: the start of one); bytes of a cut character are left as they are."""
    if len(tile.parts) != 1 or tile.parts[0].partial:
        return tile
    return replace(tile, parts=(TilePart(text("label.quoted_piece", piece=tile.parts[0].text)),))


def compare_state(cut: CutRequest, report, model_name: str, text: Text) -> DecodeStepperState:
    """Prefill and one decode step side by side: the same model, the same weights read, one token out each."""
    prompt = tuple(_tile(piece, "prompt", text, enters=True) for piece in cut.prompt)
    first = _quoted(_tile(cut.answer[0], "answer", text), text)
    second = _quoted(_tile(cut.answer[1], "answer", text), text) if len(cut.answer) > 1 else \
        TokenTile((TilePart(text("label.end_marker")),), "end")
    prefill, decode = report.prefill, report.decode
    rows = (
        PassRow("prefill", text("label.row_prefill", count=len(cut.prompt)), prompt, first,
                text("label.row_figures", bytes=format_bytes(prefill.bytes), flop=format_flop(prefill.flops),
                     seconds=format_seconds(prefill.seconds))),
        PassRow("decode", text("label.row_decode"), (_tile(cut.answer[0], "answer", text, enters=True),), second,
                text("label.row_figures", bytes=format_bytes(decode.bytes_per_token),
                     flop=format_flop(decode.flops_per_token), seconds=format_seconds(decode.seconds_per_token))),
    )
    return DecodeStepperState(picture="compare", rows=rows,
                              labels={"model": text("label.model", model=model_name),
                                      "banner": text(f"label.banner_{same_computation_phase(report.model)}")})


def same_computation_phase(model) -> str:
    """The comparison's texts: a mixture of experts reads the experts its tokens pick, not the same weights."""
    return "same_computation_experts" if model is not None and model.is_moe else "same_computation"


def memory_state(step_report, report, text: Text) -> MemoryBarsState:
    """One bar for each GPU (tensor parallel: all alike): weights, the KV cache so far, runtime; ``step_report``
    is the engine's report for the context so far (None before the first pass: no KV yet)."""
    def label(kind: str, n_bytes: float) -> str:
        return text(f"label.bar_{kind}", bytes=format_bytes(n_bytes))
    # The step report's own KV cache and free memory (its weights and allowance are the request's); before
    # the first pass the request's bar with no cache yet.
    shown, kv = (step_report, None) if step_report is not None else (report, 0.0)
    return memory_bars_state(shown, label, BarName(text("label.bar_name", count=report.scenario.gpus)),
                             kv_bytes_per_gpu=kv,
                             scale_bytes=max(report.hbm_bytes_per_gpu, report.used_bytes_per_gpu))


def caption_values(cut: CutRequest, report, passes: int, tokens_per_second: float, model_name: str,
                   step_report) -> dict[str, str]:
    """The numbers and tokens the captions and notes use after ``passes`` passes, formatted (``step_report``: as
    for ``stepper_state``)."""
    pieces = cut.answer
    latest = pieces[min(passes, len(pieces)) - 1].label if passes >= 1 else ""
    prefill, decode = report.prefill, report.decode
    return {
        "model": model_name,
        "tokenizer": tokenizer_info(cut.tokenizer).short_name,
        "prompt_tokens": format_count(len(cut.prompt)),
        "answer_tokens": format_count(len(cut.answer)),
        "passes": format_count(cut.passes),
        "step": format_count(passes),
        "token": latest,
        "first_token": pieces[0].label if pieces else "",
        "second_token": pieces[1].label if len(pieces) > 1 else "",
        "weights": format_bytes(report.weights_bytes),
        "prefill_bytes": format_bytes(prefill.bytes),
        "prefill_flop": format_flop(prefill.flops),
        "prefill_seconds": format_seconds(prefill.seconds),
        "ttft": format_seconds(report.ttft_seconds),
        "step_bytes": format_bytes(decode.bytes_per_token),
        "step_flop": format_flop(decode.flops_per_token),
        "tpot": format_seconds(report.tpot_seconds),
        "bytes_so_far": format_bytes(bytes_read(step_report, passes)),
        "gpu_so_far": format_seconds(gpu_seconds(step_report, passes)),
        "screen_so_far": format_seconds(screen_seconds(passes, tokens_per_second)),
        "total_bytes": format_bytes(bytes_read(report, cut.passes)),       # the whole request: the last step
        "total_seconds": format_seconds(report.total_seconds),
        "slowdown": format_number(1.0 / tokens_per_second / report.tpot_seconds) if report.tpot_seconds > 0 else "",
        "kv_per_token": format_bytes(report.kv_bytes_per_token, binary=True),     # the seed's "320 KB" is KiB
        "kv_total": format_bytes(report.kv_bytes),
        "flop_ratio": format_number(prefill.flops / decode.flops_per_token) if decode.flops_per_token else "",
    }
