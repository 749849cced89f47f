"""Scene "the KV cache" (seed 1.5): work N² against N, bytes per token, growth with context, sharing a card.

``story`` decides (with ``pictures`` and ``memory`` for what each picture
shows), ``view`` shows.
"""
