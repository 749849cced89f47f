"""Scene 8's formula cards, without Qt: "How many GPUs?" and "What does a million tokens cost?" come from the plan the
engine found (its own figures in every card), the knee from the latency curve; each result is the number shown."""
from __future__ import annotations

import dataclasses
import re

import pytest

from desktop.default_scenario import DEFAULT_SCENARIO
from desktop.scenes.serving.choices import ServingControls
from desktop.scenes.serving.tables import SUMMARY_ROWS
from engine import InputError
from engine.plan_curve import latency_curve
from engine.plan_formulas import formula, knee_formula
from engine.units import format_number, format_seconds
from tests.desktop.stories import CATALOG
from tests.desktop.test_serving_story import answered, at, engine_plan


@pytest.fixture(scope="module")
def default():
    return answered()


def _numbers(text: str) -> list[float]:
    return [float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", text.replace("\u00a0", " "))]


def test_the_summarys_cards_are_the_plans_gpus_nodes_and_prices_in_the_cells_that_show_them(default):
    s = at("summary", served=default)
    formulas, table = s.formulas(), s.table()
    cell = {key: table.rows[SUMMARY_ROWS.index(key)].cells[0].text.replace("\u00a0", " ") for key in SUMMARY_ROWS}
    plan = engine_plan()
    assert formulas["fleet_gpus"].value == plan.gpus == plan.replicas * plan.gpus_per_replica
    assert formulas["fleet_gpus"].values == f"{plan.replicas} × {plan.gpus_per_replica}"
    assert formulas["fleet_nodes"].value == plan.nodes
    assert cell["how_many"].startswith(f"{plan.gpus} ") and f" {plan.nodes} " in cell["how_many"]
    for direction in ("input", "output"):
        shown = formulas[f"fleet_usd_per_million_{direction}_tokens"]
        assert shown.value == getattr(plan, f"usd_per_million_{direction}_tokens")
        assert shown.result in cell["what_price"]
        g, usd, seconds, share, tokens, million = _numbers(shown.values)       # the rent over the tokens it serves
        assert g * usd / seconds * share / 100 / tokens * million == pytest.approx(shown.value, rel=0.01)
    assert formulas["knee_requests_per_second"].result.removesuffix("/s") in cell["answer_knee"]


def test_the_fleet_build_offers_the_gpus_on_its_headline_and_the_nodes_on_the_table(default):
    s = at("fleet", served=default)
    assert set(s.formulas()) == {"fleet_gpus", "fleet_nodes"}
    assert s.formula_labels()["fleet_gpus"] == ("fleet", ("headline",))
    assert s.formulas()["fleet_gpus"].result in s.fleet_picture().headline


def test_the_loads_knee_card_interpolates_the_curves_own_points(default):
    s = at("load", served=default)
    shown = s.formulas()["knee_requests_per_second"]
    curve = latency_curve(dataclasses.replace(DEFAULT_SCENARIO, batch=1), ServingControls().traffic,
                          engine_plan().replicas, catalog=CATALOG)
    assert shown.value == pytest.approx(curve.knee_requests_per_second)
    ttft, rates = list(curve.ttft_p90_seconds), list(curve.requests_per_second)
    doubled = next(i for i, t in enumerate(ttft) if t >= 2 * ttft[0])        # the first point past the knee
    terms = {t.symbol: t.value for t in shown.terms}
    assert terms["t_light"] == format_seconds(ttft[0])
    assert (terms["R₀"], terms["R₁"]) == (f"{format_number(rates[doubled - 1])}/s", f"{format_number(rates[doubled])}/s")
    assert rates[doubled - 1] < shown.value <= rates[doubled]
    assert shown.result in s.latency_plot().knee_label


def test_a_disaggregated_plan_counts_both_pools():
    plan = engine_plan(disaggregated=True)
    shown = formula(plan, "fleet_gpus")
    assert shown.symbols == "G = (r_p + r_d) × g" and shown.value == plan.gpus
    assert (plan.prefill_replicas + plan.decode_replicas) * plan.gpus_per_replica == plan.gpus


def test_a_replica_wider_than_a_node_fills_nodes_of_its_own():
    plan = engine_plan(dataclasses.replace(DEFAULT_SCENARIO, model="deepseek-v3", weights="fp8", gpus=16))
    shown = formula(plan, "fleet_nodes")
    assert shown.symbols == "nodes = r × n" and shown.value == plan.nodes == plan.replicas * 2


def test_a_curve_without_a_knee_and_an_unknown_figure_are_refused():
    with pytest.raises(InputError) as refused:
        knee_formula((1.0, 2.0, 3.0), (0.1, 0.12, 0.15))        # never twice the lightest load's
    assert refused.value.code == "formula.no_knee" and "no knee" in str(refused.value)
    for rates, times in (((1.0, 2.0), (0.1, 0.2, 0.4)), ((1.0,), (0.1,)), ((1.0, 2.0), (0.1, float("nan")))):
        with pytest.raises(InputError) as refused:
            knee_formula(rates, times)                         # not a curve: one sentence, never an IndexError
        assert refused.value.code == "formula.bad_curve"
    with pytest.raises(InputError) as refused:
        formula(engine_plan(), "vibes")
    assert refused.value.code == "formula.unknown"


def test_the_builds_without_these_figures_offer_none(default):
    for build in ("question", "language", "disaggregation"):
        assert at(build, served=default).formulas() == {}


def test_every_card_is_worded_in_both_languages(default):
    import tomllib
    from importlib import resources
    texts = tomllib.loads(resources.files("resources").joinpath("text", "formulas.toml").read_text("utf-8"))
    shown = [*at("summary", served=default).formulas().values(), formula(engine_plan(disaggregated=True), "fleet_gpus")]
    for card in shown:
        assert set(texts["title"][card.key]) == {"en", "zh"} and card.source.startswith("engine.")
        for term in card.terms:
            assert term.symbol in card.symbols and set(texts["term"][term.name]) == {"en", "zh"}, term.name
