"""What a Hugging Face ``config.json`` says about a model's shapes, family by family.

``model_fields(config, shown)`` turns the parsed JSON of a config into the
fields of a catalogue model entry (``engine.catalog_entries.MODEL_FIELDS``),
without the parameter counts, which ``engine.import_model`` counts from these
shapes. Nothing is fetched; only the file's own keys are read.

The family is the config's ``model_type`` (or, failing that, the class named in
``architectures``). Each family's keys, as the transformers and vLLM model
classes read them:

- Llama, Qwen2, Qwen3, GLM-4 (dense): ``num_hidden_layers``, ``hidden_size``,
  ``num_attention_heads``, ``num_key_value_heads`` (absent: no grouping),
  ``head_dim`` (absent: hidden_size / heads), ``intermediate_size``, ``vocab_size``,
  ``tie_word_embeddings`` (absent: false in every family here), ``max_position_embeddings``.
- Mistral: the same, with ``sliding_window`` on every layer (absent: 4,096, the
  transformers default; null: none).
- Mixtral, gpt-oss: ``num_local_experts`` experts of width ``intermediate_size``,
  ``num_experts_per_tok`` per token; gpt-oss's ``layer_types`` say which layers
  use its ``sliding_window``.
- Qwen2-MoE, Qwen3-MoE: ``num_experts`` of width ``moe_intermediate_size``; the
  layers in ``mlp_only_layers`` or off the ``decoder_sparse_step`` stay dense;
  Qwen2-MoE's shared expert of ``shared_expert_intermediate_size`` counts as that
  many routed-expert widths. ``use_sliding_window`` windows the layers from
  ``max_window_layers`` on.
- DeepSeek-V2/V3 (and Kimi K2, a DeepSeek-V3): ``n_routed_experts`` of width
  ``moe_intermediate_size``, ``n_shared_experts``, dense layers before
  ``first_k_dense_replace`` and off ``moe_layer_freq``; latent attention from
  ``q_lora_rank`` (null: none), ``kv_lora_rank``, ``qk_nope_head_dim``,
  ``qk_rope_head_dim``, ``v_head_dim``.
- GLM-4.5: ``n_routed_experts`` of ``moe_intermediate_size``, ``n_shared_experts``,
  ``first_k_dense_replace`` dense layers.

Wherever a config gives ``layer_types``, its "sliding_attention" layers are the
windowed ones. Left out, and said so in the entry's notes: biases (a few
millionths of the parameters), multi-token-prediction layers
(``num_nextn_predict_layers``: not used to generate the next token).
"""
from __future__ import annotations

from typing import Any

from engine.errors import refusal
from engine.units import format_count

# model_type -> the family as a sentence names it
FAMILIES = {
    "llama": "Llama", "mistral": "Mistral", "mixtral": "Mixtral", "qwen2": "Qwen2", "qwen2_moe": "Qwen2-MoE",
    "qwen3": "Qwen3", "qwen3_moe": "Qwen3-MoE", "deepseek_v2": "DeepSeek-V2", "deepseek_v3": "DeepSeek-V3",
    "kimi_k2": "Kimi K2", "gpt_oss": "gpt-oss", "glm4": "GLM-4", "glm4_moe": "GLM-4.5",
}
# the class in ``architectures`` -> model_type, for a config whose model_type is missing or a fine-tune's own
ARCHITECTURES = {
    "LlamaForCausalLM": "llama", "MistralForCausalLM": "mistral", "MixtralForCausalLM": "mixtral",
    "Qwen2ForCausalLM": "qwen2", "Qwen2MoeForCausalLM": "qwen2_moe", "Qwen3ForCausalLM": "qwen3",
    "Qwen3MoeForCausalLM": "qwen3_moe", "DeepseekV2ForCausalLM": "deepseek_v2",
    "DeepseekV3ForCausalLM": "deepseek_v3", "GptOssForCausalLM": "gpt_oss", "Glm4ForCausalLM": "glm4",
    "Glm4MoeForCausalLM": "glm4_moe",
}
SUPPORTED = ("Llama", "Mistral", "Mixtral", "Qwen2", "Qwen2-MoE", "Qwen3", "Qwen3-MoE", "DeepSeek-V2",
             "DeepSeek-V3 (Kimi K2)", "gpt-oss", "GLM-4", "GLM-4.5")
MISTRAL_DEFAULT_WINDOW = 4096       # transformers' MistralConfig.sliding_window when the key is absent
_QWEN = ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe")
_DEEPSEEK = ("deepseek_v2", "deepseek_v3", "kimi_k2")


def family_of(config: dict, shown: str) -> str:
    """The config's model_type if it is one this module reads; otherwise one sentence naming those it reads."""
    model_type = config.get("model_type")
    if model_type in FAMILIES:
        return model_type
    architectures = config.get("architectures")
    first = architectures[0] if isinstance(architectures, list) and architectures else None
    if first in ARCHITECTURES:
        return ARCHITECTURES[first]
    got = model_type if isinstance(model_type, str) and model_type else first if isinstance(first, str) else "unnamed"
    raise refusal("import.unknown_architecture", {"file": shown, "got": got, "families": list(SUPPORTED)})


class _Keys:
    """Reads whole-number keys of a config and remembers every one that is missing or not a whole number."""

    def __init__(self, config: dict, shown: str):
        self.config, self.shown = config, shown
        self.bad: list[str] = []

    def whole(self, key: str, default: int | None = None, minimum: int = 1) -> int:
        value = self.config.get(key, default)
        if value is None and default is not None:
            value = default
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.bad.append(key)
            return max(minimum, 1)
        return value

    def check(self, family: str) -> None:
        if self.bad:
            raise refusal("import.fields", {"file": self.shown, "keys": self.bad, "family": FAMILIES[family]})


def model_fields(config: Any, shown: str) -> tuple[dict, str, list[str]]:
    """(catalogue fields without the parameter counts, model_type, notes) of a parsed config.json."""
    if not isinstance(config, dict):
        raise refusal("import.not_object", {"file": shown})
    family = family_of(config, shown)
    keys, notes = _Keys(config, shown), []
    layers, hidden = keys.whole("num_hidden_layers"), keys.whole("hidden_size")
    heads = keys.whole("num_attention_heads")
    fields: dict[str, Any] = {
        "layers": layers, "hidden_size": hidden, "attention_heads": heads,
        "kv_heads": keys.whole("num_key_value_heads", default=heads), "vocab_size": keys.whole("vocab_size"),
        "tied_embeddings": config.get("tie_word_embeddings") is True,
    }
    if isinstance(config.get("max_position_embeddings"), int) and config["max_position_embeddings"] > 0:
        fields["max_context_tokens"] = config["max_position_embeddings"]
    if family in _DEEPSEEK:
        fields.update(_latent_attention(keys))
        fields["head_dim"] = fields["v_head_dim"]
    else:
        fields["head_dim"] = keys.whole("head_dim", default=hidden // heads if hidden % heads == 0 else 0)
    fields.update(_mlp(config, keys, family, layers, notes))
    keys.check(family)
    fields.update(_sliding_window(config, family, layers, fields.get("max_context_tokens", 0), notes))
    if config.get("num_nextn_predict_layers"):
        notes.append(f"The config's {config['num_nextn_predict_layers']} multi-token-prediction layer(s) "
                     "(num_nextn_predict_layers) are not counted: they are not used to generate the next token.")
    if config.get("attention_bias") is True or family in ("qwen2", "qwen2_moe", "gpt_oss"):
        notes.append("Biases (and gpt-oss's attention sinks, one value per head per layer) are left out of "
                     "the parameter count: under 0.1% of it." if family == "gpt_oss" else
                     "Attention biases are left out of the parameter count: under 0.1% of it.")
    return fields, family, notes


def _latent_attention(keys: _Keys) -> dict[str, int]:
    q_rank = keys.config.get("q_lora_rank")
    return {
        "q_lora_rank": 0 if q_rank is None else keys.whole("q_lora_rank"),
        "kv_lora_rank": keys.whole("kv_lora_rank"), "qk_nope_head_dim": keys.whole("qk_nope_head_dim"),
        "qk_rope_head_dim": keys.whole("qk_rope_head_dim"), "v_head_dim": keys.whole("v_head_dim"),
    }


def _mlp(config: dict, keys: _Keys, family: str, layers: int, notes: list[str]) -> dict[str, int]:
    """The dense MLP width and, for a mixture of experts, its experts and dense layers."""
    if family in ("llama", "mistral", "qwen2", "qwen3", "glm4"):
        return {"intermediate_size": keys.whole("intermediate_size")}
    if family in ("mixtral", "gpt_oss"):
        width = keys.whole("intermediate_size")
        top = keys.whole("num_experts_per_tok", default=config.get("experts_per_token"))
        return {"intermediate_size": width, "experts": keys.whole("num_local_experts"),
                "experts_per_token": top, "expert_intermediate_size": width}
    width = keys.whole("moe_intermediate_size")
    experts = keys.whole("num_experts" if family in _QWEN else "n_routed_experts")
    moe = {"experts": experts, "experts_per_token": keys.whole("num_experts_per_tok"),
           "expert_intermediate_size": width,
           "intermediate_size": keys.whole("intermediate_size", default=width)}
    if family in _QWEN:
        step = keys.whole("decoder_sparse_step", default=1)
        dense_only = config.get("mlp_only_layers") or []
        dense_only = set(dense_only) if isinstance(dense_only, list) else set()
        moe_layers = sum(1 for i in range(layers) if i not in dense_only and (i + 1) % step == 0)
        moe["shared_experts"] = _shared_expert_widths(config, keys, width, notes) if family == "qwen2_moe" else 0
    else:
        first_dense = keys.whole("first_k_dense_replace", default=0, minimum=0)
        frequency = keys.whole("moe_layer_freq", default=1) if family in _DEEPSEEK else 1
        moe_layers = sum(1 for i in range(layers) if i >= first_dense and i % frequency == 0)
        moe["shared_experts"] = keys.whole("n_shared_experts", default=0, minimum=0)
    moe["dense_layers"] = layers - moe_layers
    return moe


def _shared_expert_widths(config: dict, keys: _Keys, width: int, notes: list[str]) -> int:
    """Qwen2-MoE's one shared expert of ``shared_expert_intermediate_size``, as a count of routed-expert widths."""
    shared = keys.whole("shared_expert_intermediate_size", default=0, minimum=0)
    if shared % width:
        raise refusal("import.shared_expert", {"file": keys.shown, "shared": shared, "width": width})
    if shared:
        notes.append(f"The shared expert of width {shared} is counted as {shared // width} experts of width {width}.")
    return shared // width


def _sliding_window(config: dict, family: str, layers: int, longest: int, notes: list[str]) -> dict[str, int]:
    """``sliding_window_tokens`` and ``sliding_window_layers`` (both absent: every layer sees the whole context)."""
    window = config.get("sliding_window", MISTRAL_DEFAULT_WINDOW if family == "mistral" else None)
    layer_types = config.get("layer_types")
    if isinstance(layer_types, list) and layer_types:
        windowed = sum(1 for kind in layer_types if kind == "sliding_attention")
    elif family in _QWEN:
        start = config.get("max_window_layers", layers)
        windowed = max(0, layers - start) if config.get("use_sliding_window") is True and isinstance(start, int) else 0
    elif family in ("mistral", "mixtral"):
        windowed = layers
    else:
        windowed = 0
    if not windowed or isinstance(window, bool) or not isinstance(window, int) or window <= 0:
        return {}
    if longest and window >= longest:       # a window as long as the context changes nothing
        return {}
    if family == "mistral" and "sliding_window" not in config:
        notes.append(f"The config gives no sliding_window; the transformers default for Mistral, "
                     f"{format_count(MISTRAL_DEFAULT_WINDOW)} tokens, is used.")
    return {"sliding_window_tokens": window, "sliding_window_layers": min(windowed, layers)}
