"""Scene "why the GPU waits" (seed 1.1): a GPU as a factory (warehouse, belt, worker) drawn to scale, then the roofline.

The builds: the factory, its numbers, the ridge (compute ÷ bandwidth), decode
at batch 1 (the worker idles), FP8 weights (half the bytes, still idle), and
the roofline beside the belt. ``story`` decides (with ``figures`` for which of
the engine's numbers), ``view`` shows.
"""
