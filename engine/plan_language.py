"""The same content in two languages, priced from GPU time: cost per 1,000 characters and the margin at a list price.

A request's content is fixed; its tokens are not: a tokenizer cuts the same
text into more tokens in one language than in another (the app measures
``tokens_per_thousand_characters`` per language on its parallel corpus with
real tokenizers and passes them in). The scenario's prompt and output lengths
are the ``reference`` language's tokens; the content they hold is
``tokens / reference rate x 1,000`` characters, and in language X it is
``characters x rate(X) / 1,000`` tokens. Each language gets its own fleet
plan (``engine.plan.plan_fleet``) at the same request rate and targets, so
its longer sequences also cost more per token: more KV cache per request
(fewer fit in a batch) and longer contexts to read at each step.

For each language: the GPU cost per 1,000 characters of input and of output
content (the plan's price per token x tokens per 1,000 characters), what a
per-token list price earns on them, and the margin
``1 - cost / revenue`` per direction and for a whole request (its input and
output together). A list price set from one language's costs can leave
another's margin thin or negative: that is the point this module makes visible.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from engine.errors import refusal
from engine.frozen import frozen
from engine.plan import FleetPlan, plan_fleet
from engine.plan_traffic import Targets, Traffic, checked_number
from engine.scenario import Scenario, validate_scenario

MAX_TOKENS_PER_THOUSAND_CHARACTERS = 10_000.0   # beyond one token per byte of the longest UTF-8 character
MAX_LIST_USD_PER_MILLION_TOKENS = 1e6
THOUSAND = 1000.0
MILLION = 1e6


@frozen
class LanguagePrice:
    language: str
    tokens_per_thousand_characters: float
    prompt_tokens: int                              # the request's content in this language's tokens
    output_tokens: int
    plan: FleetPlan
    usd_per_thousand_input_characters: float        # GPU cost
    usd_per_thousand_output_characters: float
    list_usd_per_thousand_input_characters: float   # what the list price earns
    list_usd_per_thousand_output_characters: float
    input_margin: float                             # 1 - cost / revenue, input tokens
    output_margin: float                            # output tokens
    margin: float                                   # one whole request


def language_prices(scenario: Scenario, traffic: Traffic, targets: Targets,
                    tokens_per_thousand_characters: Mapping[str, float], *,
                    list_usd_per_million_input_tokens: float, list_usd_per_million_output_tokens: float,
                    reference: str = "en", disaggregated: bool = False, catalog=None) -> dict[str, LanguagePrice]:
    """``LanguagePrice`` per language of ``tokens_per_thousand_characters`` (module docstring).

    Raises ``InputError`` for a bad rate of tokens or list price, a missing reference language,
    or anything ``plan_fleet`` refuses for one of the languages.
    """
    scenario = validate_scenario(scenario)
    rates = dict(tokens_per_thousand_characters) if isinstance(tokens_per_thousand_characters, Mapping) else None
    if rates is None or reference not in rates:
        raise refusal("plan.reference", {"reference": reference, "got": sorted(rates) if rates else []})
    for language, rate in rates.items():
        checked_number(rate, "tokens_per_thousand_characters", MAX_TOKENS_PER_THOUSAND_CHARACTERS)
    list_input = checked_number(list_usd_per_million_input_tokens, "list_input_price",
                                MAX_LIST_USD_PER_MILLION_TOKENS)
    list_output = checked_number(list_usd_per_million_output_tokens, "list_output_price",
                                 MAX_LIST_USD_PER_MILLION_TOKENS)
    prompt_characters = scenario.prompt_tokens / rates[reference] * THOUSAND
    output_characters = scenario.output_tokens / rates[reference] * THOUSAND
    prices = {}
    for language, rate in rates.items():
        prompt = max(1, round(prompt_characters * rate / THOUSAND))
        output = max(1, round(output_characters * rate / THOUSAND))
        plan = plan_fleet(replace(scenario, prompt_tokens=prompt, output_tokens=output), traffic, targets,
                          disaggregated=disaggregated, catalog=catalog)
        cost = prompt * plan.usd_per_million_input_tokens + output * plan.usd_per_million_output_tokens
        revenue = prompt * list_input + output * list_output
        prices[language] = LanguagePrice(
            language=language, tokens_per_thousand_characters=float(rate), prompt_tokens=prompt,
            output_tokens=output, plan=plan,
            usd_per_thousand_input_characters=rate * plan.usd_per_million_input_tokens / MILLION,
            usd_per_thousand_output_characters=rate * plan.usd_per_million_output_tokens / MILLION,
            list_usd_per_thousand_input_characters=rate * list_input / MILLION,
            list_usd_per_thousand_output_characters=rate * list_output / MILLION,
            input_margin=1 - plan.usd_per_million_input_tokens / list_input,
            output_margin=1 - plan.usd_per_million_output_tokens / list_output,
            margin=1 - cost / revenue)
    return prices
