"""Scene "the model in GPU memory" (seed 1.2): live memory bars and the three ways out.

The builds: 70B at FP16 against one 80 GB card, FP8, INT4, two cards, 405B over
two nodes (what crossing a node costs), a smaller model, the three ways side by
side, then the shared scenario to explore. ``story`` decides, ``bars`` and
``figures`` turn the engine's reports into the bars' states and the texts'
numbers, ``view`` shows.
"""
