"""The story of "serving many users": the question, latency against load, the fleet, price per language, two pools.

In: the shared scenario (each replica's deployment), the build, and
``ServingInputs`` (the presenter's rate, targets and list prices, and the
engine's answers that have arrived). Out: the states of the latency plot,
the fleet picture, the figure table and the bars, where each goes, the
phase, the caption and note values (``notes``), and the refusals beside the
controls.

The slow questions (fleet plans, the latency curve, the corpus counts, the
prices per language) are named as ``Request`` values (``needs``); the view
has them asked off the UI thread and hands the answers back. Until a build's
answers are in, its phase is "computing" and its widgets say so: no figure
of other inputs is ever shown as this one's. A refused answer is a value:
the build says so and the reason stands beside the control it concerns.
"""
from __future__ import annotations

from dataclasses import replace
from functools import cached_property

from desktop.kit import questions
from desktop.kit.answers import NOT_KNOWN, refused
from desktop.kit.story import Story
from engine import InputError, Scenario

from . import asked, notes, pictures, tables
from .choices import Request, ServingControls, ServingInputs

BUILDS = ("question", "load", "fleet", "language", "disaggregation", "summary")
CASES = ("busy", "small")               # the disaggregation build's two services: this traffic, and a tenth of it
# Which control a refusal concerns, by the engine's code (and, for a number out of range, its field).
CONTROL_OF_FIELD = {"requests_per_second": "rate", "ttft_target": "ttft", "tpot_target": "tpot",
                    "list_input_price": "list_input", "list_output_price": "list_output"}
CONTROL_OF_CODE = {"plan.ttft_unreachable": "ttft", "plan.tpot_unreachable": "tpot", "plan.too_many_gpus": "rate"}
CONTROLS = ("rate", "ttft", "tpot", "list_input", "list_output", "scenario")
LANGUAGE_BARS_SHARE = 0.42              # the language build: its bars left, its wider table right
PICTURE_SHARE = 0.52                    # of the stage's width: the picture left, its table right

Rect = tuple[int, int, int, int]


class ServingStory(Story):
    builds = BUILDS

    # -- the inputs ----------------------------------------------------------------------------------
    @property
    def served(self) -> ServingInputs:
        return self.controls if isinstance(self.controls, ServingInputs) else ServingInputs()

    @property
    def choices(self) -> ServingControls:
        return self.served.controls

    @cached_property
    def replica_scenario(self) -> Scenario:
        """The shared scenario as one replica: its batch is the plan's to find (one cache entry per batch saved)."""
        return replace(self.scenario, batch=1)

    def answer(self, request: Request | None):
        return NOT_KNOWN if request is None else self.served.answer(request)

    # -- the engine questions, by build ------------------------------------------------------------------
    def fleet_request(self, case: str = "busy", separate: bool = False) -> Request:
        traffic = self.choices.traffic if case == "busy" else self.choices.small_traffic
        question = asked.separate_pools if separate else asked.fleet
        return Request(question, (self.replica_scenario, traffic, self.choices.targets))

    @property
    def plan(self):
        """The fleet for this traffic (a ``FleetPlan``), its refusal, or ``NOT_KNOWN``."""
        return self.answer(self.fleet_request())

    @property
    def curve_request(self) -> Request | None:
        """The latency curve of the plan's fleet; None until the plan is in (or when it is refused)."""
        plan = self.plan
        if plan is NOT_KNOWN or refused(plan):
            return None
        return Request(asked.load_curve, (self.replica_scenario, self.choices.traffic, plan.replicas))

    @cached_property
    def tokenizer(self) -> tuple[str, bool]:
        """(the tokenizer that cuts the corpus, whether it is the model's own)."""
        return asked.tokenizer_of(self.scenario.model)

    @property
    def rates_request(self) -> Request:
        return Request(asked.corpus_rates, (self.tokenizer[0],))

    @property
    def prices_request(self) -> Request | None:
        rates = self.answer(self.rates_request)
        if rates is NOT_KNOWN or refused(rates):
            return None
        c = self.choices
        return Request(asked.prices, (self.replica_scenario, c.traffic, c.targets,
                                      tuple(sorted(rates.tokens_per_thousand_characters.items())),
                                      c.list_usd_per_million_input_tokens, c.list_usd_per_million_output_tokens))

    def needs(self, build_name: str) -> tuple[Request | None, ...]:
        """The slow questions ``build_name`` shows, in the order they can be asked (None: one that waits for the
        answer before it)."""
        if build_name == "load":
            return self.fleet_request(), self.curve_request
        if build_name == "fleet":
            return (self.fleet_request(),)
        if build_name == "language":
            return self.rates_request, self.prices_request
        if build_name == "disaggregation":
            return tuple(self.fleet_request(case, separate) for case in CASES for separate in (False, True))
        if build_name == "summary":
            return tuple(dict.fromkeys(r for name in ("load", "language", "disaggregation") for r in self.needs(name)))
        return ()

    def wanted(self) -> tuple[Request, ...]:
        """Every question that can be asked now: this build's first, then the others' in running order."""
        order = (self.build_name, *(name for name in BUILDS if name != self.build_name))
        return tuple(dict.fromkeys(r for name in order for r in self.needs(name) if r is not None))

    def missing(self) -> tuple[Request, ...]:
        return tuple(r for r in self.wanted() if self.answer(r) is NOT_KNOWN)

    def status(self, build_name: str | None = None) -> str:
        """"ready", "computing" (an answer not in yet) or "refused" (the engine refused one)."""
        answers = [self.answer(r) for r in self.needs(build_name or self.build_name)]
        if any(refused(a) for a in answers):
            return "refused"
        return "computing" if any(a is NOT_KNOWN for a in answers) else "ready"

    def refusal(self, build_name: str | None = None) -> InputError | None:
        for request in self.needs(build_name or self.build_name):
            answer = self.answer(request)
            if refused(answer):
                return answer
        return None

    # -- what the frame reads --------------------------------------------------------------------------
    def phase(self) -> str:
        status = self.status()
        if status != "ready":
            return status
        if self.build_name == "load" and not notes.has_knee(self.answer(self.curve_request)):
            return "load_flat"
        if self.build_name == "disaggregation":
            busy, small = (notes.pool_saving(self, case) for case in CASES)
            return "disaggregation" if (busy > 0) != (small > 0) else "disaggregation_alike"
        return self.build_name

    def caption_values(self):
        return self._values

    @cached_property
    def _values(self):
        return notes.values(self)

    def subject(self):
        """The stage names one replica: the shared scenario at batch 1 (the plan finds the batch), so a batch the
        side panel set that does not fit never marks the plan's figures hypothetical."""
        return self.replica_scenario, self.report_for(self.replica_scenario)

    def subject_note(self) -> str:
        return self.text("label.each_replica")

    def control_notes(self) -> dict[str, str]:
        """The engine's reason beside the control it concerns (one sentence), for every refusal of this traffic's
        plan, its prices or the small service's; empty where nothing is refused."""
        found: dict[str, str] = {}
        requests = (self.fleet_request(), self.fleet_request(separate=True), self.prices_request)
        for request in requests:
            answer = self.answer(request)
            if refused(answer):
                control = CONTROL_OF_CODE.get(answer.code) or CONTROL_OF_FIELD.get(answer.values.get("field"),
                                                                                  "scenario")
                found.setdefault(control, self.inputs.refusal_text(answer))
        return found

    # -- the formula behind a figure --------------------------------------------------------------------
    def formula_labels(self) -> dict[str, tuple[str, tuple[str, ...]]]:
        """Where each figure of ``formulas`` is drawn: (the widget, "table", "fleet" or "plot"; its labels)."""
        name, curve = self.build_name, self.answer(self.curve_request)
        if self.status() != "ready":
            return {}
        knee = curve is not NOT_KNOWN and not refused(curve) and notes.has_knee(curve)
        if name == "fleet":
            return {"fleet_gpus": ("fleet", ("headline",)), "fleet_nodes": ("table", ("cell.1.0",))}
        if name == "load":
            return {"knee_requests_per_second": ("plot", ("knee",))} if knee else {}
        if name != "summary":
            return {}
        rows = tables.SUMMARY_ROWS
        cell = lambda row: ("table", (f"cell.{rows.index(row)}.0",))      # noqa: E731
        places = {"fleet_gpus": cell("how_many"), "fleet_nodes": cell("how_many"),
                  "fleet_usd_per_million_input_tokens": cell("what_price"),
                  "fleet_usd_per_million_output_tokens": cell("what_price")}
        return {**places, "knee_requests_per_second": cell("answer_knee")} if knee else places

    def formulas(self) -> dict:
        """The fleet's GPUs, nodes and prices from the plan the engine found (``engine.plan_formulas``), and the
        knee of its latency curve, where this build shows them."""
        found = {}
        for key in self.formula_labels():
            if key == "knee_requests_per_second":
                curve = self.answer(self.curve_request)
                rates, times = tuple(map(float, curve.requests_per_second)), tuple(map(float, curve.ttft_p90_seconds))
                found.update(self.asked_formula(key, questions.knee_formula, rates, times))
            else:
                found.update(self.asked_formula(key, questions.plan_formula, self.plan, key))
        return found

    # -- the stage -------------------------------------------------------------------------------------
    def message(self) -> tuple[str, str] | None:
        """What a widget shows instead of figures: (text, colour role) while computing or refused; else None."""
        status = self.status()
        if status == "computing":
            return self.text("label.computing"), "muted"
        if status == "refused":
            return self.inputs.refusal_text(self.refusal()), "warning"
        return None

    def latency_plot(self):
        message = self.message()
        if message is not None:
            return pictures.message_plot(*message)
        c = self.choices
        return pictures.latency_state(self.answer(self.curve_request), c.requests_per_second, c.ttft_target_seconds,
                                      c.tpot_target_seconds, self.text)

    @cached_property
    def links(self):
        answer = self.ask(asked.links, self.scenario.gpu)
        return None if refused(answer) else answer

    def fleet_picture(self):
        message = self.message()
        if message is not None or self.links is None:
            return pictures.message_fleet(*(message or (self.text("label.computing"), "muted")))
        return pictures.fleet_state(self.plan, self.links, self.text)

    def table(self):
        return tables.table(self)

    def bars(self):
        return tables.bars(self)

    def rects(self, width: int, height: int) -> dict[str, Rect | None]:
        """Where the plot, the fleet, the table and the bars go on a ``width`` x ``height`` stage (None: hidden)."""
        name = self.build_name
        whole = (0, 0, width, height)
        left = round(width * PICTURE_SHARE)
        gap = round(width * 0.03)
        right = (left + gap, 0, width - left - gap, height)
        placed: dict[str, Rect | None] = {"plot": None, "fleet": None, "table": None, "bars": None}
        if self.status() != "ready" and name in ("fleet", "language"):
            placed["table"] = whole                 # computing or refused: the one widget that says so
        elif name == "load":
            placed["plot"] = whole
        elif name == "fleet":
            placed["fleet"], placed["table"] = (0, 0, left, height), right
        elif name == "language":
            split = round(width * LANGUAGE_BARS_SHARE)
            placed["bars"], placed["table"] = (0, 0, split - gap // 2, height), \
                (split + gap // 2, 0, width - split - gap // 2, height)
        elif name == "disaggregation":
            placed["bars"] = whole
        else:
            inset = round(width * 0.08)
            placed["table"] = (inset, 0, width - 2 * inset, height)
        return placed

    def for_build(self, build: int) -> "ServingStory":
        return type(self)(self.inputs.at_build(build))
