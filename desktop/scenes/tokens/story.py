"""The story of "tokens" (seed 1.6): which page each build shows, its states, captions and notes.

Builds: the seed's examples cut by real tokenizers, the Chinese/English ratio
per tokenizer on a parallel corpus, the price of input and output tokens (the
report's) and of the same content in each language, and a playground.

In: the shared scenario and its report, the build, and ``TokensInputs``: the
person's ``Choices`` at the side and the ``Results`` the tokenizer process has
sent back so far (one frozen value, replaced as results arrive). Out: the page
to show and its widgets' states (``pictures``), the caption and note values,
the text under the parallel-text box, and what is still to be asked of the
tokenizer process. Qt-free; tested in ``tests/desktop/test_tokens_story.py``.
"""
from __future__ import annotations

from dataclasses import field, replace
from functools import cached_property

from desktop.kit import questions
from desktop.kit.story import Story
from engine import InputError
from engine.frozen import frozen
from engine.units import format_bytes, format_count

from . import pictures
from .corpus import MAX_PAIRS, CorpusCounts, ParallelText, PastedCorpus, app_corpus, counted_tokenizers
from .cuts import DEFAULT_TOKENIZERS, PlaygroundResult, SeedCut
from .prepared import Profile

BUILDS = ("what", "chinese", "cost", "playground")
# The page each build shows (the view has one widget, or a column of two, per page).
PAGES = {"what": "seed", "chinese": "ratio", "cost": "cost", "playground": "playground"}


@frozen
class Choices:
    """What the person chose at the side: two to five tokenizers, spaces and token ids shown."""
    chosen: tuple[str, ...] = DEFAULT_TOKENIZERS
    show_spaces: bool = True
    show_ids: bool = False


@frozen
class Results:
    """What the tokenizer process has sent back, and what is on its way."""
    profiles: tuple[Profile, ...] = ()           # per tokenizer: the seed's examples cut, the app's corpus counted
    pasted: PastedCorpus | None = None           # the person's parallel text, read and counted
    reading_paste: bool = False                  # a new parallel text is being read: its counts are not known
    played: PlaygroundResult | None = None       # the playground's text counted (None: not yet, or a new paste)
    counting: bool = False                       # the playground's box changed since ``played``: a count is due
    box_empty: bool = False                      # the playground's box holds no text

    def with_profiles(self, found) -> "Results":
        """These results with the profiles in ``found`` (a mapping or an iterable of profiles) added."""
        profiles = {p.tokenizer: p for p in self.profiles}
        profiles.update({p.tokenizer: p for p in (found.values() if hasattr(found, "values") else found)})
        return replace(self, profiles=tuple(profiles.values()))


@frozen
class TokensInputs:
    """The scene's own inputs of the story: the person's choices and the results so far."""
    choices: Choices = field(default_factory=Choices)
    results: Results = field(default_factory=Results)


class TokensStory(Story):
    builds = BUILDS

    @property
    def choices(self) -> Choices:
        return (self.controls or TokensInputs()).choices

    @property
    def results(self) -> Results:
        return (self.controls or TokensInputs()).results

    @property
    def page(self) -> str:
        """The page the stage shows: "seed", "ratio", "cost" or "playground"."""
        return PAGES[self.build_name]

    # -- what is known -----------------------------------------------------------------------------------------
    @cached_property
    def counted(self) -> tuple[str, ...]:
        """The tokenizers the corpus is counted with: the chosen ones and the scenario model's (for the notes)."""
        return counted_tokenizers(self.choices.chosen, self.scenario.model)

    @cached_property
    def _profiles(self) -> dict[str, Profile]:
        return {p.tokenizer: p for p in self.results.profiles}

    def missing_profiles(self) -> tuple[str, ...]:
        """The counted tokenizers whose profile has not arrived: to be asked of the tokenizer process."""
        return tuple(t for t in self.counted if t not in self._profiles)

    def paste_to_count_again(self) -> bool:
        """Whether the person's parallel text must be counted again: a tokenizer counted now is missing from
        its counts (its counts stay on the stage meanwhile)."""
        pasted = self.results.pasted
        return pasted is not None and pasted.own and not set(self.counted) <= set(pasted.tokenizers)

    def playground_due(self) -> bool:
        """Whether the playground's text is still to be counted (never yet, or changed since its count)."""
        return self.results.played is None or self.results.counting

    @cached_property
    def cuts(self) -> dict[tuple[str, str], SeedCut]:
        """The chosen tokenizers' cuts of the seed's examples, by (example, tokenizer), as far as known."""
        return {(cut.example, cut.tokenizer): cut for t in self.choices.chosen if t in self._profiles
                for cut in self._profiles[t].seed_cuts}

    @property
    def own_parallel(self) -> bool:
        """Whether the corpus shown is the person's parallel text (it held at least one pair)."""
        return self.results.pasted is not None and self.results.pasted.own

    @property
    def parallel(self) -> ParallelText:
        """The corpus the ratios are of: the person's pairs, or the app's."""
        return self.results.pasted.counted if self.own_parallel else app_corpus()

    @cached_property
    def counts(self) -> tuple[CorpusCounts, ...] | None:
        """The corpus counts known of the counted tokenizers (None: none yet, or a new parallel text is read)."""
        if self.results.reading_paste:
            return None
        if self.own_parallel:
            return self.results.pasted.counts
        found = tuple(self._profiles[t].corpus for t in self.counted if t in self._profiles)
        return found or None

    # -- the pictures ----------------------------------------------------------------------------------------
    def states(self) -> dict[str, object]:
        """The state of each widget on the page shown, by name ("seed", "ratio", "price", "cost", "playground")."""
        page, text, choices = self.page, self.text, self.choices
        if page == "seed":
            return {"seed": pictures.seed_state(self.cuts or None, choices.chosen, text, choices.show_spaces,
                                                choices.show_ids)}
        if page == "ratio":
            return {"ratio": pictures.ratio_state(self.counts, len(self.parallel.pairs), self.own_parallel, text,
                                                  choices.chosen)}
        if page == "cost":
            return {"price": pictures.price_state(self.report, text, self.inputs.refusal_text),
                    "cost": pictures.cost_state(self.counts, choices.chosen, self.report, text)}
        return {"playground": self.playground()}

    def playground(self):
        """The playground's lanes; "Counting…" while the box holds text whose count has not arrived, never the
        note of an empty box counted before."""
        return pictures.playground_state(self.played, self.text, self.choices.show_spaces, self.choices.show_ids)

    @property
    def played(self) -> PlaygroundResult | None:
        """The playground's counts shown (None: "Counting…", for a box whose text was not counted yet)."""
        results = self.results
        played = results.played
        if played is not None and played.characters == 0 and results.counting and not results.box_empty:
            return None
        return played

    # -- the formula behind a figure -----------------------------------------------------------------------------
    def figure_labels(self) -> dict[str, tuple[str, str, tuple]]:
        """Each figure of this build with a formula card: (the widget drawing it, as in ``states``; its label
        there; what the card is asked with: None for a figure of the report, else the counts the story has)."""
        page, found = self.page, {}
        shown = [c for c in self.counts or () if c.tokenizer in self.choices.chosen]
        if page == "ratio":
            for n, c in enumerate(shown):
                found[f"chinese_to_english_tokens.{n}"] = ("ratio", f"value.{n}", (c.zh_total, c.en_total))
        elif page == "cost":
            found.update({"usd_per_million_input_tokens": ("price", "value.0", None),
                          "usd_per_million_output_tokens": ("price", "value.1", None),
                          "output_to_input_price_ratio": ("price", "footer", None)})
            if not isinstance(self.report, InputError):
                price = self.report.usd_per_million_output_tokens
                for n, c in enumerate(shown):
                    for side, tokens in enumerate((c.zh_tokens, c.en_tokens)):
                        found[f"usd_per_million_sentences.{2 * n + side}"] = (
                            "cost", f"value.{2 * n + side}", (sum(tokens), len(tokens), price))
        elif page == "playground" and self.played is not None:
            for r, lane in enumerate(self.played.lanes):
                if lane.count:
                    found[f"characters_per_token.{r}"] = ("playground", f"summary.{r}.0",
                                                          (self.played.characters, lane.count))
        return found

    def formulas(self) -> dict:
        """The formula behind each figure of ``figure_labels``: the report's, or one of the counts the tokenizer
        process sent back (``engine.token_formulas``; nothing is tokenized again)."""
        found = {}
        for key, (_widget, _label, counts) in self.figure_labels().items():
            if counts is None:
                found.update(self.formula(self.scenario, key))
                continue
            found.update(self.asked_formula(key, questions.token_formula, key.split(".")[0], *counts))
        return found

    def parallel_status(self) -> str:
        """The line under the parallel-text box: what the person's text gave, or that the app's corpus is shown."""
        pasted = self.results.pasted
        if pasted is None or not pasted.read.pairs:
            status = self.text("control.parallel_none")
        else:
            read = pasted.read
            status = self.text("control.parallel_read", pairs=format_count(len(read.pairs)),
                               skipped=format_count(len(read.skipped_lines)))
            if read.cut_pairs:
                status += " " + self.text("control.parallel_cut", cut=format_count(read.cut_pairs),
                                          most=format_count(MAX_PAIRS))
        if pasted is not None and pasted.held_bytes:
            status += " " + self.text("control.parallel_held", size=format_bytes(pasted.held_bytes))
        return status

    # -- captions and notes ------------------------------------------------------------------------------------
    @cached_property
    def _values(self) -> dict[str, str]:
        return pictures.figures(self.report, self.counts, self.cuts or None, len(self.parallel.pairs),
                                self.choices.chosen, self.text)

    def caption_values(self) -> dict[str, str]:
        return self._values
