"""The serving scene's tables and bars (Qt-free): the engine's answers as figure tables and bar charts.

Every figure is the engine's (``FleetPlan``, ``LanguagePrice``, the corpus
counts), formatted by ``engine.units`` in ``notes``; this module only
arranges them. While a build's answers are being computed, or refused, the
table and the bars carry that message instead of figures.
"""
from __future__ import annotations

from widgets.figure_table_state import Cell, FigureTableState, TableNote, TableRow
from widgets.ratio_bars_state import Bar, RatioBarsState

from . import notes


SUMMARY_ROWS = ("traffic", "targets", "how_many", "what_price", "answer_binds", "answer_knee", "answer_margins")


def _row(story, label: str, *cells: str, bold: bool = False, role: str = "text") -> TableRow:
    return TableRow(story.text(f"table.{label}"), tuple(Cell(text, role, bold) for text in cells))


def table(story) -> FigureTableState | None:
    """The figure table of the build on screen (None: the build has none)."""
    name = story.build_name
    if name not in ("question", "fleet", "language", "summary"):
        return None
    title = story.text(f"table.title_{name}")
    message = story.message()
    if message is not None and name != "question":
        return FigureTableState(title=title, message=message[0], message_role=message[1])
    v = story.caption_values()
    if name == "question":
        asked_rows = (_row(story, "traffic", v["traffic"]), _row(story, "request", v["request"]),
                      _row(story, "targets", v["targets"]), _row(story, "replica", v["replica"]),
                      _row(story, "rent", v["rent"]))
        wanted = tuple(_row(story, key, "?", bold=True, role="accent") for key in ("how_many", "what_price"))
        return FigureTableState(title=title, rows=asked_rows + wanted, max_text_scale=1.4)
    if name == "fleet":
        rows = (_row(story, "replicas", v["replicas_text"]), _row(story, "gpus", v["gpus_text"]),
                _row(story, "batch", v["batch_text"]), _row(story, "per_gpu", v["per_gpu_text"]),
                _row(story, "reached", v["reached"]), _row(story, "use", v["use_text"]))
        return FigureTableState(title=title, rows=rows, notes=(TableNote(story.text("table.binds"), v["binding_note"]),),
                                max_text_scale=1.25)
    if name == "language":
        rows = (_row(story, "characters", v["en_characters"], v["zh_characters"]),
                _row(story, "tokens", v["en_rate"], v["zh_rate"]),
                _row(story, "fleet_gpus", v["en_gpus"], v["zh_gpus"]),
                _row(story, "cost_output", v["en_cost_out"], v["zh_cost_out"]),
                _row(story, "list_output", v["en_list_out"], v["zh_list_out"]),
                _row(story, "margin", v["en_margin"], v["zh_margin"], bold=True))
        return FigureTableState(title=title, headers=(story.text("table.english"), story.text("table.chinese")),
                                rows=rows, notes=(TableNote(story.text("table.character"), v["character"]),   # the caption
                                                 TableNote(story.text("table.cut_by"), v["cut_by"])),     # names the cut
                                max_text_scale=1.2)
    cells = {"traffic": v["traffic"], "targets": v["targets"], "how_many": v["fleet_text"], "what_price": v["prices"],
             "answer_binds": v["binding_short"], "answer_knee": v["knee_text"], "answer_margins": v["margins"]}
    rows = tuple(_row(story, key, cells[key], **({"bold": True, "role": "accent"} if key in ("how_many", "what_price")
                                                 else {})) for key in SUMMARY_ROWS)
    return FigureTableState(title=title, rows=rows, max_text_scale=1.3)


def bars(story) -> RatioBarsState | None:
    """The bars of the build on screen (None: the build has none)."""
    name = story.build_name
    if name not in ("language", "disaggregation"):
        return None
    title = story.text(f"bars.title_{name}")
    message = story.message()
    if message is not None:
        return RatioBarsState(bars=(), title=title, footer=message[0], footer_role=message[1])
    v = story.caption_values()
    if name == "language":
        prices = notes.language_prices(story)
        english, chinese = story.text("table.english"), story.text("table.chinese")
        rows = []
        for language, label in (("en", english), ("zh", chinese)):
            price = prices[language]
            rows += [Bar(story.text("bars.input", language=label), price.usd_per_thousand_input_characters,
                         v[f"{language}_cost_in"], "solid", "memory"),
                     Bar(story.text("bars.output", language=label), price.usd_per_thousand_output_characters,
                         v[f"{language}_cost_out"], "hatched", "compute")]
        return RatioBarsState(bars=tuple(rows), title=title, group_size=2,
                              legend=(("solid", story.text("bars.legend_input"), "memory"),
                                      ("hatched", story.text("bars.legend_output"), "compute")),
                              footer=v["more_footer"])
    rows = []
    for case in ("busy", "small"):
        colocated, separate = notes.case_plans(story, case)
        label = v[f"{case}_label"]
        rows += [Bar(story.text("bars.colocated", case=label), colocated.gpus, v[f"{case}_colocated_text"], "solid",
                     "accent"),
                 Bar(story.text("bars.separate", case=label), separate.gpus, v[f"{case}_separate_text"], "hatched",
                     "compute")]
    return RatioBarsState(bars=tuple(rows), title=title, group_size=2,
                          legend=(("solid", story.text("bars.legend_colocated"), "accent"),
                                  ("hatched", story.text("bars.legend_separate"), "compute")),
                          footer=v["goodput"])
