"""What the fleet scene draws: latency against load at a fixed fleet, and the price of the same content per language."""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine.plan import Targets, Traffic, plan_fleet
from engine.plan_curve import knee, latency_curve
from engine.plan_language import language_prices
from engine.scenario import Scenario
from tests.engine.fixtures import CATALOG

DEFAULT = Scenario(gpus=2)


def test_latency_stays_flat_then_bends_and_climbs_past_the_knee():
    curve = latency_curve(DEFAULT, Traffic(1), 4, catalog=CATALOG)
    rates, ttft, tpot = curve.requests_per_second, curve.ttft_p90_seconds, curve.tpot_p90_seconds
    assert np.all(np.diff(rates) > 0) and len(rates) == 24
    assert rates[-1] > curve.capacity_requests_per_second > rates[0]
    half = rates <= 0.5 * curve.capacity_requests_per_second
    assert ttft[half].max() < 1.2 * ttft[0]                           # flat while the queue is short
    assert ttft[-1] > 10 * ttft[0]                                    # and then it climbs
    assert 0.5 * curve.capacity_requests_per_second < curve.knee_requests_per_second \
        < curve.capacity_requests_per_second
    assert tpot[-1] > tpot[0]                                         # a fuller batch steps more slowly


def test_the_fleet_of_a_plan_meets_its_targets_on_the_curve_at_the_plan_rate():
    p = plan_fleet(DEFAULT, Traffic(6), Targets(1.0, 0.05), catalog=CATALOG)
    curve = latency_curve(DEFAULT, Traffic(6), p.replicas, rates=[6.0], catalog=CATALOG)
    assert curve.ttft_p90_seconds[0] <= 1.0 * 1.1 and curve.tpot_p90_seconds[0] <= 0.05 * 1.02


def test_the_knee_is_where_the_latency_first_doubles():
    rates = np.array([1.0, 2.0, 3.0, 4.0])
    assert knee(rates, np.array([1.0, 1.2, 1.6, 3.0])) == pytest.approx(3.0 + (2.0 - 1.6) / (3.0 - 1.6))
    assert math.isnan(knee(rates, np.array([1.0, 1.1, 1.2, 1.3])))


def test_content_that_takes_more_tokens_costs_more_per_character_and_earns_a_thinner_margin():
    prices = language_prices(DEFAULT, Traffic(10), Targets(2.0, 0.05), {"en": 250.0, "zh": 350.0},
                             list_usd_per_million_input_tokens=0.5, list_usd_per_million_output_tokens=3.0,
                             catalog=CATALOG)
    en, zh = prices["en"], prices["zh"]
    assert (en.prompt_tokens, en.output_tokens) == (1000, 500)       # the scenario is the reference's tokens
    assert (zh.prompt_tokens, zh.output_tokens) == (1400, 700)       # the same characters at 350 per 1,000
    assert zh.plan.gpus > en.plan.gpus
    # more tokens per character, and each of them dearer (longer sequences: fewer fit, longer reads)
    assert zh.usd_per_thousand_output_characters > 1.4 * en.usd_per_thousand_output_characters
    assert zh.plan.usd_per_million_output_tokens > en.plan.usd_per_million_output_tokens
    assert zh.margin < en.margin and zh.output_margin < en.output_margin
    assert zh.list_usd_per_thousand_output_characters == pytest.approx(1.4 * en.list_usd_per_thousand_output_characters)
    revenue = en.prompt_tokens * 0.5 + en.output_tokens * 3.0
    cost = en.prompt_tokens * en.plan.usd_per_million_input_tokens + en.output_tokens * en.plan.usd_per_million_output_tokens
    assert en.margin == pytest.approx(1 - cost / revenue)


def test_languages_that_cut_alike_are_priced_alike():
    prices = language_prices(DEFAULT, Traffic(5), Targets(2.0, 0.05), {"en": 300.0, "fr": 300.0},
                             list_usd_per_million_input_tokens=1.0, list_usd_per_million_output_tokens=4.0,
                             catalog=CATALOG)
    assert prices["en"].margin == prices["fr"].margin
    assert prices["en"].plan.to_json_dict() == prices["fr"].plan.to_json_dict()
