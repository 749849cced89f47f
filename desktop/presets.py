"""Named scenarios a trainer hands out (Scenario ▸ Presets): each fits its GPUs and the engine accepts it.

Each is a complete ``Scenario``; its name is the text ``learner.preset.<id>`` in
both languages. They are the deployments a room asks about: the seed's 70B on
two H800s (the app's default), the 671B mixture-of-experts DeepSeek-V3 at FP8
on two 8-GPU H800 nodes, an 8B model on one gaming card, and a 32B Qwen on one
H20, the export-limited Hopper many Chinese rooms have. Every one keeps the
default price per GPU-hour (a trainer sets their own: no price here has a
source). Qt-free; a test asks the engine for every one.

DeepSeek-V3 on 16 GPUs: the engine on this branch costs 16 GPUs as one
tensor-parallel group at NVLink speed; the multi-node engine (one node's NVLink
inside, the network between nodes) changes its times, not whether it is accepted.
"""
from __future__ import annotations

from engine import Scenario

PRESETS: dict[str, Scenario] = {
    "llama70b_2xh800": Scenario(gpu="h800", model="llama-3.1-70b", weights="fp16", kv="fp16", gpus=2, batch=1,
                                prompt_tokens=1000, output_tokens=500),
    "deepseek_v3_16xh800": Scenario(gpu="h800", model="deepseek-v3", weights="fp8", kv="bf16", gpus=16, batch=16,
                                    prompt_tokens=2000, output_tokens=500),
    "llama8b_rtx4090": Scenario(gpu="rtx-4090", model="llama-3.1-8b", weights="fp16", kv="fp16", gpus=1, batch=4,
                                prompt_tokens=1000, output_tokens=500),
    "qwen3_32b_h20": Scenario(gpu="h20", model="qwen3-32b", weights="bf16", kv="bf16", gpus=1, batch=8,
                              prompt_tokens=2000, output_tokens=500),
}


def preset_text_key(preset_id: str) -> str:
    """The text that names the preset ``preset_id``."""
    return f"learner.preset.{preset_id}"
