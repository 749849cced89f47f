"""Scene 6's pictures (Qt-free): the widget states and the caption and note values, from counts and a report.

In: results of the ``cuts`` / ``corpus`` / ``prepared`` jobs, the shared
scenario's ``Report``, the scene's toggles and a ``text(key, **values)`` callable
(``resources/text/tokens.toml``). Out: ``TokenViewState`` / ``RatioBarsState``
values and formatted figures (``engine.units``). No physics: prices are the
report's fields; counts are the engine's.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from engine import InputError, Report
from engine.token_counts import characters_per_token, cost_per_million_sentences
from engine.tokens import tokenizer_for_model
from engine.units import format_bytes, format_count, format_number, format_ratio, format_seconds, format_usd
from widgets.ratio_bars_state import Bar, RatioBarsState, price_bars_state
from widgets.token_view_state import Chip, TokenCell, TokenRow, TokenViewState

from .corpus import CorpusCounts
from .cuts import SEED_EXAMPLES, PlaygroundResult, SeedCut, chips_for, short_name, visible

Text = Callable[..., str]
PENDING = "…"           # a figure whose count has not arrived yet
# One pattern per meaning in the whole scene (``widgets.bar_paint``): input solid and output hatched (the
# summary's price bars too), fewer or more tokens than English dotted and crossed, Chinese and English striped
# and ruled, so a pattern never means two things from one build to the next.
FEWER, MORE = ("dotted", "good"), ("crossed", "warning")
CHINESE, ENGLISH = ("striped", "accent"), ("ruled", "muted")


def count_text(text: Text, count: int) -> str:
    return text("label.tokens", count=count, n=format_count(count))


# -- build 1: the seed's examples, real cuts ------------------------------------------------------------------
def seed_state(cuts: Mapping[tuple[str, str], SeedCut] | None, chosen: Sequence[str], text: Text,
               show_whitespace: bool, show_ids: bool) -> TokenViewState:
    columns = (text("label.header_text"), text("label.header_seed"), *(short_name(t) for t in chosen))
    rows = []
    differing = 0
    for example, seed_count, seed_cut in SEED_EXAMPLES:
        seed_chips = tuple(Chip(visible(p, show_whitespace), "text", "", n % 2) for n, p in enumerate(seed_cut))
        cells = [TokenCell(seed_chips, count_text(text, seed_count), "muted", summary_short=format_count(seed_count))]
        for tokenizer in chosen:
            cut = (cuts or {}).get((example, tokenizer))
            if cut is None:
                cells.append(TokenCell((), PENDING, "muted"))
                continue
            differs = cut.differs_from_seed()
            differing += differs
            mark = text("label.differs") if differs else ""
            cells.append(TokenCell(chips_for(cut.pieces, show_whitespace), count_text(text, cut.count) + mark,
                                   "warning" if differs else "text", summary_short=format_count(cut.count) + mark))
        rows.append(TokenRow(example, tuple(cells)))
    footer = text("label.seed_footer", n=format_count(differing)) if cuts else text("label.loading")
    return TokenViewState(tuple(rows), columns, footer=footer, footer_role="text", show_ids=show_ids, max_scale=1.5,
                          row_titles_optional=True)


# -- build 2: Chinese against English -------------------------------------------------------------------------
def ratio_state(counts: Sequence[CorpusCounts] | None, pairs: int, own: bool, text: Text,
                chosen: Sequence[str] | None = None) -> RatioBarsState:
    source = text("label.corpus_own" if own else "label.corpus_app")
    title = text("label.ratio_title", pairs=format_count(pairs), source=source)
    if not counts:
        return RatioBarsState((), title=title, footer=text("label.loading"))
    bars = tuple(Bar(short_name(c.tokenizer), c.ratio,
                     text("label.ratio_value", ratio=format_ratio(c.ratio), zh=format_number(c.zh_per_pair),
                          en=format_number(c.en_per_pair)),
                     *(MORE if c.ratio > 1 else FEWER))
                 for c in counts if chosen is None or c.tokenizer in chosen)
    legend = ((*FEWER[:1], text("label.fewer_than_english"), FEWER[1]),
              (*MORE[:1], text("label.more_than_english"), MORE[1]))
    return RatioBarsState(bars, title=title, reference=1.0, reference_label=text("label.same_as_english"),
                          legend=legend, footer=text("label.ratio_footer"))


# -- build 3: what a token costs ----------------------------------------------------------------------------------
def price_state(report: Report | InputError, text: Text, refusal: Callable[[InputError], str]) -> RatioBarsState:
    if isinstance(report, InputError):
        return RatioBarsState((), title=text("label.price_title"), footer=refusal(report), footer_role="warning")
    r = report
    per = text("label.per_million")
    return replace(price_bars_state(
        text("label.input"), text("label.output"), r.usd_per_million_input_tokens, r.usd_per_million_output_tokens,
        f"{format_usd(r.usd_per_million_input_tokens)} {per}", f"{format_usd(r.usd_per_million_output_tokens)} {per}",
        title=text("label.price_title"),
        footer=text("label.price_footer", ratio=format_ratio(r.output_to_input_price_ratio), **price_inputs(r)),
        footer_role="text"), max_label_scale=1.0)      # the same label size as the cost chart beside it


def price_inputs(report: Report) -> dict[str, str]:
    """What the prices are derived from, formatted: GPUs, GPU-hour price, batch, prompt and output tokens."""
    s = report.scenario
    if s is None:
        return {"gpus": "", "gpu": "", "gpu_hour": "", "batch": "", "prompt": "", "output": ""}
    return {"gpus": format_count(s.gpus), "gpu": report.gpu.name if report.gpu else s.gpu,
            "gpu_hour": format_usd(s.usd_per_gpu_hour), "batch": format_count(s.batch),
            "prompt": format_count(s.prompt_tokens), "output": format_count(s.output_tokens)}


def cost_state(counts: Sequence[CorpusCounts] | None, chosen: Sequence[str], report: Report | InputError,
               text: Text) -> RatioBarsState:
    title = text("label.cost_title")
    legend = ((CHINESE[0], text("label.chinese"), CHINESE[1]), (ENGLISH[0], text("label.english"), ENGLISH[1]))
    if not counts or isinstance(report, InputError):
        return RatioBarsState((), title=title, footer=text("label.loading") if not counts else "")
    price = report.usd_per_million_output_tokens
    bars = []
    for c in counts:
        if c.tokenizer not in chosen:
            continue
        zh = cost_per_million_sentences(c.zh_per_pair, price)
        en = cost_per_million_sentences(c.en_per_pair, price)
        bars += [Bar(f"{short_name(c.tokenizer)} · {text('label.chinese')}", zh, format_usd(zh), *CHINESE),
                 Bar(f"{short_name(c.tokenizer)} · {text('label.english')}", en, format_usd(en), *ENGLISH)]
    return RatioBarsState(tuple(bars), title=title, legend=legend, group_size=2, max_label_scale=1.0,
                          footer=text("label.cost_footer", price=format_usd(price)))


# -- build 4: the playground ------------------------------------------------------------------------------------
def playground_state(result: PlaygroundResult | None, text: Text, show_whitespace: bool,
                     show_ids: bool) -> TokenViewState:
    """The playground's lanes, or "Counting…" while there is no result for the box's text yet (``None``)."""
    if result is None:
        return TokenViewState((), footer=text("label.counting"))
    rows = []
    for lane in result.lanes:
        per = characters_per_token(result.characters, lane.count)
        summary = text("label.lane_summary", count=lane.count, n=format_count(lane.count),
                       per=format_number(per) if lane.count else "–")
        rows.append(TokenRow(short_name(lane.tokenizer),
                             (TokenCell(lane.chips[show_whitespace], summary, "text", lane.cut),)))
    return TokenViewState(tuple(rows), footer=playground_notes(result, text), show_ids=show_ids, max_scale=1.25)


def playground_notes(result: PlaygroundResult, text: Text) -> str:
    """One line on what was cut or cleaned, or how to start; empty when there is nothing to say."""
    notes = []
    if result.characters == 0:
        return text("label.empty")
    if result.held_bytes:
        notes.append(text("label.note_held", size=format_bytes(result.held_bytes)))
    if result.cut_bytes:
        notes.append(text("label.note_cut", size=format_bytes(result.cut_bytes)))
    if result.surrogates:
        notes.append(text("label.note_surrogates", n=format_count(result.surrogates)))
    if result.controls:
        notes.append(text("label.note_controls", n=format_count(result.controls)))
    if result.shown_chars < result.characters:
        notes.append(text("label.note_shown", shown=format_count(result.shown_chars),
                          total=format_count(result.characters)))
    return " ".join(notes)


# -- caption and note values ---------------------------------------------------------------------------------------
def figures(report: Report | InputError, counts: Sequence[CorpusCounts] | None,
            cuts: Mapping[tuple[str, str], SeedCut] | None, pairs: int, chosen: Sequence[str],
            text: Text | None = None) -> dict[str, str]:
    """Caption and note values: the chosen tokenizers' ratios (the highest and the lowest named), their cuts of
    the seed's examples, and the report's prices with what they are derived from."""
    values = {"pairs": format_count(pairs)}
    item = (lambda name, value: text("label.list_item", name=name, value=value)) if text else "{} {}".format
    separator = text("label.list_separator") if text else ", "
    shown = [c for c in counts or () if c.tokenizer in chosen]
    if shown:
        high, low = max(shown, key=lambda c: c.ratio), min(shown, key=lambda c: c.ratio)
        values.update(high=short_name(high.tokenizer), ratio_high=format_ratio(high.ratio),
                      zh_high=format_count(high.zh_total), en_high=format_count(high.en_total),
                      low=short_name(low.tokenizer), ratio_low=format_ratio(low.ratio),
                      zh_low=format_count(low.zh_total), en_low=format_count(low.en_total),
                      ratios=separator.join(item(short_name(c.tokenizer), format_ratio(c.ratio)) for c in shown))
    else:
        values.update({key: PENDING for key in ("high", "ratio_high", "zh_high", "en_high", "low", "ratio_low",
                                                 "zh_low", "en_low", "ratios")})
    lines = []
    for example, seed_count, _cut in SEED_EXAMPLES:
        real = [(short_name(t), (cuts or {}).get((example, t))) for t in chosen]
        if all(cut is not None for _name, cut in real):
            counts_text = separator.join(item(name, format_count(cut.count)) for name, cut in real)
            lines.append(text("label.seed_line", example=example, seed=format_count(seed_count), counts=counts_text)
                         if text else f"{example} ({format_count(seed_count)}): {counts_text}")
    values["seed_counts"] = (text("label.line_separator") if text else "; ").join(lines) if lines else PENDING
    values["differing"] = format_count(sum(cut.differs_from_seed() for (e, t), cut in (cuts or {}).items()
                                           if t in chosen))
    if isinstance(report, InputError) or report is None:
        return values
    s = report.scenario
    model_tokenizer = tokenizer_for_model(s.model) if s is not None else None
    mine = next((c for c in counts or () if model_tokenizer and c.tokenizer == model_tokenizer.id), None)
    values.update(price_inputs(report))
    values.update({
        "model": report.model.name if report.model else (s.model if s else ""),
        "prefill": format_seconds(report.prefill.seconds),
        "tpot": format_seconds(report.tpot_seconds),
        "input_price": format_usd(report.usd_per_million_input_tokens),
        "output_price": format_usd(report.usd_per_million_output_tokens),
        "price_ratio": format_ratio(report.output_to_input_price_ratio),
        "model_tokenizer": short_name(model_tokenizer.id) if model_tokenizer else "",
        "ratio_model": format_ratio(mine.ratio) if mine else PENDING,
    })
    return values
