"""The summary's numbers (scene 7), Qt-free: the shared scenario's figures for the four answers.

In: the scenario, its report, the report of the same scenario on a busy server
(``BUSY_SERVER_BATCH`` sequences at once; a refusal is a value) and the
catalogue's display names. Out: the formatted values the answers, captions and
notes quote. Every number is the engine's; only its formatting happens here.
"""
from __future__ import annotations

from desktop.what_if import WhatIf, refused
from engine.kv_cache import work_ratio_without_cache
from engine.units import format_bytes, format_count, format_percent, format_ratio, format_usd

# question -> DESIGN.md numbers of the scenes that explain it
QUESTIONS: dict[str, tuple[int, ...]] = {
    "slow": (1, 3, 4),
    "kv_cache": (5,),
    "memory": (2, 5),
    "output_price": (4, 6),
}
# A busy server decodes many requests in one step, so one read of the weights serves them all;
# at this batch the output/input price ratio comes down to what providers charge (the seed's 2-4x).
BUSY_SERVER_BATCH = 128


def summary_values(scenario, report, busy: WhatIf, names: dict[str, str]) -> dict[str, str]:
    """Formatted values for the answers; ``names``: display names of gpu, model and weights_precision."""
    ratio = report.output_to_input_price_ratio
    busy_ratio = ratio if scenario.batch >= BUSY_SERVER_BATCH or refused(busy) else busy.output_to_input_price_ratio
    return {
        **names,
        "output": format_count(scenario.output_tokens),
        "weights": format_bytes(report.weights_bytes),
        "hbm": format_bytes(report.hbm_bytes_per_gpu),
        "gpus": format_count(scenario.gpus),
        "kv_per_token": format_bytes(report.kv_bytes_per_token, binary=True),
        "kv_bytes": format_bytes(report.kv_bytes),
        "decode_share": format_percent(report.decode_share),
        "prefill_util": format_percent(report.prefill.utilisation),
        "decode_util": format_percent(report.decode.utilisation),
        "work_ratio": format_count(work_ratio_without_cache(scenario.output_tokens)),
        "price": format_usd(scenario.usd_per_gpu_hour),
        "in_price": format_usd(report.usd_per_million_input_tokens),
        "out_price": format_usd(report.usd_per_million_output_tokens),
        "ratio": format_ratio(ratio),
        "batch": format_count(scenario.batch),
        "busy_batch": format_count(BUSY_SERVER_BATCH),
        "busy_ratio": format_ratio(busy_ratio),
    }
