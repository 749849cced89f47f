"""What tokens cost when GPU time is rented by the hour.

All ``gpus`` GPUs are busy for the whole request, so a second of request time
costs ``gpus * usd_per_gpu_hour / 3600`` dollars. The batch shares that time:

- input: the prefill pass handles ``batch * prompt_tokens`` tokens, so
  ``usd_per_million_input_tokens = prefill_seconds * usd_per_second / (batch * prompt_tokens) * 1e6``;
- output: one decode step produces ``batch`` tokens, so
  ``usd_per_million_output_tokens = tpot_seconds * usd_per_second / batch * 1e6``
  (the mean decode step; this is decode_seconds / (batch * decode steps)).

The ratio output/input does not depend on the price; it is computed from
times (``tpot * prompt_tokens / prefill_seconds``) so that it stays defined
when the price is 0. The seed's "output costs 2-4x input" is this ratio.
"""
from __future__ import annotations


from engine.frozen import frozen

SECONDS_PER_HOUR = 3600.0
TOKENS_PER_MILLION = 1e6


@frozen
class TokenPrices:
    usd_per_million_input_tokens: float
    usd_per_million_output_tokens: float
    output_to_input_ratio: float


def token_prices(prefill_seconds: float, tpot_seconds: float, gpus: int, batch: int,
                 prompt_tokens: int, usd_per_gpu_hour: float) -> TokenPrices:
    """Prices of a million input and output tokens from GPU time (module docstring)."""
    usd_per_second = gpus * usd_per_gpu_hour / SECONDS_PER_HOUR
    seconds_per_input_token = prefill_seconds / (batch * prompt_tokens)
    seconds_per_output_token = tpot_seconds / batch
    return TokenPrices(
        usd_per_million_input_tokens=seconds_per_input_token * usd_per_second * TOKENS_PER_MILLION,
        usd_per_million_output_tokens=seconds_per_output_token * usd_per_second * TOKENS_PER_MILLION,
        output_to_input_ratio=seconds_per_output_token / seconds_per_input_token,
    )
