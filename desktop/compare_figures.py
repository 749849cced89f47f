"""The key figures of pinned scenarios, side by side (Scenario ▸ Compare): what the table and bars show. Qt-free.

For 2 to 4 pinned scenarios: whether it fits, first-token time, time per
token, tokens per second, the price of input and output tokens, KV cache per
token, the longest context a sequence can reach, and the worker's idle share
in decode. Every number is the engine's report (tokens per second and the idle
share through ``engine.formulas``, so a formula card and the comparison agree);
every text is ``engine.units``'s. A scenario that does not fit its GPUs has its
times and prices marked hypothetical, as on the stage.
"""
from __future__ import annotations

from typing import Callable

from desktop.kit.answers import refused
from engine import InputError, Report, Scenario
from engine.formulas import formula
from engine.frozen import frozen
from engine.units import format_bytes, format_count, format_percent, format_seconds, format_tokens_per_second, \
    format_usd

MAX_PINS = 4
MIN_COMPARED = 2
# figure -> (how its value is read from a report, its text, which way is better, whether it is a time or price)
FIGURES: dict[str, tuple[Callable[[Report], float], Callable[[float], str], str, bool]] = {
    "fits": (lambda r: 1.0 if r.fits else 0.0, lambda v: "", "higher", False),
    "ttft_seconds": (lambda r: r.ttft_seconds, format_seconds, "lower", True),
    "tpot_seconds": (lambda r: r.tpot_seconds, format_seconds, "lower", True),
    "tokens_per_second": (lambda r: formula(r, "tokens_per_second").value, format_tokens_per_second, "higher", True),
    "usd_per_million_input_tokens": (lambda r: r.usd_per_million_input_tokens, format_usd, "lower", True),
    "usd_per_million_output_tokens": (lambda r: r.usd_per_million_output_tokens, format_usd, "lower", True),
    "kv_bytes_per_token": (lambda r: r.kv_bytes_per_token, lambda v: format_bytes(v, binary=True), "lower", False),
    "longest_context_tokens": (lambda r: longest_context(r)[0], format_count, "higher", False),
    "idle_share": (lambda r: formula(r, "idle_share").value, format_percent, "lower", False),
}
BARS = tuple(key for key in FIGURES if key != "fits")      # a yes or no is a word, not a bar

Text = Callable[..., str]       # Language.text


@frozen
class Cell:
    """One figure of one pinned scenario."""
    value: float
    text: str
    hypothetical: bool = False   # a time or price of a scenario that does not fit


@frozen
class Column:
    """One pinned scenario: its label and its figures (None: the engine refuses it, ``refusal`` says why)."""
    label: str
    cells: dict[str, Cell] | None
    refusal: InputError | None = None


def longest_context(report: Report) -> tuple[int, bool]:
    """The longest context a sequence can reach at this batch, never above the model's own maximum, and whether
    the model's maximum is what stops it."""
    maximum = report.model.max_context_tokens if report.model is not None else 0
    if maximum and report.max_context_tokens >= maximum:
        return maximum, True
    return report.max_context_tokens, False


def pin_label(text: Text, report: Report) -> str:
    """"Llama 3.1 70B · FP16 · 2 × NVIDIA H800 SXM5 · batch 1": what a column is headed by."""
    s = report.scenario
    precision = report.weights_precision.name if s.weights == s.kv else \
        text("learner.compare.precision", weights=report.weights_precision.name, kv=report.kv_precision.name)
    return text("learner.compare.pin", model=report.model.name, precision=precision, gpus=format_count(s.gpus),
                gpu=report.gpu.name, batch=format_count(s.batch))


def column(text: Text, scenario: Scenario, result: Report | InputError) -> Column:
    """The figures of ``scenario`` from its report ``result`` (or its refusal)."""
    if refused(result):
        return Column(f"{scenario.model} · {scenario.gpus} × {scenario.gpu}", None, result)
    cells = {}
    for key, (read, shown, _, timed) in FIGURES.items():
        value = read(result)
        if key == "fits":
            words = text("learner.compare.fits_yes" if result.fits else "learner.compare.fits_no")
            cells[key] = Cell(value, words)
        elif key == "longest_context_tokens":
            tokens, capped = longest_context(result)
            words = text("learner.compare.model_maximum", tokens=format_count(tokens)) if capped else shown(value)
            cells[key] = Cell(value, words)
        else:
            cells[key] = Cell(value, shown(value), timed and not result.fits)
    return Column(pin_label(text, result), cells)


def bar_shares(columns: list[Column], key: str) -> list[float | None]:
    """Each column's bar for figure ``key`` as a share of the longest (None: refused)."""
    values = [c.cells[key].value if c.cells is not None else None for c in columns]
    largest = max((v for v in values if v is not None), default=0.0)
    return [None if v is None else (v / largest if largest > 0 else 0.0) for v in values]


def best(columns: list[Column], key: str) -> int | None:
    """The column whose figure ``key`` is best (lowest time, highest rate), None when all are equal or refused."""
    values = [(c.cells[key].value, i) for i, c in enumerate(columns) if c.cells is not None]
    if len({v for v, _ in values}) < 2:
        return None
    pick = min if FIGURES[key][2] == "lower" else max
    return pick(values)[1]
