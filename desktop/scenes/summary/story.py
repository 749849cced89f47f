"""The summary's story, Qt-free: the seed's four questions, each answered by a picture and its numbers.

In: the shared scenario's report, the same scenario on a busy server
(``busy_server``: ``BUSY_SERVER_BATCH`` sequences at once on the fewest GPUs,
up to ``BUSY_SERVER_MAX_GPUS``, that hold them; said to be hypothetical when
none does, with its own words when refused), the
registered scenes (``desktop.scenes.registry``: links go only to scenes that
exist, numbered by their place), a ``text(key, **values)`` callable taking full keys ("summary.…",
"kv_cache.…", "model_memory.…") and a ``refusal_text``. Out: each question's
card state, each answer's picture state at a reveal's progress, and the
formatted values of the answers, captions and notes.

The pictures are the scenes' own, made as those scenes make them: scene 5's
two totals at the seed's N (``kv_cache.pictures.work_curves``) as bars on one
scale, the memory bars of scene 2 (``model_memory.story.bars_state`` for the
shared scenario, made once per model: a reveal shows them whole),
and share bars for scene 1's idle gauge (decode's share of the request and
the compute idle during decode), and scene 6's price bars (``ratio_bars``,
input against output). Every number is the engine's; only its formatting happens here.
"""
from __future__ import annotations

from dataclasses import field, replace
from functools import cached_property
from typing import Callable, Mapping

from desktop.kit import questions
from desktop.kit.answers import refused
from desktop.kit.story import Story
from desktop.scenes.kv_cache.pictures import PLAYBACK_TOKENS, work_curves
from desktop.scenes.model_memory.story import BAR_FORMULAS, bars_state, scale_for
from desktop.scenes.registry import SceneEntry, scene_entries
from engine import InputError, Report
from engine.frozen import frozen
from engine.kv_cache import work_ratio_without_cache
from engine.units import format_bytes, format_count, format_percent, format_ratio, format_usd
from widgets.memory_bars_state import MemoryBarsState
from widgets.question_card_state import QuestionCardState
from widgets.ratio_bars_state import RatioBarsState, price_bars_state
from widgets.share_bars_state import BarPart, BarRow, ShareBarsState

QUESTIONS = ("slow", "kv_cache", "memory", "output_price")
# question -> keys of the scenes that explain it, best first: its link goes to the first registered.
LINKED_SCENES: dict[str, tuple[str, ...]] = {
    "slow": ("gpu_waits", "prefill_decode"),
    "kv_cache": ("kv_cache",),
    "memory": ("model_memory", "kv_cache"),
    "output_price": ("tokens", "prefill_decode"),
}
# Each answer's figures with a formula card (``SummaryStory.formulas``), by figure key: the label that shows it,
# on the answer's picture ("answer": the card's own words). The price ratio is in the answer's words on its own
# build and heads the price bars in the recap.
FIGURES: dict[str, dict[str, str]] = {
    "slow": {"step_idle_share": "headline"},
    "kv_cache": {"work_ratio_without_cache": "headline", "tokens_processed_without_cache": "title.naive",
                 "tokens_processed_with_cache": "title.cached"},
    "memory": dict(BAR_FORMULAS),
    "output_price": {"usd_per_million_input_tokens": "value.0", "usd_per_million_output_tokens": "value.1",
                     "output_to_input_price_ratio": "answer"},
}
RECAP_LABELS = {"output_to_input_price_ratio": "title"}      # the recap's price bars are titled by the ratio
CACHE_WORK_FIGURES = frozenset(FIGURES["kv_cache"])          # figures of the work at the seed's N, not of a report
# One build asks a question, the next reveals its answer; the last shows all four answers side by side.
BUILDS = tuple(name for question in QUESTIONS for name in (question, f"{question}_answer")) + ("recap",)
RECAP_BUILD = len(BUILDS) - 1
# A busy server decodes many requests in one step, so one read of the weights serves them all;
# at this batch the output/input price ratio comes down to what providers charge (the seed's 2-4x).
BUSY_SERVER_BATCH = 128
BUSY_SERVER_MAX_GPUS = 8       # one server's GPUs: the busy server is looked for on up to this many

Text = Callable[..., str]


@frozen
class BusyServer:
    """The notes' busy server: ``batch`` sequences at once on ``gpus`` GPUs, and the engine's answer for it.

    ``kind``: "already" (the scenario itself decodes at least ``BUSY_SERVER_BATCH`` at once), "fits" (on
    ``gpus``, the fewest from the scenario's own count up to ``BUSY_SERVER_MAX_GPUS`` that hold it),
    "hypothetical" (it fits on none of them: the figure is the scenario's GPU count's, said to be
    hypothetical) or "refused" (the engine refuses it: ``result`` is the refusal)."""
    kind: str
    batch: int
    gpus: int
    result: Report | InputError = field(compare=False)


def busy_server(scenario, report, what_if: Callable[..., Report | InputError]) -> BusyServer:
    """The busy server for ``scenario`` (``what_if(**changes)``: the scene context's cached what-if)."""
    if scenario.batch >= BUSY_SERVER_BATCH:
        return BusyServer("already", scenario.batch, scenario.gpus, report)
    first = None
    for gpus in range(scenario.gpus, max(scenario.gpus, BUSY_SERVER_MAX_GPUS) + 1):
        result = what_if(batch=BUSY_SERVER_BATCH, gpus=gpus)
        first = first or BusyServer("refused" if refused(result) else "hypothetical", BUSY_SERVER_BATCH, gpus, result)
        if not refused(result) and result.fits:
            return BusyServer("fits", BUSY_SERVER_BATCH, gpus, result)
    return first


def focus(build: int) -> tuple[int | None, bool]:
    """(the question alone on the stage, whether its answer is revealed) at ``build``; (None, True) in the recap."""
    build = max(0, min(build, RECAP_BUILD))
    if build == RECAP_BUILD:
        return None, True
    return build // 2, build % 2 == 1


def linked_scene(question: str, registered: Mapping[str, SceneEntry]) -> SceneEntry | None:
    """The scene a question's answer links to: the first of ``LINKED_SCENES`` registered, or None (no link)."""
    return next((registered[key] for key in LINKED_SCENES[question] if key in registered), None)


def busy_values(report, busy: BusyServer, text: Text, refusal_text: Callable) -> dict[str, str]:
    """The busy server's figures and the notes' sentence about it (its own words for each ``kind``)."""
    result = busy.result
    values = {"busy_batch": format_count(busy.batch), "busy_gpus": format_count(busy.gpus),
              "gpu": report.gpu.name if report.gpu else report.scenario.gpu,
              "ratio": format_ratio(report.output_to_input_price_ratio)}
    if busy.kind == "refused":
        values.update(busy_ratio="", reason=refusal_text(result).rstrip("。."))
    else:
        values["busy_ratio"] = format_ratio(result.output_to_input_price_ratio)
    values["busy_sentence"] = text(f"summary.busy.{busy.kind}", **values)
    return {key: values[key] for key in ("busy_batch", "busy_gpus", "busy_ratio", "busy_sentence")}


def summary_values(report, busy: BusyServer, text: Text, refusal_text: Callable = str) -> dict[str, str]:
    """The formatted numbers of the answers, captions and notes: every one the engine's for this scenario."""
    scenario = report.scenario
    ratio = report.output_to_input_price_ratio
    curves = work_curves()
    return {
        "model": report.model.name if report.model else scenario.model,
        "gpu": report.gpu.name if report.gpu else scenario.gpu,
        "weights_precision": report.weights_precision.name if report.weights_precision else scenario.weights,
        "gpus": format_count(scenario.gpus),
        "batch": format_count(scenario.batch),
        "prompt": format_count(scenario.prompt_tokens),
        "output": format_count(scenario.output_tokens),
        "mode": text(f"summary.mode.{scenario.mode}"),
        "weights": format_bytes(report.weights_bytes),
        "weights_per_gpu": format_bytes(report.weights_bytes_per_gpu),
        "hbm": format_bytes(report.hbm_bytes_per_gpu),
        "kv_per_token": format_bytes(report.kv_bytes_per_token, binary=True),
        "kv_bytes": format_bytes(report.kv_bytes),
        "kv_per_gpu": format_bytes(report.kv_bytes_per_gpu),
        "free": format_bytes(max(0.0, report.free_bytes_per_gpu)),
        "decode_share": format_percent(report.decode_share),
        "prefill_share": format_percent(1.0 - report.decode_share),
        "decode_util": format_percent(report.decode.utilisation),
        "idle": format_percent(1.0 - report.decode.utilisation),
        "prefill_util": format_percent(report.prefill.utilisation),
        "n": format_count(PLAYBACK_TOKENS),
        "naive_total": format_count(curves.naive[-1]),
        "cached_total": format_count(curves.cached[-1]),
        "work_ratio": format_ratio(work_ratio_without_cache(PLAYBACK_TOKENS)),
        "price": format_usd(scenario.usd_per_gpu_hour),
        "in_price": format_usd(report.usd_per_million_input_tokens),
        "out_price": format_usd(report.usd_per_million_output_tokens),
        "ratio": format_ratio(ratio),
        **busy_values(report, busy, text, refusal_text),
    }


# -- the pictures -----------------------------------------------------------------------------------
def slow_state(report, values: Mapping[str, str], text: Text, grow: float = 1.0,
               compact: bool = False) -> ShareBarsState:
    """Scene 1's idea: the request is mostly decode, and during decode the compute mostly idles.

    ``compact`` (the recap): a card too small for a line of part labels under each bar names the parts in
    the bars' titles instead, left to right as the bar shows them (the widget drops part labels first)."""
    busy = report.decode.utilisation
    parts = {key: text(f"summary.label.{key}", **values) for key in ("prefill", "decode", "busy", "idle")}
    titles = {"request": text("summary.label.request"), "compute": text("summary.label.compute")}
    if compact:
        titles = {"request": text("summary.label.request_parts", **parts),
                  "compute": text("summary.label.compute_parts", **parts)}
        parts = dict.fromkeys(parts, "")
    return ShareBarsState(
        rows=(
            BarRow("request", titles["request"], (
                BarPart("prefill", 1.0 - report.decode_share, parts["prefill"], "compute"),
                BarPart("decode", report.decode_share, parts["decode"], "memory", "hatched"))),
            BarRow("compute", titles["compute"], (
                BarPart("busy", busy, parts["busy"], "good"),
                BarPart("idle", 1.0 - busy, parts["idle"], "warning", "hatched"))),
        ),
        headline=text("summary.label.idle_headline", **values), headline_role="warning", grow=grow)


def price_picture(report, values: Mapping[str, str], text: Text, grow: float = 1.0,
                  compact: bool = False) -> RatioBarsState:
    """Scene 6's price bars (``ratio_bars_state.price_bars_state``): a million input tokens against a million
    output tokens, on one scale; ``grow`` grows both bars in from nothing against the final scale. Titled by
    what the prices rest on (the answer's words give the ratio), in the recap (``compact``) by the ratio."""
    share = max(0.0, min(1.0, grow))
    usd_in, usd_out = report.usd_per_million_input_tokens, report.usd_per_million_output_tokens
    state = price_bars_state(text("summary.label.input_name"), text("summary.label.output_name"),
                             usd_in * share, usd_out * share,
                             text("summary.label.per_million", price=values["in_price"]),
                             text("summary.label.per_million", price=values["out_price"]),
                             title=text(f"summary.label.{'ratio_headline' if compact else 'price_title'}", **values))
    return replace(state, scale_max=max(usd_in, usd_out))


def work_bars(values: Mapping[str, str], text: Text, grow: float = 1.0) -> ShareBarsState:
    """Scene 5's two totals at the seed's N, N² against N, as bars on one scale: 500 is a sliver beside
    125,250 (scene 5's counters draw each step's work on its own full-width strip, which beside its total
    would read as two equal amounts)."""
    curves = work_curves()
    naive, cached = curves.naive[-1], curves.cached[-1]
    return ShareBarsState(
        rows=(
            BarRow("naive", text("summary.label.naive", **values), (BarPart("naive", 1.0, "", "warning", "hatched"),)),
            BarRow("cached", text("summary.label.cached", **values),
                   (BarPart("cached", cached / naive if naive > 0 else 0.0, "", "memory", "dotted"),)),
        ),
        headline=text("summary.label.work_headline", **values), headline_role="warning", grow=grow)


def memory_picture(report, text: Text, refusal_text: Callable, compact: bool = False) -> MemoryBarsState:
    """Scene 2's memory bars for the shared scenario: weights against the KV cache on every GPU. Shown whole
    (a reveal does not grow them: every new size would be a new layout of the bars).

    ``compact`` (the recap) leaves the title out (the card's question heads the picture, and on so small a
    picture the bars' title would crowd their capacity label), the free memory's label and the verdict under
    the bars (the widget would keep both before the KV cache's label, which is the answer), and names the bars by their short names ("1",
    "2": "GPU 1" under bars so narrow runs into "GPU 2")."""
    title = "" if compact else text("summary.label.memory_title", **summary_names(report))
    footer = "" if compact and not refused(report) else None    # the recap: the KV cache's label before the verdict
    state = bars_state(report, lambda key, **v: text(f"model_memory.{key}", **v), refusal_text,
                       scale_for([report]), title=title, footer=footer)
    if compact:      # the bars' label column keeps the KV cache's label rather than the free memory's
        state = replace(state, bars=tuple(replace(bar, free_label="", name=bar.short_name or bar.name)
                                          for bar in state.bars))
    return state


def summary_names(report) -> dict[str, str]:
    scenario = report.scenario
    return {"gpu": report.gpu.name if report.gpu else scenario.gpu, "gpus": format_count(scenario.gpus),
            "model": report.model.name if report.model else scenario.model}


# -- the story ------------------------------------------------------------------------------------------------
# A reveal: the question's move, the picture and the words in turn. Under a second, so a build's picture
# is complete before the presenter's next sentence (and in any still picture taken a second later).
REVEAL_SECONDS = 0.8
GRID_GAP_SHARE = 0.02        # of the stage's height, between the recap's cards
FOCUS_FLOOR_SCALE = 1.4      # a share-bars picture alone on the stage: its smallest words this much above the floor


class SummaryStory(Story):
    """The four questions for one set of inputs; its ``text`` takes full keys ("summary.…", "kv_cache.…")."""
    builds = BUILDS

    @cached_property
    def registered(self) -> dict[str, SceneEntry]:
        """The scenes a link may go to: every registered one but the summary itself, by key."""
        return {entry.key: entry for entry in scene_entries() if entry.key != "summary"}

    @cached_property
    def busy(self) -> BusyServer:
        return busy_server(self.scenario, self.report, self.what_if)

    @cached_property
    def values(self) -> dict[str, str]:
        return summary_values(self.report, self.busy, self.text, self.inputs.refusal_text)

    def caption_values(self) -> dict[str, str]:
        return self.values

    def note_values(self) -> dict[str, str]:
        scenes = {}
        for question in QUESTIONS:
            entry = linked_scene(question, self.registered)
            scenes[f"{question}_scene"] = format_count(entry.number) if entry else "0"
        return {**self.values, **scenes}

    def focus(self) -> tuple[int | None, bool]:
        return focus(self.build)

    def shown_figures(self) -> dict[str, tuple[int, str]]:
        """The figures with a formula card on the stage now, by key: (the answer showing it, its label there);
        none before an answer is revealed."""
        question, revealed = self.focus()
        if not revealed:
            return {}
        recap = question is None
        return {key: (n, RECAP_LABELS.get(key, label) if recap else label)
                for n, name in enumerate(QUESTIONS) if recap or n == question for key, label in FIGURES[name].items()}

    def formulas(self) -> dict:
        """The formula behind each figure shown (``shown_figures``): the shared scenario's report's, and the work
        of the seed's N tokens with and without a cache (``engine.cache_work_formulas``)."""
        found = {}
        for key in self.shown_figures():
            if key in CACHE_WORK_FIGURES:
                found.update(self.asked_formula(key, questions.cache_work_formula, key, PLAYBACK_TOKENS))
            else:
                found.update(self.formula(self.scenario, key))
        return found

    def picture_floor_scale(self) -> float:
        """How much above the floor a share-bars picture draws its words: more alone on its own build."""
        return FOCUS_FLOOR_SCALE if self.focus()[0] is not None else 1.0

    def card_rects(self, width: int, height: int) -> list[tuple[int, int, int, int] | None]:
        """Where each card goes: the question alone on the stage, or (the recap) all four in a grid."""
        question, _ = self.focus()
        if question is None:
            gap = max(8, round(GRID_GAP_SHARE * height))
            w, h = (width - gap) // 2, (height - gap) // 2
            return [((n % 2) * (w + gap), (n // 2) * (h + gap), w, h) for n in range(len(QUESTIONS))]
        return [(0, 0, width, height) if n == question else None for n in range(len(QUESTIONS))]

    def reveal_target(self) -> float:
        """Where the build's reveal ends: 1 for an answer, 0 for a bare question (the recap needs none)."""
        question, revealed = self.focus()
        return 1.0 if question is not None and revealed else 0.0

    def card(self, index: int, compact: bool = False) -> QuestionCardState:
        question = QUESTIONS[index]
        entry = linked_scene(question, self.registered)
        link = self.text("summary.link", number=entry.number, title=self.text(entry.title_key)) if entry else ""
        return QuestionCardState(
            question=self.text("summary.numbered", number=index + 1,
                               question=self.text(f"summary.question.{question}")),
            answer=self.text(f"summary.answer.{self.answer_key(question)}", **self.values),
            link=link, link_scene=entry.key if entry else "", compact=compact)

    def answer_key(self, question: str) -> str:
        """The answer's text: the memory answer has its own words when the weights alone overflow a card."""
        if question == "memory" and self.report.weights_bytes_per_gpu > self.report.hbm_bytes_per_gpu:
            return "memory_over"
        return question

    @cached_property
    def _memory(self) -> dict[bool, MemoryBarsState]:
        return {}          # compact -> the bars, made once per story (a reveal hands the same state every frame)

    def picture(self, index: int, grow: float = 1.0, compact: bool = False):
        """The state of answer ``index``'s picture, grown in by ``grow`` (0..1); ``compact``: in the recap."""
        question = QUESTIONS[index]
        if question == "slow":
            return slow_state(self.report, self.values, self.text, grow, compact)
        if question == "kv_cache":
            return work_bars(self.values, self.text, grow)
        if question == "memory":
            if compact not in self._memory:
                self._memory[compact] = memory_picture(self.report, self.text, self.inputs.refusal_text, compact)
            return self._memory[compact]
        return price_picture(self.report, self.values, self.text, grow, compact)
