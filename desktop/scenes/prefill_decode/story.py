"""The story of "prefill and decode" (seed 1.4): what the stage shows, from the engine's numbers (Qt-free).

In: the shared scenario and its report, the build, and through the kit's
``ask``: reports at a few batches (only in the builds that show them) and the
batch at which decode becomes compute-bound (the engine's
``decode_crossover_batch``). Out: the timeline's state, the table under it,
the phase that picks caption and notes, and the formatted values they use
(each worked out only when a text names it).

Every figure is a report field: prefill block = ``ttft_seconds`` (prefill's
own time), each decode block = ``tpot_seconds`` (the mean step; ``output - 1``
steps follow prefill, whose pass gives the first token), so the blocks add up
to ``total_seconds``; utilisation, bound and ``decode_share`` are the report's;
the price ratio is ``output_to_input_price_ratio``.
"""
from __future__ import annotations

from dataclasses import replace
from functools import cached_property
from typing import Callable

from desktop.kit import questions
from desktop.kit.answers import refused
from desktop.kit.story import Story, Values
from engine.report import Report
from engine.scenario import MAX_BATCH, Scenario
from engine.units import format_bandwidth, format_bytes, format_count, format_flop, format_flops, format_number, \
    format_percent, format_ratio, format_seconds, format_usd
from widgets.request_timeline_state import Cell, TableState, TimelineState, zoom_window

BUILDS = ("request", "prefill", "decode", "share", "batching", "price")
REQUEST, PREFILL, DECODE, SHARE, BATCHING, PRICE = range(len(BUILDS))
# The batches the batching and price builds compare (the scenario's own and the crossover join them).
SWEEP_BATCHES = (1, 8, 64, 256)
Text = Callable[..., str]
# As wide as any figure of its format in a table's column (three significant digits, tabular digits): what the
# columns are sized for, so they keep their widths while the batch is dragged (``TableState.widest``).
WIDEST_PERCENT, WIDEST_SECONDS, WIDEST_RATIO = format_percent(0.00888), format_seconds(0.0888), format_ratio(88.8)


def sweep_batches(batch: int, crossover: int | None) -> tuple[int, ...]:
    """The batches the sweep shows: the fixed ones, the scenario's own and the crossover, in order."""
    extra = {batch} | ({crossover} if crossover is not None else set())
    return tuple(sorted(set(SWEEP_BATCHES) | extra))


def decode_steps(scenario: Scenario) -> int:
    """Decode passes after prefill: prefill's own pass already gives the first output token."""
    return max(0, scenario.output_tokens - 1)


def phase(story: "PrefillDecodeStory") -> str:
    """The build's name, or its variant when this scenario turns the usual story around."""
    name = BUILDS[story.build]
    report = story.report
    if name == "prefill" and report.prefill.bound != "compute":
        return "prefill_memory"
    if name == "decode" and report.decode.bound == "compute":
        return "decode_compute"
    if name == "batching" and story.crossover is None:
        return "batching_never"
    return name


def _bound(text: Text, bound: str) -> str:
    return text(f"label.bound_{bound}")


def _bounds(text: Text) -> tuple[str, str]:
    """Both words a bound's cell may say."""
    return _bound(text, "memory"), _bound(text, "compute")


def _bound_role(bound: str) -> str:
    """The colour of a bound, as the timeline draws it: compute-bound in the compute colour (the prefill's),
    memory-bound in the memory colour (the decode's)."""
    return "compute" if bound == "compute" else "memory"


def strip_reveal(build: int) -> tuple[float, float]:
    """How much of each phase's utilisation strip the build shows, (prefill, decode); the view eases to it."""
    return (1.0 if build >= PREFILL else 0.0, 1.0 if build >= DECODE else 0.0)


def timeline_state(story: "PrefillDecodeStory", text: Text, reveal: tuple[float, float] | None = None) -> TimelineState:
    """The request as the timeline draws it; ``reveal``: the strips' eased fill (default: the build's target)."""
    s, r, build = story.scenario, story.report, story.build
    steps = decode_steps(s)
    labels = {
        "scale": text("label.scale"),
        "start": format_number(0.0),
        "end": text("label.total", total=format_seconds(r.total_seconds)),
        "prefill_block": text("label.prefill_block", ttft=format_seconds(r.ttft_seconds),
                              tokens=format_count(s.prompt_tokens * s.batch), count=s.prompt_tokens * s.batch),
        "decode_block": text("label.decode_block", steps=format_count(steps), count=steps,
                             seconds=format_seconds(r.decode_seconds)),
        "decode_step": text("label.decode_step", tpot=format_seconds(r.tpot_seconds)),
    }
    strips: frozenset[str] = frozenset()
    if build >= PREFILL:
        strips = frozenset({"prefill"})
        labels["prefill_bound"] = text("label.phase_bound", bound=_bound(text, r.prefill.bound),
                                       busy=format_percent(r.prefill.utilisation))
        labels["strip"] = text("label.strip")
    if build >= DECODE:
        strips = frozenset({"prefill", "decode"})
        labels["decode_bound"] = text("label.phase_bound", bound=_bound(text, r.decode.bound),
                                      busy=format_percent(r.decode.utilisation))
    state = TimelineState(
        prefill_seconds=r.ttft_seconds,
        decode_step_seconds=r.tpot_seconds if steps else 0.0,
        decode_steps=steps,
        prefill_utilisation=r.prefill.utilisation,
        decode_utilisation=r.decode.utilisation,
        labels=dict(labels),
        group_text=lambda n: text("label.group", count=n, tokens=format_count(n)),
        token_text=format_count,
        strip_phases=strips,
        strip_reveal=strip_reveal(build) if reveal is None else reveal,
        highlight={PREFILL: "prefill", DECODE: "decode"}.get(build),
        compute_bound=frozenset(p for p, b in (("prefill", r.prefill.bound), ("decode", r.decode.bound))
                                if b == "compute"),
    )
    start, end = zoom_window(state)
    # into the state's own labels before anyone holds it (a state made again cost more than the rest of this)
    state.labels["zoom"] = text("label.zoom", seconds=format_seconds(end)) if start <= 0 else \
        text("label.zoom_cut", start=format_seconds(start), end=format_seconds(end))
    return state


def comparison_table(story: "PrefillDecodeStory", text: Text) -> TableState:
    """The seed's table, computed: tokens per pass, parallel or not, compute in use, bound, time of this request."""
    s, r = story.scenario, story.report
    steps = decode_steps(s)
    header = ("", text("label.prefill"), text("label.decode"))
    rows = (
        (Cell(text("label.row_tokens")),
         Cell(format_count(s.prompt_tokens * s.batch), key="prefill.tokens"),
         Cell(format_count(s.batch), key="decode.tokens")),
        (Cell(text("label.row_parallel")),
         Cell(text("label.parallel_yes"), key="prefill.parallel"),
         Cell(text("label.parallel_no"), key="decode.parallel")),
        (Cell(text("label.row_busy")),
         Cell(format_percent(r.prefill.utilisation), bar=r.prefill.utilisation, key="prefill.busy",
              bar_role=_bound_role(r.prefill.bound)),
         Cell(format_percent(r.decode.utilisation), bar=r.decode.utilisation, key="decode.busy",
              bar_role=_bound_role(r.decode.bound))),
        (Cell(text("label.row_bound")),
         Cell(_bound(text, r.prefill.bound), key="prefill.bound"),
         Cell(_bound(text, r.decode.bound), key="decode.bound")),
        (Cell(text("label.row_time")),
         Cell(format_seconds(r.ttft_seconds), key="prefill.time"),
         Cell(text("label.decode_time", seconds=format_seconds(r.decode_seconds), steps=format_count(steps),
                   tpot=format_seconds(r.tpot_seconds)) if steps else text("label.no_decode"), key="decode.time")),
    )
    hidden = {REQUEST: frozenset({1, 2}), PREFILL: frozenset({2})}.get(story.build, frozenset())
    figure = story.build >= SHARE
    # each phase's column sized for the widest figure of its formats, the decode's for its time at these steps
    widest = (WIDEST_PERCENT, WIDEST_SECONDS) + _bounds(text)
    decode_time = text("label.decode_time", seconds=WIDEST_SECONDS, steps=format_count(steps), tpot=WIDEST_SECONDS)
    return TableState(header, rows, hidden_columns=hidden, widest=((), widest, widest + (decode_time,)),
                      figure_label=text("label.share") if figure else "",
                      figure_value=format_percent(r.decode_share) if figure else "",
                      figure_note=text("label.share_of", total=format_seconds(r.total_seconds)) if figure else "")


def batch_table(story: "PrefillDecodeStory", text: Text) -> TableState:
    """Decode at a few batches: compute in use, time per token, bound; the price build adds output ÷ input."""
    s, crossover = story.scenario, story.crossover
    header = (text("label.batch"), text("label.row_busy"), text("label.tpot"), text("label.row_bound"),
              text("label.price_ratio"))
    rows, highlight, hypothetical, essential = [], None, False, set()
    for batch in sweep_batches(s.batch, crossover):
        result = story.report if batch == s.batch else story.at_batch(batch)
        if result is None or refused(result):
            continue
        if batch == s.batch:
            highlight = len(rows)
        if batch in (s.batch, crossover):
            essential.add(len(rows))
        hypothetical |= not result.fits
        rows.append(_sweep_row(result, batch, text))
    if story.build >= PRICE:
        figure = (text("label.price_figure", batch=format_count(s.batch)),
                  format_ratio(story.report.output_to_input_price_ratio), text("label.price_note"))
    elif crossover is None:
        figure = (text("label.crossover_figure"), text("label.crossover_never_value"),
                  text("label.crossover_never", limit=format_count(MAX_BATCH)))
    else:
        figure = (text("label.crossover_figure"), format_count(crossover),
                  text("label.crossover_fits", sequences=format_count(story.report.max_sequences),
                       count=story.report.max_sequences))
    return TableState(header, tuple(rows), hidden_columns=frozenset() if story.build >= PRICE else frozenset({4}),
                      highlight_row=highlight, figure_label=figure[0], figure_value=figure[1], figure_note=figure[2],
                      footnote=text("label.hypothetical", mark=text("label.mark")) if hypothetical else "",
                      essential_rows=frozenset(essential), drop_order=(3, 2) if story.build >= PRICE else (),
                      widest=((format_count(MAX_BATCH) + text("label.mark"),), (WIDEST_PERCENT,), (WIDEST_SECONDS,),
                              _bounds(text), (WIDEST_RATIO,)),
                      rows_sized_for=len(SWEEP_BATCHES) + 2)       # and the scenario's batch and the crossover


# The sweep's rows by what they show: a dragged batch moves one row, and the fixed batches' rows come from the same
# remembered reports on every step (their figures formatted and cells made once, not on every frame).
_SWEEP_ROWS: dict[tuple, tuple[Report, tuple[Cell, ...]]] = {}
SWEEP_ROWS_KEPT = 32       # (a scenario's sweep is four to six rows)


def _sweep_row(result: Report, batch: int, text: Text) -> tuple[Cell, ...]:
    """One row of the batch sweep: batch (marked when it does not fit), compute in use, time per token, bound,
    output ÷ input price. Kept by the report's identity (the entry holds the report, so no other has its id),
    the batch and the words the language gives it."""
    d = result.decode
    mark, bound = "" if result.fits else text("label.mark"), _bound(text, d.bound)
    key = (id(result), batch, mark, bound)
    found = _SWEEP_ROWS.get(key)
    if found is None:
        if len(_SWEEP_ROWS) >= SWEEP_ROWS_KEPT:
            _SWEEP_ROWS.clear()
        found = _SWEEP_ROWS[key] = (result, (
            Cell(format_count(batch) + mark, key=f"{batch}.batch"),
            Cell(format_percent(d.utilisation), bar=d.utilisation, key=f"{batch}.busy", bar_role=_bound_role(d.bound)),
            Cell(format_seconds(result.tpot_seconds), key=f"{batch}.tpot"),
            Cell(bound, key=f"{batch}.bound"),
            Cell(format_ratio(result.output_to_input_price_ratio), key=f"{batch}.price_ratio")))
    return found[1]


def table_state(story: "PrefillDecodeStory", text: Text) -> TableState:
    return batch_table(story, text) if story.build >= BATCHING else comparison_table(story, text)


def _at(story: "PrefillDecodeStory", batch: int) -> Report | None:
    result = story.report if batch == story.scenario.batch else story.at_batch(batch)
    return None if result is None or refused(result) else result


def caption_values(story: "PrefillDecodeStory") -> Values:
    """The formatted numbers captions and notes use (every one from a report); those of other batches and
    the crossover are asked of the engine only when a text names them."""
    s, r = story.scenario, story.report
    gpu, model, weights = r.gpu, r.model, r.weights_precision
    steps = decode_steps(s)
    values = {
        "gpu": gpu.name, "model": model.name, "precision": weights.name, "gpus": format_count(s.gpus),
        "prompt": format_count(s.prompt_tokens), "output": format_count(s.output_tokens),
        "steps": format_count(steps), "batch": format_count(s.batch),
        "prefill_tokens": format_count(s.prompt_tokens * s.batch),
        "ttft": format_seconds(r.ttft_seconds), "tpot": format_seconds(r.tpot_seconds),
        "decode_time": format_seconds(r.decode_seconds), "total": format_seconds(r.total_seconds),
        "decode_share": format_percent(r.decode_share), "prefill_share": format_percent(1 - r.decode_share),
        "prefill_busy": format_percent(r.prefill.utilisation), "decode_busy": format_percent(r.decode.utilisation),
        "decode_idle": format_percent(1 - r.decode.utilisation),
        "prefill_flop": format_flop(r.prefill.flops), "peak": format_flops(r.peak_flops_per_gpu),
        "bandwidth": format_bandwidth(gpu.memory_bandwidth_bytes_per_second),
        "weights_per_gpu": format_bytes(r.weights_bytes_per_gpu),
        "step_bytes": format_bytes(r.decode.bytes_per_token * s.batch),
        "step_flop": format_flop(r.decode.flops_per_token * s.batch),
        "ridge": format_number(r.ridge_flops_per_byte),
        "decode_intensity": format_number(r.decode.flops_per_token / r.decode.bytes_per_token)
        if r.decode.bytes_per_token else "0",
        "prefill_compute_time": format_seconds(r.prefill.compute_seconds),
        "prefill_memory_time": format_seconds(r.prefill.memory_seconds),
        "decode_compute_time": format_seconds(r.decode.compute_seconds),
        "prefill_allreduce": format_seconds(r.prefill.allreduce_seconds),
        "decode_allreduce": format_seconds(r.allreduce_seconds_per_step),
        "decode_memory_time": format_seconds(r.decode.memory_seconds),
        "price_ratio": format_ratio(r.output_to_input_price_ratio),
        "usd_in": format_usd(r.usd_per_million_input_tokens),
        "usd_out": format_usd(r.usd_per_million_output_tokens),
        "usd_per_gpu_hour": format_usd(s.usd_per_gpu_hour),
        "crossover": lambda: format_count(story.crossover) if story.crossover is not None else "",
        "max_sequences": format_count(r.max_sequences),
        "mode": s.mode,
    }

    def at_batch(batch: int, figure: Callable[[Report], str]) -> Callable[[], str]:
        def made() -> str:
            at = _at(story, batch)
            return figure(at) if at else ""
        return made

    for batch in SWEEP_BATCHES:
        values[f"ratio_{batch}"] = at_batch(batch, lambda at: format_ratio(at.output_to_input_price_ratio))
        values[f"tpot_{batch}"] = at_batch(batch, lambda at: format_seconds(at.tpot_seconds))
        values[f"busy_{batch}"] = at_batch(batch, lambda at: format_percent(at.decode.utilisation))
    return Values(values)


OTHER_MODE = {"realistic": "ideal", "ideal": "realistic"}


def note_values(story: "PrefillDecodeStory") -> Values:
    """The captions' values and, for the notes, the same request in the other mode (the stage shows only the
    scenario's mode), asked of the engine only when a note names them."""
    text = story.text
    other_mode = OTHER_MODE.get(story.scenario.mode, "ideal")
    other_scenario = replace(story.scenario, mode=other_mode)

    def other(figure: Callable[[Report], str]) -> Callable[[], str]:
        def made() -> str:
            result = story.report_for(other_scenario)
            return "–" if refused(result) else figure(result)
        return made

    def other_crossover() -> str:
        crossover = story.crossover_of(other_scenario)
        return format_count(crossover) if crossover is not None \
            else text("label.crossover_none", limit=format_count(MAX_BATCH))

    return caption_values(story).with_values(
        other_mode=text(f"label.mode_{other_mode}"),
        other_total=other(lambda r: format_seconds(r.total_seconds)),
        other_decode_share=other(lambda r: format_percent(r.decode_share)),
        other_decode_busy=other(lambda r: format_percent(r.decode.utilisation)),
        other_price_ratio=other(lambda r: format_ratio(r.output_to_input_price_ratio)),
        other_crossover=other_crossover,
    )


class PrefillDecodeStory(Story):
    """One request's timeline, the phases compared, batching and price, for one set of inputs."""
    builds = BUILDS

    def crossover_of(self, scenario: Scenario) -> int | None:
        """The engine's crossover batch for ``scenario`` (its batch aside); None when there is none or the
        engine refuses the scenario (no crossover to show)."""
        result = self.ask(questions.crossover_batch, replace(scenario, batch=1))
        return None if refused(result) else result

    @cached_property
    def crossover(self) -> int | None:
        return self.crossover_of(self.scenario)

    def at_batch(self, batch: int):
        """The report of the shared scenario at ``batch`` (or its refusal); asked when first needed."""
        return self.report if batch == self.scenario.batch else self.what_if(batch=batch)

    def formulas(self) -> dict:
        """Time per token: the decode column's (its time), then each row's at its batch (the sweep's
        "tpot_seconds.8")."""
        if self.build >= BATCHING:
            found = {}
            for batch in sweep_batches(self.scenario.batch, self.crossover):
                if _at(self, batch) is not None:
                    found.update(self.formula(replace(self.scenario, batch=batch), "tpot_seconds",
                                              figure=f"tpot_seconds.{batch}"))
            return found
        return self.formula(self.scenario, "tpot_seconds") if self.build >= DECODE and decode_steps(self.scenario) \
            else {}

    def phase(self) -> str:
        return phase(self)

    @cached_property
    def _values(self) -> Values:
        return caption_values(self)

    def caption_values(self) -> Values:
        return self._values

    def note_values(self) -> Values:
        return note_values(self)

    def timeline(self, reveal: tuple[float, float] | None = None) -> TimelineState:
        return timeline_state(self, self.text, reveal)

    def table(self) -> TableState | None:
        """The table under the timeline; None in the first build (the request alone)."""
        return table_state(self, self.text) if self.build >= PREFILL else None

    def strip_reveal(self) -> tuple[float, float]:
        return strip_reveal(self.build)
