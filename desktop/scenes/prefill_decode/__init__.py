"""Scene "prefill and decode" (seed 1.4): one request's timeline, the phases compared, batching and price.

The builds: the request alone, prefill (compute-bound, its utilisation strip),
decode (memory-bound), the share of time in decode, decode at a few batches
(and where it turns compute-bound), and what that does to the price of an
output token against an input token. ``story`` decides, ``view`` shows.
"""
