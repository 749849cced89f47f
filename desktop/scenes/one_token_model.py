"""Scene 3's model, "one token at a time" (seed 1.3): the request cut into tokens, one model pass per build.

Qt-free. In: the prompt and answer texts, a tokenizer id, the engine's report
for this very request (``request_changes``: batch 1, the prompt's tokens, the
answer's tokens plus the end marker), the report for the context so far (for
the KV cache), the build index and the playback speed. Out: the decode
stepper's state, the memory bar's state, caption and note values.

The builds: ``prompt`` (nothing computed yet), ``prefill`` (pass 1: the whole
prompt in at once, the first token out), ``step_2`` .. ``step_A`` (phase ``step``,
passes 2..A: the newest token in, the next one out), ``end`` (pass A+1: the
end marker), then the seed's three misconceptions, each shown on the stage:
``why_decode`` (prefill gave one token; each further one needs the one before),
``no_plan`` (a pass sees only the tokens so far; the rest exists nowhere yet),
``same_computation`` (prefill and decode: the same model, the same weights read,
one token out). The builds up to ``end`` are indexed by the number of passes
done: after n passes exactly n answer tokens are shown (n = A+1: all of them
and the end marker).

Counters after n passes are the engine's: bytes read = prefill bytes + (n-1) x
decode bytes per token, GPU time = TTFT + (n-1) x TPOT (so after the end marker
they are the request's ``total_seconds``). At batch 1 and a prompt this short
the prefill pass reads about what a decode step reads; the first pass is the
prefill, so its own figures are used. The KV segment is the engine's
``kv_bytes_per_gpu`` for the context so far (prompt + n tokens).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from engine.token_pieces import TokenPiece, token_pieces
from engine.tokens import tokenizer_for_model, tokenizer_info
from engine.units import format_bytes, format_count, format_flop, format_number, format_seconds
from widgets.decode_stepper_state import Counter, DecodeStepperState, PassRow, TilePart, TokenTile
from widgets.memory_bars_state import GpuBar, MemoryBarsState, Segment

Text = Callable[..., str]          # text(key, **values) -> the scene's text in the current language

MISCONCEPTIONS = ("why_decode", "no_plan", "same_computation")
FALLBACK_TOKENIZER = "qwen2.5"
SPEEDS_TOKENS_PER_SECOND = (0.5, 1.0, 2.0, 4.0)
DEFAULT_SPEED = 1.0
NO_PLAN_ANSWER_TOKENS = 3          # the no_plan build shows the model after this many answer tokens (or fewer)


@dataclass(frozen=True)
class CutRequest:
    """The request as the tokenizer cuts it: prompt and answer cut separately, as a model reads and writes them."""
    tokenizer: str
    prompt: tuple[TokenPiece, ...]
    answer: tuple[TokenPiece, ...]

    @property
    def passes(self) -> int:
        """Model passes for the whole answer: one per answer token, one for the end marker."""
        return len(self.answer) + 1


def default_tokenizer(model_id: str) -> str:
    """The tokenizer of the scenario's model, else Qwen's."""
    info = tokenizer_for_model(model_id)
    return info.id if info is not None else FALLBACK_TOKENIZER


def cut_request(tokenizer: str, prompt_text: str, answer_text: str) -> CutRequest:
    """Both texts cut by ``tokenizer`` (the first use of a vocabulary loads it: call from a worker)."""
    return CutRequest(tokenizer, token_pieces(tokenizer, prompt_text), token_pieces(tokenizer, answer_text))


def request_changes(cut: CutRequest, passes: int | None = None) -> dict:
    """The what-if for this request (``passes`` given: the request stopped after that many passes)."""
    return {"batch": 1, "prompt_tokens": max(1, len(cut.prompt)),
            "output_tokens": max(1, cut.passes if passes is None else passes)}


def build_names(cut: CutRequest) -> tuple[str, ...]:
    """One name per build, each its own ("step_2" ... "step_A": pass n), so a build can be named."""
    return ("prompt", "prefill", *(f"step_{n}" for n in range(2, len(cut.answer) + 1)), "end", *MISCONCEPTIONS)


def phase_of(name: str) -> str:
    """The phase (caption and notes) of a build: every decode step shares the "step" texts."""
    return "step" if name.startswith("step_") else name


def passes_at(cut: CutRequest, build: int) -> int:
    """Model passes done at ``build`` (the misconceptions show the pass they talk about)."""
    names = build_names(cut)
    name = names[max(0, min(build, len(names) - 1))]
    if name == "why_decode":
        return 1
    if name == "no_plan":
        return min(NO_PLAN_ANSWER_TOKENS, len(cut.answer))
    if name == "same_computation":
        return cut.passes
    return build


def bytes_read(report, passes: int) -> float:
    """HBM bytes read by ``passes`` passes: the prefill's, then one decode step's each."""
    return 0.0 if passes <= 0 else report.prefill.bytes + (passes - 1) * report.decode.bytes_per_token


def gpu_seconds(report, passes: int) -> float:
    """GPU time of ``passes`` passes: the time to the first token, then one time per output token each."""
    return 0.0 if passes <= 0 else report.ttft_seconds + (passes - 1) * report.tpot_seconds


def screen_seconds(passes: int, tokens_per_second: float) -> float:
    return passes / tokens_per_second


def seconds_text(seconds: float) -> str:
    """A time as the counters show it; nothing yet reads "0 s", not "0 µs"."""
    return format_seconds(seconds) if seconds > 0 else f"{format_number(0)} s"


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


def counters(cut: CutRequest, report, passes: int, tokens_per_second: float, kv_bytes: float,
             text: Text) -> tuple[Counter, ...]:
    return (
        Counter("step", text("label.counter_step", step=format_count(passes), steps=format_count(cut.passes))),
        Counter("bytes", text("label.counter_bytes", bytes=format_bytes(bytes_read(report, passes)))),
        Counter("gpu_time", text("label.counter_gpu_time", seconds=seconds_text(gpu_seconds(report, passes)))),
        Counter("screen_time", text("label.counter_screen_time",
                                    seconds=seconds_text(screen_seconds(passes, tokens_per_second)))),
        Counter("kv", text("label.counter_kv", bytes=format_bytes(kv_bytes))),
    )


def stepper_state(cut: CutRequest, report, build: int, tokens_per_second: float, kv_bytes: float,
                  model_name: str, text: Text) -> DecodeStepperState:
    """The stepper at ``build``; ``kv_bytes``: the KV cache of the context so far, all GPUs."""
    name = build_names(cut)[build]
    passes = passes_at(cut, build)
    if name == "same_computation":
        return compare_state(cut, report, model_name, text)
    tiles = context_tiles(cut, passes, text, show_future=name in ("why_decode", "no_plan"))
    produced = len(cut.prompt) + min(passes, cut.passes) - 1 if passes >= 1 else -1
    labels = {
        "context": text("label.context", tokenizer=tokenizer_info(cut.tokenizer).name),
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
        counters=counters(cut, report, passes, tokens_per_second, kv_bytes, text), labels=labels)


def loading_state(prompt_text: str, text: Text) -> DecodeStepperState:
    """While the vocabulary loads: the question as one uncut piece of text, and what is happening."""
    return DecodeStepperState(tiles=(TokenTile((TilePart(prompt_text),), "future"),),
                              labels={"context": text("control.loading")})


def compare_state(cut: CutRequest, report, model_name: str, text: Text) -> DecodeStepperState:
    """Prefill and one decode step side by side: the same model, the same weights read, one token out each."""
    prompt = tuple(_tile(piece, "prompt", text, enters=True) for piece in cut.prompt)
    first = _tile(cut.answer[0], "answer", text)
    second = _tile(cut.answer[1], "answer", text) if len(cut.answer) > 1 else \
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
                                      "banner": text("label.banner_same_computation")})


def memory_state(step_report, report, text: Text) -> MemoryBarsState:
    """One bar for each GPU (tensor parallel: all alike): weights, the KV cache so far, runtime; ``step_report``
    is the engine's report for the context so far (None before the first pass: no KV yet)."""
    kv = step_report.kv_bytes_per_gpu if step_report is not None else 0.0
    gpus = report.scenario.gpus if report.scenario is not None else 1
    segments = (
        Segment("weights", report.weights_bytes_per_gpu,
                text("label.bar_weights", bytes=format_bytes(report.weights_bytes_per_gpu)),
                format_bytes(report.weights_bytes_per_gpu)),
        Segment("kv", kv, text("label.bar_kv", bytes=format_bytes(kv)), format_bytes(kv)),
        # the runtime allowance is drawn unlabelled: the room beside a thin bar goes to the KV cache's label
        Segment("runtime", report.overhead_bytes_per_gpu),
    )
    free = report.hbm_bytes_per_gpu - report.weights_bytes_per_gpu - kv - report.overhead_bytes_per_gpu
    bar = GpuBar(text("label.bar_name", count=gpus), report.hbm_bytes_per_gpu, segments,
                 free_label=text("label.bar_free", bytes=format_bytes(free)) if free >= 0 else "",
                 over_label=text("label.bar_over", bytes=format_bytes(-free)) if free < 0 else "",
                 capacity_label=format_bytes(report.hbm_bytes_per_gpu))
    return MemoryBarsState(bars=(bar,), scale_bytes=max(report.hbm_bytes_per_gpu, report.used_bytes_per_gpu))


def caption_values(cut: CutRequest, report, build: int, tokens_per_second: float, model_name: str) -> dict[str, str]:
    """The numbers and tokens the captions and notes of ``build`` use, formatted."""
    passes = passes_at(cut, build)
    pieces = cut.answer
    latest = pieces[min(passes, len(pieces)) - 1].label if passes >= 1 else ""
    prefill, decode = report.prefill, report.decode
    return {
        "model": model_name,
        "tokenizer": tokenizer_info(cut.tokenizer).name,
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
        "bytes_so_far": format_bytes(bytes_read(report, passes)),
        "gpu_so_far": seconds_text(gpu_seconds(report, passes)),
        "screen_so_far": seconds_text(screen_seconds(passes, tokens_per_second)),
        "total_bytes": format_bytes(bytes_read(report, cut.passes)),
        "total_seconds": format_seconds(report.total_seconds),
        "slowdown": format_number(1.0 / tokens_per_second / report.tpot_seconds) if report.tpot_seconds > 0 else "",
        "kv_per_token": format_bytes(report.kv_bytes_per_token, binary=True),     # the seed's "320 KB" is KiB
        "kv_total": format_bytes(report.kv_bytes),
        "flop_ratio": format_number(prefill.flops / decode.flops_per_token) if decode.flops_per_token else "",
    }
