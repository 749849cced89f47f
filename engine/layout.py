"""How a deployment's GPUs are arranged: nodes, and tensor, pipeline and expert parallelism.

A *node* is the GPUs joined by the fast link (``Gpu.node_gpus``: 8 on an HGX
board, 72 in a GB200 NVL72 rack, one in a Mac); nodes talk over the network
(``Gpu.network_bytes_per_second`` per GPU). ``gpus`` GPUs fill
``ceil(gpus / node_gpus)`` nodes.

Three degrees (``Scenario.tp``, ``.pp``, ``.ep``; 0 means "the default below"):

- tensor (T): every weight matrix of a layer is cut T ways (``engine.parallel``);
  each layer ends in all-reduces over the T GPUs.
- pipeline (P): the layers are cut into P stages of consecutive layers; a token's
  hidden state passes from stage to stage, and at batch 1 the stages work in turn.
- expert (E), mixture-of-experts models only: the routed experts of every MoE layer
  are spread over E GPUs of a stage, whole experts on each (E = 1: every expert is
  cut over the stage's GPUs like any other matrix).

What is left, D = gpus / (T x P), is the number of *attention replicas* in each
stage: D copies of the attention and dense layers, each serving 1/D of the batch,
while the experts are spread over all T x D GPUs of the stage. That is DeepSeek-V3's
own deployment (DeepSeek-V3 technical report, arXiv:2412.19437, section 3.4: decoding
on 320 GPUs with attention TP4 x DP80 and experts EP320), and SGLang's
``--enable-dp-attention``. Only a mixture-of-experts model may have D > 1: copies
of a dense model are separate deployments (``engine plan`` counts them).

The default layout, as vLLM's and TensorRT-LLM's multi-node recipes set it:

- within one node, up to 8 GPUs: T = gpus and P = 1 (so ``engine.parallel.check_gpu_count``
  judges ``gpus`` exactly as before nodes existed);
- past that, T = the largest count tensor parallelism allows for the model
  that fits in one node, is at most 8 (``DEFAULT_TENSOR_GPUS``: an HGX board's
  group; the serving stacks' recipes for a GB200 NVL72 rack keep tensor groups of
  4 to 8 too, since every layer waits on them) and divides ``gpus``, and
  P = gpus / T: tensor parallelism
  inside each node, pipeline stages across nodes, so only a stage's hand-over
  crosses the network. Where that would leave more stages than the model has
  layers (64 Macs of one GPU each), the tensor group grows past the node instead;
- a mixture-of-experts model spreads its experts over each stage's GPUs
  (E = T, or the largest count below it that divides the experts), as
  ``vllm serve --enable-expert-parallel``, SGLang's ``--ep-size`` and DeepSeek do.

Asked for explicitly, a tensor group may be wider than a node (SGLang serves
DeepSeek-V3 with ``--tp 16`` over two nodes); its all-reduces then cross the
network (``engine.communication``).
"""
from __future__ import annotations

import math
from functools import cached_property

from engine.catalog_types import Gpu, Model
from engine.errors import refusal
from engine.frozen import frozen
from engine.parallel import allowed_gpu_counts, check_gpu_count
from engine.scenario import MAX_GPUS

DEFAULT_TENSOR_GPUS = 8     # the widest tensor group the default layout makes (module docstring)


@frozen
class Layout:
    """How ``gpus`` GPUs of one kind share one model (module docstring)."""
    gpus: int
    node_gpus: int        # GPUs per node of this kind
    tensor: int           # T
    pipeline: int         # P
    expert: int           # E (1 for a dense model)

    @cached_property
    def data(self) -> int:
        """D: attention replicas per stage (1 unless a MoE model spreads experts wider than its tensor group)."""
        return self.gpus // (self.tensor * self.pipeline)

    @cached_property
    def stage_gpus(self) -> int:
        """GPUs of one pipeline stage: T x D."""
        return self.tensor * self.data

    @cached_property
    def nodes(self) -> int:
        return math.ceil(self.gpus / self.node_gpus)

    @cached_property
    def tensor_crosses_nodes(self) -> bool:
        """True when one tensor group spans more than one node, so its all-reduces use the network."""
        return self.tensor > self.node_gpus

    @cached_property
    def stage_crosses_nodes(self) -> bool:
        """True when one stage's GPUs span more than one node, so its expert all-to-all uses the network."""
        return self.stage_gpus > self.node_gpus

    def hand_over_crosses_node(self, stage: int) -> bool:
        """True when the hand-over into ``stage`` (1 .. P-1) leaves the node of the stage before it."""
        first = stage * self.stage_gpus
        return (first - self.stage_gpus) // self.node_gpus != first // self.node_gpus

    @cached_property
    def network_hand_overs(self) -> int:
        """How many of the P - 1 hand-overs between stages cross the network."""
        return sum(self.hand_over_crosses_node(stage) for stage in range(1, self.pipeline))


def _largest_dividing(candidates, number: int) -> int:
    return max(c for c in candidates if number % c == 0)


def default_tensor(model: Model, gpu: Gpu, gpus: int) -> int:
    """T of the default layout: ``gpus`` within a node of up to 8; else the widest allowed count that fits a node
    (and 8) and divides ``gpus``, or, when that leaves more stages than the model has layers, the narrowest
    wider group that does not."""
    group = min(gpu.node_gpus, DEFAULT_TENSOR_GPUS)
    if gpus <= group:
        return gpus
    in_node = _largest_dividing(allowed_gpu_counts(model, group), gpus)
    if gpus // in_node <= model.layers:
        return in_node
    wider = [c for c in allowed_gpu_counts(model, gpus) if gpus % c == 0 and gpus // c <= model.layers]
    return min(wider) if wider else in_node


def default_layout_gpu_counts(model: Model, gpu: Gpu, limit: int = MAX_GPUS) -> tuple[int, ...]:
    """The GPU counts from 1 to ``limit`` whose default layout shares ``model`` on GPUs of kind ``gpu``
    (``plan_layout`` with no degrees given accepts exactly these): within a node of up to 8, the counts
    tensor parallelism allows; past it, those that some allowed tensor group divides into at most as
    many pipeline stages as the model has layers."""
    key = (id(model), gpu.node_gpus, limit)
    hit = _DEFAULT_COUNTS.get(key)
    if hit is not None and hit[0] is model:
        return hit[1]
    group = min(gpu.node_gpus, DEFAULT_TENSOR_GPUS)
    tensors = allowed_gpu_counts(model, limit)
    counts = tuple(g for g in range(1, limit + 1)
                   if (g in tensors if g <= group else
                       any(g % t == 0 and g // t <= model.layers for t in tensors if t <= g)))
    _DEFAULT_COUNTS[key] = (model, counts)
    return counts


_DEFAULT_COUNTS: dict[tuple, tuple[Model, tuple[int, ...]]] = {}


def _default_expert(model: Model, stage_gpus: int) -> int:
    """E of the default layout: each stage's GPUs hold whole experts, as many as divide the experts evenly."""
    if not model.is_moe:
        return 1
    return math.gcd(stage_gpus, model.experts)


def plan_layout(model: Model, gpu: Gpu, gpus: int, tp: int = 0, pp: int = 0, ep: int = 0) -> Layout:
    """The layout of ``gpus`` GPUs: the asked degrees (0: default, module docstring), checked.

    Raises ``InputError`` in one sentence when the degrees cannot share this model
    on these GPUs (the tensor degree goes through ``engine.parallel.check_gpu_count``).
    """
    if not (tp or pp or ep) and gpus <= min(gpu.node_gpus, DEFAULT_TENSOR_GPUS):   # the common case: one group
        check_gpu_count(model, gpus)
        return Layout(gpus=gpus, node_gpus=gpu.node_gpus, tensor=gpus, pipeline=1, expert=_default_expert(model, gpus))
    values = {"model": model.name, "gpus": gpus, "tp": tp, "pp": pp, "ep": ep}
    if tp == 0:
        tp = default_tensor(model, gpu, gpus) if pp == 0 else max(1, gpus // pp)
    if pp == 0:
        pp = 1 if (model.is_moe and ep > tp) else max(1, gpus // tp)
    if gpus % (tp * pp):
        raise refusal("layout.product", {**values, "tp": tp, "pp": pp, "got": tp * pp})
    if gpus // (tp * pp) > 1 and not model.is_moe:
        raise refusal("layout.dense_replicas", {**values, "tp": tp, "pp": pp, "got": tp * pp})
    check_gpu_count(model, tp)
    if pp > model.layers:
        raise refusal("layout.stages", {**values, "layers": model.layers, "got": pp})
    stage_gpus = gpus // pp
    if ep == 0:
        ep = _default_expert(model, stage_gpus)
    elif not model.is_moe:
        if ep != 1:
            raise refusal("layout.no_experts", {**values, "got": ep})
    elif stage_gpus % ep or model.experts % ep:
        counts = [d for d in range(1, stage_gpus + 1) if stage_gpus % d == 0 and model.experts % d == 0]
        raise refusal("layout.experts", {**values, "experts": model.experts, "stage": stage_gpus,
                                         "counts": counts, "got": ep})
    return Layout(gpus=gpus, node_gpus=gpu.node_gpus, tensor=tp, pipeline=pp, expert=ep)
