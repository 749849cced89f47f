"""Scene "the model in GPU memory" (seed 1.2): live memory bars and the three ways out.

The builds: 70B at FP16 against one 80 GB card, FP8, INT4, two cards, a smaller
model, the three ways side by side, then the shared scenario to explore.
``story`` decides, ``view`` shows.
"""
