"""The engine questions of the serving scene, asked through the kit (``ask(question, *arguments)``). Qt-free.

Each takes the catalogue first and hashable arguments and returns the engine's
answer or raises its ``InputError`` (the kit hands that back as a value). The
fleet plans, the latency curve and the prices per language are simulations
(tens to hundreds of ms): the view asks them from the kit's worker thread,
never the UI thread (``desktop.scenes.serving.choices``), and the kit computes
them in the engine process (``slow_question``); ``links`` is a
catalogue look-up, asked by the story at once.

The parallel corpus and its tokenizer are the tokens scene's
(``desktop.scenes.tokens``): the app's Chinese/English corpus, counted by
real tokenizers in the tokenizer process. The tokenizer is the scenario
model's own where the app ships it, else ``STAND_IN_TOKENIZER``, and the
stage says which.
"""
from __future__ import annotations


from desktop.kit.engine_process import slow_question
from engine import Scenario
from engine.frozen import frozen
from engine.plan import FleetPlan, plan_fleet
from engine.plan_curve import LatencyCurve, latency_curve
from engine.plan_language import LanguagePrice, language_prices
from engine.plan_traffic import Targets, Traffic
from engine.tokens import tokenizer_for_model

# For a model whose own tokenizer does not ship with the app: GPT-4o's, the most widely used vocabulary today,
# which cuts the corpus' Chinese into about as many tokens as its English.
STAND_IN_TOKENIZER = "o200k_base"
THOUSAND = 1000.0


@slow_question
def fleet(catalog, scenario: Scenario, traffic: Traffic, targets: Targets) -> FleetPlan:
    """The smallest colocated fleet for ``traffic`` within ``targets`` (``engine.plan.plan_fleet``)."""
    return plan_fleet(scenario, traffic, targets, catalog=catalog)


@slow_question
def separate_pools(catalog, scenario: Scenario, traffic: Traffic, targets: Targets) -> FleetPlan:
    """The same with separate prefill and decode pools (``plan_fleet(..., disaggregated=True)``)."""
    return plan_fleet(scenario, traffic, targets, disaggregated=True, catalog=catalog)


@slow_question
def load_curve(catalog, scenario: Scenario, traffic: Traffic, replicas: int) -> LatencyCurve:
    """P90 latencies of ``replicas`` colocated replicas as the rate rises (``engine.plan_curve.latency_curve``)."""
    return latency_curve(scenario, traffic, replicas, catalog=catalog)


def tokenizer_of(model_id: str) -> tuple[str, bool]:
    """(the tokenizer the corpus is cut with, whether it is the model's own)."""
    own = tokenizer_for_model(model_id)
    return (own.id, True) if own is not None else (STAND_IN_TOKENIZER, False)


@frozen
class CorpusRates:
    """The parallel corpus as one tokenizer cuts it, per 1,000 characters of content.

    A "character of content" is one character of the English side (a letter, digit, space or punctuation
    mark: one Unicode code point); the same meaning in Chinese takes ``zh_characters_per_thousand`` Chinese
    characters (汉字 and punctuation marks, one code point each, no spaces)."""
    tokenizer: str
    pairs: int
    en_characters: int
    zh_characters: int
    en_tokens: int
    zh_tokens: int

    @property
    def tokens_per_thousand_characters(self) -> dict[str, float]:
        """Tokens per 1,000 characters of content, by language (what ``engine.plan_language`` takes)."""
        return {"en": self.en_tokens / self.en_characters * THOUSAND,
                "zh": self.zh_tokens / self.en_characters * THOUSAND}

    @property
    def zh_characters_per_thousand(self) -> float:
        return self.zh_characters / self.en_characters * THOUSAND

    @property
    def ratio(self) -> float:
        """Chinese tokens per English token for the same meaning."""
        return self.zh_tokens / self.en_tokens


def corpus_rates(catalog, tokenizer: str) -> CorpusRates:
    """The app's parallel corpus counted by ``tokenizer`` in the tokenizer process (waits for it: a worker
    thread, or an export)."""
    from desktop.scenes.tokens import prepared
    from desktop.scenes.tokens.corpus import app_corpus

    counts = prepared.profiles((tokenizer,))[tokenizer].corpus
    pairs = app_corpus().pairs
    return CorpusRates(tokenizer=tokenizer, pairs=len(pairs), en_characters=sum(len(p.en) for p in pairs),
                       zh_characters=sum(len(p.zh) for p in pairs), en_tokens=counts.en_total,
                       zh_tokens=counts.zh_total)


@slow_question
def prices(catalog, scenario: Scenario, traffic: Traffic, targets: Targets, rates: tuple[tuple[str, float], ...],
           list_input_usd: float, list_output_usd: float) -> dict[str, LanguagePrice]:
    """The same content priced per language (``engine.plan_language.language_prices``); the scenario's lengths
    are the English tokens of the content."""
    return language_prices(scenario, traffic, targets, dict(rates), list_usd_per_million_input_tokens=list_input_usd,
                           list_usd_per_million_output_tokens=list_output_usd, reference="en", catalog=catalog)


@frozen
class NodeLinks:
    """A node's GPUs and the two links of a fleet, as the catalogue names them (figures: both directions)."""
    node_gpus: int
    link: str                         # "NVLink 4"
    link_bytes_per_second: float      # per GPU
    network: str                      # "InfiniBand NDR"
    network_bytes_per_second: float   # per GPU
    gpu_name: str


def links(catalog, gpu_id: str) -> NodeLinks:
    """The node size and the two links of ``gpu_id`` in the catalogue (short names: up to a bracket or comma)."""
    gpu = catalog.gpu(gpu_id)
    return NodeLinks(node_gpus=gpu.node_gpus, link=_short(gpu.interconnect),
                     link_bytes_per_second=gpu.interconnect_bytes_per_second, network=_short(gpu.network),
                     network_bytes_per_second=gpu.network_bytes_per_second, gpu_name=gpu.name)


def _short(name: str) -> str:
    """"NVLink 4 (400 GB/s total, both directions)" -> "NVLink 4"; "InfiniBand NDR, one ..." -> "InfiniBand NDR"."""
    for stop in (" (", ", ", "; "):
        name = name.split(stop, 1)[0]
    return name.strip()
