"""The draft model of speculative decoding: looked up, and checked against its target.

A draft proposes token ids that the target then scores, so both must cut text
into the same tokens. Which tokenizer a model uses comes from the model's own
``tokenizer`` field where its catalogue entry has one, else from the
tokenizers the app ships (``engine.tokenizer_registry``: each lists the model
ids that use it). Where either model's tokenizer is not known, the two must at
least have vocabularies of the same size (Llama 3.2 1B and Llama 3.1 70B:
128,256 each); that is necessary, not sufficient, and the report says no more.

The draft runs on the target's GPUs, split over them the same way
(``draft_layout``: the target's tensor groups and pipeline stages, one copy in
each attention replica, ``engine.layout``), at the target's precisions.
"""
from __future__ import annotations

import math

from engine.catalog_types import Model
from engine.errors import InputError, refusal
from engine.layout import Layout
from engine.parallel import check_gpu_count


def tokenizer_id(model: Model) -> str | None:
    """The id of the tokenizer ``model`` uses, or None where the catalogue does not say."""
    own = getattr(model, "tokenizer", "")
    if own:
        return own
    from engine.tokenizer_registry import TOKENIZERS      # only a draft model's check: no other report loads it
    for info in TOKENIZERS:
        if model.id in info.model_ids:
            return info.id
    return None


def check_same_tokenizer(draft: Model, target: Model) -> None:
    """Refuse a draft whose tokenizer (or, where one is unknown, vocabulary size) differs from the target's."""
    mine, theirs = tokenizer_id(draft), tokenizer_id(target)
    if mine and theirs:
        if mine != theirs:
            raise refusal("levers.tokenizer", {"field": "draft_model", "draft": draft.name, "model": target.name,
                                               "draft_tokenizer": mine, "tokenizer": theirs})
    elif draft.vocab_size != target.vocab_size:
        raise refusal("levers.vocabulary", {"field": "draft_model", "draft": draft.name, "model": target.name,
                                            "draft_vocab": draft.vocab_size, "vocab": target.vocab_size})


def _about_the_draft(error: InputError) -> InputError:
    """The same refusal, naming ``draft_model`` as the field it is about (so a saved draft is reset, not the model)."""
    return InputError(str(error), error.code, {**error.values, "field": "draft_model"})


def resolve_draft(scenario, target: Model, catalog) -> Model | None:
    """The scenario's draft model from ``catalog``, checked against ``target``; None without one."""
    if not scenario.draft_model:
        return None
    try:
        draft = catalog.model(scenario.draft_model)
    except InputError as error:
        raise _about_the_draft(error) from None
    check_same_tokenizer(draft, target)
    return draft


def draft_layout(draft: Model, target: Layout) -> Layout:
    """The draft's layout on the target's GPUs: its tensor groups and pipeline stages, a copy of the draft in
    each attention replica, its experts (a MoE draft) spread as the default layout spreads them.

    Raises ``InputError`` naming ``draft_model`` where the draft cannot be split so (its heads over the
    tensor group, its layers over the stages).
    """
    try:
        check_gpu_count(draft, target.tensor)
        if target.pipeline > draft.layers:
            raise refusal("layout.stages", {"model": draft.name, "gpus": target.gpus, "layers": draft.layers,
                                            "tp": target.tensor, "pp": target.pipeline, "ep": 0,
                                            "got": target.pipeline})
    except InputError as error:
        raise _about_the_draft(error) from None
    expert = math.gcd(target.stage_gpus, draft.experts) if draft.is_moe else 1
    return Layout(gpus=target.gpus, node_gpus=target.node_gpus, tensor=target.tensor, pipeline=target.pipeline,
                  expert=expert)
