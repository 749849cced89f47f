"""How big the probe's arrays are: chosen from a memory budget, the model's shapes and the cache.

Every stage holds at most one *working set* of bytes at a time (each stage's
arrays are freed before the next stage starts):

- bandwidth: one array streamed by the read, as large as the decode step's
  weights, then two arrays of half that for the copy;
- compute: three square float32 matrices, ``3 * n * n * 4`` bytes;
- decode and prefill: the model's weight matrices, float32, plus the tokens'
  activations (a quarter of the working set at most).

The default working set is four times the last-level cache the system reports,
kept between ``DEFAULT_WORKING_SET_BYTES`` and ``LARGEST_DEFAULT_WORKING_SET_BYTES``
("a few hundred MB"), and never more than a quarter of the memory that is free.
The bandwidth read streams exactly as many bytes as the decode step's weights,
so the two meet the same caches: where the cache is not much smaller than the
weights (a small budget, or a virtual machine that sees its host's whole cache)
both figures include it alike, and the prediction still holds.

The weights are the matrices of the model's decoder layers in the order a token
meets them (q, k, v, o, gate, up, down), as many whole layers as fit; where not
even one layer fits, the first matrices of one layer. The embedding and the LM
head are left out (the embedding is a lookup, and the LM head of a small model
is larger than the budget). Only dense models with ordinary or grouped-query
attention have these shapes; others are refused.
"""
from __future__ import annotations


from engine.catalog_types import Catalog, Model
from engine.errors import InputError, refusal
from engine.frozen import frozen
from engine.parameters import parameter_counts
from engine.units import format_bytes

FLOAT32_BYTES = 4
READ_VALUE_BYTES = 8                  # the bandwidth arrays hold float64 ones (see engine.probe_backends)
DEFAULT_WORKING_SET_BYTES = 256_000_000
LARGEST_DEFAULT_WORKING_SET_BYTES = 384_000_000
SMALLEST_WORKING_SET_BYTES = 8_000_000      # below this every array sits in a cache and nothing is learnt
LARGEST_WORKING_SET_BYTES = 64_000_000_000
SHARE_OF_FREE_MEMORY = 0.25           # the probe never takes more than this share of the free memory
MOST_PREFILL_TOKENS = 512             # where the BLAS reaches its peak on a transformer's matrices
FEWEST_PREFILL_TOKENS = 64            # fewer would bring the prefill near the ridge point
PREFERRED_MODELS = ("qwen3-0.6b", "llama-3.2-1b")     # small real models, if the catalogue has them
LAYER_ROLES = ("q", "k", "v", "o", "gate", "up", "down")


class ProbeError(InputError):
    """The probe cannot run as asked or here (a model it cannot run, too little memory, a failing BLAS);
    the message is one sentence of ``resources/text/errors.toml`` (code ``probe.*``)."""


def probe_error(code: str, values: dict) -> ProbeError:
    """The ``ProbeError`` for ``code``, its sentence written as ``engine.errors.refusal`` writes it."""
    error = refusal(code, values)
    return ProbeError(str(error), error.code, error.values)


@frozen
class WeightMatrix:
    """One weight matrix of a decoder layer, stored as (rows = outputs, columns = inputs)."""
    layer: int
    role: str          # one of LAYER_ROLES
    rows: int
    columns: int

    @property
    def bytes(self) -> int:
        return self.rows * self.columns * FLOAT32_BYTES


@frozen
class ProbeSizes:
    """What one device's probe holds and runs."""
    working_set_bytes: int
    read_values: int                   # float64 values the bandwidth read streams
    copy_values: int                   # float64 values in each of the copy's two arrays
    largest_matmul_size: int           # n of the largest n x n float32 matmul that fits
    matrices: tuple[WeightMatrix, ...]
    layers_measured: int               # whole decoder layers among ``matrices`` (0: part of one)
    prefill_tokens: int                # the most tokens the prefill may take (the probe may take fewer)

    @property
    def weights_bytes(self) -> int:
        return sum(matrix.bytes for matrix in self.matrices)

    def to_json_dict(self) -> dict:
        roles: dict[tuple[str, int, int], int] = {}
        for matrix in self.matrices:
            key = (matrix.role, matrix.rows, matrix.columns)
            roles[key] = roles.get(key, 0) + 1
        return {"working_set_bytes": self.working_set_bytes, "read_bytes": self.read_values * READ_VALUE_BYTES,
                "copy_bytes": 2 * self.copy_values * READ_VALUE_BYTES, "weights_bytes": self.weights_bytes,
                "layers_measured": self.layers_measured,
                "matrices": [{"role": role, "rows": rows, "columns": columns, "count": count}
                             for (role, rows, columns), count in roles.items()]}


def layer_matrices(model: Model, layer: int = 0) -> tuple[WeightMatrix, ...]:
    """The weight matrices of one decoder layer of ``model`` (a dense model; see ``probe_model``)."""
    h, q, kv = model.hidden_size, model.attention_heads * model.head_dim, model.kv_heads * model.head_dim
    shapes = {"q": (q, h), "k": (kv, h), "v": (kv, h), "o": (h, q),
              "gate": (model.intermediate_size, h), "up": (model.intermediate_size, h),
              "down": (h, model.intermediate_size)}
    return tuple(WeightMatrix(layer, role, *shapes[role]) for role in LAYER_ROLES)


def probe_model(catalog: Catalog, model_id: str | None = None) -> Model:
    """The model whose shapes the probe runs: ``model_id``, else the first of ``PREFERRED_MODELS`` in the
    catalogue, else its smallest dense model. A mixture of experts or latent attention is refused."""
    if model_id is None:
        model_id = next((known for known in PREFERRED_MODELS if known in catalog.models), None)
    if model_id is None:
        model = min(_dense(catalog), key=lambda m: parameter_counts(m).total, default=None)
        if model is None:
            raise probe_error("probe.no_model", {})
        return model
    model = catalog.model(model_id)
    if model.is_moe or model.uses_mla:
        example = next((m.id for m in _dense(catalog)), "")
        raise probe_error("probe.model_kind", {"model": model.name, "example": example})
    return model


def _dense(catalog: Catalog) -> list[Model]:
    return [model for model in catalog.models.values() if not (model.is_moe or model.uses_mla)]


def working_set_bytes(requested: int | None, available: int | None, cache: int | None) -> int:
    """The working set to use: ``requested`` (default: from the cache, see the module docstring),
    never more than ``SHARE_OF_FREE_MEMORY`` of the ``available`` bytes. Raises ``probe.memory``
    when that leaves less than ``SMALLEST_WORKING_SET_BYTES``."""
    if requested is None:
        requested = min(max(DEFAULT_WORKING_SET_BYTES, 4 * (cache or 0)), LARGEST_DEFAULT_WORKING_SET_BYTES)
    if available is not None:
        allowed = int(available * SHARE_OF_FREE_MEMORY)
        if allowed < SMALLEST_WORKING_SET_BYTES:
            needed = SMALLEST_WORKING_SET_BYTES / SHARE_OF_FREE_MEMORY
            raise probe_error("probe.memory", {"needed": format_bytes(needed), "available": format_bytes(available)})
        requested = min(requested, allowed)
    return requested


def activation_bytes(matrices: tuple[WeightMatrix, ...], tokens: int) -> int:
    """Bytes of the tokens' inputs (one per input width) and outputs (one per output width)."""
    widths = {matrix.columns for matrix in matrices} | {matrix.rows for matrix in matrices}
    return tokens * FLOAT32_BYTES * sum(widths)


def probe_sizes(model: Model, working_set: int, largest_matmul: int = 8192) -> ProbeSizes:
    """The sizes of every stage for ``model`` within ``working_set`` bytes (module docstring).

    Raises ``probe.model_too_big`` when not even the first weight matrix fits with its activations.
    """
    layer = layer_matrices(model)
    activations_room = working_set // 4
    first = layer[:1]
    tokens = MOST_PREFILL_TOKENS
    while tokens > FEWEST_PREFILL_TOKENS and activation_bytes(layer, tokens) > activations_room:
        tokens //= 2
    room = working_set - activation_bytes(layer, tokens)
    if first[0].bytes > room:
        raise probe_error("probe.model_too_big", {"model": model.name, "role": first[0].role,
                                              "needed": format_bytes(first[0].bytes + activation_bytes(first, tokens)),
                                              "budget": format_bytes(working_set)})
    layer_bytes = sum(matrix.bytes for matrix in layer)
    layers = min(model.layers, room // layer_bytes)
    if layers:
        matrices = tuple(m for index in range(layers) for m in layer_matrices(model, index))
    else:
        taken: list[WeightMatrix] = []
        for matrix in layer:
            if sum(m.bytes for m in taken) + matrix.bytes > room:
                break
            taken.append(matrix)
        matrices = tuple(taken)
    n = 256
    while 2 * n <= largest_matmul and 3 * (2 * n) ** 2 * FLOAT32_BYTES <= working_set:
        n *= 2
    weights = sum(matrix.bytes for matrix in matrices)
    return ProbeSizes(working_set_bytes=working_set, read_values=weights // READ_VALUE_BYTES,
                      copy_values=weights // (2 * READ_VALUE_BYTES), largest_matmul_size=n,
                      matrices=matrices, layers_measured=layers, prefill_tokens=tokens)
