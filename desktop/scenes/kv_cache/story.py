"""The story of "the KV cache" (seed 1.5): which picture each build shows, its states, captions and notes.

Builds, in the seed's order: the naive cost (work grows as N²), the cache (as
N), its price in bytes per token (factor by factor, then across designs), how
that price grows with the context until the card runs out, and how many
conversations share a card. In: the shared scenario and its report, the build,
``KvControls`` (the context the person chose), and the moving parts' positions
(tokens generated, context, tiles shown, the comparison's growth) handed in
per frame. Out: which widgets show, their states, the phase, and the values of
captions and notes, each worked out only when a text names it (the first
build's caption asks the engine for nothing beyond the report).

Engine questions (through ``ask``): the context sweep over the plot's contexts
and at the current context (growth build), what-ifs of one conversation on 1 to
8 GPUs (sharing build, and the notes that quote its table).
"""
from __future__ import annotations

from functools import cached_property

from desktop.kit import questions
from desktop.kit.answers import refused
from desktop.kit.story import Story, Values
from desktop.scenes.kv_cache import memory, pictures
from desktop.scenes.kv_cache.pictures import (
    BUILDS, CONTEXT_PLAY_SECONDS, FACTOR_BUILDS, FACTOR_SECONDS, GROWTH_BUILD, MARKS, PLAYBACK_TOKENS,
    SHARING_BUILD, SHARING_CONTEXT_TOKENS, SHARING_GPU_COUNTS, TOKENS_PER_SECOND, WORK_BUILDS,
)
from engine.frozen import frozen
from engine.kv_cache import kv_factors, mha_factors, work_ratio_without_cache
from engine.memory import PREFILL_CHUNK_TOKENS
from engine.units import format_bytes, format_count, format_number, format_ratio
from widgets.kv_factors_state import KvFactorsState
from widgets.kv_growth_plot_state import KvGrowthState
from widgets.kv_sharing_state import KvSharingState
from widgets.memory_bars_state import MemoryBarsState
from widgets.work_counter_state import WorkCounterState

BAR_SHARE = 0.36                 # of the stage's width: the memory bar beside the plot or the table


@frozen
class KvControls:
    """The scene's own control: the context the person set (growth and sharing builds), in tokens."""
    context_tokens: int = SHARING_CONTEXT_TOKENS


@frozen
class Motion:
    """How a build plays: the playback's range in its own units, its rate per second, and what it drives."""
    kind: str                    # "work" (tokens), "context" (seconds of the growth playback), "factors" (tiles)
    start: float
    end: float
    rate: float


class KvCacheStory(Story):
    builds = BUILDS

    # -- what the build shows ---------------------------------------------------------------------
    @cached_property
    def longest(self) -> int:
        return pictures.longest_context(self.report.model)

    @property
    def context_tokens(self) -> int:
        """The context the controls set, within 1 token and the model's longest."""
        return max(1, min(self.longest, int(self.controls.context_tokens)))

    @property
    def sharing_context(self) -> int:
        """The context of one shared conversation: the control's in the sharing build (2 at least), else the
        seed's middle row."""
        if self.build == SHARING_BUILD:
            return max(2, self.context_tokens)
        return min(SHARING_CONTEXT_TOKENS, self.longest)

    def build_context(self) -> int:
        """Where the context control stands when a build is shown: the longest (growth), the seed's middle
        row (sharing), else where it was."""
        if self.build == GROWTH_BUILD:
            return self.longest
        if self.build == SHARING_BUILD:
            return min(SHARING_CONTEXT_TOKENS, self.longest)
        return self.context_tokens

    def motion(self) -> Motion | None:
        """What this build plays by itself, or None."""
        if self.build in WORK_BUILDS:
            return Motion("work", 1.0, float(PLAYBACK_TOKENS), TOKENS_PER_SECOND)
        if self.build == FACTOR_BUILDS[0]:
            return Motion("factors", 0.0, float(self.tile_count), 1.0 / FACTOR_SECONDS)
        if self.build == GROWTH_BUILD:
            return Motion("context", 0.0, CONTEXT_PLAY_SECONDS, 1.0)
        return None

    def steps(self) -> bool:
        """Whether the Step control does something here (a token more, or twice the context)."""
        return self.build in WORK_BUILDS or self.uses_context

    @property
    def uses_context(self) -> bool:
        return self.build in (GROWTH_BUILD, SHARING_BUILD)

    def stepped_context(self, shown_tokens: int) -> int:
        """Twice the context shown, from one token again after the longest."""
        return min(self.longest, shown_tokens * 2) if shown_tokens < self.longest else 1

    def shown_context(self, playback_position: float | None) -> int:
        """The context on the stage: the growth playback's while it has one, else the control's."""
        motion = self.motion()
        if playback_position is not None and motion is not None and motion.kind == "context":
            return pictures.context_at(playback_position, self.longest)
        return self.context_tokens

    def generated_tokens(self, playback_position: float | None) -> int:
        """Tokens the work counters have reached (the end of the playback when none runs); 0 elsewhere."""
        motion = self.motion()
        if motion is None or motion.kind != "work":
            return 0
        return int(motion.end if playback_position is None else playback_position)

    def states(self, playback_position: float | None, compare: float) -> dict[str, object]:
        """What each shown widget draws at this moment: the build's playback at ``playback_position`` (None:
        none runs, its end is shown) and the comparison grown to ``compare``."""
        name = self.build_name
        if name in ("naive", "cache"):
            return {"work": self.work(self.generated_tokens(playback_position))}
        if name in ("bytes", "architectures"):
            return {"factors": self.factors(playback_position, compare)}
        if name == "growth":
            shown = self.growth(self.shown_context(playback_position))
            return {} if shown is None else {"growth": shown[0], "bars": shown[1]}
        return {"sharing": self.sharing()}

    def rects(self, width: int, height: int) -> dict[str, tuple[int, int, int, int] | None]:
        """Where each picture goes (None: hidden) on a stage of ``width`` x ``height``."""
        bar = round(width * BAR_SHARE)
        build = self.build
        beside_bar = (0, 0, width - bar, height)
        return {
            "work": (0, 0, width, height) if build in WORK_BUILDS else None,
            "factors": (0, 0, width, height) if build in FACTOR_BUILDS else None,
            "growth": beside_bar if build == GROWTH_BUILD else None,
            "sharing": beside_bar if build == SHARING_BUILD else None,
            "bars": (width - bar, 0, bar, height) if self.uses_context else None,
        }

    # -- the pictures ---------------------------------------------------------------------------------
    def work(self, tokens: float) -> WorkCounterState:
        return pictures.work_state(int(tokens), self.build >= WORK_BUILDS[1], self.text)

    @cached_property
    def tile_count(self) -> int:
        return pictures.tile_count(self.report.model, self.report.kv_precision)

    @cached_property
    def _architectures(self) -> pictures.Architectures:
        return self.ask(pictures.architectures)

    @cached_property
    def _factors_full(self) -> KvFactorsState:
        return pictures.factors_state(self.report.model, self.report.kv_precision, self._architectures,
                                      self.tile_count + 1.0, 1.0, self.text)

    def factors(self, tiles_position: float | None, compare: float) -> KvFactorsState:
        """The factor tiles at a playback position (None: all shown) and the comparison grown to ``compare``."""
        revealed = self.tile_count + 1.0 if tiles_position is None else \
            float(min(self.tile_count + 1, 1 + int(tiles_position)))
        return pictures.factors_at(self._factors_full, revealed, compare)

    def compare_target(self) -> float:
        return 1.0 if self.build == FACTOR_BUILDS[1] else 0.0

    @cached_property
    def sweep(self):
        """The engine's sweep of the shared scenario over the contexts the plot draws, or its refusal (a model
        whose longest context is past what the engine sweeps)."""
        return self.ask(questions.context_sweep, self._sweep_scenario, pictures.sweep_contexts(self.longest))

    @cached_property
    def _sweep_scenario(self):
        return questions.changed(self.scenario, output_tokens=1)     # one answer for every output length

    @cached_property
    def _growth_base(self) -> KvGrowthState | None:
        return None if refused(self.sweep) else pictures.growth_base(self.sweep, self.report, self.longest,
                                                                     self.text)

    def _point(self, tokens: int):
        return self.ask(questions.context_sweep, self._sweep_scenario, (tokens,))

    def growth(self, tokens: int) -> tuple[KvGrowthState, MemoryBarsState] | None:
        """The plot's point and the memory bar at ``tokens`` of context; None when the engine refuses the sweep."""
        base, point = self._growth_base, self._point(tokens)
        if base is None or refused(point):
            return None
        scale = memory.bar_scale_bytes(self.report, self.sweep)
        return (pictures.growth_at(base, tokens, float(point.kv_bytes[0]), self.text),
                memory.growth_bar(self.report, point, scale, self.text))

    def refusal_note(self) -> str:
        """The inline note of a growth build whose sweep the engine refuses, else ""."""
        if self.build != GROWTH_BUILD or not refused(self.sweep):
            return ""
        return pictures.growth_refusal_text(self.sweep, self.longest, self.text, self.inputs.refusal_text)

    @cached_property
    def sharing_results(self) -> dict[int, object]:
        """What-ifs of one conversation of the sharing context on 1 to 8 GPUs (and on the scenario's own count)."""
        changes = memory.sharing_changes(self.scenario, self.sharing_context)
        counts = set(SHARING_GPU_COUNTS) | {self.scenario.gpus}
        return {gpus: self.what_if(gpus=gpus, **changes) for gpus in sorted(counts)}

    def sharing(self) -> KvSharingState:
        return memory.sharing_state(self.sharing_results, self.scenario.gpus, self.sharing_context, 1.0, self.text)

    def sharing_bar(self) -> MemoryBarsState | None:
        return memory.sharing_bar(self.sharing_results.get(self.scenario.gpus), self.text)

    def formulas(self) -> dict:
        """KV bytes per token beside its factors; the batch's KV at the plot's context in the growth build."""
        if self.build in FACTOR_BUILDS:
            return self.formula(self.scenario, "kv_bytes_per_token")
        if self.build == GROWTH_BUILD:
            return self.formula(self.scenario, "kv_bytes", self.context_tokens)
        return {}

    # -- captions and notes ---------------------------------------------------------------------------
    def phase(self) -> str:
        """The build's name, or its variant for this scenario."""
        name, report = self.build_name, self.report
        if name == "growth":
            if report.max_context_tokens <= 0:
                return "growth_none"
            if report.max_context_tokens >= self.longest:
                return "growth_fits"
        if name == "sharing":
            current = self.sharing_results.get(self.scenario.gpus)
            if current is None or refused(current) or current.max_sequences <= 0:
                return "sharing_none"
        return name

    @cached_property
    def _values(self) -> Values:
        return caption_values(self)

    def caption_values(self) -> Values:
        return self._values


def caption_values(story: KvCacheStory) -> Values:
    """Every placeholder of every caption and note; the sweep's marks and the sharing table are asked of the
    engine only when a text names them."""
    report, text, longest = story.report, story.text, story.longest
    model, kv = report.model, report.kv_precision
    factors = kv_factors(model, kv)
    curves = pictures.work_curves()
    separator = text("label.list_separator")

    def marks() -> str:
        sweep = story.sweep
        if refused(sweep):      # the plot is not drawn; the captions still name the seed's marks
            sweep = story.ask(questions.context_sweep, story._sweep_scenario,
                              tuple(t for _, _, t in MARKS if t <= longest))
        return "" if refused(sweep) else separator.join(
            text("label.mark_item", tokens=name, size=pictures.kv_text(pictures.kv_at(sweep, tokens)))
            for _, name, tokens in MARKS if tokens <= longest)

    def current():
        result = story.sharing_results.get(report.scenario.gpus)
        return None if result is None or refused(result) else result

    def sequences_text() -> str:
        sequences = current().max_sequences if current() is not None else 0
        return text("label.conversations", count=sequences, value=format_count(sequences))

    def table() -> str:
        rows = memory.sharing_state(story.sharing_results, 0, story.sharing_context, 1.0, text).rows
        return separator.join(text("label.table_item", gpus=row.name, value=row.value_text) for row in rows)

    def fp8() -> str:
        entries = story._architectures
        return pictures.per_token_text(kv_factors(model, entries.fp8).bytes_per_token if entries.fp8 is not None
                                       else factors.bytes_per_token)

    def reference():
        return story._architectures.reference_mla or model

    return Values(
        n=format_count(PLAYBACK_TOKENS),
        naive_total=format_count(curves.naive[-1]),
        cached_total=format_count(curves.cached[-1]),
        ratio=format_ratio(work_ratio_without_cache(PLAYBACK_TOKENS)),
        model=model.name,
        precision=kv.name,
        formula=lambda: pictures.formula_text(factors, text),
        kv_per_token=pictures.per_token_text(report.kv_bytes_per_token),
        layers=format_count(factors.layers),
        kv_heads=format_count(factors.kv_heads),
        heads=format_count(model.attention_heads),
        head_dim=format_number(factors.head_dim),
        bytes=format_number(factors.bytes_per_value),
        mha=lambda: pictures.per_token_text(mha_factors(model, kv).bytes_per_token),
        mla_model=lambda: reference().name,
        mla=lambda: pictures.per_token_text(kv_factors(reference(), kv).bytes_per_token),
        fp8=fp8,
        gpus_text=lambda: pictures.gpus_text(report, text),
        limit=format_count(report.max_context_tokens),
        max_context=format_count(longest),
        marks=marks,
        room=lambda: pictures.kv_text(pictures.room_bytes(report)),
        context=format_count(story.sharing_context),
        sequences_text=sequences_text,
        table=table,
        runtime=format_bytes(report.overhead_bytes_per_gpu),
        sharing_runtime=lambda: "" if current() is None else format_bytes(current().overhead_bytes_per_gpu),
        chunk=format_count(PREFILL_CHUNK_TOKENS),
    )
